"""Corollary 9.1 over stacked heads: the encoder after U over stacked heads, each of its
fifteen stages stated for every N and H (and the header's n, d where it reads them),
composed by the equation into the encoder layer for every N, H and n, d, d_v <= N."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from usim.constructions.universal import HEADER, LayerSpec
from usim.engine.claim import Status
from usim.engine.parametric.allsizes import prove_all_sizes
from usim.proofs import composed, families
from usim.proofs._stage_equation import composed_targets, equation_composition, header_dims
from usim.proofs._universal import encoder_formula
from usim.proofs.corollary9_1_stacked import COROLLARY9_1_STACKED, FAMILIES, FAMILY, spec_of


def test_corollary_9_1_over_stacked_heads_is_its_fifteen_stages_over_n_and_h():
    assert composed()["corollary9_1_stacked"] is COROLLARY9_1_STACKED
    assert [p.id for p in COROLLARY9_1_STACKED.parts] == [f"corollary9_1_stacked_stage{k}" for k in range(1, 16)]
    assert header_dims(FAMILY) == ("n", "d")  # the layer norms read d: T of every width d <= N
    assert FAMILY.fixed(9, (3, 2, 2, 1)) == {"n": 2, "d": 1}
    assert COROLLARY9_1_STACKED.describe_conditions() == \
        "N >= 1, h >= 1, n >= 1, d >= 1, d_v >= 1, ((n <= N) and (d <= N)) and (d_v <= N)"


def test_the_fifteen_stages_compose_to_the_encoder_layer():
    chain = equation_composition(FAMILY, list(FAMILIES), encoder_formula)
    assert chain.ok, chain.problems + chain.undecided


def _numpy_encoder(m, c):
    """The post-norm encoder in numpy, written apart from usim's meanings: heads as column blocks."""
    X, d = m["X"], m["X"].shape[1]
    heads = m["A"].shape[1] // d
    dv = m["V"].shape[1] // heads
    outputs = []
    for h in range(heads):
        S = c * X @ m["A"][:, h * d:(h + 1) * d] @ X.T
        P = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
        outputs.append(P @ X @ m["V"][:, h * dv:(h + 1) * dv])

    def norm(z, g, b, eps):
        mu = z.mean(axis=1, keepdims=True)
        return (z - mu) / np.sqrt(((z - mu) ** 2).mean(axis=1, keepdims=True) + eps) * g + b
    z = norm(X + np.hstack(outputs) @ m["WO"], m["g1"], m["be1"], m["eps1"][0, 0])
    f = np.maximum(z @ m["W1"] + m["b1"], 0) @ m["W2"] + m["b2"]
    return norm(z + f, m["g2"], m["be2"], m["eps2"][0, 0])


def _parameters(spec, rng):
    m = {name: rng.normal(size=shape) for name, shape in spec.parameter_shapes()}
    m["eps1"], m["eps2"] = np.abs(m["eps1"]) + 0.1, np.abs(m["eps2"]) + 0.1
    return m


def test_the_encoder_formula_is_the_numpy_layer():
    rng = np.random.default_rng(11)
    spec = spec_of(2, 3, 2)
    m = _parameters(spec, rng)
    got = encoder_formula(spec, {k: sympy.Matrix(v) for k, v in m.items()}, sympy.Float(0.6, 30))
    np.testing.assert_allclose(np.array(got.evalf(30), dtype=float), _numpy_encoder(m, 0.6), atol=1e-12)


@pytest.mark.parametrize("n, d, d_v", [(2, 3, 3), (2, 2, 2), (3, 1, 1), (2, 3, 1)])
def test_u_over_stacked_heads_with_the_encoder_computes_the_numpy_layer_on_the_first_n_rows(n, d, d_v):
    from usim.constructions.universal.embed import embed_arrays
    from usim.encodings.runners import run_numeric

    rng = np.random.default_rng(12)
    u = FAMILY.at(3, 2)
    small = spec_of(n, d, 2, d_v)
    m = _parameters(small, rng)
    sequence = embed_arrays(u, small, m, scale=0.6)
    got = u.output_layout.decode_numeric(run_numeric(u.runnable_program, sequence)["Y"])[0]
    np.testing.assert_allclose(got[:n, :d], _numpy_encoder(m, 0.6), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got[n:], 0, atol=1e-12)
    np.testing.assert_allclose(got[:, d:], 0, atol=1e-12)


def test_a_part_assuming_more_than_u_s_input_does_not_compose():
    import dataclasses

    strong = dataclasses.replace(FAMILIES[8], preconditions=lambda m: [m["eps1"][0, 0] > 100])
    chain = equation_composition(FAMILY, [*FAMILIES[:8], strong, *FAMILIES[9:]], encoder_formula)
    assert any("beyond U's input's" in p for p in chain.problems)


def test_the_encoder_formula_over_stacked_heads_is_the_per_head_layer():
    rng = np.random.default_rng(5)
    n, d, heads = 2, 2, 2
    stacked = spec_of(n, d, heads)
    per_head = LayerSpec(n, d, heads=heads, d_v=d, out_proj=True, encoder=True)
    m = {name: sympy.Matrix(rng.integers(-2, 3, size=shape)) for name, shape in stacked.parameter_shapes()}
    m["eps1"], m["eps2"] = sympy.Matrix([[sympy.Rational(1, 4)]]), sympy.Matrix([[1]])
    split = dict(m)
    for h in range(heads):
        split[per_head.head("A", h)] = m["A"][:, h * d:(h + 1) * d]
        split[per_head.head("V", h)] = m["V"][:, h * d:(h + 1) * d]
    got = encoder_formula(stacked, m, sympy.Rational(1, 3))
    want = encoder_formula(per_head, split, sympy.Rational(1, 3))
    assert all(abs(float(x)) < 1e-12 for x in (got - want).evalf(30))


def test_the_composed_meanings_at_integers_are_the_layer_on_the_first_n_rows_and_0_below():
    rng = np.random.default_rng(7)
    big, heads, n = 2, 1, 1
    u = FAMILY.at(big, heads)
    m = {b.name: sympy.Matrix(rng.integers(-2, 3, size=(b.shape.rows, b.shape.cols))) for b in u.input_layout.blocks}
    m["eps1"], m["eps2"] = sympy.Matrix([[1]]), sympy.Matrix([[2]])
    m[HEADER] = sympy.Matrix([[n, big, sympy.Rational(1, 2)]])
    got = composed_targets(FAMILY, big, heads, n, big, big)(m)["N2"]
    want = encoder_formula(spec_of(n, big, heads), m, sympy.Rational(1, 2))
    assert all(abs(float(x)) < 1e-12 for x in (got[:n, :] - want).evalf(30))
    assert got[n:, :] == sympy.zeros(big - n, big)


@pytest.mark.parametrize("claim_id, mutant", [("corollary9_1_stacked_stage9", "rows-past-n-kept"),
                                              ("corollary9_1_stacked_stage13", "bias-on-every-row")])
def test_an_encoder_stage_broken_on_the_rows_past_n_is_refuted_for_every_size(claim_id, mutant):
    result = prove_all_sizes(families()[claim_id], mutant, timeout=120)
    assert result.status is Status.REFUTED
    size = dict(zip(families()[claim_id].dims, result.shape))
    assert size["n"] < size["N"]
    assert result.counterexample.status is Status.REFUTED
