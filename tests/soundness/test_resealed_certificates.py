"""Issue 22, part 2: certificates edited and re-sealed.

A certificate's digest is an unkeyed sha256 that anyone can recompute, and
``usim report``, ``site`` and ``paper-map`` believed what a re-sealed one said
about its claim, as ``usim verify`` did (it compared statuses only): Lemma 5's
all-sizes certificate with the side condition r * c <= k * (r + c) deleted
rendered as "PROVED for every size with r >= 1, k >= 1, c >= 1" (false:
erratum E2), was "reproduced", and went into paper_map.md; ReLU's certificate
retitled "ReLU is the identity" rendered and was reproduced; Lemma 5's
all-sizes section pasted into ReLU's certificate rendered as ReLU proved for
every size; an erratum's rows all rewritten PROVED rendered as "the
construction as published is PROVED". Now what a certificate states is
re-derived from the registry (usim.engine.statement_check) by all four
commands: verify lists each difference, naming the field, and runs nothing;
report, site and paper-map refuse the file (one line, exit 2, nothing written),
and an erratum recorded PROVED is never rendered.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

from usim.cli import main
from usim.engine.certificate import digest

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "docs" / "certificates"
TABLE = """| paper | claim in brief | usim claim | program | proof command | status | bound | notes |
|---|---|---|---|---|---|---|---|
| Lemma 5 | product | `lemma5` | x | y | proved | N=3 | prose stays |
| Cor. 6.1 | ReLU | `relu` | x | y | proved | N=16 | |
| MaxMin | published | `maxmin_published` | x | y | refuted (erratum) | N=4 | |
"""


def _committed(name: str) -> dict:
    return json.loads(gzip.decompress((COMMITTED / f"{name}.json.gz").read_bytes()))


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    return err[0]


def _folder(tmp_path: Path, name: str, data: dict, companions: tuple[str, ...]) -> Path:
    """A certificates folder: the edited certificate, re-sealed, beside unedited ones."""
    folder = tmp_path / "certificates"
    folder.mkdir()
    for companion in companions:
        shutil.copy(COMMITTED / f"{companion}.json.gz", folder)
    data["digest"] = digest(data)
    (folder / f"{name}.json").write_text(json.dumps(data))
    return folder


def _refused_everywhere(tmp_path, capsys, name: str, data: dict, field: str,
                        companions: tuple[str, ...] = ()) -> None:
    folder = _folder(tmp_path, name, data, companions)
    edited = str(folder / f"{name}.json")
    assert main(["verify", edited, "-q"]) == 1
    out = capsys.readouterr().out
    assert "NOT reproduced" in out and field in out, out
    assert main(["report", edited]) == 2
    assert field in _one_error_line(capsys)
    site = tmp_path / "site"
    assert main(["site", "--certificates", str(folder), "--out", str(site), "--no-pictures"]) == 2
    assert field in _one_error_line(capsys)
    assert not (site / "index.html").exists()
    table = tmp_path / "paper_map.md"
    table.write_text(TABLE)
    assert main(["paper-map", "--certificates", str(folder), "--file", str(table), "--write"]) == 2
    assert field in _one_error_line(capsys)
    assert table.read_text() == TABLE


def test_lemma5_for_every_size_without_its_side_condition_is_not_reproduced_nor_rendered(tmp_path, capsys):
    data = _committed("lemma5.all-sizes")
    for where in (data["all_sizes"], data["all_sizes"]["result"]):
        where["conditions"] = where["conditions"].replace(", r * c <= k * (r + c)", "")
    _refused_everywhere(tmp_path, capsys, "lemma5.all-sizes", data,
                        "all_sizes.conditions: the certificate says 'r >= 1, k >= 1, c >= 1', the registry "
                        "'r >= 1, k >= 1, c >= 1, r * c <= k * (r + c)'", companions=("lemma5",))


def test_relu_retitled_the_identity_is_not_reproduced_nor_rendered(tmp_path, capsys):
    data = _committed("relu")
    data["claim"]["title"] = "ReLU is the identity"
    data["claim"]["statement"] = "For every n, the program outputs its input: ReLU is the identity."
    _refused_everywhere(tmp_path, capsys, "relu", data, "claim.title: the certificate says 'ReLU is the identity'")


def test_lemma5s_all_sizes_section_in_relus_certificate_is_not_reproduced_nor_rendered(tmp_path, capsys):
    data = _committed("relu")
    data["all_sizes"] = _committed("lemma5.all-sizes")["all_sizes"]
    for where in (data["all_sizes"], data["all_sizes"]["result"]):
        where["conditions"] = "n >= 1"
    data["all_sizes"]["result"]["claim"] = "relu"
    _refused_everywhere(tmp_path, capsys, "relu.all-sizes", data,
                        "all_sizes: the certificate says 'a verdict for every size', the registry 'no statement "
                        "for every size of relu'", companions=("relu",))


def test_an_erratum_rewritten_proved_is_not_reproduced_nor_rendered(tmp_path, capsys):
    data = _committed("maxmin_published")
    assert data["status"] == "REFUTED"
    for row in data["obligations"]:
        for engine in row["engines"] + [row["definedness"]]:
            engine["status"], engine["counterexample"] = "PROVED", None
        row["witness"]["status"] = "PROVED"
        row["status"] = row["equality"] = "PROVED"
    data["status"] = "PROVED"
    folder = _folder(tmp_path, "maxmin_published", data, ())
    edited = str(folder / "maxmin_published.json")
    assert main(["verify", edited, "-q"]) == 1
    assert "recorded PROVED, now REFUTED" in capsys.readouterr().out
    for command in (["report", edited], ["site", "--certificates", str(folder), "--out", str(tmp_path / "site"),
                                        "--no-pictures"]):
        assert main(command) == 2
        assert "the erratum maxmin_published PROVED up to N=4" in _one_error_line(capsys)
    table = tmp_path / "paper_map.md"
    table.write_text(TABLE)
    assert main(["paper-map", "--certificates", str(folder), "--file", str(table), "--write"]) == 2
    assert "the erratum maxmin_published PROVED" in _one_error_line(capsys)
    assert table.read_text() == TABLE


def test_the_unedited_certificates_are_reproduced_and_rendered(tmp_path, capsys):
    names = ("lemma5.all-sizes", "lemma5", "relu", "maxmin_published")
    rendered = {}
    for name in names:
        assert main(["verify", str(COMMITTED / f"{name}.json.gz"), "-q"]) == 0
        assert "reproduced" in capsys.readouterr().out
        assert main(["report", str(COMMITTED / f"{name}.json.gz")]) == 0
        rendered[name] = capsys.readouterr().out
    assert "**PROVED** for every size with r >= 1, k >= 1, c >= 1, r * c <= k * (r + c)" in \
        rendered["lemma5.all-sizes"]
    assert "**Erratum: the construction as published is REFUTED**" in rendered["maxmin_published"]
    folder = tmp_path / "certificates"
    folder.mkdir()
    for name in names:
        shutil.copy(COMMITTED / f"{name}.json.gz", folder)
    assert main(["site", "--certificates", str(folder), "--out", str(tmp_path / "site"), "--no-pictures"]) == 0
    table = tmp_path / "paper_map.md"
    table.write_text(TABLE)
    assert main(["paper-map", "--certificates", str(folder), "--file", str(table), "--write"]) == 0
    assert main(["paper-map", "--certificates", str(folder), "--file", str(table)]) == 0
    assert "**all sizes (r >= 1, k >= 1, c >= 1, r * c <= k * (r + c))**" in table.read_text()


def test_a_broken_variant_with_no_row_where_it_breaks_nothing_is_still_rendered(tmp_path, capsys):
    path = tmp_path / "weights.json"  # wrong-score breaks only part 0 of the network: no rows at parts 1, 2
    assert main(["prove", "lemma3_weights", "--max-n", "2", "--mutants", "-q", "-j", "1", "--json", str(path)]) == 0
    rows = json.loads(path.read_text())["mutants"]
    assert rows and all(row["shape"][-1] == 0 for row in rows)
    assert main(["report", str(path)]) == 0


def test_a_checked_listing_with_another_statement_is_not_reproduced_and_not_a_claims_certificate(tmp_path, capsys):
    folder = tmp_path / "certificates"
    folder.mkdir()
    cert = folder / "lemma3.json"  # it carries the transpose spec's claim id
    assert main(["check", str(ROOT / "examples" / "rasp" / "transpose.rasp"), "-f", "transpose_rows",
                 "--spec", "transpose", "--max-n", "1", "--json", str(cert)]) == 0
    capsys.readouterr()
    assert main(["site", "--certificates", str(folder), "--out", str(tmp_path / "site"), "--no-pictures"]) == 2
    assert "a certificate of usim check" in _one_error_line(capsys)
    data = json.loads(cert.read_text())
    data["claim"]["statement"] = "M for M (r x c): the identity"
    data["digest"] = digest(data)
    cert.write_text(json.dumps(data))
    assert main(["verify", str(cert), "-q"]) == 1
    assert "claim.statement: the certificate says 'M for M (r x c): the identity', the embedded listing and " \
           "spec 'M^T for M (r x c) (Lemma 3)'" in capsys.readouterr().out
    assert main(["report", str(cert)]) == 2
    assert "claim.statement" in _one_error_line(capsys)


def test_a_row_without_its_fingerprint_or_with_another_cost_is_not_reproduced(tmp_path, capsys):
    data = _committed("relu")
    data["obligations"][0]["fingerprint"] = None
    data["obligations"][1]["cost"]["layers"] = 1
    data["cost"][data["obligations"][1]["label"]]["layers"] = 1
    data["digest"] = digest(data)
    path = tmp_path / "relu.json"
    path.write_text(json.dumps(data))
    assert main(["verify", str(path), "-q"]) == 1
    out = capsys.readouterr().out
    assert "1: the certificate records no fingerprint" in out
    assert "2: cost: the certificate says" in out


def test_a_budget_for_every_size_edited_to_no_timeout_is_refused_as_the_certificate_is_read(tmp_path, capsys):
    """Found in the re-read of 2026-12-05: the section's budget was checked only by
    usim verify, so report rendered a re-sealed `true` as "1 s"."""
    for index, bad in enumerate((True, -1, 1e9, "1800")):
        data = _committed("theorem9.all-sizes")
        data["all_sizes"]["timeout_seconds"] = bad
        (tmp_path / str(index)).mkdir()
        folder = _folder(tmp_path / str(index), "theorem9.all-sizes", data, ())
        assert main(["report", str(folder / "theorem9.all-sizes.json")]) == 2
        assert "the recorded budget" in _one_error_line(capsys)
