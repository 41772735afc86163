"""The prover of the proofs for every size: each query limited by z3's work, not by the clock."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import z3

from usim.engine.parametric import integers
from usim.engine.parametric.integers import (CONJUNCTION_SPLIT, FIRST_SECONDS, QUERY_EFFORT, Deadline, Ledger, Prover,
                                             conjuncts)

a, b, c = z3.Ints("a b c")
HYPOTHESES = [a >= 2, b >= 2]
GOAL = a * b >= a + b  # non-linear: z3 needs 300 steps of the kept solver, 10 000 of a new one


def test_a_query_within_its_work_limit_is_answered_and_one_past_it_is_unknown():
    assert Prover(("a", "b"), 60, Ledger()).proves(HYPOTHESES, GOAL, "step").holds is True
    assert Prover(("a", "b"), 60, Ledger(), query_effort=100).proves(HYPOTHESES, GOAL, "step").holds is None


def test_a_query_is_limited_by_work_and_only_the_proofs_budget_is_time(monkeypatch):
    """A loaded machine must not change an answer: the per-query limit is z3's
    rlimit; the only time limit a new solver gets is what is left of the whole
    proof's, and the kept solver's first try, at most FIRST_EFFORT of work, has
    FIRST_SECONDS as a guard (its work takes a fraction of a second)."""
    settings: list[list[tuple[str, int]]] = []
    made = z3.Solver

    def recording_solver(*args, **kwargs):
        solver = made(*args, **kwargs)
        mine: list[tuple[str, int]] = []
        settings.append(mine)
        original = solver.set

        def set_(name, value):
            mine.append((name, value))
            original(name, value)

        solver.set = set_
        return solver

    monkeypatch.setattr(integers.z3, "Solver", recording_solver)
    monkeypatch.setattr(integers, "FIRST_EFFORT", 1)  # every query also asked of a new solver
    prover = Prover(("a", "b"), 600, Ledger())
    prover.proves(HYPOTHESES, GOAL, "step")
    prover.simplify(HYPOTHESES, z3.If(a >= 1, a, b), "step")
    prover.smallest([a * b == 12], "step")
    first_tries = [mine for mine in settings if dict(mine)["timeout"] == FIRST_SECONDS * 1000]
    new = [mine for mine in settings if mine not in first_tries]
    assert new and first_tries  # each first try cancelled: a kept solver each (dropped after)
    for mine in first_tries:
        assert {name for name, _ in mine} == {"rlimit", "timeout"} and dict(mine)["rlimit"] == 1
    for mine in new:
        assert 0 < dict(mine)["rlimit"] <= QUERY_EFFORT
        assert dict(mine)["timeout"] > 500_000  # milliseconds: the proof's 600 s, nearly all left


def test_a_query_left_unanswered_by_the_first_try_is_asked_again_within_its_whole_work(monkeypatch):
    monkeypatch.setattr(integers, "FIRST_EFFORT", 1)  # the kept solver answers nothing within one step
    ledger = Ledger()
    assert Prover(("a", "b"), 60, ledger).proves(HYPOTHESES, GOAL, "step").holds is True
    assert ledger.entries[("step", "z3")].proved == 1  # one query, however many tries
    assert Prover(("a", "b"), 60, Ledger(), query_effort=1000).proves(HYPOTHESES, GOAL, "step").holds is None


def test_the_kept_solver_is_kept_after_an_answer_and_dropped_unpopped_after_a_cancelled_check(monkeypatch):
    """After a check a limit cancelled, z3's pop may not end (Z3Prover/z3 issue 10417):
    that solver is never popped; the next query gets a new one."""
    prover = Prover(("a", "b"), 60, Ledger())
    assert prover.proves([a == 1], a <= 1, "step").holds is True
    kept = prover._first_solver
    assert prover.proves(HYPOTHESES, a + b >= 4, "step").holds is True
    assert prover._first_solver is kept
    popped = []
    monkeypatch.setattr(z3.Solver, "pop", lambda self, *args: popped.append(self))
    monkeypatch.setattr(integers, "FIRST_EFFORT", 1)  # the kept solver answers nothing within one step
    assert prover.proves(HYPOTHESES, GOAL, "step").holds is True  # then asked of a new solver
    assert prover._first_solver is None and kept not in popped


def test_a_querys_hypotheses_do_not_reach_the_next_query():
    prover = Prover(("a",), 60, Ledger())
    assert prover.proves([a == 1], a <= 1, "step").holds is True
    refuted = prover.proves([], a <= 1, "step")  # a = 1 was the last query's, not this one's
    assert refuted.holds is False and refuted.model["a"] > 1
    assert prover.satisfiable([a == 2], "step").holds is True


def test_a_goal_refuted_on_the_first_try_comes_with_a_model_where_it_fails():
    refuted = Prover(("a", "b"), 60, Ledger()).proves(HYPOTHESES, a * b >= 100, "step")
    assert refuted.holds is False
    x, y = refuted.model["a"], refuted.model["b"]
    assert x >= 2 and y >= 2 and x * y < 100


def test_simplify_keeps_what_it_cannot_decide_within_its_work_and_takes_the_branch_it_can():
    term = z3.If(GOAL, a, b)
    assert Prover(("a", "b"), 60, Ledger()).simplify(HYPOTHESES, term, "step").eq(a)
    kept = Prover(("a", "b"), 60, Ledger()).simplify(HYPOTHESES, term, "step", effort=100)
    assert kept.eq(z3.simplify(term))


CONCATENATION_READ = """
import z3
from usim.engine.parametric.integers import CONJUNCTION_SPLIT, Ledger, Prover
N, H, row, key = z3.Ints("N H row key")
in_blocks = [N >= 1, H >= 1, row >= 0, row < N, key >= 0, key < H * N]  # entry (row, key) of N x HN
read = z3.And(z3.And(z3.And((key / N) * N + row >= 0, (key / N) * N + row < H * N), key % N >= 0), key % N < N)
whole = z3.Solver()
whole.set("rlimit", 20_000_000)
whole.add(*in_blocks, z3.Not(read))
ledger = Ledger()
holds = Prover(("N", "H"), 120, ledger, query_effort=20_000_000).proves(in_blocks, read, "step").holds
print(whole.check(), holds, ledger.entries[("step", "z3")].proved, ("step", CONJUNCTION_SPLIT) in ledger.entries)
"""


def test_a_query_is_asked_again_with_the_bounds_of_its_quotients_the_hypotheses_give():
    """The position a concatenation of H heads reads: z3 does not answer it within
    the work given, and answers it at once with key // N < H and key // N >= 0
    beside it (each proved first), whole, not split. (In a fresh interpreter, as
    each proof for every size runs: z3's work on a query depends on the terms made
    before it.)"""
    env = dict(os.environ, PYTHONHASHSEED="0")
    out = subprocess.run([sys.executable, "-P", "-c", CONCATENATION_READ], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert out.split() == ["unknown", "True", "3", "False"]  # two bounds, then the read


SPLIT = """
import z3
from usim.engine.parametric import integers
from usim.engine.parametric.integers import CONJUNCTION_SPLIT, Ledger, Prover
integers.FIRST_EFFORT = 1  # every query asked of a new solver
a, b = z3.Ints("a b")
ledger = Ledger()
goal = z3.And(a * b >= a + b, a * a * b >= a + b + 1)  # more than 28 thousand steps whole, 16 thousand each
holds = Prover(("a", "b"), 120, ledger, query_effort=22_000).proves([a >= 2, b >= 2], goal, "step").holds
print(holds, ledger.entries[("step", "z3")].proved, ledger.entries[("step", CONJUNCTION_SPLIT)].unknown)
"""


def test_a_conjunction_z3_leaves_unanswered_whole_is_proved_part_by_part():
    """z3 answers each conjunct within the work given and not the two at once (in a
    fresh interpreter: see above)."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    out = subprocess.run([sys.executable, "-P", "-c", SPLIT], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert out.split() == ["True", "2", "1"]  # the whole asked once, then its two parts


