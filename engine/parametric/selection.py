"""Static selections as index intervals, found by inversion and proved by z3.

A selector whose keys and queries are index arithmetic (no tokens) selects, at
query q, the keys k in [0, n) with predicate(keys(k), queries(q)). For the
blocks of the paper every such set is one interval of key positions, possibly
empty for some queries:

    S(q) = { k : guard(q) and lo(q) <= k < hi(q) },    0 <= lo <= hi <= n

(the keys of row b: [b*c, b*c + c) where q is in row b; one key src(q) for a
gather; the keys 0..k-1 of the product's second layer). :func:`infer` finds
``guard``, ``lo`` and ``hi`` by inverting the key expression: ``k`` itself,
``A + t``, ``A - t``, ``t - A``, ``A // d`` and ``A * d`` with d > 0 (z3
proves the sign), ``&`` of selectors intersects, a side without ``k`` is a
condition on the query alone. The inversion is only a guess: what is used is
the characterisation z3 proves for every size and every query in its context,

    for all k in [0, n):  predicate(keys(k), queries(q))  <=>  guard and lo <= k < hi,

stated with the selector's own terms, not with the guess. A guess that is wrong
(or a selection that is no interval) is never used: the step fails, with z3's
model as the sizes where it fails.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import z3

from usim.engine.parametric.integers import Formula, Term
from usim.engine.parametric.polynomials import free_constants
from usim.rasp.expr import Predicate, Select, Selector, SelectorAnd, SelectorNot, SelectorOr

Bound = Term | None  # None: unbounded on that side


@dataclass(frozen=True)
class Interval:
    guard: Formula
    lo: Term
    hi: Term

    @property
    def nonempty(self) -> Formula:
        return z3.And(self.guard, self.lo < self.hi)

    def holds(self, k: Term) -> Formula:
        return z3.And(self.guard, self.lo <= k, k < self.hi)


def predicate_formula(predicate: Predicate, key: z3.ExprRef, query: z3.ExprRef) -> Formula:
    """key <predicate> query (the selector's entry), in z3."""
    if predicate is Predicate.TRUE:
        return z3.BoolVal(True)
    if predicate is Predicate.FALSE:
        return z3.BoolVal(False)
    return {Predicate.EQ: key == query, Predicate.NE: key != query, Predicate.LT: key < query,
            Predicate.LE: key <= query, Predicate.GT: key > query, Predicate.GE: key >= query}[predicate]


def _mentions(term: z3.ExprRef, k: Term) -> bool:
    return k.decl().name() in free_constants(term)


def _range(predicate: Predicate, value: Term) -> tuple[Bound, Bound] | None:
    """The values v with v <predicate> value, as [lo, hi)."""
    return {Predicate.EQ: (value, value + 1), Predicate.LT: (None, value), Predicate.LE: (None, value + 1),
            Predicate.GT: (value + 1, None), Predicate.GE: (value, None)}.get(predicate)


def invert(term: Term, k: Term, lo: Bound, hi: Bound,
           positive: Callable[[Term], bool]) -> tuple[Bound, Bound] | None:
    """The k with lo <= term(k) < hi, as an interval [lo', hi') of k, or None."""
    if term.eq(k):
        return lo, hi
    children = term.children()
    if z3.is_add(term):
        inner = [c for c in children if _mentions(c, k)]
        if len(inner) != 1:
            return None
        rest = sum((c for c in children if not _mentions(c, k)), z3.IntVal(0))
        return invert(inner[0], k, None if lo is None else lo - rest, None if hi is None else hi - rest, positive)
    if z3.is_sub(term) and len(children) == 2:
        a, b = children
        if _mentions(a, k) and not _mentions(b, k):
            return invert(a, k, None if lo is None else lo + b, None if hi is None else hi + b, positive)
        if _mentions(b, k) and not _mentions(a, k):  # a - B in [lo, hi)  <=>  B in (a - hi, a - lo]
            return invert(b, k, None if hi is None else a - hi + 1, None if lo is None else a - lo + 1, positive)
        return None
    if z3.is_idiv(term) and len(children) == 2:
        a, d = children
        if _mentions(d, k) or not positive(d):
            return None
        return invert(a, k, None if lo is None else lo * d, None if hi is None else hi * d, positive)
    if z3.is_mul(term):
        inner = [c for c in children if _mentions(c, k)]
        if len(inner) != 1:
            return None
        d = z3.Product(*[c for c in children if not _mentions(c, k)]) if len(children) > 2 else \
            [c for c in children if not _mentions(c, k)][0]
        if not positive(d):
            return None
        ceiling = lambda x: (x + d - 1) / d  # noqa: E731 - ceil(x / d) for d > 0
        return invert(inner[0], k, None if lo is None else ceiling(lo), None if hi is None else ceiling(hi), positive)
    return None


def infer(selector: Selector, k: Term, n: Term, static: Callable, positive: Callable[[Term], bool],
          larger: Callable[[Term, Term], Term], smaller: Callable[[Term, Term], Term]) -> list[Interval]:
    """Guesses of the selection as an interval (see the module docstring), most
    likely first; none where the selector is not one the inversion knows.

    ``static(sop, position)`` is the sop's z3 term at a position (the query's
    already fixed by the caller); ``larger``/``smaller`` give max/min of two
    terms (simplified where z3 decides the order). A key given by cases on the
    key's position (``where(k inside Z, row of k in Z, -1 - k)``: a layer
    norm's rows) gives one guess per case, each inverted on its own: the keys
    where the other case holds must then select nothing, which the proof of
    the guess checks."""
    if isinstance(selector, Select):
        key = static(selector.keys, k)
        query = static(selector.queries, None)
        if selector.predicate in (Predicate.TRUE, Predicate.FALSE) or not _mentions(key, k):
            return [Interval(predicate_formula(selector.predicate, key, query), z3.IntVal(0), n)]
        bounds = _range(selector.predicate, query)
        if bounds is None:
            return []
        cases = [key]
        if z3.is_app_of(key, z3.Z3_OP_ITE) and _mentions(key.arg(0), k):
            cases = [key.arg(1), key.arg(2)]
        out = []
        for case in cases:
            found = invert(case, k, *bounds, positive)
            if found is not None:
                lo, hi = found
                out.append(Interval(z3.BoolVal(True), z3.IntVal(0) if lo is None else lo, n if hi is None else hi))
        return out
    if isinstance(selector, SelectorOr) or isinstance(selector, SelectorNot):
        return []
    if isinstance(selector, SelectorAnd):
        lefts = infer(selector.left, k, n, static, positive, larger, smaller)
        rights = infer(selector.right, k, n, static, positive, larger, smaller)
        return [Interval(z3.And(left.guard, right.guard), larger(left.lo, right.lo), smaller(left.hi, right.hi))
                for left in lefts for right in rights]
    return []


def formula(selector: Selector, k: Term, static: Callable) -> Formula:
    """The selector's entry at (query, key k), with its own terms."""
    if isinstance(selector, Select):
        return predicate_formula(selector.predicate, static(selector.keys, k), static(selector.queries, None))
    if isinstance(selector, SelectorOr):
        return z3.Or(formula(selector.left, k, static), formula(selector.right, k, static))
    if isinstance(selector, SelectorAnd):
        return z3.And(formula(selector.left, k, static), formula(selector.right, k, static))
    if isinstance(selector, SelectorNot):
        return z3.Not(formula(selector.inner, k, static))
    raise TypeError(f"not a selector: {selector!r}")
