"""Signs that are evident from an expression's form: a sound, incomplete analysis.

:func:`sign` says that a sympy expression is positive, non-negative or negative
at every real input where it is defined, when its form shows it (and None when
it does not): ``exp(u)`` is positive; a sum of non-negative terms with a positive
one is positive; a product's sign is the product of its factors' signs; an even
power is non-negative; a power of a positive base is positive; ``|u|`` is
non-negative. Symbols are positive only when declared so (``positive=True``)
or named in ``positive`` (the claim's preconditions say ``eps > 0``).

It is used twice, so that both uses apply one rule: the canonical forms give a
power atom ``b ** e`` the assumption "positive" only when ``sign(b)`` is
positive; the well-definedness checker accepts ``d != 0`` or ``r >= 0`` when
``sign`` shows it, and asks z3 otherwise.

"Where it is defined" matters: ``sign(1/x)`` with x positive is positive, and
whether 1/x is defined is a separate obligation. Every condition this module
accepts is one conjunct of a conjunction whose other conjuncts state that the
sub-expressions are defined (:mod:`usim.encodings.definedness`).
"""

from __future__ import annotations

import enum
from typing import Any, Iterable

import sympy


class Sign(enum.Enum):
    POSITIVE = "> 0"
    NONNEGATIVE = ">= 0"
    NEGATIVE = "< 0"
    NONPOSITIVE = "<= 0"
    ZERO = "= 0"


_NONNEG = {Sign.POSITIVE, Sign.NONNEGATIVE, Sign.ZERO}
_NONPOS = {Sign.NEGATIVE, Sign.NONPOSITIVE, Sign.ZERO}
_FLIP = {Sign.POSITIVE: Sign.NEGATIVE, Sign.NEGATIVE: Sign.POSITIVE, Sign.NONNEGATIVE: Sign.NONPOSITIVE,
         Sign.NONPOSITIVE: Sign.NONNEGATIVE, Sign.ZERO: Sign.ZERO}


