"""Claims from any file or module (usim/claim_code.py): usim prove FILE.py:NAME, its certificate and usim verify."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from usim.claim_code import CLAIM_CODE, is_code_reference, load_claims
from usim.cli import main
from usim.errors import InputError

FLIP = textwrap.dedent('''
    import sympy
    import usim
    from usim.constructions.base import Construction, fresh, gather
    from usim.rasp.expr import indices, tokens

    def flip(rows, cols):
        row, col = indices // cols, indices % cols
        source = fresh((rows - 1 - row) * cols + col, "flip_src")
        program = usim.Program.of(f"flip{rows}", {"F": gather(tokens, source).named("F")})
        return Construction(f"flip {rows}x{cols}", program, usim.SequenceLayout.of(("M", (rows, cols))),
                            usim.SequenceLayout.of(("F", (rows, cols))))

    def reversed_rows(m):
        M = m["M"]
        return {"F": sympy.Matrix(M.rows, M.cols, lambda i, j: M[M.rows - 1 - i, j])}

    FLIP = usim.claim("flip", paper="(mine)", title="rows reversed", statement="M with its rows reversed",
                      construction=flip, target=reversed_rows, shapes=usim.every_shape(2),
                      mutants={"no-flip": lambda shape: {"flip_src": lambda node: indices}})
    WRONG = usim.redeclare(FLIP, id="flip_wrong", target=lambda m: {"F": m["M"]})
    CLAIMS = (FLIP,)
''')


@pytest.fixture
def claims_file(tmp_path) -> Path:
    path = tmp_path / "my_claims.py"
    path.write_text(FLIP)
    return path


def test_a_registered_id_is_not_a_reference_to_code():
    assert not is_code_reference("lemma3") and not is_code_reference("all")
    assert is_code_reference("claims.py") and is_code_reference("pkg.claims") and is_code_reference("c.py:X")


def test_a_file_gives_its_claims_list_or_the_one_named(claims_file):
    assert [c.id for c, _ in load_claims(str(claims_file))] == ["flip"]
    ((claim, code),) = load_claims(f"{claims_file}:WRONG")
    assert claim.id == "flip_wrong" and code.as_source()["kind"] == CLAIM_CODE
    assert code.file == str(claims_file.resolve()) and code.sha256.startswith("sha256:")


@pytest.mark.parametrize("text, reference, message", [
    ("x = 1\n", "{f}:x", "is not a claim or a tuple of claims"),
    ("x = 1\n", "{f}", "defines no claim"),
    ("x = 1\n", "{f}:y", "has no 'y'"),
    ("def f(:\n", "{f}", "syntax error"),
    ("raise ValueError('no')\n", "{f}", "raised ValueError: no (at line 1)"),
])
def test_bad_code_is_one_line_naming_what_is_wrong(tmp_path, text, reference, message):
    path = tmp_path / "bad.py"
    path.write_text(text)
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_claims(reference.format(f=path))


def test_usim_prove_of_a_missing_file_is_exit_2(tmp_path, capsys):
    assert main(["prove", str(tmp_path / "none.py")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_usim_prove_a_file_writes_a_certificate_verify_runs_again_only_when_asked(claims_file, tmp_path, capsys):
    cert = tmp_path / "flip.json"
    assert main(["prove", f"{claims_file}:FLIP", "--max-n", "2", "--mutants", "-q", "--no-cache",
                 "--json", str(cert)]) == 0
    source = json.loads(cert.read_text())["source"]
    assert source["kind"] == CLAIM_CODE and source["reference"] == f"{claims_file}:FLIP"
    capsys.readouterr()
    assert main(["verify", str(cert), "-q"]) == 2  # the code is run only when asked
    assert "--run-claim-code" in capsys.readouterr().err
    assert main(["verify", str(cert), "-q", "--run-claim-code"]) == 0
    assert "flip: reproduced" in capsys.readouterr().out


def test_a_certificate_whose_code_changed_is_not_reproduced(claims_file, tmp_path, capsys):
    """The same name in an edited file may make another claim: it is not the code that was proved."""
    cert = tmp_path / "flip.json"
    assert main(["prove", f"{claims_file}:FLIP", "--max-n", "1", "-q", "--no-cache", "--json", str(cert)]) == 0
    claims_file.write_text(FLIP.replace("M.rows - 1 - i", "i"))  # now the identity, still named flip
    capsys.readouterr()
    assert main(["verify", str(cert), "-q", "--run-claim-code"]) == 2
    assert "has changed since the certificate was written" in capsys.readouterr().err


def test_a_wrong_target_in_a_file_is_refuted_from_the_command_line(claims_file, capsys):
    assert main(["prove", f"{claims_file}:WRONG", "--max-n", "2", "-q", "--no-cache"]) == 1
    assert "REFUTED" in capsys.readouterr().out


def test_the_site_speaks_only_for_registered_claims(claims_file, tmp_path, capsys):
    certs = tmp_path / "certs"
    assert main(["prove", f"{claims_file}:FLIP", "--max-n", "1", "-q", "--no-cache", "--json-dir", str(certs)]) == 0
    capsys.readouterr()
    assert main(["site", "--certificates", str(certs), "--out", str(tmp_path / "site"), "--no-pictures"]) == 2
    assert "not of a registered claim" in capsys.readouterr().err


def test_usim_show_draws_a_claim_from_a_file(claims_file, tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="usim show needs the plot extra")
    assert main(["show", f"{claims_file}:FLIP", "--out", str(tmp_path / "show")]) == 0
    assert capsys.readouterr().out.startswith("flip at 2x2: 1 head(s) in 1 layer(s)")
    assert main(["show", str(claims_file).replace("my_claims", "none"), "--out", str(tmp_path / "x")]) == 2


def test_usim_compile_compiles_a_claim_from_a_file(claims_file, capsys):
    assert main(["compile", f"{claims_file}:FLIP", "--shape", "2x2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# flip2 as a transformer") and "no weights claim states it for this program" in out
    assert main(["compile", f"{claims_file}:FLIP", "--shape", "2x2x2"]) == 2


def test_verify_runs_the_claims_code_once(claims_file, tmp_path, capsys):
    """The reference and the obligations are built from the one claim loaded (the code ran twice)."""
    runs = tmp_path / "runs.txt"
    claims_file.write_text(f"open({str(runs)!r}, 'a').write('x')\n" + FLIP)
    cert = tmp_path / "flip.json"
    assert main(["prove", f"{claims_file}:FLIP", "--max-n", "1", "-q", "--no-cache", "--json", str(cert)]) == 0
    runs.write_text("")
    assert main(["verify", str(cert), "-q", "--run-claim-code"]) == 0
    assert runs.read_text() == "x"
