"""U_{N,H} over stacked heads: each of its seven stages proved for every N and H, tied to
the builder's U past the bound, and broken variants wrong only past H = 8 refuted at H = 9."""

from __future__ import annotations

import pytest

from usim.engine.claim import Status
from usim.engine.parametric.allsizes import instance_obligation, prove_all_sizes
from usim.engine.runner import check_obligation
from usim.proofs import families
from usim.proofs.theorem9_stacked import FAMILY, HEADS_WRAP

STAGES = [f"theorem9_stacked_stage{k}" for k in range(1, 8)]
PAST_EIGHT = [("theorem9_stacked_stage2", "heads-mod-8"), ("theorem9_stacked_stage4", "heads-past-8-zeroed"),
              ("theorem9_stacked_stage6", "heads-mod-8")]


def test_the_stages_have_the_head_count_as_a_dimension():
    fcs = families()
    assert [fcs[c].dims for c in STAGES] == [("N", "h")] * 3 + [("N", "h", "n")] + [("N", "h")] * 3
    assert fcs[STAGES[3]].describe_conditions() == "N >= 1, h >= 1, n >= 1, n <= N"


def test_a_stage_at_integers_is_built_for_its_n_and_h_and_fixes_only_the_header_size():
    u = FAMILY.built_for((3, 4, 2))
    assert u is FAMILY.at(3, 4)
    assert u.stages[1].steps[0].sizes == (4, 3, 3)  # stack: H = 4 blocks of N x N = 3 x 3
    assert FAMILY.fixed(4, (3, 4, 2)) == {"n": 2}


@pytest.mark.parametrize("claim_id", STAGES)
def test_each_stage_is_proved_for_every_size_and_tied_past_the_bound(claim_id):
    result = prove_all_sizes(families()[claim_id], timeout=120)
    assert result.status is Status.PROVED, result.verdict.reason
    assert result.tie.ok and result.tie.beyond, result.tie.problems


@pytest.mark.parametrize("claim_id, mutant", PAST_EIGHT)
def test_a_stage_wrong_only_past_eight_heads_is_refuted_at_nine_and_replayed(claim_id, mutant):
    fc = families()[claim_id]
    result = prove_all_sizes(fc, mutant, timeout=120)
    assert result.status is Status.REFUTED
    assert dict(zip(fc.dims, result.shape))["h"] > HEADS_WRAP
    assert result.counterexample.status is Status.REFUTED


@pytest.mark.parametrize("claim_id, mutant", PAST_EIGHT)
def test_the_same_stage_passes_every_bounded_check_at_two(claim_id, mutant):
    fc = families()[claim_id]
    for shape in fc.claim.shapes(2):
        assert check_obligation(instance_obligation(fc, shape, mutant), timeout=60).status is Status.PROVED, shape


@pytest.mark.parametrize("claim_id, mutant", PAST_EIGHT)
def test_the_bounded_checks_up_to_three_and_at_eight_heads_miss_it(claim_id, mutant):
    fc = families()[claim_id]
    for shape in fc.claim.shapes(3) + [(1, 8) + ((1,) if len(fc.dims) == 3 else ()), (2, 8) + (
            (2,) if len(fc.dims) == 3 else ())]:
        assert check_obligation(instance_obligation(fc, shape, mutant), timeout=300).status is Status.PROVED, shape
