"""Issue 22, found in review of the certificate checks: what report, site and
verify still believed.

- ``usim report`` wrote "PROVED for every shape up to N = 3" for a checked
  listing whose certificate holds the two shapes it was given (1x3 and 3x1),
  an identity that is no transpose at 2x2;
- a row relabelled (1x1x1 called 2x2x2, the cost table keyed by the label)
  made the site show another shape's cost, and verify said reproduced;
- counterexamples rewritten (expected -3, got -3) were reproduced by verify and
  shown by report and site as replayed refutations;
- a broken variant's rows deleted were reproduced;
- a bound of 100 000 made report and verify list shapes for hours;
- a field of the wrong type gave a traceback instead of one line.
"""

from __future__ import annotations

import json

import pytest

from usim.cli import main
from usim.engine.certificate import digest

IDENTITY = """def ident(r) {
    return tokens;
}
r = 1;
"""


def _prove(tmp_path, capsys, *args: str) -> dict:
    path = tmp_path / "cert.json"
    assert main(["prove", *args, "--no-cache", "--quiet", "--json", str(path)]) in (0, 1)
    capsys.readouterr()
    return json.loads(path.read_text())


def _sealed(tmp_path, data: dict, name: str = "edited.json") -> str:
    data["digest"] = digest(data)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def _verify(capsys, path: str) -> str:
    code = main(["verify", "--quiet", path])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "NOT reproduced" in out
    return out


def _refused(capsys, *args: str) -> str:
    try:
        code = main(list(args))
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err


def test_a_checked_listings_report_names_the_shapes_checked_not_every_shape_up_to_its_bound(tmp_path, capsys):
    listing = tmp_path / "ident.rasp"
    listing.write_text("def ident() {\n    return tokens;\n}\n")
    cert = tmp_path / "ident.json"
    main(["check", str(listing), "--function", "ident", "--spec", "transpose", "--shape", "1x3", "--shape", "3x1",
          "--json", str(cert)])
    capsys.readouterr()
    assert main(["report", str(cert)]) == 0
    text = capsys.readouterr().out
    assert "for every shape up to" not in text
    assert "at the shapes checked, 1x3, 3x1" in text


def test_a_relabelled_row_is_refused(tmp_path, capsys):
    data = _prove(tmp_path, capsys, "lemma5", "--max-n", "2")
    data["obligations"][0]["label"] = "2x2x2"
    path = _sealed(tmp_path, data)
    assert "is labelled '2x2x2'" in _refused(capsys, "report", path)
    _refused(capsys, "verify", path)


def test_a_rewritten_counterexample_is_not_reproduced(tmp_path, capsys):
    data = _prove(tmp_path, capsys, "maxmin_published", "--max-n", "1")
    for row in data["obligations"]:
        for engine in row["engines"]:
            if engine.get("counterexample"):
                engine["counterexample"]["got"] = engine["counterexample"]["expected"]
    out = _verify(capsys, _sealed(tmp_path, data))
    assert "does not replay to the same refutation" in out


def test_deleted_rows_of_a_broken_variant_are_not_reproduced(tmp_path, capsys):
    data = _prove(tmp_path, capsys, "lemma3", "--max-n", "2", "--mutants")
    kept = [m for m in data["mutants"] if not (m["mutant"] == "off-by-one" and m["shape"] == [2, 2])]
    assert len(kept) < len(data["mutants"])
    data["mutants"] = kept
    out = _verify(capsys, _sealed(tmp_path, data))
    assert "2x2 [off-by-one]: the broken variant's row is missing" in out


def test_a_bound_past_the_largest_usim_proves_to_is_refused_at_once(tmp_path, capsys):
    data = _prove(tmp_path, capsys, "relu", "--max-n", "1")
    data["bound"] = 100000
    path = _sealed(tmp_path, data)
    assert "above the largest" in _refused(capsys, "report", path)
    assert "above the largest" in _verify(capsys, path)


@pytest.mark.parametrize("edit", [
    lambda d: d.__setitem__("mutants", 5),
    lambda d: d.__setitem__("versions", None),
    lambda d: d.__setitem__("measures", -1),
    lambda d: [e.pop("detail", None) for r in d["obligations"] for e in r["engines"]],
    lambda d: d["obligations"][0].__setitem__("cost", {"layers": 0}),
])
def test_a_field_of_the_wrong_form_is_one_line_never_a_traceback(tmp_path, capsys, edit):
    data = _prove(tmp_path, capsys, "maxmin_published", "--max-n", "1")
    edit(data)
    path = _sealed(tmp_path, data)
    _refused(capsys, "report", path)


def test_the_shapes_past_the_bound_a_tie_was_checked_at_are_derived_again(tmp_path, capsys):
    import gzip
    from pathlib import Path

    committed = Path(__file__).resolve().parents[2] / "docs" / "certificates" / "lemma3.all-sizes.json.gz"
    data = json.loads(gzip.decompress(committed.read_bytes()))
    data["all_sizes"]["result"]["tie"]["beyond"] = []  # "tied past the bound" at no shape
    out = _verify(capsys, _sealed(tmp_path, data))
    assert "all_sizes.result.tie" in out
