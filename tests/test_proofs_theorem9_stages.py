"""Theorem 9 at H = 1 to 4 (with W_O) for every size: U_{N,H}'s five padded stages,
each proved for every size, and the chain that composes them; its broken variants
refuted at a concrete size, one of them wrong only past every bounded proof."""

from __future__ import annotations

from fractions import Fraction

import pytest

from usim.encodings import run_exact
from usim.engine.claim import Status
from usim.engine.parametric.composed import prove_composed
from usim.engine.parametric.fresh import prove_fresh
from usim.proofs import composed, families, family
from usim.proofs._stages import composition
from usim.proofs._universal import attention_term
from usim.proofs.theorem9_stages import (PADDED, PADDED_FAMILIES, STAGE_WRAP, THEOREM9_ONE_HEAD, THEOREM9_TWO_HEADS,
                                         TWO_HEADS, TWO_HEADS_FAMILIES)
from usim.rasp.family import instantiate

STAGES = [f"theorem9_one_head_padded_stage{k}" for k in range(1, 6)]


def test_u_with_w_o_is_five_stages_the_last_one_the_projection():
    u = PADDED.at(16)
    assert len(u.stages) == 5
    assert [st.describe(u.kinds) for st in u.stages[-1].steps] == ["Att = O WO"]
    assert u.length == 3 + 4 * 16 * 16


def test_theorem9_for_one_head_for_every_size_is_the_five_padded_stages_and_their_chain():
    assert composed()["theorem9_one_head"] is THEOREM9_ONE_HEAD
    assert [p.id for p in THEOREM9_ONE_HEAD.parts] == STAGES
    assert THEOREM9_ONE_HEAD.describe_conditions() == "N >= 1, n >= 1, d >= 1, (n <= N) and (d <= N)"
    chain = THEOREM9_ONE_HEAD.chain()
    assert chain.ok, chain.problems
    assert any("composes, as terms, to the claim's formula" in c for c in chain.checks)


def test_the_chain_breaks_where_the_stages_are_out_of_order_or_the_formula_leaves_out_w_o():
    swapped = [PADDED_FAMILIES[1], PADDED_FAMILIES[0], *PADDED_FAMILIES[2:]]
    assert any("is not stage 1 of the family" in p for p in composition(PADDED, swapped, attention_term).problems)
    from usim.constructions.universal import LayerSpec

    def without_w_o(spec):
        return attention_term(LayerSpec(spec.n, spec.d))

    assert not composition(PADDED, list(PADDED_FAMILIES), without_w_o).ok


@pytest.mark.parametrize("claim_id", [pytest.param(c, marks=pytest.mark.slow) for c in STAGES[:4]] + STAGES[4:])
def test_each_padded_stage_is_proved_for_every_size_and_tied_past_the_bound(claim_id):
    result = prove_fresh(family, families()[claim_id], tie_bound=2)
    assert result.status is Status.PROVED, result.verdict.reason
    assert result.tie.ok and any(shape[0] >= 17 for shape in result.tie.beyond), result.tie.problems


@pytest.mark.slow  # about 2 min 20 s: five stages, each in an interpreter of its own
def test_theorem9_for_one_head_is_proved_for_every_size():
    result = prove_composed(THEOREM9_ONE_HEAD, tie_bound=2)
    assert result.status is Status.PROVED, [p.reason for p in result.parts]


@pytest.mark.parametrize("mutant", ["stage4:misplaced-block", "stage3:no-key-mask"])
def test_a_broken_stage_refutes_theorem9_for_one_head_at_a_replayed_size(mutant):
    result = prove_composed(THEOREM9_ONE_HEAD, mutant, tie_bound=2)
    assert result.status is Status.REFUTED, [p.reason for p in result.parts]


