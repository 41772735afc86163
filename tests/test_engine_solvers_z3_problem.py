"""An obligation in z3, asked position by position: each query in a z3 context of
its own, so its answer and z3's work on it do not depend on the process's history."""

from __future__ import annotations

import z3

from usim.engine.solvers.z3_problem import z3_problem
from usim.proofs import get


def test_a_position_is_answered_with_the_same_work_whatever_the_process_built_before():
    problem = z3_problem(get("performer").obligation((2, 2, 1)))
    before = [problem.ask(difference, 60) for _, difference in problem.differences]
    # terms and a query in the process's own context, as a long test run leaves them
    many = [z3.Real(f"unrelated{i}") for i in range(2000)]
    solver = z3.Solver()
    solver.set("timeout", 1000)
    solver.add(z3.Sum([a * b for a, b in zip(many, many[1:])]) > 3)
    solver.check()
    z3_problem(get("performer").obligation((2, 1, 1)))
    after = [problem.ask(difference, 60) for _, difference in problem.differences]
    assert [a.result for a in before] == [a.result for a in after] == [z3.unsat] * len(before)
    assert [a.effort for a in before] == [a.effort for a in after] and all(a.effort > 0 for a in before)


def test_a_satisfiable_position_gives_the_models_input_by_name():
    problem = z3_problem(get("performer").mutants["wrong-normaliser"]((2, 1, 1)))
    answers = [problem.ask(difference, 60) for _, difference in problem.differences]
    found = [a for a in answers if a.result == z3.sat]
    assert found and set(found[0].point) == set(problem.consts)
