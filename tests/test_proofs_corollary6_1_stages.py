"""Corollary 6.1 (the post-norm encoder layer) for every size: U_N's twelve padded
stages, each proved for every size, and the chain that composes them; the layer
norm and the ReLU among them."""

from __future__ import annotations

import dataclasses

import pytest

from usim.engine.claim import Status
from usim.engine.parametric.composed import prove_composed
from usim.engine.parametric.fresh import prove_fresh
from usim.proofs import composed, families, family
from usim.proofs._stages import composition
from usim.proofs._universal import encoder_term
from usim.proofs.corollary6_1_stages import COROLLARY6_1, ENCODER, STAGE_FAMILIES

STAGES = [f"corollary6_1_padded_stage{k}" for k in range(1, 13)]
NEW_KINDS = {"corollary6_1_padded_stage5", "corollary6_1_padded_stage6", "corollary6_1_padded_stage8"}


def test_u_for_the_encoder_is_twelve_stages_ending_in_the_second_layer_norm():
    u = ENCODER.at(4)
    assert len(u.stages) == 12
    assert [st.describe(u.kinds) for st in u.stages[5].steps] == ["N1 = layernorm(Z1, g1, be1, eps1)"]
    assert [st.describe(u.kinds) for st in u.stages[-1].steps] == ["N2 = layernorm(Z2, g2, be2, eps2)"]


def test_corollary6_1_for_every_size_is_the_twelve_padded_stages_and_their_chain():
    assert composed()["corollary6_1"] is COROLLARY6_1
    assert [p.id for p in COROLLARY6_1.parts] == STAGES
    assert COROLLARY6_1.describe_conditions() == "N >= 1, n >= 1, d >= 1, (n <= N) and (d <= N)"
    chain = COROLLARY6_1.chain()
    assert chain.ok, chain.problems
    assert any("preconditions" in c for c in chain.checks)


def test_every_stage_states_eps_gt_0_as_its_bounded_claim_does():
    for part in STAGE_FAMILIES:
        assert part.preconditions is not None and part.preconditions is part.claim.obligation(
            part.claim.shapes(1)[0]).preconditions


def test_the_chain_breaks_where_a_precondition_is_on_a_block_a_stage_makes():
    """eps > 0 holds at every stage's input because every stage carries eps unchanged;
    a precondition on N1 (made by stage 6) would hold nowhere the chain can show."""
    bad = [dataclasses.replace(p, preconditions=lambda m: [m["N1"][0, 0] > 0]) if p.id == STAGES[7] else p
           for p in STAGE_FAMILIES]
    problems = composition(ENCODER, bad, encoder_term).problems
    assert any("precondition on N1" in p and "not carried unchanged" in p for p in problems), problems


@pytest.mark.parametrize("claim_id", [c if c in NEW_KINDS else pytest.param(c, marks=pytest.mark.slow)
                                      for c in STAGES])
def test_each_padded_stage_is_proved_for_every_size_and_tied_past_the_bound(claim_id):
    result = prove_fresh(family, families()[claim_id], tie_bound=2)
    assert result.status is Status.PROVED, result.verdict.reason
    assert result.tie.ok and any(shape[0] >= 17 for shape in result.tie.beyond), result.tie.problems


@pytest.mark.slow  # about 3 min: twelve stages, each in an interpreter of its own
def test_corollary6_1_is_proved_for_every_size():
    result = prove_composed(COROLLARY6_1, tie_bound=2)
    assert result.status is Status.PROVED, [p.reason for p in result.parts]


@pytest.mark.parametrize("mutant", ["stage6:mean-over-the-block", "stage8:bias-on-every-row"])
def test_a_broken_encoder_stage_refutes_corollary6_1_at_a_replayed_size(mutant):
    result = prove_composed(COROLLARY6_1, mutant, tie_bound=2)
    assert result.status is Status.REFUTED, [p.reason for p in result.parts]


def test_a_precondition_the_chain_cannot_read_is_a_problem_not_a_crash():
    bad = [dataclasses.replace(p, preconditions=lambda m: [m["X"][1, 0] > 0]) if p.id == STAGES[0] else p
           for p in STAGE_FAMILIES]
    problems = composition(ENCODER, bad, encoder_term).problems
    assert any("preconditions the chain cannot read" in p for p in problems), problems