def test_stage_2_wrapping_past_1100_is_right_at_every_size_the_bounded_proofs_reach():
    """At N = n = d = 16, U_{N,1}'s workspace has 1027 positions and no source
    position reaches 1100; at N = 17 (1159 positions) W_O's last entries wrap."""
    fc = families()["theorem9_one_head_padded_stage2"]
    for N, same in ((16, True), (17, False)):
        shape = (N,) * len(fc.dims)
        broken = instantiate(fc.family(f"wraps-past-{STAGE_WRAP}"), dict(zip(fc.dims, shape)))
        values = [Fraction(p % 7 - 3, 1 + p % 5) for p in range(3 + 4 * N * N)]
        assert (run_exact(broken, values) == run_exact(fc.program(*shape), values)) is same, N


@pytest.mark.slow  # about 25 s: the replay is stage 2 alone at N = 24, 2307 positions
def test_stage_2_wrapping_past_1100_is_refuted_for_every_size_past_the_bounded_proofs():
    result = prove_composed(THEOREM9_ONE_HEAD, f"stage2:wraps-past-{STAGE_WRAP}", tie_bound=2)
    assert result.status is Status.REFUTED, [p.reason for p in result.parts]
    assert result.shape[0] > 16


# -- two heads: U_{N,2}, the concatenation by routing and W_O read head by head ----------------

TWO_HEADS_STAGES = [f"theorem9_two_heads_padded_stage{k}" for k in range(1, 6)]


def test_theorem9_for_two_heads_for_every_size_is_five_padded_stages_and_their_chain():
    assert composed()["theorem9_two_heads"] is THEOREM9_TWO_HEADS
    assert [p.id for p in THEOREM9_TWO_HEADS.parts] == TWO_HEADS_STAGES
    chain = THEOREM9_TWO_HEADS.chain()
    assert chain.ok, chain.problems
    assert TWO_HEADS.at(16).stages[3].pieces["C"][1].col == 16  # head 1's output at columns N ..


def test_the_two_head_chain_breaks_where_the_formula_has_one_head():
    from usim.constructions.universal import LayerSpec

    def one_head(spec):
        return attention_term(LayerSpec(spec.n, spec.d, heads=1, d_v=spec.d, out_proj=True))

    assert not composition(TWO_HEADS, list(TWO_HEADS_FAMILIES), one_head).ok


def test_head_1s_softmax_without_its_key_mask_is_refuted_for_every_size_at_a_replayed_size():
    result = prove_fresh(family, families()["theorem9_two_heads_padded_stage3"], "no-key-mask", tie_bound=2)
    assert result.status is Status.REFUTED, result.verdict.reason
    assert result.counterexample.status is Status.REFUTED


@pytest.mark.slow  # about 6 min: the products routed into the concatenation, each case of the padding
def test_with_two_heads_the_concatenation_stage_is_proved_for_every_size():
    result = prove_fresh(family, families()["theorem9_two_heads_padded_stage4"], tie_bound=2)
    assert result.status is Status.PROVED, result.verdict.reason


@pytest.mark.slow
def test_head_1_routed_one_position_off_into_the_concatenation_is_refuted_for_every_size():
    result = prove_fresh(family, families()["theorem9_two_heads_padded_stage4"], "second-head-misplaced",
                         tie_bound=2)
    assert result.status is Status.REFUTED, result.verdict.reason


@pytest.mark.slow  # about 12 min: five stages, each in an interpreter of its own
def test_theorem9_for_two_heads_is_proved_for_every_size():
    result = prove_composed(THEOREM9_TWO_HEADS, tie_bound=2)
    assert result.status is Status.PROVED, [p.reason for p in result.parts]


# -- three and four heads, and theorem9 for every size: U_{N,H} for H = 1 .. 4 and over stacked heads ----

