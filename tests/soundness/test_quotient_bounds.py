"""The bounds of a quotient beside a query's second try (Prover._quotient_bounds):
only bounds the query's own hypotheses prove are added, so a false goal is still
refuted by a model of its hypotheses and its negation, and nothing of a bound's
proof outlives it."""

from __future__ import annotations

import pytest
import z3

from usim.engine.parametric import integers
from usim.engine.parametric.integers import Deadline, Ledger, Prover

n, h, x = z3.Ints("n h x")


def test_a_false_goal_is_refuted_on_the_second_try_beside_the_bounds_it_was_given(monkeypatch):
    """x // n < h - 1 fails where x // n = h - 1; the second try has x // n < h and
    x // n >= 0 beside it (both hold) and still finds a model where the goal fails."""
    monkeypatch.setattr(integers, "FIRST_EFFORT", 1)  # every query goes on to its second try
    prover = Prover(("n", "h"), 60, Ledger())
    hypotheses = [n >= 1, h >= 1, x >= 0, x < h * n]
    bounds = prover._quotient_bounds(hypotheses, x / n < h - 1, "step", None)
    assert {str(b) for b in bounds} == {"x/n < h", "x/n >= 0"}
    refuted = prover.proves(hypotheses, x / n < h - 1, "step")
    assert refuted.holds is False
    model_n, model_h, model_x = (refuted.model[k] for k in ("n", "h", "x"))
    assert model_n >= 1 and model_h >= 1 and 0 <= model_x < model_h * model_n
    assert model_x // model_n == model_h - 1  # the goal truly fails there
    assert prover.satisfiable(list(refuted.formulas), "step").holds is True


def test_a_bound_that_does_not_follow_from_the_querys_hypotheses_is_not_given():
    """Without x >= 0, n may be negative (x = -5, n = -1, h = 1: x // n = 5): x // n < h
    is not given, although it holds where x >= 0 is a hypothesis too."""
    prover = Prover(("n", "h"), 60, Ledger())
    assert any(b.eq(x / n < h) for b in prover._quotient_bounds([h >= 1, x >= 0, x < h * n], x / n * n < h * n,
                                                               "step", None))
    assert not any(b.eq(x / n < h) for b in prover._quotient_bounds([h >= 1, x < h * n], x / n * n < h * n,
                                                                   "step", None))


def test_a_bounds_proof_cut_short_leaves_the_prover_as_it_was(monkeypatch):
    prover = Prover(("n", "h"), 60, Ledger())

    def out_of_time(*args):
        raise Deadline("the time budget is spent")

    monkeypatch.setattr(Prover, "_bound_candidates", staticmethod(out_of_time))
    with pytest.raises(Deadline):
        prover._quotient_bounds([n >= 1, x < h * n], x / n < h, "step", None)
    assert prover._bounding is False  # the next queries get their bounds again
