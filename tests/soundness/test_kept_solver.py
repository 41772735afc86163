"""The solver the prover keeps between queries never holds a query's assertions.

The prover asks each query first of one kept z3 solver, its assertions pushed
before and popped after (engine/parametric/integers.py). Found in review
(2026-12-05): had the pop failed, the solver would have been kept with the last
query's assertions in it, and a contradictory one (a == 1 beside a > 1) would
have made every later query unsatisfiable: any goal PROVED. The solver is now
kept again only once its assertions are popped.
"""

from __future__ import annotations

import pytest
import z3

from usim.engine.parametric.integers import Ledger, Prover


def test_a_query_whose_pop_fails_leaves_no_assertion_to_prove_the_next_false_goal(monkeypatch):
    a = z3.Int("a")
    prover = Prover(("a",), 60, Ledger())
    assert prover.proves([a >= 0], a >= -1, "step").holds is True  # the kept solver made
    popped = z3.Solver.pop

    def failing_pop(self, *args):
        raise z3.Z3Exception("pop failed")

    monkeypatch.setattr(z3.Solver, "pop", failing_pop)
    with pytest.raises(z3.Z3Exception):
        prover.proves([a == 1], a <= 1, "step")  # asserts a == 1 and a > 1: unsat, then the pop fails
    monkeypatch.setattr(z3.Solver, "pop", popped)
    refuted = prover.proves([], a >= 100, "step")
    assert refuted.holds is False and refuted.model["a"] < 100
