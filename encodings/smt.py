"""The SMT interpretation: z3 terms.

Inputs are z3 constants (Real by default, Int where a claim is about integers).
Operations build z3 terms:

* ``/`` is real division (an Int is converted first, never integer division);
  z3 leaves x/0 unconstrained, so a proof cannot silently rely on it.
* ``//`` and ``%`` follow floor semantics: with two Int terms and a positive
  constant divisor z3's own div/mod (which agree with floor there), otherwise
  ``floor(a/b)`` by ``ToInt`` and ``a - b*floor(a/b)``.
* ``exp`` is an uninterpreted function ``exp: Real -> Real``; each application
  records the fact ``exp(t) > 0`` in :attr:`facts`. A power with a non-integer
  or symbolic exponent is an uninterpreted ``pow(b, e)`` with ``pow(b, e) > 0``
  recorded when the base is a positive constant. A square root is a fresh
  ``s`` with ``x >= 0 -> (s >= 0 and s*s == x)``: it constrains nothing for
  negative x, so a claim cannot be proved by an inconsistent assumption.
* ``where`` and the guarded aggregate are ``If`` terms.

Facts are consistent by construction (each is satisfiable on its own fresh
symbol), so assuming them never makes a false claim provable.
"""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

import z3

from usim.encodings.domain import Undefined
from usim.encodings.interpretation import ElementwiseInterpretation, Scalar
from usim.rasp.expr import Op


def _is_int(x: Scalar) -> bool:
    return isinstance(x, z3.ArithRef) and x.is_int()


def real(x: Scalar) -> Scalar:
    """x as a Real term (an Int term is converted)."""
    return z3.ToReal(x) if _is_int(x) else x


def _rational(x: Scalar) -> Fraction | None:
    """The value of a numeral term (IntNumRef has no ``as_fraction``), else None."""
    if isinstance(x, z3.IntNumRef):
        return Fraction(x.as_long())
    if isinstance(x, z3.RatNumRef):
        return x.as_fraction()
    return None


def _positive_constant(x: Scalar) -> bool:
    value = _rational(x)
    return value is not None and value > 0


class SmtInterpretation(ElementwiseInterpretation):
    name: ClassVar[str] = "smt"
    memo_scalars: ClassVar[bool] = False  # it records facts per term made

    def __init__(self) -> None:
        self.facts: list[z3.BoolRef] = []
        self._exp = z3.Function("exp", z3.RealSort(), z3.RealSort())
        self._pow = z3.Function("pow", z3.RealSort(), z3.RealSort(), z3.RealSort())
        self._fresh = 0

    # -- operations ------------------------------------------------------------
    def exp(self, x: Scalar) -> Scalar:
        term = self._exp(real(x))
        self.facts.append(term > 0)
        return term

    def power(self, base: Scalar, exponent: Scalar) -> Scalar:
        e = _rational(exponent)
        if e is not None and e.denominator in (1, 2):
            # x**k by multiplication; x**(k/2) as the constrained square root to the k
            if e == 0:
                return z3.RealVal(1)
            root = base if e.denominator == 1 else self.sqrt(base)
            term = root
            for _ in range(abs(e.numerator) - 1):
                term = term * root
            return term if e > 0 else 1 / real(term)
        term = self._pow(real(base), real(exponent))
        if _positive_constant(base):
            self.facts.append(term > 0)
        return term

    def sqrt(self, x: Scalar) -> Scalar:
        self._fresh += 1
        s = z3.Real(f"sqrt!{self._fresh}")
        x = real(x)
        self.facts.append(z3.Implies(x >= 0, z3.And(s >= 0, s * s == x)))
        return s

    @staticmethod
    def floordiv(a: Scalar, b: Scalar) -> Scalar:
        if _is_int(a) and _is_int(b) and _positive_constant(b):
            return a / b
        return z3.ToInt(real(a) / real(b))

    @staticmethod
    def mod(a: Scalar, b: Scalar) -> Scalar:
        if _is_int(a) and _is_int(b) and _positive_constant(b):
            return a % b
        return a - b * z3.ToInt(real(a) / real(b))

    ops: ClassVar[dict] = {
        Op.ADD: lambda _, a, b: a + b,
        Op.SUB: lambda _, a, b: a - b,
        Op.MUL: lambda _, a, b: a * b,
        Op.TRUEDIV: lambda _, a, b: real(a) / real(b),
        Op.FLOORDIV: lambda self, a, b: self.floordiv(a, b),
        Op.MOD: lambda self, a, b: self.mod(a, b),
        Op.POW: lambda self, a, b: self.power(a, b),
        Op.NEG: lambda _, a: -a,
        Op.ABS: lambda _, a: z3.If(a >= 0, a, -a),
        Op.EXP: lambda self, a: self.exp(a),
        Op.SQRT: lambda self, a: self.sqrt(a),
        Op.MAXIMUM: lambda _, a, b: z3.If(a >= b, a, b),
        Op.MINIMUM: lambda _, a, b: z3.If(a <= b, a, b),
        Op.EQ: lambda _, a, b: a == b,
        Op.NE: lambda _, a, b: a != b,
        Op.LT: lambda _, a, b: a < b,
        Op.LE: lambda _, a, b: a <= b,
        Op.GT: lambda _, a, b: a > b,
        Op.GE: lambda _, a, b: a >= b,
        Op.AND: lambda _, a, b: z3.And(a, b),
        Op.OR: lambda _, a, b: z3.Or(a, b),
        Op.NOT: lambda _, a: z3.Not(a),
        Op.WHERE: lambda self, c, a, b: self.ite(c, a, b),
    }

    # -- scalar primitives -----------------------------------------------------
    def constant(self, value: int | Fraction | bool) -> Scalar:
        if isinstance(value, Undefined):
            # no value: a fresh unconstrained constant, so nothing can be proved from it
            self._fresh += 1
            return z3.Real(f"undefined!{self._fresh}")
        if isinstance(value, bool):
            return z3.BoolVal(value)
        if isinstance(value, Fraction) and value.denominator != 1:
            return z3.Q(value.numerator, value.denominator)
        return z3.IntVal(int(value))

    def truth(self, condition: Scalar) -> bool | None:
        if isinstance(condition, bool):
            return condition
        if z3.is_true(condition):
            return True
        if z3.is_false(condition):
            return False
        return None

    def ite(self, condition: Scalar, if_true: Scalar, if_false: Scalar) -> Scalar:
        decided = self.truth(condition)
        if decided is not None:
            return if_true if decided else if_false
        return z3.If(condition, if_true, if_false)

    def total(self, terms: list[Scalar]) -> Scalar:
        if not terms:
            return z3.IntVal(0)
        if len(terms) == 1:
            return terms[0]
        return z3.Sum(*terms)

    def divide(self, numerator: Scalar, denominator: Scalar) -> Scalar:
        return real(numerator) / real(denominator)

    def is_integer(self, x: Scalar) -> Scalar:
        return z3.BoolVal(True) if _is_int(x) else z3.IsInt(x)
