"""``usim run``: what it prints, and one clear line (exit 2) for every user mistake."""

from __future__ import annotations

import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from usim.cli import main
from usim.commands.run import format_matrix
from usim.encodings.notation import parse_value, parse_values
from usim.errors import InputError

REPO = Path(__file__).resolve().parents[1]


def _section(text: str, title: str) -> list[list[str]]:
    """The rows of the matrix printed under the line starting with ``title``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title)) + 1
    rows = []
    for line in lines[start:]:
        if not line.startswith("  "):
            break
        rows.append(line.split())
    return rows


def test_transpose_prints_input_cost_output_reference_and_difference(capsys) -> None:
    assert main(["run", "transpose", "--shape", "2x3", "--values", "1,2,3,4,5,1/3"]) == 0
    out = capsys.readouterr().out
    assert _section(out, "input M (2x3)") == [["1", "2", "3"], ["4", "5", "1/3"]]
    assert _section(out, "output MT (3x2)") == [["1", "4"], ["2", "5"], ["3", "1/3"]]
    assert _section(out, "numpy reference") == [["1", "4"], ["2", "5"], ["3", "1/3"]]
    assert "cost: 1 attention layer(s), heads per layer [1]" in out
    assert "counting the length layer: 2 layer(s) [1, 1]" in out
    assert "largest difference: 0 (exact)" in out


def test_matmul_with_random_values_is_reproducible_and_exact(capsys) -> None:
    assert main(["run", "matmul", "--shape", "2x3x2", "--random", "--seed", "5"]) == 0
    first = capsys.readouterr().out
    assert main(["run", "matmul", "--shape", "2x3x2", "--random", "--seed", "5"]) == 0
    assert capsys.readouterr().out == first
    a = np.array(_section(first, "input A (2x3)"), dtype=int)
    b = np.array(_section(first, "input B (3x2)"), dtype=int)
    assert np.array_equal(np.array(_section(first, "output AB (2x2)"), dtype=int), a @ b)
    assert "heads per layer [4, 4]" in first and "3 layer(s) [1, 4, 4]" in first
    assert "positions past the result (8): all 0" in first
    assert "largest difference: 0 (exact)" in first


def test_softmax_numeric_and_the_paper_base(capsys) -> None:
    assert main(["run", "softmax", "--shape", "3x2", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "numeric (float64)" in out and "heads per layer [3]" in out
    assert float(re.search(r"largest difference: (\S+)", out).group(1)) < 1e-12
    assert main(["run", "softmax", "--shape", "1x2", "--values=0,1", "--base", "2.718", "--exact"]) == 0
    out = capsys.readouterr().out
    assert _section(out, "output softmax(S) (1x2)") == [["500/1859", "1359/1859"]]  # 1/(1+2.718), 2.718/(1+2.718)
    difference = float(re.search(r"largest difference: (\S+)", out).group(1))
    assert 1e-6 < difference < 1e-4  # the approximation of e, shown, not hidden
    assert "base 2.718 stands for e" in out


@pytest.mark.parametrize("argv, message", [
    (["transpose", "--shape", "2by3"], "cannot read the shape '2by3'"),
    (["transpose", "--shape", "2x3x4"], "needs 2 dimensions, got 3"),
    (["matmul", "--shape", "2x2"], "needs 3 dimensions, got 2"),
    (["softmax", "--shape", "0x3"], "must be at least 1"),
    (["matmul", "--shape", "3x1x3"], "has 9 entries but the input sequence only 6 positions"),
    (["transpose", "--shape", "2x2", "--values", "1,2,3"], r"M \(2x2\) needs 4 values, got 3"),
    (["matmul", "--shape", "1x1x1", "--values", "1,2,3"], r"A \(1x1\) and B \(1x1\) need 2 values, got 3"),
    (["transpose", "--shape", "1x2", "--values", "1,nan"], "'nan' is not finite"),
    (["transpose", "--shape", "1x2", "--values", "1,-inf"], "'-inf' is not finite"),
    (["transpose", "--shape", "1x2", "--values", "1,two"], "cannot read 'two' as a number"),
    (["softmax", "--shape", "2x2", "--exact"], r"exp\(.*\) is irrational"),
    (["softmax", "--shape", "1x2", "--base", "2.718", "--exact", "--values", "0.5,1"], "needs integer entries"),
    (["softmax", "--shape", "1x2", "--base", "0"], "base must be positive"),
    (["transpose", "--shape", "2x2", "--base", "2"], "--base applies to softmax only"),
])
def test_mistakes_are_one_line_and_exit_2(capsys, argv: list[str], message: str) -> None:
    assert main(["run", *argv]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("usim run: error: "), captured.err
    assert re.search(message, lines[0]), lines[0]
    assert "Traceback" not in captured.err


def test_the_module_entry_point_in_a_subprocess() -> None:
    ok = subprocess.run([sys.executable, "-P", "-m", "usim", "run", "transpose", "--shape", "2x2", "--values", "1 2 3 4"],
                        cwd=REPO, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert "largest difference: 0 (exact)" in ok.stdout
    bad = subprocess.run([sys.executable, "-P", "-m", "usim", "run", "transpose", "--shape", "2x"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.strip() == "usim run: error: cannot read the shape '2x': write dimensions like 3x4"


def test_value_parsing() -> None:
    assert parse_values("1, -2.5;1/3\t4e-1") == [1, Fraction(-5, 2), Fraction(1, 3), Fraction(2, 5)]
    assert parse_value(" 7 ") == 7
    with pytest.raises(InputError, match="empty"):
        parse_values(" , ")
    with pytest.raises(InputError, match="not finite"):
        parse_value("Infinity")


def test_matrix_formatting_aligns_columns() -> None:
    text = format_matrix(np.array([[Fraction(1, 3), 10], [-2, Fraction(5)]], dtype=object))
    assert text.splitlines() == ["  1/3  10", "   -2   5"]


def test_the_3x3_inverse_runs_exactly_and_matches_sympy(capsys):
    assert main(["run", "inverse3", "--shape", "3x3", "--values", "2 0 0 0 3 0 1 0 4"]) == 0
    out = capsys.readouterr().out
    assert "sympy reference:" in out and "largest difference: 0 (exact)" in out


def test_a_singular_matrix_is_a_clear_error(capsys):
    assert main(["run", "inverse3", "--shape", "3x3", "--values", "1 2 3 4 5 6 7 8 9"]) == 2
    err = capsys.readouterr().err
    assert "singular" in err and "Traceback" not in err


def test_the_published_determinant_is_for_3x3_only(capsys):
    assert main(["run", "det3", "--shape", "2x2"]) == 2
    assert "3x3 matrices only" in capsys.readouterr().err
    assert main(["run", "det3", "--shape", "3x3", "--random", "--seed", "4"]) == 0


def test_the_command_offers_exactly_the_runnable_blocks():
    from usim.constructions.blocks import BLOCKS
    from usim.constructions.options import BLOCK_NAMES

    assert BLOCK_NAMES == tuple(sorted(BLOCKS))


def test_running_a_listing_imports_neither_sympy_nor_z3() -> None:
    """usim run FILE.rasp needs the reader and the exact and numeric
    interpretations only: sympy and z3 (half of its start-up) stay unloaded."""
    code = ("import sys; from usim.cli import main; "
            f"main(['run', {str(REPO / 'examples' / 'rasp' / 'transpose.rasp')!r}, '--function', 'transpose', "
            "'--input', '[1, 2, 3, 4, 5, 6]']); "
            "print(sorted(m for m in ('sympy', 'z3', 'mpmath', 'usim.constructions.blocks') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[1, 3, 5, 2, 4, 6]", "[]"]


def test_a_listing_value_that_is_not_a_sequence_is_printed(tmp_path, capsys) -> None:
    """The REPL's ``a = 9;``: usim run prints the value (it was an error, exit 2)."""
    path = tmp_path / "values.rasp"
    path.write_text('a = 9;\nb = [1, 2/3, "x"];\ndef f() { return {"k": 1}; }\n')
    for name, shown in (("a", "9"), ("b", '[1, 2/3, "x"]'), ("f", '{"k": 1}'), ("f()", '{"k": 1}')):
        assert main(["run", str(path), "--function", name, "--input", "[1, 2]"]) == 0
        assert capsys.readouterr().out == shown + "\n"


