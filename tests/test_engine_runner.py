"""The runner on Lemmas 3-5: proofs, refutations of broken variants, timeouts;
and an engine whose solver fails in its own code, which cannot decide: UNKNOWN
with the reason, and the engines that did answer decide the shape (issue 30, part
1: an internal assert of sympy's piecewise_fold made a length ERROR although
the exhaustive engine had checked every input). A failure in usim's own code
stays an ERROR."""

from __future__ import annotations

import json

import pytest
import sympy

from usim.cli import main
from usim.engine import runner
from usim.engine.claim import EngineResult, ObligationResult, Status
from usim.engine.solvers.sympy_engine import check_sympy
from usim.engine.solvers.z3_engine import check_z3
from usim.proofs import get
from usim.engine.runner import check_obligation, prove_claim

ENGINES = ("sympy", "z3")


@pytest.mark.parametrize("claim_id, shape", [
    ("lemma3", (2, 3)), ("lemma3", (3, 1)), ("lemma4", (2, 3)), ("lemma4", (1, 1)),
    ("lemma5", (2, 3, 2)), ("lemma5", (1, 1, 1)), ("lemma4_paper", (2, 2)),
])
def test_both_engines_prove_the_lemmas(claim_id, shape):
    result = check_obligation(get(claim_id).obligation(shape), ENGINES, timeout=60)
    assert [r.status for r in result.results] == [Status.PROVED, Status.PROVED]
    assert result.status is Status.PROVED


MUTANT_CASES = [
    ("lemma3", "swapped-index", (2, 3)),
    ("lemma3", "off-by-one", (3, 3)),
    ("lemma4", "missing-factor-c", (2, 3)),
    ("lemma4", "wrong-default", (2, 2)),
    ("lemma5", "missing-factor-k", (2, 2, 2)),
    ("lemma5", "wrong-default", (2, 2, 2)),
    ("lemma5", "off-by-one", (2, 3, 2)),
]


@pytest.mark.parametrize("claim_id, mutant, shape", MUTANT_CASES)
@pytest.mark.parametrize("engine", ENGINES)
def test_each_engine_refutes_broken_constructions_with_a_replayed_counterexample(claim_id, mutant, shape, engine):
    ob = get(claim_id).mutants[mutant](shape)
    result = (check_sympy if engine == "sympy" else check_z3)(ob, 60)
    assert result.status is Status.REFUTED, result.detail
    cx = result.counterexample
    assert cx is not None and cx.replay in ("exact", "numeric (50 digits)")
    assert cx.expected != cx.got
    assert 0 <= cx.position < ob.construction.output_layout.length


def test_a_softmax_that_leaves_a_row_out_of_its_sum_is_refuted_as_undefined():
    """Row 1's denominator is then 0: the engines prove equality wherever both
    sides are defined, and the definedness check refutes it with the input."""
    ob = get("lemma4").mutants["row-left-out"]((2, 2))
    result = check_obligation(ob, ENGINES, timeout=60)
    assert result.status is Status.REFUTED
    assert result.definedness.status is Status.REFUTED
    cx = result.definedness.counterexample
    assert cx.got.startswith("undefined (division by zero") and cx.entry.startswith("softmax(S)[1,")


def test_a_counterexample_names_where_the_broken_program_first_diverges():
    ob = get("lemma5").mutants["off-by-one"]((2, 2, 2))
    cx = check_z3(ob, 60).counterexample
    assert cx.divergence.startswith("a_src0")


def test_a_mutant_that_happens_to_be_right_at_a_shape_is_not_refuted():
    # transposing a column vector: rows and columns swapped gives the same sequence
    ob = get("lemma3").mutants["swapped-index"]((3, 1))
    assert check_obligation(ob, ENGINES).status is Status.PROVED


def test_a_tiny_timeout_gives_unknown_never_proved():
    ob = get("lemma4").obligation((4, 4))
    for check in (check_sympy, check_z3):
        result = check(ob, 1e-6)
        assert result.status is Status.UNKNOWN
        assert "timeout" in result.detail


def test_engines_that_disagree_are_an_internal_error():
    proved = EngineResult("sympy", Status.PROVED, 0.0)
    refuted = EngineResult("z3", Status.REFUTED, 0.0)
    unknown = EngineResult("z3", Status.UNKNOWN, 0.0)
    defined = EngineResult("definedness", Status.PROVED, 0.0)
    witness = EngineResult("witness", Status.PROVED, 0.0)
    assert ObligationResult("x", (1,), (proved, refuted), None, defined, witness).status is Status.ERROR
    assert ObligationResult("x", (1,), (proved, unknown), None, defined, witness).status is Status.PROVED
    # without the definedness check and a witness, nothing is PROVED
    assert ObligationResult("x", (1,), (proved, unknown)).status is Status.UNKNOWN
    assert ObligationResult("x", (1,), (unknown, unknown)).status is Status.UNKNOWN


