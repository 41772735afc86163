"""Corollary 9.1 at H = 1 to 4 for every size: U_{N,H}'s thirteen padded stages
(Theorem 9's five, then the encoder's eight), each proved for every size, and the
chain that composes them; the claim corollary9_1 as the four side by side."""

from __future__ import annotations

import pytest

from usim.engine.claim import Status
from usim.engine.parametric.composed import prove_composed
from usim.engine.parametric.fresh import prove_fresh
from usim.proofs import composed, families, family
from usim.proofs.corollary9_1_stages import (
    COROLLARY9_1,
    COROLLARY9_1_FOUR_HEADS,
    COROLLARY9_1_ONE_HEAD,
    COROLLARY9_1_THREE_HEADS,
    COROLLARY9_1_TWO_HEADS,
)

TAGS = {1: "one_head", 2: "two_heads", 3: "three_heads", 4: "four_heads"}


@pytest.mark.parametrize("claim, heads", [(COROLLARY9_1_ONE_HEAD, 1), (COROLLARY9_1_TWO_HEADS, 2),
                                          (COROLLARY9_1_THREE_HEADS, 3), (COROLLARY9_1_FOUR_HEADS, 4)])
def test_corollary9_1_for_every_size_is_thirteen_padded_stages_and_their_chain(claim, heads):
    tag = TAGS[heads]
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


def test_corollary9_1_for_every_size_is_u_at_one_to_four_heads_then_every_head_count_stacked():
    assert composed()["corollary9_1"] is COROLLARY9_1
    assert [p.id for p in COROLLARY9_1.parts] == [f"corollary9_1_{TAGS[h]}_padded_stage{k}"
                                                  for h in range(1, 5) for k in range(1, 14)] + \
        [f"corollary9_1_stacked_stage{k}" for k in range(1, 16)]
    assert COROLLARY9_1.dims == ("N", "h", "n", "d", "d_v")
    chain = COROLLARY9_1.chain()
    assert chain.ok, chain.problems
    assert any(check.startswith("H = 4: ") for check in chain.checks)
    assert any(check.startswith("every H: ") for check in chain.checks)


@pytest.mark.parametrize("heads, last", [(2, "second"), (3, "third"), (4, "fourth")])
def test_the_last_heads_broken_variants_are_named_and_placed_as_in_theorem9(heads, last):
    from usim.proofs.theorem9_stages import THEOREM9

    mutants = COROLLARY9_1.mutants
    assert f"H{heads}.stage4:{last}-head-misplaced" in mutants and f"H{heads}.stage3:no-key-mask" in mutants
    # the same stage 4 variants as Theorem 9's at H heads (where Theorem 9 states them for every size)
    assert {m for m in mutants if m.startswith(f"H{heads}.stage4:")} == \
        {m for m in THEOREM9.mutants if m.startswith(f"H{heads}.stage4:")}


@pytest.mark.slow  # about 2 min: U_{N,3}'s softmax stage with the encoder's inputs carried
def test_the_last_of_three_heads_without_its_key_mask_refutes_corollary9_1_at_a_replayed_size():
    result = prove_fresh(family, families()["corollary9_1_three_heads_padded_stage3"], "no-key-mask", tie_bound=2)
    assert result.status is Status.REFUTED, result.verdict.reason


def test_a_padded_part_assuming_more_than_u_s_input_does_not_compose():
    import dataclasses

    from usim.proofs._stages import composition
    from usim.proofs._universal import encoder_term
    from usim.proofs.corollary9_1_stages import ONE_HEAD, ONE_HEAD_FAMILIES

    strong = dataclasses.replace(ONE_HEAD_FAMILIES[6], preconditions=lambda m: [m["eps1"][0, 0] > 100])
    chain = composition(ONE_HEAD, [*ONE_HEAD_FAMILIES[:6], strong, *ONE_HEAD_FAMILIES[7:]], encoder_term)
    assert any("beyond U's input's" in p for p in chain.problems)
