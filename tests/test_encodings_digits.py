"""The text and exact value of a number of any width (usim.encodings.digits)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from usim.cli import main
from usim.encodings import runners
from usim.encodings.digits import exact, significant


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([(12, "g"), (10, "g"), (6, "g"),
                                                                             (1, "g"), (3, "e"), (0, "e")]))
def test_a_rational_is_written_as_python_writes_the_float_it_equals(x: float, how: tuple[int, str]) -> None:
    digits, style = how
    if x == 0:
        x = 0.0  # the rational 0 has no sign
    assert significant(Fraction(x), digits, style) == format(x, f".{digits}{style}")


def test_a_long_double_keeps_its_digits_and_its_exponent() -> None:
    small = np.exp(np.longdouble(-740))
    assert significant(small) == "4.18873988005e-322"  # float64 makes it 4.19955798965e-322
    assert significant(np.exp(np.longdouble(-11355)), 3, "e") == "3.856e-4932"
    assert significant(np.longdouble(1) / 3, 20) == "0.33333333333333333334"
    assert significant(np.longdouble("-0.0")) == "-0"
    assert significant(np.longdouble("inf")) == "inf"


def test_exact_values_are_the_binary_fractions_themselves() -> None:
    assert exact(0.1) == Fraction(3602879701896397, 2**55)
    assert exact(np.exp(np.longdouble(-11355))) == Fraction(*np.exp(np.longdouble(-11355)).as_integer_ratio())
    assert exact(mpmath.mpf(2) ** -20000) == Fraction(1, 2**20000)
    with pytest.raises(ValueError, match="not finite"):
        exact(np.longdouble("nan"))


def test_an_mpmath_number_far_beyond_any_float_is_written_from_its_own_digits() -> None:
    with mpmath.workprec(200):
        huge = mpmath.exp(10**6)  # e^1000000 = 3.0332...e+434294
        assert significant(huge, 5) == "3.0332e+434294"
        assert significant(-1 / huge, 2, "e") == "-3.30e-434295"
    assert significant(mpmath.mpf(0.125), 2) == "0.12" == format(0.125, ".2g")  # a tie: half to even


def test_without_a_type_wider_than_float64_the_run_is_an_error_not_a_float64_number(monkeypatch, capsys) -> None:
    monkeypatch.setattr(runners, "PRECISIONS", (np.float64,))  # a platform whose long double is float64
    assert main(["run", "softmax", "--shape", "1x2", "--values", "740,0"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert "leaves the range of float64" in captured.err
