"""paper_map.md is kept true: its status and bound cells are what certificates back.

The committed certificates in docs/certificates/ are those of the bounds the
table states; the table must say exactly what they say, each must be a valid
certificate of the claim's shapes up to its bound, and each must still be
about the code as it is (the fingerprints of its obligations, checked up to
the claim's CI bound, equal those of the obligations built now). A bound raised
by hand in a copy of the table is caught.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from usim.cli import main
from usim.engine.certificate import certificate
from usim.engine.runner import prove_claim
from usim.engine.statement import fingerprint
from usim.paper_map import check, update
from usim.proofs import all_claims, get
from usim.registry import read_checked

ROOT = Path(__file__).resolve().parent.parent
PAPER_MAP = ROOT / "paper_map.md"
CERTIFICATES = ROOT / "docs" / "certificates"

TABLE = """| paper | claim in brief | usim claim | program | proof command | status | bound | notes |
|---|---|---|---|---|---|---|---|
| Lemma 3 | transpose | `lemma3` | x | `usim prove lemma3` | {status} | {bound} | prose stays |
| MaxMin | published | `maxmin_published` | x | y | refuted (erratum) | N=2 (2 obligations; refuted by sympy+z3) | |
"""


@pytest.fixture(scope="module")
def small_certificates(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("certificates")
    for claim_id, bound in (("lemma3", 2), ("maxmin_published", 2)):
        report = prove_claim(get(claim_id), bound, timeout=60, jobs=1)
        (folder / f"{claim_id}.json").write_text(json.dumps(certificate(report, 60.0)))
    return folder


def test_a_table_that_says_what_the_certificates_say_passes(small_certificates):
    text = TABLE.format(status="proved", bound="N=2 (4 obligations; sympy+z3)")
    assert check(text, all_claims(), small_certificates) == []


def test_a_bound_raised_by_hand_is_caught(small_certificates):
    text = TABLE.format(status="proved", bound="N=8 (4 obligations; sympy+z3)")
    (drift,) = check(text, all_claims(), small_certificates)
    assert (drift.claims, drift.column, drift.written) == (("lemma3",), "bound", "N=8 (4 obligations; sympy+z3)")


def test_a_status_no_certificate_backs_is_caught(small_certificates):
    text = TABLE.format(status="proved", bound="N=2 (4 obligations; sympy+z3)").replace(
        "refuted (erratum)", "proved")
    (drift,) = check(text, all_claims(), small_certificates)
    assert drift.claims == ("maxmin_published",) and drift.column == "status"


def test_update_writes_the_two_columns_and_keeps_the_prose(small_certificates):
    text = TABLE.format(status="proved beyond doubt", bound="N=99")
    new = update(text, all_claims(), small_certificates)
    assert check(new, all_claims(), small_certificates) == []
    assert "prose stays" in new and "N=99" not in new


def test_the_command_exits_1_on_drift_and_0_after_writing(small_certificates, tmp_path, capsys):
    copy = tmp_path / "paper_map.md"
    copy.write_text(TABLE.format(status="proved", bound="N=8"))
    assert main(["paper-map", "--certificates", str(small_certificates), "--file", str(copy)]) == 1
    assert "the bound says 'N=8'" in capsys.readouterr().out
    assert main(["paper-map", "--certificates", str(small_certificates), "--file", str(copy), "--write"]) == 0
    assert main(["paper-map", "--certificates", str(small_certificates), "--file", str(copy)]) == 0


# -- the real table and the committed certificates ---------------------------------------

def test_the_real_table_says_what_the_committed_certificates_say():
    drift = check(PAPER_MAP.read_text(), all_claims(), CERTIFICATES)
    assert not drift, "\n".join(d.describe() for d in drift) + \
        "\n(prove again with usim prove all --json-dir docs/certificates, then usim paper-map --write)"


def test_a_copy_with_a_wrong_bound_is_caught(tmp_path):
    lines = PAPER_MAP.read_text().splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("| Lemma 3 |"))
    lines[row] = lines[row].replace("N=", "N=1", 1)  # N=8 becomes N=18
    assert any(d.claims == ("lemma3",) and d.column == "bound"
               for d in check("\n".join(lines), all_claims(), CERTIFICATES))


@pytest.mark.parametrize("claim", all_claims(), ids=lambda c: c.id)
def test_each_committed_certificate_is_about_the_code_as_it_is(claim):
    (cert,) = read_checked(str(CERTIFICATES / f"{claim.id}.json.gz"), listings=False)
    small = {tuple(s) for s in claim.shapes(claim.ci_max_n)}
    # a claim about U_N (its shapes start with N) shares no shape with U at the CI bound:
    # then its first two obligations are rebuilt
    checked = [r for r in cert.obligations if tuple(r.shape) in small] or cert.obligations[:2]
    assert checked, f"{claim.id}: the certificate has no obligation"
    for recorded in checked:
        assert recorded.fingerprint == fingerprint(claim.obligation(recorded.shape)), \
            f"{claim.id} {recorded.label}: the obligation changed since the certificate was written"


def test_a_file_that_is_no_text_or_a_certificates_path_that_is_a_file_is_one_line(tmp_path, capsys):
    binary = tmp_path / "map.md"
    binary.write_bytes(b"\xff\xfe\x00 not utf-8")
    assert main(["paper-map", "--certificates", str(ROOT / "docs" / "certificates"), "--file", str(binary)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot read" in err[0] and "UTF-8" in err[0]
    assert main(["paper-map", "--certificates", str(binary), "--file", str(ROOT / "paper_map.md")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is a file, not a folder" in err[0]


def _authors_rows() -> list[list[str]]:
    text = (Path(__file__).resolve().parent.parent / "paper_map.md").read_text()
    start = text.index("| file | commit | function |")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def test_every_row_of_the_authors_table_names_the_commit_it_checked() -> None:
    rows = _authors_rows()
    assert len(rows) >= 20
    for row in rows:
        assert re.fullmatch(r"[0-9a-f]{7}", row[1]), row[:3]
        shown = re.search(r"git show ([0-9a-f]{7}):", row[-1])
        assert shown is None or shown.group(1) == row[1], row[:3]  # an older version is written out of the clone


def test_a_row_for_a_version_not_on_the_main_branch_says_how_to_get_it() -> None:
    for row in _authors_rows():
        if "earlier" in row[0] or "before" in row[0] or "branch" in row[0]:
            assert "git show " in row[-1], row[:3]