def test_a_conjunction_split_with_one_false_part_is_refuted_by_a_model_of_that_part(monkeypatch):
    monkeypatch.setattr(integers, "FIRST_EFFORT", 1)
    ledger = Ledger()
    prover = Prover(("a", "b"), 60, ledger, query_effort=1000)  # too little work for GOAL, whole or alone
    refuted = prover.proves(HYPOTHESES, z3.And(a + b >= 4, a <= 1, GOAL), "step")
    assert ledger.entries[("step", CONJUNCTION_SPLIT)].unknown == 1  # the whole left unanswered, then split
    assert refuted.holds is False
    assert refuted.formulas[-1].eq(z3.Not(a <= 1))
    x, y = refuted.model["a"], refuted.model["b"]
    assert x >= 2 and y >= 2
    assert prover.satisfiable(list(refuted.formulas), "step").holds is True


def test_a_conjunction_with_an_unknown_part_is_unknown_and_a_false_part_still_refutes_it(monkeypatch):
    monkeypatch.setattr(integers, "FIRST_EFFORT", 1)
    prover = Prover(("a", "b"), 60, Ledger(), query_effort=1000)  # too little work for GOAL
    assert prover.proves(HYPOTHESES, z3.And(GOAL, a >= 2), "step").holds is None
    assert prover.proves(HYPOTHESES, z3.And(GOAL, a <= 1), "step").holds is False


def test_nested_conjunctions_are_opened_to_their_leaves():
    x = z3.Int("x")
    assert [str(c) for c in conjuncts(z3.And(z3.And(x > 0, z3.And(x < 5, x != 3)), x != 2))] == \
        ["x > 0", "x < 5", "x != 3", "x != 2"]
    assert [str(c) for c in conjuncts(z3.Or(x > 0, x < -1))] == ["Or(x > 0, x < -1)"]


