"""Corollary 9.1 in the users' form over stacked heads (PyTorch's post-norm encoder layer):
its twenty stages stated for every N and H, composed by the equation into the encoder
layer for every N, H and n, d, d_k, d_v <= N, and U_N equal to torch's layer."""

from __future__ import annotations

import numpy as np
import pytest

from usim.constructions.universal import embed_arrays
from usim.constructions.universal.simulate import Prepared, heads_side_by_side, spec_from_arrays
from usim.engine.claim import Status
from usim.engine.parametric.allsizes import prove_all_sizes
from usim.proofs import composed, families
from usim.proofs._stage_equation import equation_composition, header_dims
from usim.proofs._universal import encoder_formula
from usim.proofs.corollary9_1_users_stacked import COROLLARY9_1_USERS_STACKED, FAMILIES, FAMILY, spec_of

STAGES = [f"corollary9_1_users_stacked_stage{k}" for k in range(1, 21)]


def test_the_claim_is_its_twenty_stages_over_n_h_and_t_s_widths():
    assert composed()["corollary9_1_users_stacked"] is COROLLARY9_1_USERS_STACKED
    assert [p.id for p in COROLLARY9_1_USERS_STACKED.parts] == STAGES
    assert header_dims(FAMILY) == ("n", "d")  # the layer norms read d
    assert COROLLARY9_1_USERS_STACKED.dims == ("N", "h", "n", "d", "d_k", "d_v")


@pytest.mark.parametrize("claim_id", [STAGES[12], STAGES[13], STAGES[19]])
def test_the_encoder_s_stages_are_proved_for_every_size(claim_id):
    result = prove_all_sizes(families()[claim_id], timeout=120)
    assert result.status is Status.PROVED, result.verdict.reason


def test_u_n_over_stacked_heads_with_the_encoder_is_torch_s_encoder_layer():
    pytest.importorskip("torch")
    from usim.transformer.torch_layers import torch_layer

    want, arrays = torch_layer("encoder", 3, 4, 2, 4, seed=4)  # feed-forward width d, as the claim's T
    small, stacked, c = spec_from_arrays(heads_side_by_side(arrays))  # the heads side by side, as in_proj holds them
    assert small == spec_of(3, 4, 2, d_k=2, d_v=2)
    u = FAMILY.at(4, 2)
    y = Prepared(small, stacked, c, u, embed_arrays(u, small, stacked, c)).checked_run().y
    assert np.max(np.abs(y - want)) < 1e-12


@pytest.mark.slow
def test_the_twenty_stages_compose_to_the_encoder_layer():
    chain = equation_composition(FAMILY, list(FAMILIES), encoder_formula)
    assert chain.ok, chain.problems + chain.undecided
