"""The exact interpretation: rational arithmetic with Python's Fraction.

Every value is an int, a Fraction or a bool, and every operation is exact.
Floor division and remainder follow Python (floor) semantics, as numpy's do.
``exp`` has no rational value at a rational point other than 0 and raises
:class:`NotExactError`; a root or a fractional power is computed exactly when
the result is rational (``length ** 0.5`` at a perfect square) and raises
otherwise. This is also the arithmetic by which the evaluator decides, once per
length, every value that does not depend on the tokens.

(Fraction was chosen over python-flint's fmpq: on the product block the
difference is small next to the traversal itself, and it keeps the dependency
list short; ``benchmarks/bench_interpretations.py`` prints both. Measured there
on A (4 x k) times B (k x 4), the same traversal with only the scalar type
changed: fmpq is 1.1 to 2.4 times faster (runs on a shared machine vary), e.g.
58 ms against 32 ms at k = 64, n = 512; the traversal and per-node overhead,
not rational arithmetic, dominate. The heavy exact work of the project, proving identities, goes
through the engines' canonical forms, not through this interpretation.)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import ClassVar

from usim.encodings.domain import REASONS, defined
from usim.encodings.interpretation import ElementwiseInterpretation, PropagatesUndefined, Scalar
from usim.errors import NotExactError, UndefinedError
from usim.rasp.expr import Op


def _normal(x: Fraction | int) -> Fraction | int:
    if isinstance(x, Fraction) and x.denominator == 1:
        return int(x)
    return x


def _integer_root(x: int, degree: int) -> int:
    """floor(x ** (1/degree)) for an int x >= 0, in integers (no float overflow)."""
    if x < 2:
        return x
    r = 1 << ((x.bit_length() + degree - 1) // degree)  # r ** degree >= x
    while True:  # Newton's iteration decreases until it reaches the floor root
        s = ((degree - 1) * r + x // r ** (degree - 1)) // degree
        if s >= r:
            return r
        r = s


def root_name(degree: int) -> str:
    """A root in words: ``square root``, ``cube root``, ``4th root``, ``21st root``."""
    if degree in (2, 3):
        return "square root" if degree == 2 else "cube root"
    suffix = "th" if 10 <= degree % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(degree % 10, "th")
    return f"{degree}{suffix} root"


def _exact_root(x: Fraction | int, degree: int) -> Fraction | int:
    """The exact degree-th root of x >= 0 if it is rational, else NotExactError."""
    x = Fraction(x)
    if x < 0:  # pragma: no cover - the domain rule keeps negative numbers out
        raise UndefinedError(f"the {root_name(degree)} of the negative number {x} is not real")
    num, den = x.numerator, x.denominator
    a, b = _integer_root(num, degree), _integer_root(den, degree)
    if a**degree == num and b**degree == den:
        return _normal(Fraction(a, b))
    raise NotExactError(f"the {root_name(degree)} of {x} is irrational")


def exact_pow(base: Fraction | int, exponent: Fraction | int) -> Fraction | int:
    """base ** exponent by the power rule of :mod:`usim.encodings.domain`.

    Raises UndefinedError outside the domain (0 to a negative power, a negative
    base to a non-integer power) and NotExactError where the power is irrational.
    """
    base, exponent = Fraction(base), Fraction(exponent)
    if not POWER_DEFINED(base, exponent):
        raise UndefinedError(f"{base} ** {exponent} is undefined ({REASONS[Op.POW]})")
    if exponent.denominator == 1:
        return _normal(base ** exponent.numerator)
    if base == 0:
        return 0
    root = _exact_root(base, exponent.denominator)
    return _normal(Fraction(root) ** exponent.numerator)


def _exp(_: Scalar, x: Scalar) -> Scalar:
    if x == 0:
        return 1
    raise NotExactError(
        f"exp({x}) is irrational: the exact interpretation has no exp; "
        "use the symbolic, smt or numeric interpretation"
    )


def _div(_: Scalar, a: Scalar, b: Scalar) -> Scalar:
    return _normal(Fraction(a) / Fraction(b))


class _RationalArithmetic(ElementwiseInterpretation):
    """The arithmetic of the exact interpretation, on defined values."""

    name: ClassVar[str] = "exact"

    ops: ClassVar[dict] = {
        Op.ADD: lambda _, a, b: _normal(a + b),
        Op.SUB: lambda _, a, b: _normal(a - b),
        Op.MUL: lambda _, a, b: _normal(a * b),
        Op.TRUEDIV: _div,
        Op.FLOORDIV: lambda _, a, b: _normal(a // b),
        Op.MOD: lambda _, a, b: _normal(a % b),
        Op.POW: lambda _, a, b: exact_pow(a, b),
        Op.NEG: lambda _, a: -a,
        Op.ABS: lambda _, a: abs(a),
        Op.EXP: _exp,
        Op.SQRT: lambda _, a: _exact_root(a, 2),
        Op.MAXIMUM: lambda _, a, b: max(a, b),
        Op.MINIMUM: lambda _, a, b: min(a, b),
        Op.EQ: lambda _, a, b: a == b,
        Op.NE: lambda _, a, b: a != b,
        Op.LT: lambda _, a, b: a < b,
        Op.LE: lambda _, a, b: a <= b,
        Op.GT: lambda _, a, b: a > b,
        Op.GE: lambda _, a, b: a >= b,
        Op.AND: lambda _, a, b: bool(a and b),
        Op.OR: lambda _, a, b: bool(a or b),
        Op.NOT: lambda _, a: not a,
        Op.WHERE: lambda _, c, a, b: a if c else b,
    }

    def constant(self, value: int | Fraction | bool) -> Scalar:
        return value

    def is_integer(self, x: Scalar) -> Scalar:
        return Fraction(x).denominator == 1

    def truth(self, condition: Scalar) -> bool | None:
        return bool(condition)

    def ite(self, condition: Scalar, if_true: Scalar, if_false: Scalar) -> Scalar:
        return if_true if condition else if_false

    def total(self, terms: list[Scalar]) -> Scalar:
        return _normal(sum(terms, 0))

    def divide(self, numerator: Scalar, denominator: Scalar) -> Scalar:
        return _normal(Fraction(numerator) / Fraction(denominator))

    def to_number(self, seq):
        return [int(bool(c)) for c in seq]


class ExactInterpretation(PropagatesUndefined, _RationalArithmetic):
    """Rationals, with :class:`~usim.encodings.domain.Undefined` where an operation
    leaves its domain (:class:`~usim.encodings.interpretation.PropagatesUndefined`)."""


def POWER_DEFINED(base: Fraction, exponent: Fraction) -> bool:
    """The power rule of :mod:`usim.encodings.domain` at two rationals."""
    return bool(defined(EXACT, Op.POW, (base, exponent)))


def as_exact(value: object) -> int | Fraction:
    """A user's number as an exact rational (a float is read as its decimal: the
    shortest that reads back as the same float of its own width)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, Fraction)):
        return _normal(Fraction(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"non-finite value {value!r}")
        return _normal(Fraction(repr(float(value))))  # np.float64's repr is np.float64(...)
    try:
        import numpy as np

        if isinstance(value, np.integer):
            return int(value)
        if isinstance(value, np.floating):
            if np.finfo(value.dtype).nmant > np.finfo(np.float64).nmant:  # a long double: not through float64
                if not np.isfinite(value):
                    raise ValueError(f"non-finite value {value!r}")
                return _normal(Fraction(np.format_float_scientific(value, unique=True)))
            return as_exact(float(value))
    except ImportError:  # pragma: no cover
        pass
    if isinstance(value, str):
        return _normal(Fraction(value))
    raise TypeError(f"cannot read {value!r} as an exact number")


EXACT = ExactInterpretation()
"""The exact interpretation, one instance (the evaluator recognises it by ``interp is EXACT``)."""
