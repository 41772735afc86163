"""Canonical forms: the sympy engine's decision procedure.

A difference ``got - expected`` is brought to a canonical form:

1. every ``exp(u)`` becomes a fresh positive atom, one per canonical (expanded)
   argument u; likewise every power with a non-constant exponent;
2. the result, now a rational function of symbols and atoms, is put over one
   denominator; the numerator is expanded.

If the expanded numerator is the zero polynomial, ``got = expected`` as rational
functions, hence at every input where the denominators do not vanish (the
claim's preconditions; for softmax the denominators are sums of exp atoms and
positive). This is sound: atoms only forget relations such as
exp(a)exp(b) = exp(a+b), which can hide an equality (giving "not decided") but
never create one.

Expressions with Piecewise, Max, Min, floor, Mod or Abs of symbolic arguments
are not rational functions: a non-zero form there is *undecided*, not unequal.
"""

from __future__ import annotations

import enum

import sympy

_NON_RATIONAL = (sympy.Piecewise, sympy.Max, sympy.Min, sympy.floor, sympy.ceiling,
                 sympy.Mod, sympy.Abs, sympy.sign)


class Verdict(enum.Enum):
    EQUAL = "equal"
    UNEQUAL = "unequal"  # as rational functions over independent atoms: still needs a witness
    UNDECIDED = "undecided"


class Atoms:
    """Fresh positive symbols for exp(...) and symbolic powers, shared across a check."""

    def __init__(self) -> None:
        self._table: dict[sympy.Expr, sympy.Symbol] = {}

    def atom(self, kind: str, key: sympy.Expr) -> sympy.Symbol:
        key = sympy.Tuple(sympy.Symbol(kind), sympy.expand(key))
        if key not in self._table:
            self._table[key] = sympy.Symbol(f"_{kind}{len(self._table)}", positive=True)
        return self._table[key]

    def abstract(self, expr: sympy.Expr) -> sympy.Expr:
        if not isinstance(expr, sympy.Basic):
            return sympy.sympify(expr)
        if expr.has(sympy.exp):
            expr = expr.replace(lambda e: isinstance(e, sympy.exp),
                                lambda e: self.atom("exp", self.abstract(e.args[0])))
        if any(isinstance(p, sympy.Pow) and not p.exp.is_Number for p in expr.atoms(sympy.Pow)):
            expr = expr.replace(
                lambda e: isinstance(e, sympy.Pow) and not e.exp.is_Number,
                lambda e: self.atom(f"pow_{sympy.srepr(e.base)}", self.abstract(e.exp)),
            )
        return expr


def compare(got: sympy.Expr, expected: sympy.Expr, atoms: Atoms | None = None) -> Verdict:
    """Decide got == expected by canonical forms (see the module docstring)."""
    atoms = atoms or Atoms()
    got, expected = sympy.sympify(got), sympy.sympify(expected)
    if got == expected:
        return Verdict.EQUAL
    difference = atoms.abstract(got) - atoms.abstract(expected)
    if difference.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
        return Verdict.UNDECIDED
    numerator, _ = sympy.fraction(sympy.together(difference))
    numerator = sympy.expand(numerator)
    if numerator == 0:
        return Verdict.EQUAL
    if numerator.has(*_NON_RATIONAL) or not numerator.free_symbols and not numerator.is_Number:
        return Verdict.UNDECIDED
    if numerator.has(sympy.Piecewise, sympy.Eq, sympy.Ne, sympy.Lt, sympy.Le, sympy.Gt, sympy.Ge):
        return Verdict.UNDECIDED
    return Verdict.UNEQUAL
