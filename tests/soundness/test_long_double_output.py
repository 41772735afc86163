"""A value computed in long double is printed, saved and compared in long double.

From a score of 709 on, a run leaves float64's range and is repeated in long
double (80-bit on x86-64); its values passed through float64 on their way out:
``usim run softmax --values 740,0`` printed 4.19955798965e-322 for
e^-740 / (1 + e^-740) = 4.18873988005e-322, from 745 on 0 (or float64's
smallest subnormal), and called the largest difference 0, its reference being
numpy's in float64. The same held for a listing's run, ``usim simulate``'s
printed and saved T(X), and ``usim check``'s numeric cross-check (which ran in
unchecked float64, said "DIFFERS: inf vs inf" where long double agrees, and
crashed turning an exact reference beyond float64 into a float). A long double
read as an exact number went through float64 as well (1e-400 became 0), and a
constant beyond float64 was said to be beyond long double's range. The true
values here come from mpmath at 60 digits (or as many as 1 - e^-A needs).
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

from usim.cli import main
from usim.constructions.softmax import softmax_construction
from usim.encodings.exact import as_exact
from usim.encodings.runners import WIDER_THAN_FLOAT64, run_numeric_in_range
from usim.errors import RangeError
from usim.rasp.expr import tokens
from usim.rasp.program import Program

needs_long_double = pytest.mark.skipif(not WIDER_THAN_FLOAT64,
                                       reason="long double is float64 on this platform")


@pytest.fixture(autouse=True)
def _sixty_digits():
    """mpmath at 60 digits in these tests only (its precision is global)."""
    with mpmath.workdps(60):
        yield


def _row_under(text: str, title: str) -> list[str]:
    """The entries of the one-row matrix printed under the line that matches ``title``."""
    lines = text.splitlines()
    return lines[next(i for i, line in enumerate(lines) if re.match(title, line)) + 1].split()


def _real(x: Fraction | str | np.floating) -> mpmath.mpf:
    """A printed decimal or a float of any width, exactly (at 60 digits)."""
    q = Fraction(x) if isinstance(x, str) else Fraction(*x.as_integer_ratio())
    return mpmath.mpf(q.numerator) / q.denominator


def _agrees_to_its_digits(printed: str, true: mpmath.mpf) -> bool:
    """``printed`` is ``true`` rounded to 12 significant digits (usim run's .12g,
    trailing zeros dropped): at most half a unit of the 12th digit away."""
    unit = mpmath.mpf(10) ** (mpmath.floor(mpmath.log10(abs(true))) - 11)
    return abs(_real(printed) - true) <= unit / 2 * (1 + mpmath.mpf(10) ** -30)


def _exact_softmax(a: int) -> list[mpmath.mpf]:
    """softmax(a, 0) at the working precision (1 - e^-a needs a / ln 10 digits)."""
    small = mpmath.exp(-a) / (1 + mpmath.exp(-a))
    return [1 - small, small]


@pytest.mark.parametrize("a", [740, 745, 1000, 11355])
def test_run_softmax_prints_long_double_values_and_their_true_difference(a: int, capsys) -> None:
    status = main(["run", "softmax", "--shape", "1x2", "--values", f"{a},0"])
    captured = capsys.readouterr()
    if not WIDER_THAN_FLOAT64:  # no wider type: an error, never a float64 number
        assert status == 2 and len(captured.err.splitlines()) == 1 and captured.out == ""
        return
    assert status == 0, captured.err
    output = _row_under(captured.out, r"output softmax\(S\)")
    reference = _row_under(captured.out, r"\w+ reference:")
    outputs, dtype = run_numeric_in_range(softmax_construction(1, 2).program, np.array([a, 0.0]))
    assert dtype is np.longdouble
    with mpmath.workdps(a // 2 + 60):
        true = _exact_softmax(a)
        for shown, value in zip(output + reference, true + true):
            assert _agrees_to_its_digits(shown, value), (shown, value)
        # the difference: the run's own long double values (taken exactly) against the true softmax
        difference = max(abs(_real(x) - t) for x, t in zip(outputs["softmax"][0], true))
        printed = mpmath.mpf(re.search(r"largest difference: (\S+)", captured.out).group(1))
        assert difference > 0 and abs(printed - difference) <= difference * mpmath.mpf("5e-3"), (printed, difference)


@needs_long_double
def test_a_listing_run_prints_long_double_values_with_their_digits(tmp_path: Path, capsys) -> None:
    listing = tmp_path / "e.rasp"
    listing.write_text("def f() {\n  return exp(tokens_float);\n}\n")
    assert main(["run", str(listing), "--function", "f", "--input", "[-740, -745, -1000]"]) == 0
    shown = capsys.readouterr().out.strip().strip("[]").split(", ")
    for text, a in zip(shown, (740, 745, 1000)):
        true = mpmath.exp(-a)
        assert abs(mpmath.mpf(text) - true) <= true * mpmath.mpf("1e-9"), (text, true)  # 10 digits


@needs_long_double
def test_simulate_prints_and_saves_long_double_values(tmp_path: Path, capsys) -> None:
    # row 0 scores [-800, 0] on values [1, 0]: T(X)[0] = e^-800 / (1 + e^-800) ~ 3.7e-348
    params, out = tmp_path / "p.npz", tmp_path / "y.npy"
    np.savez(params, X=np.array([[1.0], [0.0]]), A=np.array([[-800.0]]), V=np.array([[1.0]]))
    assert main(["simulate", str(params), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    true = mpmath.exp(-800) / (1 + mpmath.exp(-800))
    assert abs(_real(np.load(out)[0, 0]) - true) <= true * mpmath.mpf("1e-15")
    assert "3.667875e-348" in printed  # not "0.", which six fixed decimals would show


def test_simulate_prints_small_entries_with_their_significant_digits(tmp_path: Path, capsys) -> None:
    """Found in review: 6 fixed decimals printed 7.31e-7 as 0.000001 (one digit)."""
    params = tmp_path / "p.npz"
    np.savez(params, X=np.array([[1.0], [0.0]]), A=np.array([[1.0]]), V=np.array([[1e-6]]))
    assert main(["simulate", str(params)]) == 0
    printed = capsys.readouterr().out
    assert "7.310586e-07" in printed and "0.000001" not in printed  # e / (1 + e) * 1e-6


def _spec_file(tmp_path: Path, body: str) -> str:
    path = tmp_path / "spec.py"
    path.write_text("import sympy\nfrom usim.listings.user_spec import spec\n\n"
                    "@spec(inputs={'M': ('r', 'c')}, outputs={'F': ('r', 'c')})\n"
                    f"def target(M):\n    \"\"\"the target\"\"\"\n    return M.applyfunc(lambda x: {body})\n")
    return f"{path}:target"


@needs_long_double
@pytest.mark.parametrize("listing, target", [
    ("exp(tokens_float * 20)", "sympy.exp(20 * x)"),  # irrational: a 30-digit reference; float64 gave inf
    ("tokens_float ^ 200", "x ** 200"),  # exact: a reference beyond float64 (float() of it crashed)
], ids=["irrational", "exact"])
def test_checks_numeric_cross_check_runs_in_long_double_where_float64_is_not_enough(
        tmp_path: Path, capsys, listing: str, target: str) -> None:
    path = tmp_path / "f.rasp"
    path.write_text(f"def f() {{\n  return {listing};\n}}\n")
    status = main(["check", str(path), "--function", "f", "--spec-file", _spec_file(tmp_path, target),
                   "--shape", "1x3", "--engine", "sympy", "--timeout", "20"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "numeric ok (in long double: float64's range was not enough)" in out, out


@needs_long_double
def test_checks_examples_are_shown_with_their_long_double_digits(tmp_path: Path, capsys) -> None:
    path = tmp_path / "f.rasp"
    path.write_text("set example [-740, 0, 1]\ndef f() {\n  return exp(tokens_float);\n}\n")
    assert main(["check", str(path), "--function", "f", "--spec-file", _spec_file(tmp_path, "sympy.exp(x)"),
                 "--shape", "1x3", "--engine", "sympy", "--timeout", "20"]) == 0
    out = capsys.readouterr().out
    assert "[-740, 0, 1] as 1x3 -> [4.18874e-322, 1, 2.71828]: agrees with the spec" in out, out


def test_checks_report_of_a_power_names_a_base_beyond_float64_without_converting_it(tmp_path: Path, capsys) -> None:
    path = tmp_path / "f.rasp"
    path.write_text("def f() {\n  return (10 ^ 400) ^ tokens_float;\n}\n")  # float() of the base crashed
    main(["check", str(path), "--function", "f", "--spec-file", _spec_file(tmp_path, "sympy.exp(x)"),
          "--shape", "1x1", "--engine", "sympy", "--timeout", "20"])
    assert f"a power to the base {10**400} (1e+400), not exp" in capsys.readouterr().out


def test_a_long_double_is_read_exactly_as_its_own_decimal() -> None:
    if WIDER_THAN_FLOAT64:
        assert as_exact(np.longdouble("1e-400")) == Fraction(1, 10**400)  # float64 made it 0
    assert as_exact(np.float64(0.1)) == Fraction(1, 10)  # numpy 2's repr is np.float64(0.1)


@needs_long_double
def test_a_constant_beyond_float64_is_refused_as_beyond_float64_not_long_double() -> None:
    # constants are read through float64: 1e400 fits long double, but not the float64 it passes through
    program = Program.of("p", {"out": tokens * Fraction(10**400)})
    with pytest.raises(RangeError, match=r"beyond float64's range \(it is read through float64\)$"):
        run_numeric_in_range(program, np.array([1.0]))
