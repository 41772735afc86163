"""U_{N,H} for the users' form over stacked heads (PyTorch's multi-head attention): its
twelve stages proved for every N and H, their composition for every n, d, d_k, d_v <= N,
U's run equal to torch's layer, and broken variants refuted (those wrong only past
H = 8 at H = 9)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from usim.constructions.universal import LayerSpec, build, embed_arrays
from usim.constructions.universal.simulate import Prepared
from usim.engine.claim import Status
from usim.engine.parametric.allsizes import instance_obligation, prove_all_sizes
from usim.engine.parametric.prove import prove_equation
from usim.engine.runner import check_obligation
from usim.proofs import composed, families
from usim.proofs._stage_equation import equation_composition, wiring_equation
from usim.proofs._universal import attention_formula
from usim.proofs.theorem9_users_stacked import FAMILIES, FAMILY, THEOREM9_USERS_STACKED, spec_of

STAGES = [f"theorem9_users_stacked_stage{k}" for k in range(1, 13)]
PAST_EIGHT = [("theorem9_users_stacked_stage3", "heads-mod-8"), ("theorem9_users_stacked_stage8",
                                                                 "heads-past-8-zeroed")]
PAST_EIGHT_SLOW = [("theorem9_users_stacked_stage6", "heads-mod-8"), ("theorem9_users_stacked_stage7", "heads-mod-8"),
                   ("theorem9_users_stacked_stage10", "heads-mod-8")]


def _heads(arrays: dict, spec: LayerSpec, c: float) -> np.ndarray:
    """The layer computed head by head from column slices (numpy), apart from usim's formula."""
    X, out = arrays["X"], []
    for h in range(spec.heads):
        def part(name: str, width: int) -> np.ndarray:
            return arrays[name][:, h * width:(h + 1) * width]
        q = X @ part("WQ", spec.d_k) + part("bQ", spec.d_k)
        k = X @ part("WK", spec.d_k) + part("bK", spec.d_k)
        v = X @ part("WV", spec.d_v) + part("bV", spec.d_v)
        weights = np.exp(c * q @ k.T)
        out.append(weights / weights.sum(axis=1, keepdims=True) @ v)
    return np.hstack(out) @ arrays["WO"] + arrays["bO"]


def test_the_claim_is_its_twelve_stages_over_n_h_and_t_s_three_widths():
    assert composed()["theorem9_users_stacked"] is THEOREM9_USERS_STACKED
    assert [p.id for p in THEOREM9_USERS_STACKED.parts] == STAGES
    assert THEOREM9_USERS_STACKED.dims == ("N", "h", "n", "d", "d_k", "d_v")
    fcs = families()
    reading_n = {2, 8, 12}  # the biases and the softmax read the header's n
    assert [fcs[c].dims for c in STAGES] == [("N", "h", "n") if k in reading_n else ("N", "h") for k in range(1, 13)]


@pytest.mark.parametrize("n, d, heads, d_k, d_v, bound", [(2, 2, 2, 1, 1, 2), (2, 3, 3, 2, 1, 3), (3, 1, 2, 3, 3, 3),
                                                          (1, 2, 4, 1, 2, 2)])
def test_u_over_stacked_heads_computes_each_head_with_its_own_queries_keys_and_values(n, d, heads, d_k, d_v, bound):
    rng = np.random.default_rng(n + d + heads)
    small = spec_of(n, d, heads, d_k=d_k, d_v=d_v)
    arrays = {name: rng.normal(size=shape) for name, shape in small.parameter_shapes()}
    u = build(spec_of(bound, bound, heads))
    y = Prepared(small, arrays, 0.5, u, embed_arrays(u, small, arrays, 0.5)).checked_run().y
    assert np.allclose(y, _heads(arrays, small, 0.5), atol=1e-12)


