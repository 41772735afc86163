"""Symbolic integers in z3, with ``//`` and ``%`` as Python means them.

Index expressions (positions, offsets, head indices, the dimensions r, c, k)
are z3 integer terms. ``//`` and ``%`` mean what they mean in Python (and in
every interpretation of :mod:`usim.encodings`): floor division, and a remainder
with the divisor's sign. z3's own ``div``/``mod`` are Euclidean; they agree
with Python's for a positive divisor, so :func:`floordiv` uses them when the
divisor is provably positive and otherwise writes Python's rule out
(``a // b = (-a) div (-b)`` for b < 0). Each division is defined only for a
non-zero divisor: the caller records that condition (:mod:`usim.encodings.domain`
states the rule) and it is proved like every other step.

:func:`translate` writes a :class:`~usim.rasp.family.SymbolicInt` (a size, an
offset, a head index) in z3 with the definedness condition of each division it
holds; :func:`condition_formula` writes a condition between them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

import z3

from usim.engine.parametric.polynomials import Formula, Term, numeral
from usim.rasp.family import Condition, SymbolicInt


def floordiv(a: Term, b: Term, positive: Callable[[Term], bool]) -> Term:
    """a // b as Python computes it (b != 0 is the caller's obligation).

    Args:
        a: the dividend.
        b: the divisor.
        positive: whether a term is known to be positive (then z3's own div, the
            floor there, is used).

    Returns:
        The quotient's term: z3's div where b is known positive, Python's rule
        written out (by b's sign) elsewhere.
    """
    value = numeral(b)
    if (value is not None and value > 0) or (value is None and positive(b)):
        return a / b  # z3's div: floor for a positive divisor
    if value is not None and value < 0:
        return (-a) / (-b)
    return z3.If(b > 0, a / b, (-a) / (-b))


def mod(a: Term, b: Term, positive: Callable[[Term], bool]) -> Term:
    """a % b as Python computes it: a - b * (a // b) (the divisor's sign).

    Args:
        a: the dividend.
        b: the divisor.
        positive: as for :func:`floordiv`.

    Returns:
        The remainder's term: z3's mod where b is known positive, else a - b (a // b).
    """
    value = numeral(b)
    if (value is not None and value > 0) or (value is None and positive(b)):
        return a % b  # z3's mod: in [0, b) for a positive divisor
    return a - b * floordiv(a, b, positive)


@dataclass
class Translation:
    """A symbolic integer in z3, with the conditions under which it is defined."""

    term: Term
    defined: list[Formula]


def translate(value: SymbolicInt | int, env: Mapping[str, Term], dims: Mapping[str, Term],
              positive: Callable[[Term], bool]) -> Translation:
    """``value`` (a :class:`SymbolicInt` over dimensions and head indices) in z3.

    Args:
        value: the symbolic integer (or an integer).
        env: z3 terms of the bound symbols (head indices, a sum's index).
        dims: z3 terms of the dimensions.
        positive: as for :func:`floordiv`.

    Returns:
        Its term, with b != 0 for each division a // b or a % b it holds.

    Raises:
        KeyError: a symbol neither bound nor a dimension.
    """
    defined: list[Formula] = []

    def walk(s: SymbolicInt) -> Term:
        if s.op == "num":
            return z3.IntVal(s.args[0])
        if s.op == "sym":
            name = s.args[0]
            if name in env:
                return env[name]
            if name in dims:
                return dims[name]
            raise KeyError(f"the symbol {name} has no meaning here")
        if s.op == "neg":
            return -walk(s.args[0])
        left, right = walk(s.args[0]), walk(s.args[1])
        if s.op == "+":
            return left + right
        if s.op == "-":
            return left - right
        if s.op == "*":
            return left * right
        defined.append(right != 0)
        return floordiv(left, right, positive) if s.op == "//" else mod(left, right, positive)

    if isinstance(value, int):
        return Translation(z3.IntVal(value), [])
    return Translation(walk(value), defined)


def condition_formula(condition: Condition, term: Callable[[SymbolicInt | int], Term]) -> Formula:
    """A :class:`~usim.rasp.family.Condition` (comparisons of symbolic integers
    under and, or, not) as a z3 formula, each side translated by ``term`` (which
    records its own definedness conditions).

    Args:
        condition: comparisons under and, or, not.
        term: a side's z3 term.

    Returns:
        The z3 formula.

    >>> from usim.rasp.family import dimension
    >>> r = dimension("r")
    >>> condition_formula((r < 3) & ~(r == 1), lambda v: z3.Int("r") if v is r else z3.IntVal(v.value({})))
    And(3 > r, Not(1 == r))
    """
    if condition.op == "and":
        return z3.And(*[condition_formula(a, term) for a in condition.args])
    if condition.op == "or":
        return z3.Or(*[condition_formula(a, term) for a in condition.args])
    if condition.op == "not":
        return z3.Not(condition_formula(condition.args[0], term))
    a, b = (term(x) for x in condition.args)
    return {"<": a < b, "<=": a <= b, "==": a == b, "!=": a != b, ">": a > b, ">=": a >= b}[condition.op]
