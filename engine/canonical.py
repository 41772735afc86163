"""Canonical forms: the sympy engine's decision procedure.

A difference ``got - expected`` is brought to a canonical form:

1. every ``exp(u)`` becomes a fresh positive atom, one per canonical (expanded)
   argument u; likewise every power ``b ** e`` with a non-constant exponent
   becomes a fresh real atom, assumed positive only when b is evidently positive
   (:mod:`usim.engine.signs`): a negative base to an integer exponent can be
   negative, and an atom is assumed nothing that does not hold for it;
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
A floating-point number is never compared (it is not an exact number): the
verdict is *undecided*.

The verdict says "equal wherever both sides are defined": clearing
denominators forgets where they vanish. That they never vanish where the
preconditions hold is the separate well-definedness obligation
(:mod:`usim.engine.definedness`).

Accelerated path (measured, docs/engines.md). When python-flint is importable
(a dependency; an install without it still works), :func:`compare_flint` computes the same canonical
form with exact multivariate polynomials (``fmpq_mpoly``): each sub-expression
of the DAG becomes a (numerator, denominator) pair over the symbols and the
same exp atoms; zero numerator: EQUAL. It decides exactly as the sympy path
(same atoms, same rational function, a library-independent zero test) and
returns None outside its fragment (Piecewise, Max, sqrt, floats, symbolic
exponents, a zero denominator...), which falls back to sympy. Figures (2 shared
cores): whole attention (theorem6, n = d = 6) 0.20 s against sympy's 12.6 s;
n = d = 8 1.4 s, sympy over 30 s. On lemma4/lemma5 both sides are already the
same sympy tree and every path decides at once. symengine with the same
algorithm was 1.2-3x faster than sympy and 10-100x slower than flint: not added.
"""

from __future__ import annotations

import contextlib
import enum
from typing import Any, Iterator

import sympy

from usim.engine.signs import Sign, SignAnalysis

_NON_RATIONAL = (sympy.Piecewise, sympy.Max, sympy.Min, sympy.floor, sympy.ceiling,
                 sympy.Mod, sympy.Abs, sympy.sign)


class Verdict(enum.Enum):
    EQUAL = "equal"
    UNEQUAL = "unequal"  # as rational functions over independent atoms: still needs a witness
    UNDECIDED = "undecided"


class Atoms:
    """Fresh symbols for exp(...) (positive) and symbolic powers (positive only
    over an evidently positive base, else just real), shared across a check."""

    def __init__(self) -> None:
        self._table: dict[sympy.Expr, sympy.Symbol] = {}
        self._signs = SignAnalysis()

    def atom(self, kind: str, key: sympy.Expr, positive: bool = True) -> sympy.Symbol:
        key = sympy.Tuple(sympy.Symbol(kind), sympy.expand(key))
        if key not in self._table:
            assumption = {"positive": True} if positive else {"real": True}
            self._table[key] = sympy.Symbol(f"_{kind}{len(self._table)}", **assumption)
        return self._table[key]

    def _power_atom(self, e: sympy.Pow) -> sympy.Symbol:
        positive = self._signs.sign(e.base) is Sign.POSITIVE
        return self.atom(f"pow_{sympy.srepr(e.base)}", self.abstract(e.exp), positive=positive)

    def _exp_atom(self, e: sympy.exp) -> sympy.Expr:
        """exp(u) as an atom of the canonical u; exp(-u) as 1/atom(u)."""
        argument = sympy.expand(self.abstract(e.args[0]))
        if argument.could_extract_minus_sign():
            return 1 / self.atom("exp", -argument)
        return self.atom("exp", argument)

    def abstract(self, expr: sympy.Expr) -> sympy.Expr:
        if not isinstance(expr, sympy.Basic):
            return sympy.sympify(expr)
        if expr.has(sympy.exp):
            expr = expr.replace(lambda e: isinstance(e, sympy.exp), self._exp_atom)
        if any(isinstance(p, sympy.Pow) and not p.exp.is_Number for p in expr.atoms(sympy.Pow)):
            expr = expr.replace(
                lambda e: isinstance(e, sympy.Pow) and not e.exp.is_Number,
                self._power_atom,
            )
        return expr


def compare(got: sympy.Expr, expected: sympy.Expr, atoms: Atoms | None = None) -> Verdict:
    """Decide got == expected by canonical forms (see the module docstring).

    When python-flint is importable (and :func:`accelerated` has not switched it
    off), :func:`compare_flint` decides first; it answers only inside its
    fragment, where its verdict is the one this function would give, and
    returns None elsewhere, which falls back to the sympy path below.
    """
    atoms = atoms or Atoms()
    got, expected = sympy.sympify(got), sympy.sympify(expected)
    undefined = (sympy.nan, sympy.zoo, sympy.oo, -sympy.oo)
    if got.has(*undefined) or expected.has(*undefined):
        return Verdict.UNDECIDED  # an undefined value is never "equal", even to itself
    if got.has(sympy.Float) or expected.has(sympy.Float):
        return Verdict.UNDECIDED  # not an exact number: never compared
    if got == expected:
        return Verdict.EQUAL
    if _accelerate:
        fast = compare_flint(got, expected)
        if fast is not None:
            return fast
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


# -- the accelerated path: the same canonical form in flint ---------------------

try:  # the optional extra `fast`
    import flint as _flint
except ImportError:  # pragma: no cover - exercised where flint is absent
    _flint = None

_accelerate = _flint is not None