def test_u_over_stacked_heads_is_torch_s_multihead_attention():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    e, heads, n, bound = 6, 3, 4, 6
    layer = torch.nn.MultiheadAttention(e, heads, batch_first=True, dtype=torch.float64).eval()
    x = torch.randn(1, n, e, dtype=torch.float64)
    want = layer(x, x, x, need_weights=False)[0][0].detach().numpy()
    w, b = layer.in_proj_weight.detach().numpy(), layer.in_proj_bias.detach().numpy()
    arrays = {"X": x[0].numpy(), "WO": layer.out_proj.weight.detach().numpy().T,
              "bO": layer.out_proj.bias.detach().numpy()[None, :]}
    for k, name in enumerate(("Q", "K", "V")):  # in_proj transposed: head h's columns h e / H ..
        arrays["W" + name], arrays["b" + name] = w[k * e:(k + 1) * e].T, b[k * e:(k + 1) * e][None, :]
    small, c = spec_of(n, e, heads, d_k=e // heads, d_v=e // heads), 1 / np.sqrt(e // heads)
    u = build(spec_of(bound, bound, heads))
    y = Prepared(small, arrays, c, u, embed_arrays(u, small, arrays, c)).checked_run().y
    assert np.max(np.abs(y - want)) < 1e-12


def test_the_formula_is_each_head_s_softmax_concatenated_times_w_o_plus_b_o():
    rng = np.random.default_rng(7)
    spec = spec_of(2, 3, 2, d_k=1, d_v=2)
    arrays = {name: rng.integers(-3, 4, size=shape).astype(float) for name, shape in spec.parameter_shapes()}
    got = attention_formula(spec, {k: sympy.Matrix(v) for k, v in arrays.items()}, sympy.Rational(1, 2))
    assert np.allclose(np.array(got.evalf(30), dtype=float), _heads(arrays, spec, 0.5), atol=1e-12)


def test_the_stages_compose_to_the_users_form_for_every_size():
    chain = equation_composition(FAMILY, list(FAMILIES), attention_formula)
    assert chain.ok, chain.problems + chain.undecided


def _keys_of_head_0(spec, m, c):
    from usim.encodings.sized import matrix_of

    WK, bK = m["WK"], m["bK"]
    first = {"WK": matrix_of(WK.rows, WK.cols, lambda i, j: WK[i, j % spec.d_k]),
             "bK": matrix_of(1, bK.cols, lambda i, j: bK[0, j % spec.d_k])}
    return attention_formula(spec, {**m, **first}, c)


def _no_query_bias(spec, m, c):
    """(Without the key bias the layer is the same: it adds q_i . b_K to every score of
    row i, which the softmax does not see.)"""
    from usim.encodings.sized import matrix_of

    return attention_formula(spec, {**m, "bQ": matrix_of(1, m["bQ"].cols, lambda i, j: 0)}, c)


@pytest.mark.parametrize("wrong", [_keys_of_head_0, _no_query_bias])
def test_a_formula_the_stages_do_not_compose_to_is_not_proved_and_differs_from_the_layer(wrong):
    """Each wrong formula is another function (at 2 tokens, 2 heads): the equation with it,
    which the stages' meanings would have to meet, is not proved."""
    rng = np.random.default_rng(5)
    spec = spec_of(2, 2, 2, d_k=1, d_v=1)
    m = {name: sympy.Matrix(rng.integers(-3, 4, size=shape)) / 4 for name, shape in spec.parameter_shapes()}
    c = sympy.Rational(1, 2)
    assert np.max(np.abs(np.array((wrong(spec, m, c) - attention_formula(spec, m, c)).evalf(30), dtype=float))) > 1e-3
    assert prove_equation(wiring_equation(FAMILY, wrong), timeout=300).status is not Status.PROVED


def test_the_layer_without_its_key_bias_is_the_same_function_and_never_refuted():
    """b_K adds q_i . b_K to every score of row i, which the softmax does not see: the
    equation with that formula is true, beyond the engine's canonical forms (UNKNOWN), and
    must not be REFUTED."""
    from usim.encodings.sized import matrix_of

    def no_key_bias(spec, m, c):
        return attention_formula(spec, {**m, "bK": matrix_of(1, m["bK"].cols, lambda i, j: 0)}, c)

    rng = np.random.default_rng(5)
    spec = spec_of(2, 2, 2, d_k=1, d_v=1)
    m = {name: sympy.Matrix(rng.integers(-3, 4, size=shape)) / 4 for name, shape in spec.parameter_shapes()}
    c = sympy.Rational(1, 2)
    assert sympy.simplify(sympy.Matrix(no_key_bias(spec, m, c) - attention_formula(spec, m, c))) == sympy.zeros(2, 2)
    assert prove_equation(wiring_equation(FAMILY, no_key_bias), timeout=300).status is Status.UNKNOWN


@pytest.mark.parametrize("claim_id, mutant", [("theorem9_users_stacked_stage2", "bias-on-every-row"),
                                              ("theorem9_users_stacked_stage3", "off-by-one"),
                                              ("theorem9_users_stacked_stage12", "bias-on-every-row")])
def test_a_broken_stage_is_refuted_for_every_size_and_replayed(claim_id, mutant):
    result = prove_all_sizes(families()[claim_id], mutant, timeout=120)
    assert result.status is Status.REFUTED and result.counterexample.status is Status.REFUTED


@pytest.mark.parametrize("claim_id", STAGES)
def test_each_stage_is_proved_for_every_size_and_tied_past_the_bound(claim_id):
    result = prove_all_sizes(families()[claim_id], timeout=120)
    assert result.status is Status.PROVED, result.verdict.reason
    assert result.tie.ok and result.tie.beyond, result.tie.problems


def _refuted_past_eight(claim_id: str, mutant: str) -> None:
    fc = families()[claim_id]
    result = prove_all_sizes(fc, mutant, timeout=120)
    assert result.status is Status.REFUTED
    assert dict(zip(fc.dims, result.shape))["h"] > 8
    assert result.counterexample.status is Status.REFUTED
    for shape in fc.claim.shapes(2):
        assert check_obligation(instance_obligation(fc, shape, mutant), timeout=60).status is Status.PROVED, shape


@pytest.mark.parametrize("claim_id, mutant", PAST_EIGHT)
def test_a_stage_wrong_only_past_eight_heads_passes_the_bounded_checks_and_is_refuted_at_nine(claim_id, mutant):
    _refuted_past_eight(claim_id, mutant)


@pytest.mark.slow
@pytest.mark.parametrize("claim_id, mutant", PAST_EIGHT_SLOW)
def test_the_other_stages_wrong_only_past_eight_heads_are_refuted_at_nine(claim_id, mutant):
    _refuted_past_eight(claim_id, mutant)
