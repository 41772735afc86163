"""A query not asked because the goal fails at small fixed sizes: only ever a query whose
answer would not have been "proved" (SymbolicSizeEvaluator._fails_somewhere, inside a
sum's body, where z3 may spend its whole effort on a non-linear goal)."""

from __future__ import annotations

import z3

from usim.engine.parametric.integers import Ledger, Prover
from usim.engine.parametric.symbolic_sizes import Context, InputBlock, SymbolicSizeEvaluator
from usim.engine.parametric.terms import ParametricAtoms


def _inside_a_sum(*facts):
    prover = Prover(("N", "d"), 30, Ledger())
    N, d = prover.dims["N"], prover.dims["d"]
    base = [N >= 1, d >= 1, d <= N]
    evaluator = SymbolicSizeEvaluator([InputBlock("M", N, N, z3.IntVal(0))], N * N, prover, ParametricAtoms(),
                                      base, prover.dims)
    return evaluator, N, d, Context(tuple(base), forkable=False)


def test_a_goal_true_at_every_size_is_never_said_to_fail():
    evaluator, N, d, ctx = _inside_a_sum()
    l, j = z3.Int("l"), z3.Int("j")
    ctx = ctx.also(l >= 0, l < d, j >= 0, j < N)
    assert not evaluator._fails_somewhere(ctx, N * l + j < N * N)  # true wherever the facts hold (non-linear)


def test_a_goal_that_fails_at_a_small_size_is_said_to_fail_and_is_not_provable():
    evaluator, N, d, ctx = _inside_a_sum()
    l, j = z3.Int("l"), z3.Int("j")
    ctx = ctx.also(l >= 0, l < d, j >= 0, j < N)
    goal = z3.And(N * l + j < N * N, j < d)  # j < d fails where d < N
    assert evaluator._fails_somewhere(ctx, goal)
    assert evaluator.prover.proves(ctx.facts, goal, "t").holds is not True


def test_a_goal_that_fails_only_past_the_small_sizes_is_left_to_the_whole_query():
    evaluator, N, d, ctx = _inside_a_sum()
    assert not evaluator._fails_somewhere(ctx, N < 5)  # fails from N = 5 on: not at sizes up to 3
    assert evaluator.prover.proves(ctx.facts, N < 5, "t").holds is False


def test_where_the_context_may_still_split_nothing_is_skipped():
    evaluator, N, d, ctx = _inside_a_sum()
    assert not evaluator._fails_somewhere(Context(ctx.facts, forkable=True), N < 2)
