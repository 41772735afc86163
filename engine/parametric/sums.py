"""Sums over an interval of keys, split where their body needs a case.

A head's mean over the keys [lo, lo + count) is a sum over a bound index l.
Its body is evaluated once for a symbolic l; a ``where`` (or a block's
padding) whose condition depends on l cannot be split inside the sum. Where
that condition holds exactly on the first keys (c(l) <=> l < t for every
l < count, t proved by z3: a masked row sum, keys j < n), the sum is the sum
over the first t' = min(max(t, 0), count) keys plus the sum over the rest,
each evaluated on its own keys, where the condition is decided. Splitting a
sum's range anywhere is sound; the threshold only decides whether the pieces
can then be evaluated.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import sympy
import z3

from usim.engine.parametric.integers import Formula, Term, free_constants
from usim.engine.parametric.steps import CASES, SPLITS, Context, SplitInSum, Unsupported
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
            threshold = self._threshold(split.condition, l, inner) if splits > 0 else None
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

    def _undecided(self, condition: Formula, facts: Sequence[Formula], depth: int) -> Formula | None:
        """The one comparison a Boolean combination (and, or, not, if) depends on
        where ``facts`` hold: each part the facts decide (z3) is replaced by its
        value; None where more than one part stays open. Only a guide to where a
        sum is split (every split of a sum's range is sound)."""
        def decided(c: Formula) -> bool | None:
            if self.prover.proves(facts, c, CASES).holds:
                return True
            if self.prover.proves(facts, z3.Not(c), CASES).holds:
                return False
            return None

        for _ in range(depth):
            if z3.is_not(condition):
                condition = condition.children()[0]
            elif z3.is_and(condition) or z3.is_or(condition):
                open_parts = [c for c in condition.children() if decided(c) is None]
                if len(open_parts) != 1:
                    return None
                condition = open_parts[0]
            elif z3.is_app_of(condition, z3.Z3_OP_ITE):
                test, yes, no = condition.children()
                taken = decided(test)
                if taken is None:
                    return None
                condition = yes if taken else no
            else:
                return condition
        return None

    def _threshold(self, condition: Formula, l: Term, inner: Context) -> Term | None:
        """t free of l with condition <=> l < t wherever inner's facts hold (z3),
        or None. The candidates: the sides of the condition's comparison (under
        a negation too) and what makes them differ by l, each also plus one."""
        condition = self._undecided(condition, inner.facts, 8)
        if condition is None:
            return None
        if not z3.is_bool(condition) or condition.num_args() != 2:
            return None
        a, b = condition.children()
        if not (z3.is_int(a) and z3.is_int(b)):
            return None
        name = l.decl().name()
        candidates = (b, z3.simplify(b - a + l), a, z3.simplify(a - b + l))
        for t in candidates + tuple(z3.simplify(c + 1) for c in candidates):  # < and <= alike
            if name in free_constants(t):
                continue
            for holds in (condition, z3.Not(condition)):  # the first keys are those where it holds, or not
                if self.prover.proves(inner.facts, holds == (l < t), CASES).holds:
                    return t
        return None
