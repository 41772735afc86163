"""usim site: one page for the whole paper, checked in a real browser.

The page is loaded in headless Chromium (Debian's package, driven by
Playwright pointed at the system browser): every registered claim is there,
every status equals its certificate's, every link resolves, and a screenshot is
written for a person to look at (into $USIM_ARTIFACTS, else the test's own
temporary folder). Without a browser the browser test skips and says why.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from usim.cli import main
from usim.engine.certificate import certificate, digest, read_certificates
from usim.engine.runner import prove_claim
from usim.proofs import all_claims, get
from usim.site import build_site

CERTIFIED = {"lemma3": 1, "maxmin_published": 2, "relu": 1}  # claim -> bound: small and quick
CHROMIUM = os.environ.get("USIM_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def certificates(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("certificates")
    for claim_id, bound in CERTIFIED.items():
        report = prove_claim(get(claim_id), bound, timeout=60, jobs=1)
        (folder / f"{claim_id}.json").write_text(json.dumps(certificate(report, 60.0)))
    return folder


@pytest.fixture(scope="module")
def site(certificates, tmp_path_factory) -> Path:
    pytest.importorskip("matplotlib", reason="the claim pages need the plot extra")
    out = tmp_path_factory.mktemp("site")
    build_site(all_claims(), certificates, out)
    return out


def test_the_page_lists_every_claim_and_only_certified_statuses(site, certificates):
    page = (site / "index.html").read_text()
    for claim in all_claims():
        assert f'data-claim="{claim.id}"' in page
    for claim_id in CERTIFIED:
        (cert,) = read_certificates(str(certificates / f"{claim_id}.json"))
        assert f'data-claim="{claim_id}" data-status="{cert.status.value}"' in page
    assert 'data-claim="lemma4" data-status="NONE"' in page  # no certificate: not shown as proved


def test_an_edited_certificate_is_refused_and_nothing_is_written(certificates, tmp_path, capsys):
    bad = tmp_path / "certs"
    shutil.copytree(certificates, bad)
    data = json.loads((bad / "maxmin_published.json").read_text())
    data["status"] = "PROVED"
    (bad / "maxmin_published.json").write_text(json.dumps(data))
    assert main(["site", "--certificates", str(bad), "--out", str(tmp_path / "site"), "--no-pictures"]) == 2
    assert "edited" in capsys.readouterr().err
    assert not (tmp_path / "site" / "index.html").exists()
    data["digest"] = digest(data)  # resealed: its own rows still say REFUTED
    (bad / "maxmin_published.json").write_text(json.dumps(data))
    assert main(["site", "--certificates", str(bad), "--out", str(tmp_path / "site"), "--no-pictures"]) == 2


def test_a_missing_folder_is_one_line(tmp_path, capsys):
    assert main(["site", "--certificates", str(tmp_path / "none"), "--out", str(tmp_path / "s")]) == 2
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (Debian: apt-get install chromium; "
                    "or set USIM_CHROMIUM): the page is not checked in a browser here")
def test_the_page_in_a_real_browser(site, certificates, tmp_path):
    playwright = pytest.importorskip("playwright.sync_api", reason="Playwright is in the test extra")
    artifacts = Path(os.environ.get("USIM_ARTIFACTS", tmp_path))
    artifacts.mkdir(parents=True, exist_ok=True)
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
            "--disable-background-networking", "--disable-component-update"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto((site / "index.html").as_uri())
            rows = page.locator("#claims tr[data-claim]")
            assert sorted(rows.evaluate_all("rs => rs.map(r => r.dataset.claim)")) == \
                sorted(c.id for c in all_claims())
            for claim_id in CERTIFIED:
                (cert,) = read_certificates(str(certificates / f"{claim_id}.json"))
                shown = page.locator(f"#claim-{claim_id} td").nth(2).inner_text().split()[0]
                assert shown == cert.status.value
            page.screenshot(path=str(artifacts / "site.png"), full_page=True)
            links = page.locator("a").evaluate_all("as => as.map(a => a.href)")
            assert len(links) == len(CERTIFIED)
            for href in links:
                response = page.goto(href)
                assert response is not None and response.ok, href
                claim_id = href.split("/claims/")[1].split("/")[0]
                assert claim_id in page.title()
                images = page.locator("img").evaluate_all("is => is.map(i => i.naturalWidth)")
                assert images and all(width > 0 for width in images), f"{claim_id}: a picture did not load"
        finally:
            browser.close()
    assert (artifacts / "site.png").stat().st_size > 10_000
