"""Hole 7: certificates could be edited into proofs.

A REFUTED certificate with its top status edited to PROVED rendered as
"Status: PROVED" above rows that said REFUTED; a fully edited one (bound raised,
obligations removed) rendered as a clean proof; a malformed one crashed
``usim report``. Now every status is derived from the rows, the digest seals the
file, the obligations must be the claim's shapes up to the bound, and
``usim verify`` re-runs every obligation.
"""

from __future__ import annotations

import json

import pytest

from usim.cli import main
from usim.engine.certificate import digest


def _prove(tmp_path, capsys, *args) -> tuple[dict, str]:
    path = tmp_path / "cert.json"
    main(["prove", *args, "--json", str(path), "-q"])
    capsys.readouterr()
    return json.loads(path.read_text()), str(path)


def _write(tmp_path, data, reseal: bool) -> str:
    if reseal:
        data["digest"] = digest(data)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    return str(path)


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]
    return err[0]


@pytest.fixture
def refuted(tmp_path, capsys):
    """The published Match2 (an erratum): REFUTED at N=1."""
    return _prove(tmp_path, capsys, "match2_published", "--max-n", "2")


def test_a_refuted_certificate_edited_to_proved_is_refused(refuted, tmp_path, capsys):
    data, _ = refuted
    assert data["status"] == "REFUTED"
    data["status"] = "PROVED"
    for reseal in (False, True):
        assert main(["report", _write(tmp_path, dict(data), reseal)]) == 2
        line = _one_error_line(capsys)
        assert ("edited" in line) if not reseal else ("not what its obligations say" in line)


def test_rows_edited_to_proved_are_refused_even_when_resealed(refuted, tmp_path, capsys):
    data, _ = refuted
    for row in data["obligations"]:
        row["status"] = "PROVED"
    data["status"] = "PROVED"
    assert main(["report", _write(tmp_path, data, reseal=True)]) == 2
    assert "not what its engines say" in _one_error_line(capsys)


def test_a_fully_edited_certificate_is_refused_or_not_reproduced(refuted, tmp_path, capsys):
    """Bound raised, refuted rows removed, the rest made consistent and resealed."""
    data, _ = refuted
    data["bound"] = 4
    data["obligations"] = [r for r in data["obligations"] if r["status"] == "PROVED"] or data["obligations"][:1]
    assert main(["report", _write(tmp_path, data, reseal=True)]) == 2
    assert "shapes up to N=4: the certificate lists 1, the registry 48" in _one_error_line(capsys)


def test_engine_verdicts_forged_consistently_are_caught_by_verify(tmp_path, capsys):
    data, _ = _prove(tmp_path, capsys, "match2_published", "--max-n", "2")
    for row in data["obligations"]:
        for engine in row["engines"]:
            engine["status"], engine["counterexample"] = "PROVED", None
        row["definedness"]["status"] = row["witness"]["status"] = "PROVED"
        row["status"] = "PROVED"
    data["status"] = "PROVED"
    path = _write(tmp_path, data, reseal=True)
    assert main(["report", path]) == 2  # consistent and sealed, but an erratum is not rendered as proved
    assert "erratum match2_published PROVED up to N=2" in _one_error_line(capsys)
    assert main(["verify", path, "-q"]) == 1  # and running it again says otherwise
    out = capsys.readouterr().out
    assert "NOT reproduced" in out and "recorded PROVED, now REFUTED" in out


def test_verify_reproduces_an_honest_certificate(tmp_path, capsys):
    _, path = _prove(tmp_path, capsys, "lemma3", "lemma4", "--max-n", "2")
    assert main(["verify", path, "-q"]) == 0
    out = capsys.readouterr().out
    assert "lemma3: reproduced (4 obligation(s), status PROVED)" in out
    assert "lemma4: reproduced" in out


def test_verify_reproduces_a_checked_listing_from_its_embedded_source(tmp_path, capsys):
    listing = tmp_path / "t.rasp"
    listing.write_text("def transpose(r) {\n  c = length / r;\n"
                       "  src = (indices % r) * c + (indices - indices % r) / r;\n"
                       "  return aggregate(select(indices, src, ==), tokens, 0);\n}\n")
    cert = tmp_path / "t.json"
    assert main(["check", str(listing), "-f", "transpose", "--spec", "transpose", "--max-n", "2",
                 "--json", str(cert)]) == 0
    listing.unlink()  # verify needs only the certificate
    capsys.readouterr()
    assert main(["verify", str(cert), "-q"]) == 0
    assert "reproduced" in capsys.readouterr().out


@pytest.mark.parametrize("content, message", [
    ("", "is empty"),
    ('{"usim_certificate": 2, "claim": {"id": "lemma3"}, "obligations": [', "not JSON"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "not a text file"),
    ("[1, 2, 3]", "not a usim certificate"),
    ('{"usim_certificate": 1}', "version 1 certificate"),
])
def test_malformed_certificates_are_one_line_and_exit_2(content, message, tmp_path, capsys):
    path = tmp_path / "bad.json"
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    for command in ("report", "verify"):
        assert main([command, str(path)]) == 2
        assert message in _one_error_line(capsys)


def test_a_directory_or_a_missing_file_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    assert "is a directory" in _one_error_line(capsys)
    assert main(["report", str(tmp_path / "none.json")]) == 2
    assert "no such file" in _one_error_line(capsys)


def test_a_certificate_with_malformed_rows_is_refused(tmp_path, capsys):
    data, _ = _prove(tmp_path, capsys, "lemma3", "--max-n", "1")
    data["obligations"][0]["engines"][0]["status"] = "MAYBE"
    assert main(["report", _write(tmp_path, data, reseal=True)]) == 2
    assert "unknown status 'MAYBE'" in _one_error_line(capsys)
    data["obligations"][0]["shape"] = "1x1"
    assert main(["report", _write(tmp_path, data, reseal=True)]) == 2
    assert "no valid shape" in _one_error_line(capsys)