def test_theorem9_for_every_size_is_the_four_head_counts_then_every_head_count_stacked():
    from usim.proofs.theorem9_stages import THEOREM9

    assert composed()["theorem9"] is THEOREM9
    assert [p.id for p in THEOREM9.parts] == [f"theorem9_{word}_padded_stage{k}"
                                              for word in ("one_head", "two_heads", "three_heads", "four_heads")
                                              for k in range(1, 6)] + \
        [f"theorem9_stacked_stage{k}" for k in range(1, 8)]
    assert THEOREM9.dims == ("N", "h", "n", "d", "d_v")  # H a size of the claim: every H
    chain = THEOREM9.chain()
    assert chain.ok, chain.problems
    assert sum("composes, as terms, to the claim's formula" in c for c in chain.checks) == 4
    assert any(c.startswith("every H: ") and "equation" in c for c in chain.checks), chain.checks
    assert "H4.stage4:fourth-head-misplaced" in THEOREM9.mutants
    index, broken = THEOREM9.mutants["H3.stage3:no-key-mask"]
    assert THEOREM9.parts[index].id == "theorem9_three_heads_padded_stage3" and broken == "no-key-mask"
    index, broken = THEOREM9.mutants["stacked.stage6:heads-mod-8"]  # wrong only past H = 8
    assert THEOREM9.parts[index].id == "theorem9_stacked_stage6" and broken == "heads-mod-8"


def test_the_claims_sizes_are_those_of_the_equation_its_chain_proves_not_the_members_say_so():
    """Found in the seventeenth session's review: the sizes were read from the member's own
    claim, so a member stating fewer conditions (d_v <= N left out: no part reads d_v)
    made a claim over every d_v from a chain proving d_v <= N only."""
    import dataclasses

    from usim.encodings.sized import both
    from usim.proofs import theorem9_multihead, theorem9_stacked
    from usim.proofs._heads import EveryHead, over_heads
    from usim.proofs._universal import attention_formula

    right = theorem9_stacked.THEOREM9_STACKED
    narrowed = dataclasses.replace(right.over, side_condition=lambda N, h, n, d, d_v: both(n <= N, d <= N))
    member = dataclasses.replace(right, over=narrowed)
    assert "d_v <= N" not in member.describe_conditions()
    claim = over_heads(theorem9_multihead.CLAIM, theorem9_multihead.spec_of, {1: (PADDED, THEOREM9_ONE_HEAD)},
                       attention_term, (1,), every_h=EveryHead(theorem9_stacked.FAMILY, member, attention_formula))
    assert claim.describe_conditions() == right.describe_conditions()
    assert "d_v <= N" in claim.describe_conditions()


def test_a_member_for_every_head_count_of_another_layer_breaks_the_chain():
    """The encoder's U over stacked heads given as theorem9's member for every H: its
    family is not T's attention layer with H heads stacked, nor its stages the formula's."""
    from usim.proofs import corollary9_1_stacked, theorem9_multihead, theorem9_stacked
    from usim.proofs._heads import EveryHead, over_heads
    from usim.proofs._universal import attention_formula

    wrong = EveryHead(corollary9_1_stacked.FAMILY, corollary9_1_stacked.COROLLARY9_1_STACKED, attention_formula)
    claim = over_heads(theorem9_multihead.CLAIM, theorem9_multihead.spec_of, {1: (PADDED, THEOREM9_ONE_HEAD)},
                       attention_term, (1,), every_h=wrong)
    problems = claim.chain().problems
    assert problems and problems[0].startswith("every H: the member is U for "), problems
    right = EveryHead(theorem9_stacked.FAMILY, corollary9_1_stacked.COROLLARY9_1_STACKED, attention_formula)
    problems = over_heads(theorem9_multihead.CLAIM, theorem9_multihead.spec_of, {1: (PADDED, THEOREM9_ONE_HEAD)},
                          attention_term, (1,), every_h=right).chain().problems
    assert problems and all(p.startswith("every H: ") for p in problems), problems  # the encoder's parts


def _over_heads(members, heads=(1, 2)):
    from usim.proofs import theorem9_multihead
    from usim.proofs._heads import over_heads

    return over_heads(theorem9_multihead.CLAIM, theorem9_multihead.spec_of, members, attention_term, heads)


