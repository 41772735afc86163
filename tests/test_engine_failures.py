"""An engine whose solver fails in its own code cannot decide: UNKNOWN with
the reason, and the engines that did answer decide the shape (issue 30, part
1: an internal assert of sympy's piecewise_fold made a length ERROR although
the exhaustive engine had checked every input). A failure in usim's own code
stays an ERROR."""

from __future__ import annotations

import sympy

from usim.engine import runner
from usim.engine.claim import Status
from usim.engine.runner import check_obligation
from usim.proofs import get


def _sympy_fails_inside(ob, timeout):
    sympy.Matrix([[1, 2]]) * sympy.Matrix([[1, 2]])  # sympy raises its own ShapeError


def _usim_fails(ob, timeout):
    raise ValueError("a fault of usim's own")


def test_a_solver_failing_in_its_own_code_is_unknown_and_the_other_engine_decides(monkeypatch):
    monkeypatch.setitem(runner.ENGINES, "sympy", _sympy_fails_inside)
    result = check_obligation(get("lemma3").obligation((2, 2)), ("sympy", "z3"), timeout=30)
    sympy_answer = next(r for r in result.results if r.engine == "sympy")
    assert sympy_answer.status is Status.UNKNOWN and "sympy failed in its own code" in sympy_answer.detail
    assert result.status is Status.PROVED  # z3 proved it, and no engine disagrees


def test_a_broken_variant_is_still_refuted_when_one_solver_fails(monkeypatch):
    monkeypatch.setitem(runner.ENGINES, "sympy", _sympy_fails_inside)
    result = check_obligation(get("lemma3").mutants["off-by-one"]((2, 2)), ("sympy", "z3"), timeout=30)
    assert result.status is Status.REFUTED


def test_a_failure_in_usims_own_code_stays_an_error(monkeypatch):
    monkeypatch.setitem(runner.ENGINES, "sympy", _usim_fails)
    result = check_obligation(get("lemma3").obligation((2, 2)), ("sympy", "z3"), timeout=30)
    assert result.status is Status.ERROR
