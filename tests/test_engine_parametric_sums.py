"""A sum's body that needs a case: split at a threshold, or by a case outside the sum,
each found from the condition as the facts state it (quotients taken out), never invented."""

from __future__ import annotations

import pytest
import z3

from usim.engine.parametric.integers import Ledger, Prover
from usim.engine.parametric.steps import OuterCase, SplitInSum
from usim.engine.parametric.symbolic_sizes import Context, InputBlock, SymbolicSizeEvaluator
from usim.engine.parametric.terms import ParametricAtoms


def _evaluator():
    prover = Prover(("N", "n", "d"), 60, Ledger())
    N, n, d = (prover.dims[k] for k in ("N", "n", "d"))
    base = [N >= 1, n >= 1, d >= 1, n <= N, d <= N]
    evaluator = SymbolicSizeEvaluator([InputBlock("M", N, N, z3.IntVal(0))], N * N, prover, ParametricAtoms(),
                                      base, prover.dims)
    return evaluator, N, n, d, Context(tuple(base))


def _equal(facts, a, b) -> bool:
    solver = z3.Solver()
    solver.add(*facts, a != b)
    return solver.check() == z3.unsat


def test_a_key_read_modulo_the_blocks_width_splits_the_sum_at_its_threshold():
    """Keys l < 2N of row i of a block 2N wide, read back modulo 2N: the first d keys."""
    evaluator, N, n, d, ctx = _evaluator()
    i = evaluator.variable("i", z3.IntVal(0), N)
    l = evaluator.variable("l", z3.IntVal(0), 2 * N)
    inner = ctx.also(i >= 0, i < N, l >= 0, l < 2 * N, forkable=False)
    threshold = evaluator._threshold((l % (2 * N) + 2 * N * i) % (2 * N) < d, l, inner, 2 * N)
    assert threshold is not None and _equal(inner.facts, threshold, d)


def test_a_condition_that_wraps_has_no_threshold():
    """Shifted by one, the key l = 2N - 1 wraps to column 0: not the first keys only."""
    evaluator, N, n, d, ctx = _evaluator()
    i = evaluator.variable("i", z3.IntVal(0), N)
    l = evaluator.variable("l", z3.IntVal(0), 2 * N)
    inner = ctx.also(i >= 0, i < N, l >= 0, l < 2 * N, forkable=False)
    assert evaluator._threshold((l % (2 * N) + 2 * N * i + 1) % (2 * N) < d, l, inner, 2 * N) is None


def test_a_threshold_at_the_end_of_the_keys_splits_nothing_and_is_not_offered():
    """A comparison that holds at every key (left open by the first look, as a
    quotient's can be) gives t = count: a split there is the same sum again, one
    split deeper, until the splits run out (Theorem 9's stage 5 at four heads)."""
    evaluator, N, n, d, ctx = _evaluator()
    l = evaluator.variable("l", z3.IntVal(0), 2 * N)
    inner = ctx.also(l >= 0, l < 2 * N, forkable=False)
    evaluator._open_parts = lambda condition, facts: [condition]  # as if z3 had left it open
    assert evaluator._threshold(l < 2 * N, l, inner, 2 * N) is None
    assert evaluator._threshold(l < 0, l, inner, 2 * N) is None
    found = evaluator._threshold(l < d, l, inner, 2 * N)
    assert found is not None and _equal(inner.facts, found, d)


def _equivalences_asked(evaluator) -> list:
    """The goals c(l) == c(l2) the evaluator asks z3 from now on (recorded)."""
    asked: list = []
    proves = evaluator.prover.proves

    def recording(hypotheses, goal, step, effort=None):
        if z3.is_eq(goal) and z3.is_bool(goal.arg(0)):
            asked.append(goal)
        return proves(hypotheses, goal, step, effort)

    evaluator.prover.proves = recording
    return asked


def test_a_column_the_same_at_every_key_is_a_case_outside_the_sum_without_a_non_linear_query():
    """Column (N (l % N) + j) % N of key l is j: the context is split by j < d, found
    by simplifying the part, not by asking z3 whether it is the same at two keys."""
    evaluator, N, n, d, ctx = _evaluator()
    j = evaluator.variable("j", z3.IntVal(0), N)
    ctx = ctx.also(j >= 0, j < N)
    l = evaluator.variable("l", z3.IntVal(0), n)
    asked = _equivalences_asked(evaluator)
    with pytest.raises(OuterCase) as case:
        evaluator._outside(SplitInSum((N * (l % N) + j) % N < d, "a column"), l, n, ctx)
    assert _equal(ctx.facts, case.value.condition, j < d)
    assert asked == []


def test_a_part_that_reads_what_only_the_body_knows_is_not_a_case_outside_the_sum():
    """m is the body's own (another sum's key): the context outside cannot be split by it."""
    evaluator, N, n, d, ctx = _evaluator()
    l = evaluator.variable("l", z3.IntVal(0), n)
    m = evaluator.variable("m", z3.IntVal(0), N)
    evaluator._outside(SplitInSum((N * (l % N) + m) % N < d, "a column"), l, n, ctx)  # raises nothing


def test_a_part_that_changes_with_the_key_is_not_a_case_outside_the_sum():
    evaluator, N, n, d, ctx = _evaluator()
    j = evaluator.variable("j", z3.IntVal(0), N)
    ctx = ctx.also(j >= 0, j < N)
    l = evaluator.variable("l", z3.IntVal(0), n)
    evaluator._outside(SplitInSum((N * (l % N) + j + l) % N < d, "a column"), l, n, ctx)  # raises nothing


def test_a_part_with_quotients_is_asked_as_the_facts_state_it_and_dropped_where_they_decide_it():
    """Row i of a concatenation 3N wide, key l: (l % 3N + 3N i) // 3N is i, which the facts
    put below n; z3 is asked that (linear) form, never the non-linear one, and only the
    part the facts leave open is left."""
    from usim.engine.parametric.integers import has_quotient

    evaluator, N, n, d, ctx = _evaluator()
    i = evaluator.variable("i", z3.IntVal(0), n)
    l = evaluator.variable("l", z3.IntVal(0), 3 * N)
    inner = ctx.also(i >= 0, i < n, l >= 0, l < 3 * N, forkable=False)
    asked = []
    proves = evaluator.prover.proves
    evaluator.prover.proves = lambda facts, goal, *rest: asked.append(goal) or proves(facts, goal, *rest)
    row = (l % (3 * N) + 3 * N * i) / (3 * N)
    assert [str(p) for p in evaluator._open_parts(z3.And(row < n, l < d), inner.facts)] == [str(l < d)]
    assert asked and not any(has_quotient(goal) for goal in asked)


def test_a_part_with_quotients_the_facts_leave_open_stays_open():
    """Shifted by N, the row is i or i + 1 as l is below 2N or not: i + 1 < n is open."""
    evaluator, N, n, d, ctx = _evaluator()
    i = evaluator.variable("i", z3.IntVal(0), n)
    l = evaluator.variable("l", z3.IntVal(0), 3 * N)
    inner = ctx.also(i >= 0, i < n, l >= 0, l < 3 * N, forkable=False)
    row = (l % (3 * N) + 3 * N * i + N) / (3 * N)
    assert len(evaluator._open_parts(row < n, inner.facts)) == 1