def test_a_member_standing_for_another_head_count_breaks_the_chain():
    from usim.proofs.theorem9_stages import THEOREM9_THREE_HEADS, THREE_HEADS

    assert _over_heads({1: (PADDED, THEOREM9_ONE_HEAD), 2: (TWO_HEADS, THEOREM9_TWO_HEADS)}).chain().ok
    problems = _over_heads({1: (PADDED, THEOREM9_ONE_HEAD), 2: (THREE_HEADS, THEOREM9_THREE_HEADS)}).chain().problems
    assert problems[0].startswith("H = 2: the member is U for merged_n"), problems


def test_a_member_whose_parts_are_another_head_counts_breaks_the_chain():
    """The family given for H = 2 is right, the composed claim beside it is the three-head
    one: its parts are not the family's stages (the chain is derived from the family)."""
    from usim.proofs.theorem9_stages import THEOREM9_THREE_HEADS

    problems = _over_heads({1: (PADDED, THEOREM9_ONE_HEAD), 2: (TWO_HEADS, THEOREM9_THREE_HEADS)}).chain().problems
    assert any(p.startswith("H = 2: part 1 (theorem9_three_heads_padded_stage1) is not stage 1") for p in problems), \
        problems


def test_members_that_leave_out_a_head_count_the_claim_states_break_the_chain():
    problems = _over_heads({1: (PADDED, THEOREM9_ONE_HEAD)}, heads=(1, 2, 3, 4)).chain().problems
    assert problems == ("the members are H = [1], the claim states H = [1, 2, 3, 4]",), problems


def test_with_three_heads_the_last_heads_output_sits_at_columns_2n_of_the_concatenation():
    from usim.proofs.theorem9_stages import FOUR_HEADS, THREE_HEADS

    assert [p.col for p in THREE_HEADS.at(16).stages[3].pieces["C"]] == [0, 16, 32]
    assert [p.col for p in FOUR_HEADS.at(16).stages[3].pieces["C"]] == [0, 16, 32, 48]


def test_with_three_heads_the_softmax_stage_is_proved_for_every_size_and_tied_past_the_bound():
    result = prove_fresh(family, families()["theorem9_three_heads_padded_stage3"], tie_bound=2)
    assert result.status is Status.PROVED, result.verdict.reason
    # past theorem9's bound (N = 8); U_{N,3}'s longer workspaces keep the tie below N = 17
    assert result.tie.ok and any(shape[0] > 8 for shape in result.tie.beyond), result.tie.problems


def test_the_last_of_three_heads_without_its_key_mask_is_refuted_for_every_size_at_a_replayed_size():
    result = prove_fresh(family, families()["theorem9_three_heads_padded_stage3"], "no-key-mask", tie_bound=2)
    assert result.status is Status.REFUTED, result.verdict.reason
    assert result.counterexample.status is Status.REFUTED


@pytest.mark.slow  # about 1 min 10 s: three products routed into the concatenation, head 2 at columns 2N ..
def test_with_three_heads_the_concatenation_stage_is_proved_for_every_size():
    result = prove_fresh(family, families()["theorem9_three_heads_padded_stage4"], tie_bound=2)
    assert result.status is Status.PROVED, result.verdict.reason


@pytest.mark.slow
def test_the_third_head_routed_one_position_off_into_the_concatenation_is_refuted_for_every_size():
    result = prove_fresh(family, families()["theorem9_three_heads_padded_stage4"], "third-head-misplaced",
                         tie_bound=2)
    assert result.status is Status.REFUTED, result.verdict.reason


@pytest.mark.slow  # about 3 min: C W_O's sums split at the five boundaries of three padded heads
def test_with_three_heads_the_projection_stage_is_proved_for_every_size():
    result = prove_fresh(family, families()["theorem9_three_heads_padded_stage5"], tie_bound=2)
    assert result.status is Status.PROVED, result.verdict.reason


@pytest.mark.slow  # about 9 min: the seven boundaries of four padded heads, split six deep
def test_with_four_heads_the_projection_stage_is_proved_for_every_size():
    result = prove_fresh(family, families()["theorem9_four_heads_padded_stage5"], tie_bound=2)
    assert result.status is Status.PROVED, result.verdict.reason
