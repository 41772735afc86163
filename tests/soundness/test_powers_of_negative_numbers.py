"""Hole 6: a fractional power of a negative number meant different things.

The exact interpretation took the real root, sympy the principal complex root:
``x^(2/3) = |x|^(2/3)`` was REFUTED with a complex value and ``x^(1/3)`` PROVED
equal to sympy's although the exact run gave -2 at -8. Now a power has one
meaning (usim.encodings.domain): a negative base takes only integer exponents.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy
from soundness_statements import assert_never_proved, vector_obligation

from usim.encodings.domain import Undefined
from usim.encodings.runners import run_exact, run_numeric
from usim.encodings.symbolic import PointInterpretation
from usim.encodings.evaluate import evaluate_sops
from usim.engine.claim import Status
from usim.engine.runner import check_obligation
from usim.errors import UndefinedError
from usim.rasp.expr import absolute, tokens
from usim.rasp.program import Program

CASES = [  # (base, exponent, value or None for undefined)
    (-8, Fraction(1, 3), None), (-8, Fraction(2, 3), None), (-2, 3, -8), (-2, -1, Fraction(-1, 2)),
    (0, -1, None), (0, 0, 1), (0, Fraction(1, 2), 0), (8, Fraction(1, 3), 2), (4, Fraction(-1, 2), Fraction(1, 2)),
    (-1, Fraction(1, 2), None),
]


@pytest.mark.parametrize("base, exponent, value", CASES)
def test_every_interpretation_gives_a_power_one_meaning(base, exponent, value):
    program = Program.of("p", {"y": tokens ** exponent})
    if value is None:
        with pytest.raises(UndefinedError):
            run_exact(program, [base])
        assert np.isnan(run_numeric(program, [float(base)])["y"][0, 0])
        assert isinstance(_point(program, base), Undefined)
    else:
        assert run_exact(program, [base])["y"] == [value]
        assert run_numeric(program, [float(base)])["y"][0, 0] == pytest.approx(float(value))
        assert _point(program, base) == value


def _point(program, base):
    """The value at ``base`` in the symbolic interpretation at a point (replays use it)."""
    return evaluate_sops(tuple(s for _, s in program.outputs), PointInterpretation(), [sympy.Integer(base)])[0][0]


def test_the_cube_root_is_not_claimed_where_it_is_undefined():
    ob = vector_obligation(tokens ** Fraction(1, 3), lambda x: x.applyfunc(lambda v: v ** sympy.Rational(1, 3)))
    found = assert_never_proved(ob, {Status.REFUTED})
    assert sympy.Rational(found["all"].definedness.counterexample.inputs["X"][0][0]) < 0


def test_with_a_non_negative_precondition_the_cube_root_is_proved():
    ob = vector_obligation(tokens ** Fraction(1, 3), lambda x: x.applyfunc(lambda v: v ** sympy.Rational(1, 3)),
                           preconditions=lambda x: [x[0, 0] >= 0])
    assert check_obligation(ob, ["sympy", "z3"]).status is Status.PROVED


def test_two_thirds_power_equals_that_of_the_absolute_value_only_where_defined():
    ob = vector_obligation(tokens ** Fraction(2, 3), lambda x: x.applyfunc(lambda v: sympy.Abs(v) ** sympy.Rational(2, 3)))
    assert_never_proved(ob, {Status.REFUTED})
    ob = vector_obligation(absolute(tokens) ** Fraction(2, 3), lambda x: x.applyfunc(lambda v: sympy.Abs(v) ** sympy.Rational(2, 3)))
    assert check_obligation(ob, ["sympy", "z3"]).status is not Status.REFUTED
