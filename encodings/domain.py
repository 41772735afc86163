"""Where each element-wise operation is defined: one rule for every interpretation.

Most operations are total on the reals. Five are partial, and a program that
meets one outside its domain has no value there (it is *undefined*, never a
number, never an infinity):

=========== =================================================================
operation   defined when
=========== =================================================================
``a / b``   b != 0
``a // b``  b != 0
``a % b``   b != 0
``sqrt(a)`` a >= 0
``a ** b``  a > 0; or a = 0 and b > 0; or b is an integer and (a != 0 or b >= 0)
=========== =================================================================

The power rule is the real power with no complex or "real odd root" branch: a
negative base takes only integer exponents (so ``(-8) ** (1/3)`` is undefined,
as in numpy, not -2 and not sympy's principal complex root), zero takes only
positive exponents or the exponent 0 (``0 ** 0 = 1``), a positive base any
exponent. Where it is defined, every interpretation computes the same real
number: the exact one by rational arithmetic (raising
:class:`~usim.errors.NotExactError` only when the value is irrational), sympy's
principal power (equal to the real power on this domain), numpy's ``power``, z3's
terms (multiplication, a constrained square root, or an uninterpreted ``pow``).

:func:`defined` states the rule once, over any element-wise interpretation's
own comparisons and connectives: the exact interpretation turns a False into an
undefined value (:class:`Undefined`), the definedness analysis
(:mod:`usim.encodings.definedness`) turns the symbolic condition into a proof
obligation, and the numeric interpretation masks the value with NaN.

``where(c, a, b)`` is lazy: its value at a position is the branch taken there,
and an undefined value in the other branch does no harm.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from usim.rasp.expr import Op

if TYPE_CHECKING:  # pragma: no cover
    from usim.encodings.interpretation import ElementwiseInterpretation

PARTIAL = frozenset({Op.TRUEDIV, Op.FLOORDIV, Op.MOD, Op.SQRT, Op.POW})

REASONS = {
    Op.TRUEDIV: "division by zero",
    Op.FLOORDIV: "division by zero",
    Op.MOD: "remainder of a division by zero",
    Op.SQRT: "square root of a negative number",
    Op.POW: "a power outside its domain (0 to a negative power, or a negative base "
            "to a non-integer power)",
}


def defined(interp: "ElementwiseInterpretation", op: Op, args: tuple[Any, ...]) -> Any:
    """The condition (in ``interp``'s booleans) under which ``op(*args)`` is defined.

    True (the interpretation's own true) for a total operation.
    """
    if op not in PARTIAL:
        return interp.constant(True)
    zero = interp.constant(0)
    if op in (Op.TRUEDIV, Op.FLOORDIV, Op.MOD):
        return interp.scalar(Op.NE, args[1], zero)
    if op is Op.SQRT:
        return interp.scalar(Op.GE, args[0], zero)
    base, exponent = args
    positive_base = interp.scalar(Op.GT, base, zero)
    zero_base = interp.scalar(Op.EQ, base, zero)
    integer_exponent = interp.is_integer(exponent)
    return interp.disjunction(
        positive_base,
        interp.conjunction(zero_base, interp.scalar(Op.GT, exponent, zero)),
        interp.conjunction(
            integer_exponent,
            interp.disjunction(interp.scalar(Op.NE, base, zero),
                               interp.scalar(Op.GE, exponent, zero))),
    )


@dataclass(frozen=True)
class Undefined:
    """The value of an operation outside its domain, at one position.

    It propagates through every operation that reads it (an aggregate that
    selects it is undefined too) except the branch of a ``where`` not taken.
    ``reason`` says what failed; ``origin`` names the expression where it first
    arose (filled in by the evaluator).
    """

    reason: str
    origin: str | None = None

    def __str__(self) -> str:
        where = f" in {self.origin}" if self.origin else ""
        return f"undefined ({self.reason}{where})"

    def __bool__(self) -> bool:
        raise TypeError("an undefined value has no truth value")
