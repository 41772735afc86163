"""The universal simulator U: numbers against an independent numpy reference,
cost as a function of the sizes, routing, the wiring check, and proofs of small
sizes with the deliberately broken routings refuted."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import sympy

from usim.constructions.routing import Part, Piece, route, routing_table
from usim.constructions.universal import HEADER, LayerSpec, Step, build, compact_layout, simulation_program
from usim.encodings.evaluate import evaluate_sops
from usim.encodings.exact import EXACT
from usim.encodings.layout import SequenceLayout
from usim.encodings.runners import run_numeric
from usim.engine.claim import Status
from usim.engine.runner import check_obligation
from usim.errors import UsimError
from usim.proofs import get
from usim.proofs._padding import embeddings, pad
from usim.proofs._universal import attention_term, check_wiring, softmax_stages, stage_sizes, universal
from usim.rasp.expr import tokens

# -- an independent reference, written from the formulas --------------------------


def _softmax(s):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _layer_norm(z, g, b, eps):
    mu = z.mean(axis=1, keepdims=True)
    var = ((z - mu) ** 2).mean(axis=1, keepdims=True)
    return (z - mu) / np.sqrt(var + eps) * g + b


def reference(spec: LayerSpec, m: dict, c: float) -> np.ndarray:
    x = m["X"]
    heads = []
    for h in range(spec.heads):
        p = lambda base: m[spec.head(base, h)]  # noqa: E731
        if spec.form == "merged":
            heads.append(_softmax(c * x @ p("A") @ x.T) @ x @ p("V"))
        else:
            q, k, v = x @ p("WQ"), x @ p("WK"), x @ p("WV")
            if spec.bias:
                q, k, v = q + p("bQ"), k + p("bK"), v + p("bV")
            heads.append(_softmax(c * q @ k.T) @ v)
    a = np.concatenate(heads, axis=1)
    if spec.out_proj:
        a = a @ m["WO"] + (m["bO"] if spec.bias else 0)
    if not spec.encoder:
        return a
    z = x + a if spec.residual else a
    if spec.norm:
        z = _layer_norm(z, m["g1"], m["be1"], m["eps1"][0, 0])
    f = np.maximum(z @ m["W1"] + (m["b1"] if spec.ffn_bias else 0), 0) @ m["W2"]
    f = f + (m["b2"] if spec.ffn_bias else 0)
    z = z + f if spec.residual else f
    if spec.norm:
        z = _layer_norm(z, m["g2"], m["be2"], m["eps2"][0, 0])
    return z


def random_parameters(spec: LayerSpec, rng) -> dict:
    m = {name: rng.normal(size=shape) for name, shape in spec.parameter_shapes()}
    for name in ("eps1", "eps2"):
        if name in m:
            m[name] = np.abs(m[name]) + 1e-5
    return m


def run_u(spec: LayerSpec, m: dict, c: float) -> np.ndarray:
    u = build(spec)
    seq = u.input_layout.encode_numeric({HEADER: np.array([[spec.n, spec.d, c]]), **m})
    return u.output_layout.decode_numeric(run_numeric(u.program, seq)["Y"])[0]


SPECS = [
    LayerSpec(1, 1), LayerSpec(3, 2), LayerSpec(2, 5), LayerSpec(4, 4), LayerSpec(3, 2, d_v=4),
    LayerSpec(4, 3, form="projected", d_k=2, d_v=3), LayerSpec(3, 4, form="projected", bias=True),
    LayerSpec(3, 4, heads=2), LayerSpec(4, 4, heads=2, form="projected", bias=True),
    LayerSpec(3, 2, heads=3, d_v=2, out_proj=True, d_out=5),
    LayerSpec(3, 3, encoder=True), LayerSpec(2, 4, encoder=True, d_ff=6),
    LayerSpec(3, 3, encoder=True, residual=False), LayerSpec(3, 3, encoder=True, norm=False),
    LayerSpec(3, 3, encoder=True, ffn_bias=False, residual=False, norm=False),
    LayerSpec(4, 4, heads=2, form="projected", bias=True, encoder=True, d_ff=8),
]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.form}-n{s.n}-d{s.d}-h{s.heads}-enc{int(s.encoder)}")
def test_u_agrees_with_numpy_reference(spec):
    rng = np.random.default_rng(spec.n * 100 + spec.d * 10 + spec.heads)
    for _ in range(3):
        m = random_parameters(spec, rng)
        c = float(rng.uniform(0.2, 1.5))
        y = run_u(spec, m, c)
        assert y.shape == spec.output_shape()
        np.testing.assert_allclose(y, reference(spec, m, c), rtol=0, atol=1e-10)


def test_u_is_one_program_and_one_evaluation():
    spec = LayerSpec(3, 3, encoder=True)
    u = build(spec)
    assert len(u.program.outputs) == 1
    # the whole simulation is one call of the evaluator on one program
    m = random_parameters(spec, np.random.default_rng(0))
    seq = u.input_layout.encode_numeric({HEADER: np.array([[3, 3, 1.0]]), **m})
    from usim.encodings.runners import NUMERIC
    (y,) = evaluate_sops((u.program.output,), NUMERIC, seq)
    np.testing.assert_allclose(u.output_layout.decode_numeric(y)[0], reference(spec, m, 1.0), atol=1e-10)


def test_wrong_input_shape_is_a_clear_error():
    u = build(LayerSpec(2, 2))
    with pytest.raises(UsimError, match="the matrix X has shape 3x2"):
        u.input_layout.encode_numeric({HEADER: np.zeros((1, 3)), "X": np.zeros((3, 2)),
                                       "A": np.zeros((2, 2)), "V": np.zeros((2, 2))})
    with pytest.raises(UsimError, match="out_proj with d_out = d"):
        LayerSpec(2, 3, encoder=True, d_v=2)


# -- the hierarchy, numerically: one U, every smaller size --------------------------

@pytest.mark.parametrize("big", [LayerSpec(4, 4),
                                 LayerSpec(4, 4, heads=2, form="projected", bias=True, encoder=True, d_ff=5)],
                         ids=["attention", "encoder"])
def test_one_u_simulates_every_smaller_size(big):
    u = build(big)
    rng = np.random.default_rng(7)
    for n in range(1, big.n + 1):
        for d in (1, 2, big.d):
            sizes = dict(n=n, d=d)
            if big.heads > 1 or big.form == "projected":
                sizes.update(d_k=1, d_v=1)
            if big.out_proj:
                sizes["d_out"] = d
            if big.encoder:
                sizes["d_ff"] = 3
            small = big.smaller(**sizes)
            if big.encoder and small.attention_width != small.d:
                continue
            m = random_parameters(small, rng)
            layout = compact_layout(small, u.length)
            seq = layout.encode_numeric({"scale": np.array([[0.7]]), **m})
            y = u.output_layout.decode_numeric(run_numeric(simulation_program(u, small), seq)["Y"])[0]
            want = np.zeros_like(y)
            ref = reference(small, m, 0.7)
            want[: ref.shape[0], : ref.shape[1]] = ref
            np.testing.assert_allclose(y, want, rtol=0, atol=1e-10)


# -- cost as a function of the sizes --------------------------------------------------

ATTENTION_LAYERS = 10   # stages: {X^T, X A, X V} 3, Y1 X^T 3, softmax 3, P Y4 1 (+ heads, no routing layer)


def _layers(**kw) -> int:
    return build(LayerSpec(**kw)).cost.layers


def test_depth_does_not_grow_with_the_sizes():
    assert {_layers(n=n, d=d) for n in range(1, 7) for d in (1, 2, 5)} == {ATTENTION_LAYERS}
    for h in (1, 2):
        assert len({_layers(n=n, d=4, heads=h, d_v=4, out_proj=True) for n in (1, 3, 6)}) == 1
    # several heads sit side by side: one routing layer more than one head (the concatenation
    # moves the heads' blocks), then the same for every H
    assert {_layers(n=3, d=4, heads=h, d_v=4, out_proj=True) for h in (2, 3, 4)} == \
        {_layers(n=3, d=4, heads=1, d_v=4, out_proj=True) + 2}
    assert len({_layers(n=n, d=d, encoder=True) for n in (1, 3, 6) for d in (1, 3)}) == 1
    assert len({_layers(n=n, d=4, heads=2, form="projected", bias=True, encoder=True)
                for n in (1, 3, 6)}) == 1


def test_width_grows_with_the_sizes():
    def width(n: int, d: int) -> int:
        return build(LayerSpec(n, d)).cost.width

    # the product Y2 = Y1 X^T has n*n dot heads in one layer; the gathers r + c
    assert width(6, 2) >= 6 * 6
    assert width(2, 2) < width(4, 2) < width(6, 2)
    cost = build(LayerSpec(4, 3)).cost
    assert cost.layers_with_length == cost.layers  # U never reads length


# -- routing ---------------------------------------------------------------------------

def test_route_places_each_block_and_zeros_elsewhere():
    # two sources; a rectangle piece; every position one source position or 0
    a = SequenceLayout.of(("P", (2, 3)), ("Q", (1, 2)), length=12)
    b = SequenceLayout.of(("R", (2, 2)), length=12)
    target = SequenceLayout.of(("Q", (1, 2)), ("C", (2, 5)), length=12)
    pieces = {"C": (Piece("P"), Piece("R", col=3))}
    values = list(range(100, 112))
    shifted = tokens * 2
    y = run_exact_route([Part(tokens, a), Part(shifted, b)], target, pieces, values)
    table = routing_table([a, b], target, pieces)
    for p, src in enumerate(table):
        if src is None:
            assert y[p] == 0
        else:
            k, s = src
            assert y[p] == values[s] * (1 if k == 0 else 2)
    # Q then C = [P | R]
    assert y[:2] == [106, 107]
    assert y[2:7] == [100, 101, 102, 200, 202]


def run_exact_route(parts, target, pieces, values):
    out = route(parts, target, pieces)
    (y,) = evaluate_sops((out,), EXACT, values)
    return list(y)


def test_route_refuses_a_piece_that_does_not_fit():
    a = SequenceLayout.of(("P", (2, 3)), length=8)
    target = SequenceLayout.of(("C", (2, 2)), length=8)
    with pytest.raises(UsimError, match="does not fit"):
        route([Part(tokens, a)], target, {"C": (Piece("P"),)})
    with pytest.raises(UsimError, match="no sequence holds the block 'C'"):
        route([Part(tokens, a)], target)


# -- the wiring check (Level 2) ----------------------------------------------------------

def test_wiring_check_accepts_u_and_rejects_a_swapped_step():
    u = universal(LayerSpec(3, 3))
    check_wiring(u, attention_term(u.spec))
    steps = tuple(Step(s.out, s.kind, tuple(reversed(s.args))) if s.out == "Y2" else s for s in u.steps)
    with pytest.raises(UsimError, match="do not compose"):
        check_wiring(replace(u, steps=steps), attention_term(u.spec))


# -- proofs at small sizes: one U_N for every n, d <= N ---------------------------------

def _check(claim_id: str, shape, mutant: str | None = None, engines=None):
    claim = get(claim_id)
    ob = claim.mutants[mutant](shape) if mutant else claim.obligation(shape)
    return check_obligation(ob, engines=engines, timeout=60, claim_engines=claim.engines)


def _proved(claim_id: str, shape) -> None:
    result = _check(claim_id, shape)
    assert result.status is Status.PROVED, [r.detail for r in result.results]


def test_u_n_is_proved_once_per_stage_per_header_size_it_reads_and_padded_per_size():
    # theorem6 at N = 3: stages 1, 2, 4 (products, transpose) once for every header; stage 3
    # (softmax: it reads n) once per n; the padding lemma at every n, d <= 3
    assert get("theorem6").shapes(3) == [
        (3, 0, 0, 1), (3, 0, 0, 2), (3, 1, 0, 3), (3, 2, 0, 3), (3, 3, 0, 3), (3, 0, 0, 4),
        *[(3, n, d, 0) for n in (1, 2, 3) for d in (1, 2, 3)]]
    # the encoder's layer norms read n and d: per (n, d); its biases read n
    u = universal(LayerSpec(2, 2, encoder=True))
    per = {st.kind: sorted(stage_sizes(u, s)) for s in u.stages for st in s.steps}
    assert per["layernorm"] == ["d", "n"] and per["bias"] == per["bias_relu"] == per["softmax"] == ["n"]
    assert per["matmul"] == per["transpose"] == per["add"] == []
    shapes = get("corollary6_1").shapes(2)
    layer_norms = [s for s in shapes if s[3] in [k for k, st in enumerate(u.stages, 1)
                                                   if st.steps[0].kind == "layernorm"]]
    assert sorted(s[1:3] for s in layer_norms) == sorted([(n, d) for n in (1, 2) for d in (1, 2)] * 2)


@pytest.mark.parametrize("shape", get("theorem6").shapes(2))
def test_theorem6_every_part_at_n_2(shape):
    _proved("theorem6", shape)


@pytest.mark.parametrize("shape", [(2, 0, 0, 1), (2, 1, 0, 3), (2, 1, 2, 6), (2, 2, 1, 12), (2, 1, 0, 8),
                                   (2, 2, 0, 10), (2, 1, 2, 0), (2, 2, 1, 0)])
def test_corollary6_1_parts_at_n_2(shape):
    _proved("corollary6_1", shape)


@pytest.mark.parametrize("shape", [(2, 2, 0, 0, 1), (2, 2, 1, 0, 3), (2, 2, 0, 0, 5), (2, 2, 1, 2, 0),
                                   (2, 2, 2, 1, 0), (2, 1, 2, 1, 0)])
def test_theorem9_parts_at_n_2(shape):
    _proved("theorem9", shape)


def test_theorem9_padding_lemma_places_w_o_head_by_head():
    # U_{3,2}: W_O (6 x 3); T at d = 1: its W_O (2 x 1) has head 1's row at row 1, U's at row 3
    u = universal(LayerSpec(3, 3, heads=2, d_v=3, out_proj=True))
    small = LayerSpec(2, 1, heads=2, d_v=1, out_proj=True)
    emb = embeddings(u, small)
    w = sympy.Matrix([[5], [7]])
    assert pad(w, u.shapes["WO"], emb["WO"]) == sympy.Matrix([[5, 0, 0], [0, 0, 0], [0, 0, 0],
                                                              [7, 0, 0], [0, 0, 0], [0, 0, 0]])
    c = sympy.Matrix([[1, 2], [3, 4]])  # [O_0 | O_1] at n = 2, d_v = 1: O_1 goes to column 3
    assert pad(c, u.shapes["C"], emb["C"])[:, :4] == sympy.Matrix([[1, 0, 0, 2], [3, 0, 0, 4], [0, 0, 0, 0]])


def test_layer_norm_stage_proved_by_sympy_and_z3_at_n_2():
    u = universal(LayerSpec(2, 2, encoder=True))
    k = next(s.index for s in u.stages if s.steps[0].kind == "layernorm")
    result = _check("corollary6_1", (2, 1, 2, k), engines=["sympy", "z3"])
    assert [r.status for r in result.results] == [Status.PROVED, Status.PROVED]


def test_a_shape_that_leaves_a_read_size_free_is_an_error():
    with pytest.raises(UsimError, match="stage 3 reads n"):
        get("theorem6").obligation((3, 0, 0, 3))  # the softmax stage at no n
    with pytest.raises(UsimError, match="stage 1 reads no size"):
        get("theorem6").obligation((3, 2, 0, 1))


@pytest.mark.parametrize("claim_id,mutant,shape", [
    ("theorem6", "swapped-operand", (2, 0, 0, 1)),
    ("theorem6", "misplaced-block", (2, 0, 0, 1)),
    ("corollary6_1", "swapped-operand", (2, 0, 0, 1)),
    ("theorem9", "misplaced-block", (2, 2, 0, 0, 1)),
    ("hierarchy", "misplaced-block", (2, 2, 2)),
    ("hierarchy", "no-key-mask", (2, 1, 2)),
])
def test_broken_routings_are_refuted(claim_id, mutant, shape):
    result = _check(claim_id, shape, mutant, engines=["sympy"])
    assert result.status is Status.REFUTED
    assert result.counterexample is not None


def test_misplaced_block_refuted_by_z3_too():
    assert _check("theorem6", (2, 0, 0, 1), "misplaced-block", engines=["z3"]).status is Status.REFUTED


def test_a_softmax_without_its_key_mask_is_refuted_by_the_softmax_stage_below_n():
    # the masked-stage obligation catches it: at n < N the padded keys would weigh exp(0) = 1,
    # and the stage is compared with the masked softmax at that n; at n = N there is nothing to mask
    k = softmax_stages(universal(LayerSpec(3, 3)))[0]
    for n in (1, 2):
        result = _check("theorem6", (3, n, 0, k), "no-key-mask", engines=["sympy"])
        assert result.status is Status.REFUTED
        assert result.counterexample.entry.startswith("P[")
    assert _check("theorem6", (3, 3, 0, k), "no-key-mask").status is Status.PROVED


@pytest.mark.slow
@pytest.mark.parametrize("claim_id,bound", [("theorem6", 6), ("theorem6_users", 4), ("corollary6_1", 4),
                                            ("theorem9", 4), ("corollary9_1", 3), ("hierarchy", 3)])
def test_acceptance_bounds(claim_id, bound):
    from usim.engine.runner import prove_claim
    report = prove_claim(get(claim_id), bound, timeout=60, jobs=2)
    assert report.status is Status.PROVED


@pytest.mark.parametrize("small, big", [
    (LayerSpec(n=2, d=3, heads=1), LayerSpec(n=4, d=3, heads=1)),
    (LayerSpec(n=2, d=4, heads=2, form="projected", bias=True), LayerSpec(n=3, d=4, heads=2, form="projected",
                                                                         bias=True)),
])
def test_embed_arrays_places_each_entry_where_the_routing_table_says(small, big):
    """usim simulate's input is the embed program run on the arrays: every entry where
    the routing table (written from the layouts alone) puts it, the header's n, d
    and c, and 0 elsewhere."""
    from usim.constructions.universal import embed_arrays, embed_pieces

    u = build(big)
    rng = np.random.default_rng(3)
    arrays = {name: rng.normal(size=shape) for name, shape in small.parameter_shapes()}
    sequence = embed_arrays(u, small, arrays, scale=0.25)[0]
    layout = compact_layout(small, u.length)
    compact = layout.encode_numeric({"scale": np.array([[0.25]]), **arrays})[0]
    expected = np.zeros(u.length)
    for p, entry in enumerate(routing_table([layout], u.input_layout, embed_pieces(u, small))):
        if entry is not None:
            expected[p] = compact[entry[1]]
    for position, value in u.header(small.n, small.d).items():
        expected[position] = value
    assert sequence.tolist() == expected.tolist()


@pytest.mark.parametrize("small, big", [
    (LayerSpec(n=2, d=3, heads=1), LayerSpec(n=4, d=4, heads=1)),
    (LayerSpec(n=2, d=2, heads=3, d_v=2, out_proj=True, stacked=True),
     LayerSpec(n=3, d=3, heads=3, d_v=3, out_proj=True, stacked=True)),
    (LayerSpec(n=1, d=2, heads=2, d_v=1, out_proj=True, stacked=True),
     LayerSpec(n=3, d=3, heads=2, d_v=3, out_proj=True, stacked=True)),
    (LayerSpec(n=2, d=2, heads=2, d_v=2, out_proj=True, encoder=True),
     LayerSpec(n=3, d=3, heads=2, d_v=3, out_proj=True, encoder=True)),
    (LayerSpec(n=2, d=2, heads=2, form="projected", d_k=1, d_v=2, bias=True, out_proj=True, stacked=True),
     LayerSpec(n=3, d=3, heads=2, form="projected", d_k=3, d_v=3, bias=True, out_proj=True, stacked=True)),
])
def test_placed_blocks_are_the_blocks_usim_simulate_places(small, big):
    """The placement written as a formula for every size (what an equation for every
    width reads U's input through) is, at fixed sizes, the one embed_arrays makes."""
    from usim.constructions.universal import embed_arrays, placed_blocks

    u = build(big)
    rng = np.random.default_rng(5)
    arrays = {name: rng.integers(-4, 5, size=shape) for name, shape in small.parameter_shapes()}
    sequence = embed_arrays(u, small, {k: v.astype(float) for k, v in arrays.items()}, scale=0.5)
    placed = placed_blocks(big, small, {k: sympy.Matrix(v) for k, v in arrays.items()})
    assert set(placed) == {b.name for b in u.input_layout.blocks} - {HEADER}
    for name, matrix in placed.items():
        assert np.array(matrix, dtype=float).tolist() == u.input_layout.decode_numeric(sequence, name)[0].tolist(), name
