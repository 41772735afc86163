"""usim site: one page for the whole paper, checked in a real browser.

The page is loaded in headless Chromium (Debian's package, driven by
Playwright pointed at the system browser): every registered claim is there,
every status equals its certificate's, no table is wider than a 1 400 pixel
window, every link resolves to a claim page that pictures at least one head
(Theorem 6's: a stage of U), and screenshots of the index and of the Theorem 6
page are written for a person to look at (into $USIM_ARTIFACTS, else the test's own
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

CERTIFIED = {"lemma3": 1, "maxmin_published": 2, "relu": 1, "theorem6": 2}  # claim -> bound: small and quick
WIDTH = 1400  # the window the page must fit (links at its right were cut off)
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


def test_each_status_is_said_once_and_its_outcome_says_what_it_is_relative_to_the_paper(site):
    from usim.engine.claim import CATEGORIES
    from usim.site import OUTCOME

    assert set(OUTCOME) == set(CATEGORIES)
    page = (site / "index.html").read_text()
    for claim_id in CERTIFIED:
        row = page.split(f'id="claim-{claim_id}"')[1].split("</tr>")[0]
        status = row.split('data-status="')[1].split('"')[0]
        outcome = row.split('class="small outcome">')[1].split("<")[0]
        assert outcome == OUTCOME[get(claim_id).category]
        assert status.lower() not in outcome.lower()  # "PROVED" then "proved after correction" said it twice


def test_the_page_says_how_to_read_shapes_and_costs(site):
    from markupsafe import escape  # as the page's template escapes

    from usim.site import COSTS, SHAPES

    page = (site / "index.html").read_text()
    reading = page.split('id="reading"')[1].split("</details>")[0]
    assert "N x n x d x k" in SHAPES and str(escape(SHAPES)) in reading and str(escape(COSTS)) in reading
    assert "at 2x2x2x0: " in page  # theorem6's cost names its shape, which the explanation reads


def test_pages_drawn_in_parallel_are_the_pages_drawn_one_by_one(site, certificates, tmp_path):
    pytest.importorskip("matplotlib", reason="the claim pages need the plot extra")
    out = tmp_path / "parallel"
    build_site(all_claims(), certificates, out, jobs=2)
    for claim_id in CERTIFIED:
        page = out / "claims" / claim_id / "index.html"
        assert page.is_file() and [p.name for p in page.parent.iterdir()] == ["index.html"]  # pictures shared
        alone = (site / "claims" / claim_id / "index.html").read_text()
        assert page.read_text().count("<img") == alone.count("<img")


def test_every_picture_of_a_page_is_one_file_of_the_sites_images_stored_once(site):
    import re

    linked = []
    for claim_id in CERTIFIED:
        page = site / "claims" / claim_id / "index.html"
        sources = re.findall(r'<img alt="[^"]*" src="([^"]+)"', page.read_text())
        assert sources and not any(s.startswith("data:") for s in sources)
        for source in sources:
            assert (page.parent / source).resolve().is_file(), source
            assert (page.parent / source).resolve().parent == (site / "images").resolve()
        linked += sources
    stored = list((site / "images").iterdir())
    assert len(stored) == len({Path(s).name for s in linked})  # nothing stored that no page shows
    assert not [p for p in stored if p.suffix == ".part"]


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


def _has_heads(claim_id: str) -> bool:
    """Whether the program its page draws has attention heads (an element-wise block has none)."""
    from usim.rasp.cost import cost
    from usim.show import small_shape

    claim = get(claim_id)
    return bool(cost(claim.obligation(small_shape(claim)).construction.program).heads)


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
            page = browser.new_page(viewport={"width": WIDTH, "height": 1000})
            page.goto((site / "index.html").as_uri())
            widths = page.evaluate("() => [document.documentElement.scrollWidth, ...[...document.querySelectorAll("
                                   "'table')].map(t => Math.ceil(t.getBoundingClientRect().right))]")
            assert max(widths) <= WIDTH, f"the page is {max(widths)} px wide in a {WIDTH} px window"
            rows = page.locator("#claims tr[data-claim]")
            assert sorted(rows.evaluate_all("rs => rs.map(r => r.dataset.claim)")) == \
                sorted(c.id for c in all_claims())
            for claim_id in CERTIFIED:
                (cert,) = read_certificates(str(certificates / f"{claim_id}.json"))
                shown = page.locator(f"#claim-{claim_id} td").nth(2).inner_text().split()[0]
                assert shown == cert.status.value
            page.screenshot(path=str(artifacts / "site.png"), full_page=True)
            assert _has_heads("theorem6") and not _has_heads("relu")  # the check below is not vacuous
            links = page.locator("#claims a").evaluate_all("as => as.map(a => a.href)")
            assert len(links) == len(CERTIFIED)
            for href in links:
                response = page.goto(href)
                assert response is not None and response.ok, href
                claim_id = href.split("/claims/")[1].split("/")[0]
                assert claim_id in page.title()
                images = page.locator("img").evaluate_all(
                    "is => is.map(i => [i.getAttribute('alt'), i.naturalWidth])")
                assert images and all(width > 0 for _, width in images), f"{claim_id}: a picture did not load"
                if _has_heads(claim_id):
                    assert any(alt.startswith("selector of") for alt, _ in images), f"{claim_id}: no head pictured"
                if claim_id == "theorem6":
                    page.screenshot(path=str(artifacts / "theorem6.png"), full_page=True)
        finally:
            browser.close()
    assert (artifacts / "site.png").stat().st_size > 10_000
    assert (artifacts / "theorem6.png").stat().st_size > 10_000