def test_the_bounds_of_a_quotient_come_from_the_hypotheses_and_are_proved_before_use():
    """x < k d gives x // d < k, x >= 0 gives x // d >= 0; a bound that does not
    hold (d of unknown sign) is not given, nor one whose bound is no multiple of d."""
    n, h, x = z3.Ints("n h x")
    prover = Prover(("n", "h"), 60, Ledger())
    bounds = prover._quotient_bounds([n >= 1, h >= 1, x >= 0, x < h * n], x / n * n < h * n, "step", None)
    assert {str(b) for b in bounds} == {"x/n < h", "x/n >= 0"}
    assert prover._quotient_bounds([h >= 1, x < h * n], x / n < h, "step", None) == []  # n may be < 0
    assert prover._quotient_bounds([n >= 1, x < h * n + 1], x / n < h, "step", None) == []


QUERIES = """
import z3
from usim.engine.parametric.integers import Ledger, Prover
a, b, c = z3.Ints("a b c")
prover = Prover(("a", "b", "c"), 600, Ledger(), query_effort=20_000)
print([prover.proves(h, g, "step").holds for h, g in (
    ([a >= 2, b >= 2], a * b >= a + b), ([a >= 1, b >= 1, c >= 1], a * b * c >= 1),
    ([a >= 1, b >= 1, c >= 1, a * a + b * b == c * c], c < a + b))],
    prover.smallest([a * b == 12, c == a + b, a >= 1], "step"))
"""


def test_the_same_queries_in_a_fresh_interpreter_get_the_same_answers_every_time():
    """As each proof for every size runs (engine/parametric/fresh.py): z3's work
    counts are the same from run to run, where a clock's are not. (-P: the clone's own
    usim/ folder must not shadow the installed package.)"""
    env = dict(os.environ, PYTHONHASHSEED="0")
    runs = [subprocess.run([sys.executable, "-P", "-c", QUERIES], capture_output=True, text=True, env=env,
                           check=True).stdout for _ in range(2)]
    assert runs[0] == runs[1]
    assert runs[0].startswith("[True, True, ")


def test_a_spent_budget_stops_the_proof():
    prover = Prover(("a",), 0, Ledger())
    with pytest.raises(Deadline):
        prover.proves([a >= 1], a * a >= a, "step")


def test_a_threshold_that_leaves_every_key_on_one_side_is_passed_over():
    """Keys s + l of a sum's second part, s = d: the head-0 boundary s + l < d holds at
    no key, so it holds exactly when l < d - s = 0, a split that leaves the sum as it was
    (a target's sum split again and again at its first boundary until it gave up). With
    the caller's check that a threshold splits, the next boundary, s + l < 2d, is chosen."""
    from usim.engine.parametric.thresholds import threshold_of

    l, d, s, size = z3.Ints("l d s size")
    facts = [d >= 1, s == d, size == 2 * d, l >= 0, l < size]

    def proves(formula):
        solver = z3.Solver()
        solver.add(*facts, z3.Not(formula))
        return solver.check() == z3.unsat

    parts = [s + l < d, s + l < 2 * d]
    assert proves(threshold_of(parts, l, proves) <= 0)  # without the check: the empty split
    found = threshold_of(parts, l, proves, lambda t: not proves(t <= 0) and not proves(t >= size))
    assert found is not None and proves(found == d)


def test_a_first_try_stopped_by_its_time_guard_is_asked_again_and_counted(monkeypatch):
    """The first try's clock is the one clock inside a query, for a z3 that runs past
    its work limit (here the kept solver, the first the prover makes, never stops):
    where it stops the try, a new solver answers within the query's work, and the
    ledger says a first try was stopped."""
    made = z3.Solver
    solvers: list = []

    class Stuck(made):
        def check(self, *assumptions):
            time.sleep(0.2)
            return z3.unknown

    def solver(*args, **kwargs):
        solvers.append((Stuck if not solvers else made)(*args, **kwargs))
        return solvers[-1]

    monkeypatch.setattr(integers.z3, "Solver", solver)
    monkeypatch.setattr(integers, "FIRST_SECONDS", 0.1)
    ledger = Ledger()
    assert Prover(("a", "b"), 60, ledger).proves(HYPOTHESES, GOAL, "step").holds is True
    assert len(solvers) == 2 and isinstance(solvers[0], Stuck)
    assert ledger.entries[("step", integers.FIRST_TRY_STOPPED)].unknown == 1
    assert ledger.entries[("step", "z3")].proved == 1
    monkeypatch.setattr(integers, "FIRST_SECONDS", 10.0)  # a try that ends before its guard is no stopped try
    ledger = Ledger()
    solvers.clear()
    assert Prover(("a", "b"), 60, ledger, query_effort=1000).proves(HYPOTHESES, GOAL, "step").holds is None
    assert list(ledger.entries) == [("step", "z3")]


def test_a_proof_whose_first_tries_all_end_within_their_work_has_no_stopped_try():
    ledger = Ledger()
    Prover(("a", "b"), 60, ledger).proves(HYPOTHESES, GOAL, "step")
    assert [solver for _, solver in ledger.entries] == ["z3"]
