"""The symbolic interpretation: sympy expressions.

Inputs are sympy symbols (named after their matrix entry, e.g. ``A[1,2]``);
every operation builds the corresponding sympy expression: ``exp`` is
``sympy.exp``, ``//`` is ``floor(a/b)``, ``%`` is ``Mod``, a comparison a
relational, ``where`` a ``Piecewise``. Selectors decided once per length (index
routing) never become symbolic; a data-dependent one is a matrix of relationals,
and its aggregate the guarded sum over the guarded count (see
:mod:`usim.encodings.interpretation`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

import sympy
from sympy.functions.elementary.piecewise import ExprCondPair

from usim.encodings.interpretation import ElementwiseInterpretation, Scalar
from usim.rasp.expr import Op


def _where(_: object, c: Scalar, a: Scalar, b: Scalar) -> Scalar:
    if c is True or c == sympy.true:
        return a
    if c is False or c == sympy.false:
        return b
    if isinstance(c, sympy.Basic) and c.has(sympy.Piecewise):
        # sympy folds a condition that contains a Piecewise (piecewise_fold and
        # simplify_logic over every branch): exponential in the number of
        # Piecewise terms, e.g. a data-dependent selector on a selector width.
        # Build the same Piecewise without that rewriting; it is evaluated as
        # usual as soon as a substitution rebuilds it.
        pairs = (
            sympy.Tuple.__new__(ExprCondPair, sympy.sympify(a), c),
            sympy.Tuple.__new__(ExprCondPair, sympy.sympify(b), sympy.true),
        )
        return sympy.Basic.__new__(sympy.Piecewise, *pairs)
    return sympy.Piecewise((a, c), (b, True))


class SymbolicInterpretation(ElementwiseInterpretation):
    name: ClassVar[str] = "symbolic"

    ops: ClassVar[dict] = {
        Op.ADD: lambda _, a, b: a + b,
        Op.SUB: lambda _, a, b: a - b,
        Op.MUL: lambda _, a, b: a * b,
        Op.TRUEDIV: lambda _, a, b: a / b,
        Op.FLOORDIV: lambda _, a, b: sympy.floor(a / b),
        Op.MOD: lambda _, a, b: sympy.Mod(a, b),
        Op.POW: lambda _, a, b: sympy.Pow(a, b),
        Op.NEG: lambda _, a: -a,
        Op.ABS: lambda _, a: sympy.Abs(a),
        Op.EXP: lambda _, a: sympy.exp(a),
        Op.SQRT: lambda _, a: sympy.sqrt(a),
        Op.MAXIMUM: lambda _, a, b: sympy.Max(a, b),
        Op.MINIMUM: lambda _, a, b: sympy.Min(a, b),
        Op.EQ: lambda _, a, b: sympy.Eq(a, b),
        Op.NE: lambda _, a, b: sympy.Ne(a, b),
        Op.LT: lambda _, a, b: sympy.Lt(a, b),
        Op.LE: lambda _, a, b: sympy.Le(a, b),
        Op.GT: lambda _, a, b: sympy.Gt(a, b),
        Op.GE: lambda _, a, b: sympy.Ge(a, b),
        Op.AND: lambda _, a, b: sympy.And(a, b),
        Op.OR: lambda _, a, b: sympy.Or(a, b),
        Op.NOT: lambda _, a: sympy.Not(a),
        Op.WHERE: _where,
    }

    def constant(self, value: int | Fraction | bool) -> Scalar:
        if isinstance(value, bool):
            return sympy.true if value else sympy.false
        if isinstance(value, Fraction):
            return sympy.Rational(value.numerator, value.denominator)
        return sympy.Integer(value)

    def truth(self, condition: Scalar) -> bool | None:
        if condition is True or condition is sympy.true:
            return True
        if condition is False or condition is sympy.false:
            return False
        return None

    def ite(self, condition: Scalar, if_true: Scalar, if_false: Scalar) -> Scalar:
        return _where(self, condition, if_true, if_false)

    def total(self, terms: list[Scalar]) -> Scalar:
        return sympy.Add(*terms)

    def divide(self, numerator: Scalar, denominator: Scalar) -> Scalar:
        return numerator / denominator
