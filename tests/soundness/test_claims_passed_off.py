"""Claims from code (usim/claim_code.py): the ways a review found to pass one claim off as another.

Each was found before it was fixed: two claims files whose folders both hold a
module construction.py proved the second file's claim with the first one's
construction (PROVED for a claim false on its own, and "reproduced");
usim.certificate of a claim redeclared under a registered id was a certificate
of the registered claim, which the site showed as PROVED; a claim of one's own
under a registered id was "reproduced" by verify; --run-claim-code imported a
module by its name wherever it now resolved; a file calling sys.exit(0) made
usim prove exit 0 having done nothing.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

import usim
from usim.cli import main
from usim.engine.certificate import digest
from usim.errors import UsimError

ROTATE = '''
import sympy, usim
from usim.constructions.base import Construction, fresh, gather
from usim.rasp.expr import indices, tokens

def build(rows, cols):
    source = fresh({source}, "src")
    program = usim.Program.of(f"rot{{rows}}", {{"R": gather(tokens, source).named("R")}})
    return Construction("rot", program, usim.SequenceLayout.of(("M", (rows, cols))),
                        usim.SequenceLayout.of(("R", (rows, cols))))
'''
CLAIMS = '''
import sympy, usim
from {module} import build

def rotated(m):
    M = m["M"]
    return {{"R": sympy.Matrix(M.rows, M.cols, lambda i, j: M[(i + 1) % M.rows, j])}}

CLAIM = usim.claim("{id}", paper="(mine)", title="rows rotated", statement="rows rotated up by one",
                   construction=build, target=rotated, shapes=usim.every_shape(2))
'''
ROTATION = "((indices // cols + 1) % rows) * cols + indices % cols"


def _project(folder: Path, claim_id: str, source: str, module: str = "construction") -> Path:
    """A claims file and its construction module beside it. (A process remembers the modules
    beside every claims file it loaded: tests other than the clash give theirs their own names.)"""
    folder.mkdir()
    (folder / f"{module}.py").write_text(ROTATE.format(source=source))
    (folder / "claims.py").write_text(CLAIMS.format(id=claim_id, module=module))
    return folder / "claims.py"


def test_two_claims_files_with_a_module_of_the_same_name_are_refused_in_one_run(tmp_path, capsys):
    right = _project(tmp_path / "a", "rot_a", ROTATION)
    identity = _project(tmp_path / "b", "rot_b", "indices")  # false: rows not rotated
    assert main(["prove", f"{identity}:CLAIM", "--max-n", "2", "-q", "--no-cache"]) == 1  # alone: refuted
    capsys.readouterr()
    assert main(["prove", f"{right}:CLAIM", f"{identity}:CLAIM", "--max-n", "2", "-q", "--no-cache"]) == 2
    assert "prove them in separate runs" in capsys.readouterr().err


def test_a_claim_of_ones_own_under_a_registered_id_is_refused(tmp_path, capsys):
    fake = _project(tmp_path / "c", "lemma3", ROTATION, "construction_c")
    assert main(["prove", f"{fake}:CLAIM", "--max-n", "1", "-q", "--no-cache"]) == 2
    assert "is registered in usim, and this one is not that claim" in capsys.readouterr().err


def test_the_registered_claim_named_by_its_module_is_the_registrys(tmp_path):
    ((claim, code),) = usim.api.claims_with_code("usim.proofs.lemma3_transpose:CLAIM")
    assert claim is usim.claims("lemma3")[0] and code is None
    cert = usim.certificate(usim.prove(claim, max_n=1))
    assert cert["source"] == {"kind": "claim"}


def test_no_certificate_for_a_claim_that_is_neither_the_registrys_nor_loaded_from_code():
    forged = usim.redeclare(usim.claims("lemma3")[0], target=lambda m: {"MT": m["M"].T})  # same id, not it
    report = usim.prove(forged, max_n=1)
    with pytest.raises(UsimError, match="is not the registry's and was not loaded from a file"):
        usim.certificate(report)


def test_a_file_that_exits_is_one_line_and_exit_2(tmp_path, capsys):
    path = tmp_path / "exits.py"
    path.write_text("import sys\nsys.exit(0)\n")
    assert main(["prove", str(path)]) == 2
    assert "raised SystemExit" in capsys.readouterr().err


def test_the_options_are_checked_before_the_users_code_runs(tmp_path, capsys):
    path = tmp_path / "loud.py"
    path.write_text("print('RAN')\n")
    assert main(["prove", str(path), "--jobs", "0"]) == 2
    captured = capsys.readouterr()
    assert "--jobs must be at least 1" in captured.err and "RAN" not in captured.out


def test_verify_imports_a_module_only_from_the_file_recorded(tmp_path, capsys, monkeypatch):
    claims = _project(tmp_path / "d", "rot_d", ROTATION, "construction_d")
    cert = tmp_path / "d.json"
    assert main(["prove", f"{claims}:CLAIM", "--max-n", "1", "-q", "--no-cache", "--json", str(cert)]) == 0
    data = json.loads(cert.read_text())
    data["source"]["reference"] = "json:dumps"  # resealed: the file and its digest unchanged
    data["digest"] = digest(data)
    cert.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["verify", str(cert), "-q", "--run-claim-code"]) == 2
    assert "not the code that was proved" in capsys.readouterr().err


@pytest.mark.parametrize("source", [{"kind": "claim_code", "file": None, "reference": "x.py", "sha256": "s"},
                                    {"kind": "claim_code", "file": "rel/x.py", "reference": "x.py", "sha256": "s"}])
def test_a_malformed_source_is_one_line(tmp_path, capsys, source):
    cert = tmp_path / "c.json"
    assert main(["prove", "lemma3", "--max-n", "1", "-q", "--no-cache", "--json", str(cert)]) == 0
    data = json.loads(cert.read_text())
    data["source"] = source
    data["digest"] = digest(data)
    cert.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["verify", str(cert), "-q", "--run-claim-code"]) == 2
    assert "names no absolute file and reference" in capsys.readouterr().err


def test_an_unbuilt_name_set_in_a_for_loop_leaves_the_rest_of_the_file_usable():
    from usim.repl import load_text

    text = textwrap.dedent('''
        z = indices + 1;
        for k in [1, 2] { x = tokens; x = x + x; x = x + x; }
        w = z * 2;
    ''')
    rasp = load_text(text, "l.rasp", symbols=True, inputs=list("abcdefghijklmn"))
    assert rasp.run("w", list("ab")) == [2, 4]
    with pytest.raises(UsimError, match="a table of more than 128 strings"):
        rasp.run("x", list("ab"))
