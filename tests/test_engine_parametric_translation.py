"""Symbolic integers in z3 mean what Python's integers mean: // and % included."""

from __future__ import annotations

import itertools

import z3

from usim.engine.parametric.translation import condition_formula, floordiv, mod, translate
from usim.rasp.family import dimension

x, y = z3.Ints("x y")


def _value(term: z3.ArithRef, **values: int) -> int:
    return z3.simplify(z3.substitute(term, *[(z3.Int(k), z3.IntVal(v)) for k, v in values.items()])).as_long()


def test_floor_division_and_remainder_are_pythons_for_every_sign_of_the_divisor():
    for a, b in itertools.product(range(-7, 8), [-3, -2, -1, 1, 2, 3]):
        unknown_sign = lambda t: False  # noqa: E731 - the divisor's sign not known: Python's rule written out
        assert _value(floordiv(x, y, unknown_sign), x=a, y=b) == a // b
        assert _value(mod(x, y, unknown_sign), x=a, y=b) == a % b
        assert _value(floordiv(x, z3.IntVal(b), unknown_sign), x=a) == a // b
        assert _value(mod(x, z3.IntVal(b), unknown_sign), x=a) == a % b


def test_a_divisor_known_positive_uses_z3s_own_division():
    assert floordiv(x, y, lambda t: True).eq(x / y)
    assert mod(x, y, lambda t: True).eq(x % y)


def test_a_translation_records_that_each_divisor_is_not_zero():
    r, c = dimension("r"), dimension("c")
    out = translate((r * c + 1) // c, {}, {"r": x, "c": y}, lambda t: True)
    assert [str(f) for f in out.defined] == ["y != 0"]
    assert _value(out.term, x=3, y=4) == 3


def test_a_condition_becomes_a_formula_of_its_translated_sides():
    r = dimension("r")
    formula = condition_formula((r < 3) & ~(r == 1), lambda v: x if v is r else z3.IntVal(v.value({})))
    assert z3.simplify(z3.substitute(formula, (x, z3.IntVal(2)))) == z3.BoolVal(True)
    assert z3.simplify(z3.substitute(formula, (x, z3.IntVal(1)))) == z3.BoolVal(False)
