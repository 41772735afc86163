"""A float run that lost a value says so, or is an error: it never prints a wrong number.

Three places printed one with exit 0:

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
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from usim.cli import main
from usim.encodings.numeric import largest_difference
from usim.encodings.runners import WIDER_THAN_FLOAT64
from usim.errors import RangeError

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