def test_the_help_names_every_block_and_the_listings(capsys) -> None:
    from usim.constructions.options import BLOCK_NAMES

    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "three blocks" not in text and "``" not in text
    assert all(name in text for name in BLOCK_NAMES) and "RASP listing" in text


TRACR_PROGRAMS = REPO / "examples" / "tracr" / "programs.py"
ABC = '["a", "b", "c"]'


def test_a_tracr_program_runs_exactly_with_none_where_tracrs_evaluator_has_none(capsys) -> None:
    pytest.importorskip("tracr", reason="tracr is not installed (the tracr extra)")
    assert main(["run", "--tracr", f"{TRACR_PROGRAMS}:frac_prevs", "--vocab", ABC, "--max-len", "5",
                 "--input", '["a", "b", "a"]']) == 0
    assert capsys.readouterr().out.strip() == "[1, 1/2, 2/3]"
    assert main(["run", "--tracr", f"{TRACR_PROGRAMS}:shift_by", "--vocab", ABC, "--max-len", "5",
                 "--input", '["a", "b", "c"]']) == 0
    assert capsys.readouterr().out.strip() == "[None, a, b]"
    assert main(["run", "--tracr", "tracr.compiler.lib:make_hist", "--vocab", "[1, 2]", "--max-len", "3",
                 "--input", "[1, 2, 2]"]) == 0  # a function of no arguments making the program
    assert capsys.readouterr().out.strip() == "[1, 2, 2]"


