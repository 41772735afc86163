"""The claims at the weight level: compiled networks proved equal to the formula and to the RASP program.

(Every weights claim's smallest obligation and every one of its broken
networks is also run by tests/test_proofs.py.)
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from usim.cli import main
from usim.engine.claim import Status
from usim.engine.runner import check_obligation, prove_claim
from usim.proofs import get
from usim.transformer import broken
from usim.transformer.forward import run
from usim.transformer.model import HARD, SOFT
from usim.transformer.softmax_bound import head_bound, measure


def _check(claim_id: str, shape: tuple[int, ...], timeout: float = 60):
    claim = get(claim_id)
    return check_obligation(claim.obligation(shape), timeout=timeout, claim_engines=claim.engines)


@pytest.mark.parametrize("claim_id, size", [
    ("lemma3_weights", (2, 3)), ("lemma4_weights", (2, 2)), ("lemma5_weights", (2, 1, 2)),
])
@pytest.mark.parametrize("part", [0, 1, 2])
def test_the_compiled_block_is_proved_by_both_engines(claim_id, size, part):
    result = _check(claim_id, size + (part,))
    assert result.status is Status.PROVED, result.as_dict()
    assert {r.engine: r.status for r in result.results} == {"sympy": Status.PROVED, "z3": Status.PROVED}


@pytest.mark.parametrize("part", [0, 1, 2])
def test_the_compiled_u_is_proved(part):
    """sympy proves U's network at 2x2 in a fraction of a second; z3 answers in a second
    in some runs and times out in others (its exp is uninterpreted): never REFUTED."""
    result = _check("theorem6_weights", (2, 2, part), timeout=15)
    assert result.status is Status.PROVED, result.as_dict()
    engines = {r.engine: r.status for r in result.results}
    assert engines["sympy"] is Status.PROVED and engines["z3"] in (Status.PROVED, Status.UNKNOWN)


def test_part_one_compares_every_position_of_the_programs_sequence():
    ob = get("lemma5_weights").obligation((2, 1, 2, 1))
    (block,) = ob.construction.output_layout.blocks
    assert block.shape.rows == 1 and block.shape.cols == ob.construction.input_layout.length == 4


def test_part_two_is_the_network_under_softmax_attention_with_masks():
    hard = get("theorem6_weights").obligation((2, 2, 0)).construction.program
    masked = get("theorem6_weights").obligation((2, 2, 2)).construction.program
    assert {h.kind for layer in hard.layers for h in layer.heads} == {HARD, SOFT}
    assert {h.kind for layer in masked.layers for h in layer.heads} == {SOFT}
    assert all(h.mask is not None for layer in masked.layers for h in layer.heads)


def test_a_broken_network_is_refuted_where_it_first_differs():
    result = check_obligation(get("lemma5_weights").mutants["wrong-mlp-weight"]((2, 2, 2, 0)), timeout=60)
    assert result.status is Status.REFUTED
    assert "the network's dimension prod" in result.counterexample.divergence


def test_a_missing_sink_is_refuted_on_a_row_that_selects_nothing():
    result = check_obligation(get("lemma5_weights").mutants["missing-sink"]((1, 1, 1, 0)), timeout=60)
    assert result.status is Status.REFUTED
    assert result.counterexample.entry.startswith("padding")  # a query whose head selects nothing


def test_the_broken_variants_change_the_network_they_claim_to_change():
    network = get("lemma5_weights").obligation((2, 2, 2, 0)).construction.program
    for make in (broken.wrong_score, broken.without_sink, broken.wrong_mlp_weight):
        assert make(network).fingerprint() != network.fingerprint()
    assert broken.wrong_mask(network) is None  # no softmax head
    assert broken.wrong_mlp_weight(get("lemma3_weights").obligation((2, 2, 0)).construction.program) is None


def test_usim_prove_proves_a_weights_claim_and_refutes_its_broken_networks(capsys):
    assert main(["prove", "lemma3_weights", "--max-n", "2", "--mutants", "--jobs", "2", "-q"]) == 0
    out = capsys.readouterr().out
    assert "lemma3_weights: PROVED for every shape up to N=2" in out
    assert "mutant wrong-score: refuted" in out


def test_a_hard_head_run_as_softmax_stays_within_the_proved_bound():
    network = get("lemma3_weights").obligation((3, 3, 0)).construction.program  # one hard head, no MLP
    x = np.random.default_rng(0).normal(size=(32, 9))
    largest = float(np.abs(x).max())
    for d in measure(network, [4, 8, 16, 32], samples=32):
        bound = head_bound(d.beta, 0.5, keys=10, maximisers=1, largest_value=largest)
        assert d.largest <= bound, (d, bound)
    assert measure(network, [80], samples=8)[0].largest < 1e-12


def test_the_bound_needs_a_gap():
    with pytest.raises(ValueError):
        head_bound(1.0, 0.0, 3, 1, 1.0)
    assert head_bound(2.0, 0.5, 3, 1, 1.0) == pytest.approx(4 * math.exp(-1))


def test_the_networks_softmax_deviation_shrinks_with_beta():
    network = get("theorem6_weights").obligation((2, 2, 0)).construction.program
    deviations = [d.largest for d in measure(network, [10, 20, 40], samples=16)]
    assert deviations[0] > deviations[1] > deviations[2]
    numeric = run(network, __import__("usim.encodings.numeric", fromlist=["x"]).NumericInterpretation(),
                  np.zeros((1, network.n)))
    assert np.all(np.isfinite(numeric["Y"]))


@pytest.mark.slow
@pytest.mark.parametrize("claim_id, bound", [("lemma3_weights", 4), ("lemma4_weights", 3),
                                             ("lemma5_weights", 3), ("theorem6_weights", 3)])
def test_the_weights_claims_up_to_their_stated_bounds(claim_id, bound):
    claim = get(claim_id)
    report = prove_claim(claim, bound, engines=["sympy"], timeout=120, jobs=2, mutants=True)
    assert report.status is Status.PROVED
    assert report.mutants_refuted


def test_a_broken_network_is_a_variant_only_at_part_0_and_the_other_parts_are_listed_as_unbroken():
    """Parts 1 and 2 check the unbroken network: they are not broken variants,
    and they are never counted as variants refuted or proved."""
    report = prove_claim(get("lemma3_weights"), 2, ("sympy", "z3"), timeout=60, jobs=1, mutants=True)
    assert report.mutant_results and all(r.shape[-1] == 0 for r in report.mutant_results)
    assert {"1x1x1", "2x2x2"} <= set(report.unbroken["wrong-score"])
    assert report.mutants_refuted


def test_a_variant_that_breaks_nothing_at_any_shape_is_not_refuted():
    import dataclasses

    claim = dataclasses.replace(get("lemma3_weights"), mutants={"breaks-nothing": lambda shape: None})
    report = prove_claim(claim, 1, ("sympy", "z3"), timeout=60, jobs=1, mutants=True)
    assert not report.mutant_results and report.unbroken["breaks-nothing"]
    assert not report.mutants_refuted
