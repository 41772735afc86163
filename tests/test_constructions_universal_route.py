"""U's routes: over stacked heads, one list of steps for every head count, which may be a symbol."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from usim.constructions.universal import STEP_KINDS, LayerSpec, build
from usim.constructions.universal.embed import embed_arrays
from usim.constructions.universal.kinds import masked_softmax, masked_stacked_softmax
from usim.encodings.runners import run_numeric
from usim.engine.claim import Status
from usim.engine.runner import check_obligation
from usim.errors import ShapeError
from usim.proofs._universal import stage_obligation
from usim.rasp.family import dimension


def stacked(n, d, heads, **more):
    return LayerSpec(n, d, heads=heads, d_v=d, out_proj=True, stacked=True, **more)


def attention(X, A, V, WO, c):
    """[softmax(c X A_h X^T) X V_h]_h W_O in numpy, A_h and V_h the column blocks of A and V."""
    d, heads = X.shape[1], A.shape[1] // X.shape[1]
    outputs = []
    for h in range(heads):
        S = c * X @ A[:, h * d:(h + 1) * d] @ X.T
        P = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
        outputs.append(P @ X @ V[:, h * d:(h + 1) * d])
    return np.hstack(outputs) @ WO


@pytest.mark.parametrize("bound, heads, n, d, more", [(2, 1, 2, 2, {}), (2, 2, 2, 2, {}), (3, 2, 2, 3, {}),
                                                      (3, 3, 3, 1, {}), (4, 4, 3, 4, {}), (3, 2, 2, 2, {"d_k": 1})])
def test_u_over_stacked_heads_computes_the_layer_zero_padded(bound, heads, n, d, more):
    """d_k given: the merged form's A_h is d x d whatever d_k says (nothing reads it)."""
    rng = np.random.default_rng(bound * 10 + heads)
    u = build(stacked(bound, bound, heads))
    X, A, V = rng.normal(size=(n, d)), rng.normal(size=(d, heads * d)), rng.normal(size=(d, heads * d))
    WO = rng.normal(size=(heads * d, d))
    sequence = embed_arrays(u, stacked(n, d, heads, **more), {"X": X, "A": A, "V": V, "WO": WO}, scale=0.7)
    got = u.output_layout.decode_numeric(run_numeric(u.runnable_program, sequence)["Y"])[0]
    want = np.zeros((bound, bound))
    want[:n, :d] = attention(X, A, V, WO, 0.7)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_the_route_is_the_same_seven_stages_for_every_head_count():
    described = {heads: [[st.kind for st in stage.steps] for stage in build(stacked(2, 2, heads)).stages]
                 for heads in (1, 2, 5)}
    assert described[1] == described[2] == described[5] == [
        ["transpose", "matmul", "matmul"], ["stack"], ["matmul"], ["stacked_softmax"], ["matmul"], ["diagonal"],
        ["matmul"]]


def test_the_users_form_over_stacked_heads_is_twelve_stages_of_the_same_kinds_for_every_head_count():
    """Q_h K_h^T for every head from one product of every head's queries with every head's
    keys: its diagonal blocks, stacked; no kind the merged route and Theorem 6 lack."""
    described = {heads: [[st.kind for st in stage.steps] for stage in build(LayerSpec(
        2, 2, heads=heads, form="projected", d_k=2, d_v=2, bias=True, out_proj=True, stacked=True)).stages]
        for heads in (1, 3)}
    assert described[1] == described[3] == [
        ["matmul"] * 3, ["bias"] * 3, ["stack"] * 2, ["transpose"], ["matmul"], ["diagonal"], ["stack"],
        ["stacked_softmax"], ["matmul"], ["diagonal"], ["matmul"], ["bias"]]


def test_u_is_built_for_a_symbolic_head_count_and_its_length_is_the_input_and_z():
    u = build(stacked(dimension("N"), dimension("N"), dimension("h")))
    assert len(u.stages) == 7
    # the input (3 + N^2 + 3 H N^2) and room for Z (H^2 N^2): neither alone is the longest at every H
    for bound, heads in ((1, 1), (3, 4), (2, 7)):
        assert u.length.value({"N": bound, "h": heads}) == build(stacked(bound, bound, heads)).length \
            == 3 + bound ** 2 + 3 * heads * bound ** 2 + heads ** 2 * bound ** 2


def test_each_stage_of_u_over_two_stacked_heads_is_proved_at_n_2():
    u = build(stacked(2, 2, 2))
    for k in range(1, len(u.stages) + 1):
        sizes = {"n": 2} if k == 4 else None  # the softmax reads n
        assert check_obligation(stage_obligation("stacked", (2, 2, k), u, k, sizes)).status is Status.PROVED, k


def test_a_symbolic_head_count_needs_the_heads_stacked_and_its_widths():
    H = dimension("h")
    with pytest.raises(ShapeError, match="stacked"):
        LayerSpec(2, 2, heads=H, d_v=2, out_proj=True)
    with pytest.raises(ShapeError, match="give d_v and out_proj"):
        LayerSpec(2, 2, heads=H, stacked=True)
    with pytest.raises(ShapeError, match="give d_k and d_v"):  # the users' form: its key width too
        LayerSpec(2, 2, heads=H, form="projected", d_v=2, out_proj=True, stacked=True)
    assert LayerSpec(2, 2, heads=H, form="projected", d_k=1, d_v=2, out_proj=True, stacked=True).d_k == 1


def test_stacked_heads_take_their_blocks_side_by_side_in_us_input():
    spec = stacked(2, 3, 4)
    assert dict(spec.parameter_shapes()) == {"X": (2, 3), "A": (3, 12), "V": (3, 12), "WO": (12, 3)}
    assert spec.tag.endswith("stacked")
    with pytest.raises(ShapeError, match="no block is head 1's alone"):
        spec.head("A", 1)


def test_the_kinds_over_stacked_heads_check_the_blocks_they_are_told():
    with pytest.raises(ShapeError, match="stack of 2 blocks of 2x2 given a 2x3 matrix"):
        STEP_KINDS["stack"].shape([(2, 3)], 2, 2, 2)
    with pytest.raises(ShapeError, match="diagonal"):
        STEP_KINDS["diagonal"].shape([(4, 3)], 2, 2, 2)
    assert STEP_KINDS["stack"].shape([(2, 6)], 2, 2, 3) == (4, 3)
    assert STEP_KINDS["diagonal"].shape([(4, 6)], 2, 2, 3) == (2, 6)


def test_the_stacked_softmax_of_one_head_is_the_masked_softmax():
    s = sympy.Matrix(3, 3, sympy.symbols("s0:9"))
    c = sympy.Symbol("c")
    for n in (1, 2, 3):
        assert masked_stacked_softmax([s], c, n, None) == masked_softmax([s], c, n, None)


def test_the_stacked_softmax_masks_each_heads_rows_past_n():
    s = sympy.Matrix(4, 2, sympy.symbols("s0:8"))
    p = masked_stacked_softmax([s], 1, 1, None)
    assert [p[a, 0] for a in range(4)] == [1, 0, 1, 0] and all(p[a, 1] == 0 for a in range(4))
