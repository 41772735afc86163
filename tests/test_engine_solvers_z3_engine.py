"""The z3 engine: unsat at every position proves; otherwise a replayed counterexample or UNKNOWN."""

from __future__ import annotations

import pytest
import z3

from usim.engine.claim import Status
from usim.engine.solvers.z3_engine import check_z3
from usim.proofs import get


def _performer(mutant: str | None = None):
    """Kernelised attention at n = 2, d = d_v = 1: z3 is asked about two positions."""
    claim = get("performer")
    return claim.mutants[mutant]((2, 1, 1)) if mutant else claim.obligation((2, 1, 1))


@pytest.fixture
def z3_says_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every query of this test answered unknown, as z3 may on a non-linear query."""
    monkeypatch.setattr(z3.Solver, "check", lambda self, *a: z3.unknown)
    monkeypatch.setattr(z3.Solver, "reason_unknown", lambda self: "(incomplete quantifiers)")


def test_a_true_obligation_is_proved():
    assert check_z3(_performer(), 30).status is Status.PROVED


def test_an_unknown_answer_on_a_false_obligation_still_refutes_it_by_a_replayed_point(z3_says_unknown):
    result = check_z3(_performer("no-normalising"), 30)
    assert result.status is Status.REFUTED
    assert result.counterexample is not None and "z3 answered unknown" in result.detail


def test_an_unknown_answer_on_a_true_obligation_is_unknown_never_proved(z3_says_unknown):
    result = check_z3(_performer(), 30)
    assert result.status is Status.UNKNOWN
    assert "z3 answered unknown at position" in result.detail and "no counterexample found" in result.detail