@pytest.mark.parametrize("argv, message", [
    (["--vocab", ABC, "--max-len", "5", "--input", '["a", "b", "c", "a", "b", "c"]'], "6 tokens; this reading is for 1 to 5"),
    (["--vocab", ABC, "--max-len", "5", "--input", '["d"]'], "'d' is not in the vocabulary"),
    (["--vocab", ABC, "--input", '["a"]'], "--tracr needs --vocab"),
    (["--vocab", ABC, "--max-len", "0", "--input", '["a"]'], "--max-len must be from 1"),
    (["--vocab", ABC, "--max-len", "3", "--input", '["a"]', "--shape", "2x2"], "--shape does not apply"),
])
def test_tracr_mistakes_are_one_line_and_exit_2(capsys, argv: list[str], message: str) -> None:
    pytest.importorskip("tracr", reason="tracr is not installed (the tracr extra)")
    test_mistakes_are_one_line_and_exit_2(capsys, ["--tracr", f"{TRACR_PROGRAMS}:reverse", *argv], message)


@pytest.mark.parametrize("reference, message", [
    ("tracr.compiler.lib:make_reverse", "cannot be called with no arguments"),
    ("tracr.compiler.lib:no_such", "has no 'no_such'"),
    ("no_such_file.py:x", "the tracr programs file no_such_file.py does not exist"),
    ("usim.proofs.lemma3_transpose:CLAIM", "is not a tracr sequence"),
])
def test_a_tracr_reference_that_names_no_program_is_one_line(capsys, reference: str, message: str) -> None:
    pytest.importorskip("tracr", reason="tracr is not installed (the tracr extra)")
    test_mistakes_are_one_line_and_exit_2(
        capsys, ["--tracr", reference, "--vocab", "[1]", "--max-len", "2", "--input", "[1]"], message)


def test_without_tracr_installed_reading_a_program_names_the_extra(capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "tracr", None)  # import tracr raises ImportError
    monkeypatch.setitem(sys.modules, "tracr.rasp", None)
    test_mistakes_are_one_line_and_exit_2(
        capsys, ["--tracr", "x.py:p", "--vocab", "[1]", "--max-len", "2", "--input", "[1]"],
        r"needs tracr: pip install 'usim\[tracr\]'")


def test_tracr_options_without_tracr_are_refused(capsys) -> None:
    test_mistakes_are_one_line_and_exit_2(capsys, ["transpose", "--shape", "2x2", "--vocab", "[1]"],
                                          "--vocab applies to --tracr")
