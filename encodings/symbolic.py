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

from sympy.logic.boolalg import BooleanFunction

from usim.encodings.domain import Undefined
from usim.errors import EvaluationError
from usim.encodings.interpretation import ElementwiseInterpretation, PropagatesUndefined, Scalar
from usim.rasp.expr import Op


class IsInteger(BooleanFunction):
    """The condition "x is an integer", for the domain of a power with a
    symbolic exponent. Decided at once for a number (and for a symbol declared
    integer); the z3 and SMT-LIB translations state it with ``is_int``."""

    @classmethod
    def eval(cls, x):
        x = sympy.sympify(x)
        if x.is_integer:
            return sympy.true
        if x.is_Number or x.is_integer is False:
            return sympy.false
        return None


class GuardedPiecewise(sympy.Piecewise):
    """A Piecewise whose conditions contain Piecewise terms, kept as written.

    sympy keeps no Piecewise inside a condition: it folds one out on
    construction (piecewise_fold, then simplify_logic over every combination of
    branches), which is exponential in the number of Piecewise terms. A
    data-dependent selector over a selector width, or over boolean keys turned
    into 1/0, meets exactly that (a comparison of a sum of Piecewise terms). This
    subclass means the same (first true condition wins) but is built without
    folding, and refuses sympy's automatic rewriting of its powers (which would
    fold). As soon as a rebuild (``xreplace``, ``subs``) leaves no Piecewise in
    its conditions, it becomes an ordinary, evaluated Piecewise. The z3
    translation reads it as any Piecewise (nested If terms).
    """

    def __new__(cls, *args, **options):
        pairs = []
        for arg in args:
            expr, cond = getattr(arg, "args", arg)
            if cond is False or cond == sympy.false:
                continue
            pairs.append((sympy.sympify(expr), sympy.true if cond is True else cond))
            if cond is True or cond == sympy.true:
                break
        if not any(isinstance(c, sympy.Basic) and c.has(sympy.Piecewise) for _, c in pairs):
            return sympy.Piecewise(*pairs)
        return sympy.Basic.__new__(cls, *(sympy.Tuple.__new__(ExprCondPair, e, c) for e, c in pairs))

    def _eval_power(self, exponent):
        return None  # keep Pow(self, exponent): distributing it would fold


def _where(_: object, c: Scalar, a: Scalar, b: Scalar) -> Scalar:
    if c is True or c == sympy.true:
        return a
    if c is False or c == sympy.false:
        return b
    if isinstance(c, sympy.Basic) and c.has(sympy.Piecewise):
        return GuardedPiecewise((a, c), (b, True))
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
        if isinstance(value, Undefined):
            return sympy.nan
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

    def is_integer(self, x: Scalar) -> Scalar:
        return IsInteger(x)


class PointInterpretation(PropagatesUndefined, SymbolicInterpretation):
    """The symbolic interpretation at a concrete input: exact sympy numbers
    (rational or not: ``exp(1)``, ``sqrt(2)``), with undefined values propagated
    as in the exact interpretation. A result that is not a finite real number
    (a complex root, ``zoo``) is undefined. Used to replay an input where the
    exact interpretation has no value (an irrational one)."""

    name: ClassVar[str] = "point"

    def constant(self, value: int | Fraction | bool) -> Scalar:
        if isinstance(value, Undefined):
            return value
        return super().constant(value)

    def truth(self, condition: Scalar) -> bool | None:
        decided = super().truth(condition)
        if decided is None:  # a comparison of numbers sympy cannot decide: no replay here
            raise EvaluationError(f"cannot decide {condition} at this input")
        return decided

    def accept(self, value: Scalar) -> Scalar:
        if isinstance(value, sympy.Expr) and value.is_number and not (value.is_extended_real and value.is_finite):
            return Undefined("not a finite real number")
        return value