@contextlib.contextmanager
def accelerated(on: bool) -> Iterator[bool]:
    """Switch the flint path on or off inside a ``with`` block (tests, benchmarks).

    Yields whether it is actually on (it cannot be on without python-flint).
    """
    global _accelerate
    before = _accelerate
    _accelerate = bool(on) and _flint is not None
    try:
        yield _accelerate
    finally:
        _accelerate = before


class _Outside(Exception):
    """The expression leaves the fragment of the flint path."""


def compare_flint(got: sympy.Expr, expected: sympy.Expr) -> Verdict | None:
    """The canonical form of ``got - expected`` in flint, or None outside its fragment.

    Fragment: symbols, rational numbers, +, *, integer powers, and exp(u) with u
    a polynomial (after its own exp atoms). Every sub-expression is evaluated
    bottom-up to a pair (numerator, denominator) of exact polynomials
    (``fmpq_mpoly``) in the symbols and the exp atoms, one atom per canonical
    polynomial argument (the polynomial is canonical, so two arguments get the
    same atom exactly when the sympy path's ``expand`` makes them equal). The
    verdict: the numerator of ``got - expected`` is the zero polynomial: EQUAL;
    otherwise UNEQUAL (a rational function that is not zero, like the sympy
    path's, still needs a witness). A denominator that is the zero polynomial,
    a float, a symbolic exponent, Piecewise, Max, sqrt, E, ... are outside:
    None, and the caller falls back to sympy. So the flint path decides EQUAL
    exactly when the sympy path does, only faster.
    """
    if _flint is None:
        return None
    try:
        return _FlintForm(got, expected).verdict()
    except (_Outside, RecursionError):
        return None


def _leaves(*roots: sympy.Basic) -> tuple[list[sympy.Symbol], int]:
    """The symbols (sorted by name) and the number of distinct exp nodes, by one
    walk over the expression DAG (sympy's ``free_symbols``/``atoms`` walk the
    tree, revisiting shared sub-terms: quadratic on attention)."""
    seen: set[sympy.Basic] = set()
    symbols: set[sympy.Symbol] = set()
    n_exp = 0
    stack = list(roots)
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        if e.is_Symbol:
            symbols.add(e)
        elif isinstance(e, sympy.exp):
            n_exp += 1
        stack.extend(e.args)
    return sorted(symbols, key=lambda s: s.name), n_exp


class _FlintForm:
    def __init__(self, got: sympy.Basic, expected: sympy.Basic) -> None:
        self.got, self.expected = got, expected
        symbols, n_exp = _leaves(got, expected)
        names = tuple(f"x{i}" for i in range(len(symbols))) + tuple(f"e{i}" for i in range(n_exp))
        if not names:
            names = ("x0",)
        self.ctx = _flint.fmpq_mpoly_ctx.get(names, "lex")
        gens = self.ctx.gens()
        self.one = self.ctx.constant(1)
        self.symbol = {s: g for s, g in zip(symbols, gens)}
        self.free_atoms = list(gens[len(symbols):])
        self.atom_of: dict[str, Any] = {}
        self.memo: dict[sympy.Basic, tuple[Any, Any]] = {}

    def verdict(self) -> Verdict:
        gn, gd = self.value(self.got)
        en, ed = self.value(self.expected)
        numerator = gn - en if gd == ed else gn * ed - en * gd
        return Verdict.EQUAL if numerator.is_zero() else Verdict.UNEQUAL

    def value(self, e: sympy.Basic) -> tuple[Any, Any]:
        if e in self.memo:
            return self.memo[e]
        if e.is_Symbol:
            out = (self.symbol[e], self.one)
        elif e.is_Rational:
            out = (self.ctx.constant(_flint.fmpq(int(e.p), int(e.q))), self.one)
        elif e.is_Add:
            out = self._sum([self.value(a) for a in e.args])
        elif e.is_Mul:
            n, d = self.one, self.one
            for a in e.args:
                an, ad = self.value(a)
                n, d = n * an, d * ad
            out = (n, d)
        elif e.is_Pow and e.exp.is_Integer:
            n, d = self.value(e.base)
            k = int(e.exp)
            if k < 0:
                if n.is_zero():
                    raise _Outside("a zero denominator")
                n, d, k = d, n, -k
            out = (n ** k, d ** k)
        elif isinstance(e, sympy.exp):
            n, d = self.value(e.args[0])
            if not d.is_constant():
                raise _Outside("exp of a rational function")
            argument = n * self.ctx.constant(1 / d.leading_coefficient()) if not d.is_one() else n
            # exp(-u) is 1/exp(u), as on the sympy path: one atom per argument up to sign
            negative = not argument.is_zero() and argument.leading_coefficient() < 0
            key = str(-argument if negative else argument)
            if key not in self.atom_of:
                self.atom_of[key] = self.free_atoms[len(self.atom_of)]
            out = (self.one, self.atom_of[key]) if negative else (self.atom_of[key], self.one)
        else:
            raise _Outside(type(e).__name__)
        self.memo[e] = out
        return out

    def _sum(self, terms: list[tuple[Any, Any]]) -> tuple[Any, Any]:
        groups: list[list[Any]] = []  # [denominator, numerator]: terms over one denominator add up
        for n, d in terms:
            for group in groups:
                if group[0] == d:
                    group[1] = group[1] + n
                    break
            else:
                groups.append([d, n])
        n, d = groups[0][1], groups[0][0]
        for gd, gn in groups[1:]:
            n, d = n * gd + gn * d, d * gd
        return n, d
