"""A bug found in review (2026-12-05): U over stacked heads placed T's A head by head
with T's d_k as each head's width, but the merged form's A_h is d x d whatever d_k says.
Given d_k < d, U's output was wrong, silently (0.098 off at N = 3, H = 2, n = d = 2).
Now A_h is placed d columns wide, and U computes the layer whatever d_k is."""

from __future__ import annotations

import numpy as np
import pytest

from usim.constructions.universal import LayerSpec, build
from usim.constructions.universal.embed import embed_arrays
from usim.encodings.runners import run_numeric


@pytest.mark.parametrize("d_k", [None, 1, 2])
def test_a_stacked_t_with_any_d_k_is_placed_head_by_head_d_columns_wide(d_k):
    heads, n, d = 2, 2, 2
    u = build(LayerSpec(3, 3, heads=heads, d_v=3, out_proj=True, stacked=True))
    small = LayerSpec(n, d, heads=heads, d_k=d_k, d_v=d, out_proj=True, stacked=True)
    rng = np.random.default_rng(7)
    X, A, V, WO = (rng.normal(size=s) for s in ((n, d), (d, heads * d), (d, heads * d), (heads * d, d)))
    got = u.output_layout.decode_numeric(run_numeric(u.runnable_program, embed_arrays(
        u, small, {"X": X, "A": A, "V": V, "WO": WO}, scale=1.0))["Y"])[0]
    outputs = []
    for h in range(heads):
        S = X @ A[:, h * d:(h + 1) * d] @ X.T
        outputs.append(np.exp(S) / np.exp(S).sum(axis=1, keepdims=True) @ X @ V[:, h * d:(h + 1) * d])
    want = np.zeros((3, 3))
    want[:n, :d] = np.hstack(outputs) @ WO
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
