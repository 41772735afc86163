"""A float run that lost a value says so, or is an error: it never prints a wrong number.

Four places printed one with exit 0:

* ``usim simulate --compiled`` ran U's network in PyTorch's float64 with no
  range check: scores [-800, 0] on values [1, 0] give T(X)[0, 0] =
  e^-800 / (1 + e^-800) = 3.67e-348, below float64's range, printed and saved
  as 0. It is now checked against the network's strict run by usim (float64,
  else long double) and refused where float64 does not hold T(X).
* ``largest_difference`` counted a position undefined (NaN) on both sides as
  a difference of 0 (``usim compile``'s float report, the softmax(beta)
  measurement).
* ``usim compile``'s softmax(beta) table printed 0.000e+00 at beta = 80, where
  the deviation is about e^-40, below float64's rounding of the values: not 0.
* ``numeric_deviation`` (the runner's cross-check, ``usim check``'s measured
  deviation) ran in unchecked float64 and took ``nanmax``: an input where
  construction and target are undefined, or where both overflow to inf (inf -
  inf is NaN), was left out, so a construction wrong only there measured 0;
  with no random input meeting the preconditions it measured 0 from nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import sympy

from usim.cli import main
from usim.constructions.base import Construction
from usim.encodings.layout import SequenceLayout
from usim.encodings.numeric import largest_difference
from usim.encodings.runners import WIDER_THAN_FLOAT64
from usim.engine.claim import Obligation
from usim.listings.crosscheck import relative_deviation
from usim.engine.measure import numeric_crosscheck, numeric_deviation
from usim.errors import RangeError, UndefinedError, UsimError
from usim.rasp.expr import exp, tokens
from usim.rasp.program import Program

needs_long_double = pytest.mark.skipif(not WIDER_THAN_FLOAT64,
                                       reason="long double is float64 on this platform")


def _layer(tmp_path: Path, score: float) -> Path:
    """One merged head on X = [[1], [0]] with A = [[score]], V = [[1]]: row 0's scores are [score, 0]."""
    params = tmp_path / "p.npz"
    np.savez(params, X=np.array([[1.0], [0.0]]), A=np.array([[score]]), V=np.array([[1.0]]))
    return params


@needs_long_double
def test_simulate_compiled_refuses_a_value_float64_holds_as_0(tmp_path: Path, capsys) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "y.npy"
    assert main(["simulate", str(_layer(tmp_path, -800.0)), "--compiled", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.strip().splitlines()
    assert "T(X)[0, 0]" in line and "3.667875e-348" in line and "float64" in line
    assert "T(X) =" not in captured.out and not out.exists()


@needs_long_double
def test_simulate_compiled_keeps_pytorchs_result_where_only_the_check_needs_long_double(
        tmp_path: Path, capsys) -> None:
    # scores [720, 0]: exp(720) is beyond float64 (the checked run goes to long double),
    # T(X) = [1 - e^-720, 1/2] is not, and PyTorch (which subtracts the row maximum) has it
    pytest.importorskip("torch")
    assert main(["simulate", str(_layer(tmp_path, 720.0)), "--compiled"]) == 0
    out = capsys.readouterr().out
    assert "strict run by usim in long double" in out
    rows = out.split("T(X) =\n", 1)[1].split("\n")[:2]
    assert [float(r.strip(" []")) for r in rows] == [1.0, 0.5]


@pytest.mark.parametrize("torch_y, checked", [
    ([[0.0]], [[1e-300]]),  # PyTorch underflowed a value the checked run has
    ([[5e-320]], [[1e-300]]),  # or kept it subnormal, with too few digits
    ([[np.nan]], [[1.0]]),
    ([[1.0 + 1e-6]], [[1.0]]),  # or lost digits inside, beyond the tolerance
], ids=["zero", "subnormal", "nan", "digits"])
def test_a_pytorch_value_that_is_not_the_checked_one_is_refused(torch_y, checked) -> None:
    from usim.commands.simulate import _float64_holds

    with pytest.raises(RangeError, match=r"T\(X\)\[0, 0\]"):
        _float64_holds(np.asarray(torch_y), np.asarray(checked))
    _float64_holds(np.asarray(checked), np.asarray(checked))  # the same values pass


def test_a_position_undefined_on_both_sides_is_no_difference_of_0() -> None:
    assert largest_difference([1.0, np.nan], [1.0, np.nan]) == float("inf")
    assert largest_difference([np.inf], [np.inf]) == float("inf")  # two overflows: no difference known


def test_compiles_softmax_table_prints_no_deviation_of_0_that_float64_cannot_resolve(capsys) -> None:
    assert main(["compile", "maxmin_weights", "--shape", "3"]) == 0
    table = capsys.readouterr().out.split("| beta | largest deviation |", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| (\d+) \| (.*) \|$", table, re.M)
    assert [beta for beta, _ in rows] == ["10", "20", "40", "80"]
    shown = dict(rows)
    assert shown["80"] == "0 in float64 (any deviation is below its rounding)"  # e^-40 is not 0
    assert float(shown["10"]) > 0


def _obligation(expr, target, values=None, preconditions=None) -> Obligation:
    name = "f"
    construction = Construction(name, Program.of(name, {"F": expr.named("F")}), SequenceLayout.of(("M", (1, 3))),
                                SequenceLayout.of(("F", (1, 3))))
    return Obligation(name, (1, 3), construction, lambda m: {"F": m["M"].applyfunc(target)}, values=values,
                      preconditions=preconditions)


def test_a_measurement_where_construction_and_target_are_undefined_is_an_error_not_0() -> None:
    ob = _obligation(1 / tokens, lambda x: 1 / x, values=(0, 1, 2))
    with pytest.raises(UndefinedError, match="undefined"):
        numeric_deviation(ob)
    value, why = relative_deviation(ob, samples=8)
    assert value is None and why.startswith("not measured at entries ~ N(0, 1^2): ")


@needs_long_double
def test_a_measurement_where_float64_overflows_on_both_sides_is_made_in_long_double() -> None:
    # wrong by a factor 3/2 everywhere; float64 gives 0 = 0 at x = -1 and inf - inf at x = 1
    ob = _obligation(exp(tokens * 800) * 3, lambda x: 2 * sympy.exp(800 * x), values=(-1, 1))
    assert numeric_deviation(ob, relative=True) == pytest.approx(0.5, abs=1e-12)
    with pytest.raises(RangeError, match="beyond float64's range"):
        numeric_deviation(ob)  # e^800, the absolute deviation, is no float64


def test_a_measurement_beyond_every_type_is_an_error_not_nan() -> None:
    ob = _obligation(exp(tokens * 20000) / exp(tokens * 20000), lambda x: sympy.Integer(1))
    with pytest.raises(RangeError, match="exp overflows"):
        numeric_deviation(ob)


def test_no_input_meeting_the_preconditions_measures_nothing_not_0() -> None:
    ob = _obligation(tokens * 2, lambda x: 2 * x, preconditions=lambda m: [m["M"][0, 0] > 100])
    with pytest.raises(UsimError, match="none of the 8 random inputs meets the preconditions"):
        numeric_crosscheck(ob)
