"""Hole 5: floats were rounded one way in one engine and another in the next.

z3 and cvc5 read a sympy Float through its 15-digit string, so
``x = 1.0000000000000002*x`` was PROVED by both; sympy folds
``x + Float(2^-60)*x`` into ``1.0*x`` before any engine runs. Proofs are over
exact numbers: a float in a target or a precondition is refused with one line;
a float written in a program is read as the decimal it prints as, the same
rational in every engine.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from soundness_statements import assert_never_proved, vector_obligation

from usim.engine.claim import Status
from usim.engine.runner import check_obligation
from usim.engine.translate import TranslationError, to_z3
from usim.encodings.smt import SmtInterpretation
from usim.errors import InputError
from usim.rasp.expr import Constant, tokens


def test_a_float_in_a_target_is_refused_before_any_engine_runs():
    ob = vector_obligation(tokens + 0, lambda x: x * sympy.Float("1.0000000000000002"))
    with pytest.raises(InputError, match="floating-point"):
        check_obligation(ob, ["z3"])


def test_a_float_that_sympy_folds_away_is_refused_too():
    ob = vector_obligation(tokens + 0, lambda x: x + sympy.Float(2) ** -60 * x)
    with pytest.raises(InputError, match="floating-point"):
        check_obligation(ob, ["sympy"])


def test_a_float_in_a_precondition_is_refused():
    ob = vector_obligation(tokens + 0, lambda x: x, preconditions=lambda x: [x[0, 0] > sympy.Float("0.1")])
    with pytest.raises(InputError, match="floating-point"):
        check_obligation(ob, ["z3"])


def test_no_translation_rounds_a_float():
    x = sympy.Symbol("X[0,0]", real=True)
    with pytest.raises(TranslationError, match="not exact"):
        to_z3(sympy.Float("1.0000000000000002") * x, {"X[0,0]": __import__("z3").Real("X[0,0]")},
              SmtInterpretation())


def test_a_float_in_a_program_is_its_exact_decimal_in_every_engine():
    constant = Constant(1.0000000000000002)
    assert constant.value == Fraction("1.0000000000000002")
    found = assert_never_proved(vector_obligation(constant * tokens, lambda x: x), {Status.REFUTED})
    assert found["all"].counterexample is not None