def test_prove_claim_runs_in_parallel_and_reports_mutants():
    report = prove_claim(get("lemma5"), 2, timeout=60, jobs=2, mutants=True)
    assert report.status is Status.PROVED
    assert report.mutants_refuted
    assert report.costs["2x2x2"]["heads_per_layer"] == [4, 4]


def test_usim_prove_writes_a_certificate_and_report_renders_it(tmp_path, capsys):
    cert = tmp_path / "lemma3.json"
    assert main(["prove", "lemma3", "--max-n", "2", "--json", str(cert), "-q", "--mutants"]) == 0
    data = json.loads(cert.read_text())
    assert data["claim"]["id"] == "lemma3" and data["bound"] == 2 and data["status"] == "PROVED"
    assert {o["label"] for o in data["obligations"]} == {"1x1", "1x2", "2x1", "2x2"}
    assert all(e["status"] == "PROVED" for o in data["obligations"] for e in o["engines"])
    assert set(data["versions"]) >= {"usim", "python", "sympy", "z3"}
    assert data["commit"]
    capsys.readouterr()
    assert main(["report", str(cert)]) == 0
    text = capsys.readouterr().out
    assert "# Lemma 3" in text and "| 2x2 | PROVED |" in text and "swapped-index" in text


def test_usim_prove_lists_claims_and_rejects_unknown_ones(capsys):
    assert main(["prove", "--list"]) == 0
    out = capsys.readouterr().out
    assert "lemma3" in out and "lemma5" in out
    assert main(["prove", "no-such-claim"]) == 2
    assert "no claim 'no-such-claim'" in capsys.readouterr().err


def test_report_rejects_a_file_that_is_not_a_certificate(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text("{\"a\": 1}")
    assert main(["report", str(bad)]) == 2
    assert "not a usim certificate" in capsys.readouterr().err


def test_the_paper_base_is_measured_not_proved():
    claim = get("lemma4_paper")
    (line,) = claim.measure(2)
    assert "approximation" in line and "relative deviation" in line



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


# -- until decided: cheapest first, the first that proves or refutes decides (issue 30, part 5) --

def _sleeps(ob, timeout):
    import time

    time.sleep(600)  # a solver stuck inside one call, as sympy's expand on a sort at length 4


def _refutes_wrongly(ob, timeout):
    return EngineResult("sympy", Status.REFUTED, 0.0, "a refutation no engine should believe")


def test_the_engines_are_tried_exhaustive_first_then_by_their_earlier_times():
    assert runner.cheapest_first(["sympy", "z3", "exhaustive"], {}) == ["exhaustive", "sympy", "z3"]
    assert runner.cheapest_first(["sympy", "z3"], {"sympy": 95.0, "z3": 0.3}) == ["z3", "sympy"]
    assert runner.cheapest_first(["sympy", "z3", "cvc5"], {"sympy": 1.0}) == ["z3", "cvc5", "sympy"]


def test_a_slow_engine_tried_first_is_killed_and_the_next_one_decides(monkeypatch):
    monkeypatch.setitem(runner.ENGINES, "sympy", _sleeps)
    result = check_obligation(get("lemma3").obligation((2, 2)), ("sympy", "z3"), timeout=1, jobs=1,
                              until_decided=True)
    by = {r.engine: r for r in result.results}
    assert by["sympy"].status is Status.UNKNOWN and "timeout" in by["sympy"].detail
    assert by["z3"].status is Status.PROVED
    assert result.status is Status.PROVED


def test_once_an_engine_decides_the_others_are_not_run_and_say_so(monkeypatch):
    monkeypatch.setitem(runner.ENGINES, "sympy", _sleeps)  # would sleep if it ran
    result = check_obligation(get("lemma3").obligation((2, 2)), ("sympy", "z3"), timeout=30, jobs=1,
                              until_decided=True, costs={"z3": 0.1, "sympy": 5.0})
    assert [r.engine for r in result.results[:2]] == ["z3", "sympy"]
    skipped = result.results[1]
    assert skipped.status is Status.UNKNOWN and skipped.detail.startswith("not run: z3 decided")
    assert result.status is Status.PROVED
    assert result.definedness.status is Status.PROVED and result.witness.status is Status.PROVED


def test_a_refutation_decides_too_and_every_engine_still_runs_when_asked(monkeypatch):
    broken = get("lemma3").mutants["off-by-one"]((2, 2))
    early = check_obligation(broken, ("sympy", "z3"), timeout=30, jobs=1, until_decided=True)
    assert early.status is Status.REFUTED
    assert sum(r.detail.startswith("not run") for r in early.results) == 1
    monkeypatch.setitem(runner.ENGINES, "sympy", _refutes_wrongly)
    every = check_obligation(get("lemma3").obligation((2, 2)), ("sympy", "z3"), timeout=30, jobs=1)
    assert every.status is Status.ERROR  # all engines ran, and they disagree
