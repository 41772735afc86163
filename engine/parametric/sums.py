"""Sums over an interval of keys, split where their body needs a case.

A head's mean over the keys [lo, lo + count) is a sum over a bound index l.
Its body is evaluated once for a symbolic l; a ``where`` (or a block's
padding) whose condition depends on l cannot be split inside the sum. Where
that condition holds exactly on the first keys (c(l) <=> l < t for every
l < count, t proved by z3: a masked row sum, keys j < n), the sum is the sum
over the first t' = min(max(t, 0), count) keys plus the sum over the rest,
each evaluated on its own keys, where the condition is decided. Where no
comparison of the condition gives a threshold, and no case of the context
can be split instead, the condition is simplified first by what the facts
decide (``Prover.simplify``, quotients included: a key of a concatenation
read modulo its width). Splitting a sum's range anywhere is sound; the
threshold only decides whether the pieces can then be evaluated.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import sympy
import z3

from usim.engine.parametric.integers import Formula, Term, has_quotient
from usim.engine.parametric.polynomials import free_constants
from usim.engine.parametric.thresholds import threshold_of
from usim.engine.parametric.steps import CASES, SPLITS, Context, OuterCase, SplitInSum, Unsupported
from usim.engine.signs import Sign, SignAnalysis
from usim.rasp.expr import Aggregate, SOp


class SumSplitting:
    """The evaluator's sums (mixed into :class:`.symbolic_sizes.SymbolicSizeEvaluator`,
    whose ``value``, ``variable``, ``smaller``, ``larger``, ``prover`` and ``atoms`` they use)."""

    def _sum(self, node: Aggregate, values: SOp, lo: Term, count: Term, env: Mapping[str, Term],
             ctx: Context, splits: int = SPLITS) -> sympy.Expr:
        """sum_{l < count} values(lo + l): one sum atom; or, where the body needs a
        case split on a condition c(l) that holds exactly on the first keys
        (c(l) <=> l < t for every l < count, t proved by z3: a masked row, a
        zero-padded block), the sum over l < t' plus the sum over the keys from
        t' on, t' = min(max(t, 0), count), each evaluated (and split again)
        on its own keys, a sum over no key left out."""
        l = self.variable("l", z3.IntVal(0), count)
        inner = ctx.also(l >= 0, l < count, forkable=False)
        try:
            body = self.value(values, lo + l, env, inner)
        except SplitInSum as split:
            threshold = self._threshold(split.condition, l, inner, count) if splits > 0 else None
            if threshold is None:
                self._outside(split, l, count, ctx)  # raises OuterCase where the context can be split instead
                if splits > 0:  # else: the condition with what the facts decide taken out
                    simpler = self.prover.simplify(inner.facts, split.condition, CASES, small=True)
                    if not simpler.eq(split.condition):
                        threshold = self._threshold(simpler, l, inner, count)
            if threshold is None:
                raise
            first = self.smaller(self.larger(threshold, z3.IntVal(0)), count)
            parts = []
            for start, extent in ((lo, first), (lo + first, count - first)):
                if self.prover.proves(ctx.facts, extent <= 0, CASES).holds:
                    continue
                parts.append(self._sum(node, values, start, extent, env, ctx, splits - 1))
            return sympy.Add(*parts)
        if len(body) != 1:
            raise Unsupported(f"the values of {node.name} split into cases inside its sum")
        terms = body[0][1]
        positive = SignAnalysis().sign(terms) is Sign.POSITIVE \
            and self.prover.proves(ctx.facts, count >= 1, CASES).holds is True
        return self.atoms.total(l, count, terms, positive=positive, nonnegative=True)

    def _as_stated(self, facts: Sequence[Formula], formula: Formula) -> Formula:
        """``formula`` as ``facts`` state it where it has quotients or remainders
        (``Prover.simplify``: an equal formula wherever the facts hold; (l % 3N + 3N i)
        // 3N is i), else itself: z3 decides that form at once where it leaves the
        non-linear one open after its whole effort (Theorem 9's stage 5 at three
        heads: 297 s as stated, 157 s so, 2026-12-05)."""
        return self.prover.simplify(facts, formula, CASES, small=True) if has_quotient(formula) else formula

    def _open_parts(self, condition: Formula, facts: Sequence[Formula], limit: int = 8) -> list[Formula]:
        """The comparisons a Boolean combination (and, or, not, if) still depends on
        where ``facts`` hold: each part the facts decide (z3, asked as the facts
        state it: :meth:`_as_stated`) drops out, an
        ``if`` whose test they decide is its branch. At most ``limit`` of them.
        Only a guide to where a sum is split or its context cased (every split
        of a sum's range, every case split of a context, is sound)."""
        def decided(c: Formula) -> bool | None:
            c = self._as_stated(facts, c)
            if self.prover.proves(facts, c, CASES).holds:
                return True
            if self.prover.proves(facts, z3.Not(c), CASES).holds:
                return False
            return None

        found: list[Formula] = []
        todo = [condition]
        while todo and len(found) < limit:
            c = todo.pop(0)
            if z3.is_not(c):
                todo.insert(0, c.children()[0])
            elif z3.is_and(c) or z3.is_or(c):
                todo[:0] = [p for p in c.children() if decided(p) is None]
            elif z3.is_app_of(c, z3.Z3_OP_ITE):
                test, yes, no = c.children()
                taken = decided(test)
                todo[:0] = [yes if taken else no] if taken is not None else [test, yes, no]
            elif decided(c) is None and all(not c.eq(f) for f in found):
                found.append(c)
        return found

    def _threshold(self, condition: Formula, l: Term, inner: Context, count: Term) -> Term | None:
        """t free of l such that one open comparison of the condition holds exactly
        when l < t wherever inner's facts hold (z3), or None. The candidates: the
        sides of the comparison and what makes them differ by l, each also plus
        one. A candidate with quotients or remainders is asked as the facts state
        it (``Prover.simplify``, an equal formula there: (l % 2N + 2N i) % 2N < d
        is l < d for 0 <= l < 2N), which z3 decides where it leaves the
        non-linear form unknown after its whole effort. None that the facts put at
        t <= 0 or t >= count (every key on one side of it): a comparison z3 left
        open as stated but decides as simplified gives such a t, and a split there
        is the same sum again, one split deeper."""
        def exactly(formula: Formula) -> bool:
            return self.prover.proves(inner.facts, self._as_stated(inner.facts, formula), CASES).holds is True

        def splits(t: Term) -> bool:
            return not self.prover.proves(inner.facts, t <= 0, CASES).holds \
                and not self.prover.proves(inner.facts, t >= count, CASES).holds

        return threshold_of(self._open_parts(condition, inner.facts), l, exactly, splits)

    def _outside(self, split: SplitInSum, l: Term, count: Term, ctx: Context) -> None:
        """Raise :class:`OuterCase` for an open comparison of the condition the body
        needs that is the same at every key (free of l, or z3: c(l) == c(l2) for
        any two keys l, l2 < count) and speaks only of what the context outside
        the sum knows: that context can be split by c(0) instead. A part that the
        facts at a key simplify to a formula free of l (``Prover.simplify``: the
        column (N (l % N) + j) % N of a key is j) is the same at every key without
        asking z3 that non-linear equivalence."""
        name = l.decl().name()
        other = self.variable("l", z3.IntVal(0), count)
        keys = ctx.facts + (l >= 0, l < count, other >= 0, other < count)
        known = set().union(*(free_constants(f) for f in ctx.facts)) if ctx.facts else set()
        at_key = ctx.facts + (l >= 0, l < count)
        for part in self._open_parts(split.condition, at_key):
            at_first = z3.substitute(part, (l, z3.IntVal(0)))  # the part itself where it is free of l
            if not free_constants(at_first) <= known:
                continue
            if name in free_constants(part) \
                    and name in free_constants(self.prover.simplify(at_key, part, CASES, small=True)) \
                    and self.prover.proves(keys, part == z3.substitute(part, (l, other)), CASES).holds is not True:
                continue  # (a part equal, at every key, to a formula free of l is the same at every key)
            # split by it as the facts state it (N*i // N is i): an equivalent case
            raise OuterCase(self.prover.simplify(ctx.facts, at_first, CASES, small=True), split.what, at_first)