class SignAnalysis:
    """Evident signs, memoised over one expression DAG (and its sub-terms)."""

    def __init__(self, positive: Iterable[sympy.Symbol] = (), nonnegative: Iterable[sympy.Symbol] = ()) -> None:
        self.positive = set(positive)
        self.nonnegative = set(nonnegative)
        self.memo: dict[sympy.Basic, Sign | None] = {}

    def sign(self, e: Any) -> Sign | None:
        e = sympy.sympify(e)
        if e in self.memo:
            return self.memo[e]
        out = self._sign(e)
        self.memo[e] = out
        return out

    def _sign(self, e: sympy.Basic) -> Sign | None:
        if e.is_Number:
            if e.is_zero:
                return Sign.ZERO
            if e.is_extended_real and e.is_finite:
                return Sign.POSITIVE if e > 0 else Sign.NEGATIVE
            return None
        if e.is_Symbol:
            if e in self.positive or e.is_positive:
                return Sign.POSITIVE
            if e in self.nonnegative or e.is_nonnegative:
                return Sign.NONNEGATIVE
            return None
        if isinstance(e, sympy.exp):
            return Sign.POSITIVE
        if isinstance(e, sympy.Abs):
            inner = self.sign(e.args[0])
            return Sign.POSITIVE if inner in (Sign.POSITIVE, Sign.NEGATIVE) else Sign.NONNEGATIVE
        if e.is_Add:
            return self._sum([self.sign(a) for a in e.args])
        if e.is_Mul:
            return self._product([self.sign(a) for a in e.args])
        if e.is_Pow:
            return self._power(e.base, e.exp)
        if isinstance(e, (sympy.Max, sympy.Min)):
            signs = [self.sign(a) for a in e.args]
            if isinstance(e, sympy.Max):
                if Sign.POSITIVE in signs:
                    return Sign.POSITIVE
                if any(s in _NONNEG for s in signs):
                    return Sign.NONNEGATIVE
                return None
            if all(s is Sign.POSITIVE for s in signs):
                return Sign.POSITIVE
            if all(s in _NONNEG for s in signs):
                return Sign.NONNEGATIVE
            return None
        if isinstance(e, sympy.Piecewise):
            signs = {self.sign(value) for value, _ in e.args}
            if len(signs) == 1:
                return signs.pop()
            if signs <= _NONNEG:
                return Sign.NONNEGATIVE
            if signs <= _NONPOS:
                return Sign.NONPOSITIVE
            return None
        return None

    @staticmethod
    def _sum(signs: list[Sign | None]) -> Sign | None:
        if any(s is None for s in signs):
            return None
        if all(s in _NONNEG for s in signs):
            return Sign.POSITIVE if Sign.POSITIVE in signs else (
                Sign.ZERO if all(s is Sign.ZERO for s in signs) else Sign.NONNEGATIVE)
        if all(s in _NONPOS for s in signs):
            return Sign.NEGATIVE if Sign.NEGATIVE in signs else (
                Sign.ZERO if all(s is Sign.ZERO for s in signs) else Sign.NONPOSITIVE)
        return None

    @staticmethod
    def _product(signs: list[Sign | None]) -> Sign | None:
        if any(s is None for s in signs):
            return None
        if Sign.ZERO in signs:
            return Sign.ZERO
        negative = sum(s in (Sign.NEGATIVE, Sign.NONPOSITIVE) for s in signs) % 2 == 1
        strict = all(s in (Sign.POSITIVE, Sign.NEGATIVE) for s in signs)
        if strict:
            return Sign.NEGATIVE if negative else Sign.POSITIVE
        return Sign.NONPOSITIVE if negative else Sign.NONNEGATIVE

    def _power(self, base: sympy.Basic, exponent: sympy.Basic) -> Sign | None:
        b = self.sign(base)
        if exponent.is_Integer:
            k = int(exponent)
            if k == 0:
                return Sign.POSITIVE
            if k % 2 == 0:
                return Sign.POSITIVE if b in (Sign.POSITIVE, Sign.NEGATIVE) else (
                    None if b is Sign.ZERO and k < 0 else Sign.NONNEGATIVE)
            return b if k > 0 or b is not Sign.ZERO else None
        # a non-integer exponent: defined only for a base >= 0, and then >= 0
        if b is Sign.POSITIVE:
            return Sign.POSITIVE
        if exponent.is_Rational:
            return Sign.NONNEGATIVE
        return None

    # -- conditions ---------------------------------------------------------------
    def holds(self, condition: Any) -> bool:
        """Whether ``condition`` holds wherever its terms are defined, by signs alone."""
        c = sympy.sympify(condition)
        if c is sympy.true:
            return True
        if c is sympy.false:
            return False
        if isinstance(c, sympy.And):
            return all(self.holds(a) for a in c.args)
        if isinstance(c, sympy.Or):
            return any(self.holds(a) for a in c.args)
        if isinstance(c, sympy.Implies):
            return self.holds(c.args[1])
        if isinstance(c, (sympy.Ne, sympy.Gt, sympy.Ge, sympy.Lt, sympy.Le)):
            lhs, rhs = c.args
            difference = lhs if rhs == 0 else (-rhs if lhs == 0 else lhs - rhs)
            s = self.sign(difference)
            if s is None:
                return False
            if isinstance(c, sympy.Ne):
                return s in (Sign.POSITIVE, Sign.NEGATIVE)
            if isinstance(c, sympy.Gt):
                return s is Sign.POSITIVE
            if isinstance(c, sympy.Ge):
                return s in _NONNEG
            if isinstance(c, sympy.Lt):
                return s is Sign.NEGATIVE
            return s in _NONPOS
        return False


def above_zero(relation: Any) -> tuple[sympy.Expr, bool] | None:
    """x and whether the bound is strict, where ``relation`` says x > 0 or x >= 0
    (also written 0 < x, 0 <= x); None for any other relation.

    >>> x = sympy.Symbol("x")
    >>> above_zero(0 < x), above_zero(x >= 0), above_zero(x > 1)
    ((x, True), (x, False), None)
    """
    r = sympy.sympify(relation)
    if isinstance(r, (sympy.Gt, sympy.Ge)):
        big, small = r.args
    elif isinstance(r, (sympy.Lt, sympy.Le)):
        small, big = r.args
    else:
        return None
    return (big, isinstance(r, (sympy.Gt, sympy.Lt))) if small == 0 else None


def known_signs(relations: Iterable[Any]) -> SignAnalysis:
    """A sign analysis that knows the symbols the relations make positive
    (``eps > 0``, ``0 < eps``) or non-negative (``x >= 0``)."""
    positive, nonnegative = set(), set()
    for r in relations:
        found = above_zero(r)
        if found is not None and found[0].is_Symbol:
            (positive if found[1] else nonnegative).add(found[0])
    return SignAnalysis(positive, nonnegative)
