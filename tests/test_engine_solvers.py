"""One module per solver, one table of engines: adding an engine is one class and one row.

The table (:data:`usim.engine.engines.ENGINES`) is keyed by each engine's own
name, in the order of the dependency-free list the command line's help reads
(:data:`usim.engine.options.ENGINE_NAMES`). A toy engine, defined once below
and registered in the table for one test, is run by the runner like the
others and its answer counted by the runner's rule: an UNKNOWN changes
nothing that the others decide, a REFUTED against another's PROVED is an
ERROR, never PROVED.
"""

from __future__ import annotations

import pytest

from usim.engine import engines
from usim.engine.claim import EngineResult, Obligation, Status
from usim.engine.options import ENGINE_NAMES
from usim.engine.runner import check_obligation, prove_claim
from usim.engine.solvers.base import Clock, Engine
from usim.errors import UsimError
from usim.proofs import get


class ToyEngine(Engine):
    """An engine that answers ``answer`` on every obligation, whatever it says."""

    name = "toy"

    def __init__(self, answer: Status) -> None:
        self.answer = answer

    def check(self, ob: Obligation, timeout: float) -> EngineResult:
        clock = Clock(timeout)
        return EngineResult(self.name, self.answer, clock.elapsed, f"the toy always answers {self.answer.value}")


def _register(monkeypatch: pytest.MonkeyPatch, answer: Status) -> None:
    """The toy in the table of engines, for one test only."""
    monkeypatch.setitem(engines.ENGINES, ToyEngine.name, ToyEngine(answer))


def _lemma3(mutant: str | None = None) -> Obligation:
    claim = get("lemma3")
    return claim.mutants[mutant]((2, 2)) if mutant else claim.obligation((2, 2))


def test_the_table_is_keyed_by_each_engines_name_in_the_order_of_the_help_list():
    assert tuple(engines.ENGINES) == ENGINE_NAMES
    for name, engine in engines.ENGINES.items():
        assert isinstance(engine, Engine) and engine.name == name


def test_an_engine_not_in_the_table_is_refused_in_one_line():
    with pytest.raises(UsimError, match="no engine 'toy'; engines: sympy, z3, exhaustive, cvc5"):
        check_obligation(_lemma3(), ("sympy", "toy"), timeout=30)


def test_a_registered_engine_is_run_and_its_unknown_leaves_the_others_proof_standing(monkeypatch):
    _register(monkeypatch, Status.UNKNOWN)
    result = check_obligation(_lemma3(), ("z3", "toy"), timeout=30)
    assert [(r.engine, r.status) for r in result.results] == [("z3", Status.PROVED), ("toy", Status.UNKNOWN)]
    assert result.status is Status.PROVED


def test_a_registered_engines_unknown_alone_proves_nothing(monkeypatch):
    _register(monkeypatch, Status.UNKNOWN)
    assert check_obligation(_lemma3(), ("toy",), timeout=30).status is Status.UNKNOWN


def test_a_registered_engine_refuting_what_another_proves_is_an_error_never_proved(monkeypatch):
    _register(monkeypatch, Status.REFUTED)
    result = check_obligation(_lemma3(), ("z3", "toy"), timeout=30)
    assert result.equality_status is Status.ERROR and result.status is Status.ERROR


def test_a_registered_engine_agreeing_with_a_refutation_keeps_it_refuted(monkeypatch):
    _register(monkeypatch, Status.REFUTED)
    assert check_obligation(_lemma3("off-by-one"), ("z3", "toy"), timeout=30).status is Status.REFUTED


def test_a_registered_engine_runs_in_the_claims_forked_children(monkeypatch):
    _register(monkeypatch, Status.UNKNOWN)
    report = prove_claim(get("lemma3"), 2, engines=["z3", "toy"], timeout=30, jobs=1, shapes=[(2, 2)])
    assert report.engines == ["z3", "toy"]
    (row,) = report.results
    assert [(r.engine, r.status) for r in row.results] == [("z3", Status.PROVED), ("toy", Status.UNKNOWN)]
    assert "the toy always answers UNKNOWN" in row.results[1].detail and row.status is Status.PROVED
