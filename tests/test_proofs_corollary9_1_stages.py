"""Corollary 9.1 at H = 1 and H = 2 for every size: U_{N,H}'s thirteen padded stages
(Theorem 9's five, then the encoder's eight), each proved for every size, and the
chain that composes them."""

from __future__ import annotations

import pytest

from usim.engine.claim import Status
from usim.engine.parametric.composed import prove_composed
from usim.engine.parametric.fresh import prove_fresh
from usim.proofs import composed, families, family
from usim.proofs.corollary9_1_stages import COROLLARY9_1_ONE_HEAD, COROLLARY9_1_TWO_HEADS


@pytest.mark.parametrize("claim, heads", [(COROLLARY9_1_ONE_HEAD, 1), (COROLLARY9_1_TWO_HEADS, 2)])
def test_corollary9_1_for_every_size_is_thirteen_padded_stages_and_their_chain(claim, heads):
    tag = {1: "one_head", 2: "two_heads"}[heads]
    assert composed()[f"corollary9_1_{tag}"] is claim
    assert [p.id for p in claim.parts] == [f"corollary9_1_{tag}_padded_stage{k}" for k in range(1, 14)]
    chain = claim.chain()
    assert chain.ok, chain.problems


@pytest.mark.parametrize("claim_id", ["corollary9_1_one_head_padded_stage6",
                                      pytest.param("corollary9_1_two_heads_padded_stage13", marks=pytest.mark.slow)])
def test_an_encoder_stage_after_w_o_is_proved_for_every_size_and_tied_past_the_bound(claim_id):
    result = prove_fresh(family, families()[claim_id], tie_bound=2)
    assert result.status is Status.PROVED, result.verdict.reason
    assert result.tie.ok and any(shape[0] >= 5 for shape in result.tie.beyond), result.tie.problems  # past N = 2


@pytest.mark.slow  # about 4 min: thirteen stages, each in an interpreter of its own
def test_corollary9_1_at_one_head_is_proved_for_every_size():
    result = prove_composed(COROLLARY9_1_ONE_HEAD, tie_bound=2)
    assert result.status is Status.PROVED, [p.reason for p in result.parts]


def test_a_residual_reading_its_addend_one_position_off_refutes_corollary9_1_at_a_replayed_size():
    result = prove_composed(COROLLARY9_1_ONE_HEAD, "stage6:misplaced-addend", tie_bound=2)
    assert result.status is Status.REFUTED, [p.reason for p in result.parts]
