"""The transformer model: what a network means, evaluated in every interpretation.

Each network here is also run by an independent forward pass written in this
file with dense numpy matrices (the textbook definitions: scores q . k, the
maximisers' mean, softmax with an additive mask, ReLU and bilinear units), so
the forward pass of :mod:`usim.transformer.forward` is checked against the
definition, not against itself.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy

from usim.encodings.exact import EXACT
from usim.encodings.numeric import NumericInterpretation
from usim.encodings.symbolic import PointInterpretation, SymbolicInterpretation
from usim.errors import EvaluationError, NotExactError, ShapeError
from usim.transformer.forward import argmax_selection, run
from usim.transformer.model import (
    HARD,
    MLP,
    SOFT,
    TOKEN,
    Head,
    Layer,
    Linear,
    Network,
    embedding_dims,
    position_dim,
)

NUMERIC = NumericInterpretation()


def reference(network: Network, x: np.ndarray) -> dict[str, np.ndarray]:
    """The network on one input (n,), by the definitions, with dense float64 matrices."""
    size, width = network.n + 1, network.width
    r = np.zeros((size, width))
    r[1:, TOKEN] = x
    r[np.arange(size), [position_dim(t) for t in range(size)]] = 1.0
    for layer in network.layers:
        added = np.zeros_like(r)
        for h in layer.heads:
            scores = (r @ h.query.dense()) @ (r @ h.key.dense()).T
            if h.kind == HARD:
                weights = np.isclose(scores, scores.max(axis=1, keepdims=True), rtol=0, atol=1e-9).astype(float)
            else:
                masked = scores + (0 if h.mask is None else np.where(h.mask, 0.0, -np.inf))
                weights = np.exp(masked - masked.max(axis=1, keepdims=True))
            weights /= weights.sum(axis=1, keepdims=True)
            added += weights @ (r @ h.value.dense()) @ h.output.dense()
        r = r + added
        m = layer.mlp
        r = (r + np.maximum(r @ m.relu_in.dense(), 0) @ m.relu_out.dense()
             + ((r @ m.gate_a.dense()) * (r @ m.gate_b.dense())) @ m.gate_out.dense())
    return {name: (r @ readout.dense())[1:, 0] for name, readout in network.outputs}


def _network(n: int, layers: list[Layer], extra: list[str], outputs: dict[str, dict]) -> Network:
    dims = embedding_dims(n) + tuple(extra)
    return Network("test", n, dims, tuple(layers), tuple((k, Linear.of(len(dims), [v])) for k, v in outputs.items()))


def _toy(n: int = 4) -> Network:
    """A hard head fetching the previous token (the sink at position 0), a softmax
    head over the tokens of the first half, a ReLU and a bilinear unit."""
    width = len(embedding_dims(n)) + 4
    prev, soft, relu, gate = range(len(embedding_dims(n)), width)
    # hard head: network query t >= 2 selects key t - 1, queries 0 and 1 the sink (score 3/2)
    rows = [[0]] + [[0]] + [[t - 1] for t in range(2, n + 1)]
    hard = Head("prev", HARD,
                Linear.of(width, [{position_dim(t): 1} for t in range(n + 1)]),
                Linear.of(width, [{position_dim(k): 1 for k in row} | ({position_dim(0): Fraction(1, 2)}
                                                                        if row == [0] else {})
                                  for row in rows]),
                Linear.of(width, [{TOKEN: 1}]), Linear.writes(1, width, [prev]))
    mask = np.zeros((n + 1, n + 1), dtype=bool)
    mask[:, 0] = True
    mask[1:, 1: n // 2 + 1] = True
    mask[1:, 0] = False
    softmax = Head("soft", SOFT, Linear.of(width, [{position_dim(t): 1 for t in range(1, n + 1)}]),
                   Linear.of(width, [{TOKEN: 1}]), Linear.of(width, [{TOKEN: 1}]), Linear.writes(1, width, [soft]),
                   mask)
    mlp = MLP(Linear.of(width, [{prev: 1, TOKEN: -1}]), Linear.writes(1, width, [relu]),
              Linear.of(width, [{prev: 1}]), Linear.of(width, [{soft: 1, position_dim(1): 3}]),
              Linear.writes(1, width, [gate]))
    return _network(n, [Layer((hard, softmax), mlp)], ["prev", "soft", "relu", "gate"],
                    {"relu": {relu: 1}, "gate": {gate: 1, position_dim(2): Fraction(1, 3)}, "soft": {soft: 1}})


def test_every_interpretation_computes_the_definition():
    network = _toy()
    x = np.random.default_rng(0).normal(size=(5, 4))
    numeric = run(network, NUMERIC, x)
    for b in range(5):
        want = reference(network, x[b])
        for name in want:
            np.testing.assert_allclose(np.asarray(numeric[name])[b], want[name], rtol=1e-12, atol=1e-12)
    with pytest.raises(NotExactError):  # the softmax head's exp has no rational value
        run(network, EXACT, [Fraction(1), Fraction(-2), Fraction(3, 4), Fraction(0)])
    point = run(network, PointInterpretation(), [sympy.Rational(v) for v in ("1", "-2", "3/4", "0")])
    assert point["relu"] == [0, 3, 0, sympy.Rational(3, 4)]  # max(x[t-1] - x[t], 0), x[-1] = 0 (the sink)
    symbols = sympy.symbols("t0:4")
    symbolic = run(network, SymbolicInterpretation(), list(symbols))
    e0, e1 = sympy.exp(symbols[0]), sympy.exp(symbols[1])
    softmax_mean = (e0 * symbols[0] + e1 * symbols[1]) / (e0 + e1)
    for t in range(4):
        assert sympy.simplify(symbolic["soft"][t] - softmax_mean) == 0


def test_a_hard_head_decides_its_maximisers_exactly_where_floats_would_not():
    # key 1 scores 1/10 + 2/10, key 2 scores 3/10: a tie, which float64 breaks (0.1 + 0.2 > 0.3)
    n, width = 2, len(embedding_dims(2)) + 1
    query = Linear.of(width, [{position_dim(t): 1 for t in range(3)}] * 2)
    key = Linear.of(width, [{position_dim(1): Fraction(1, 10), position_dim(2): Fraction(3, 10)},
                            {position_dim(1): Fraction(2, 10)}])
    assert 0.1 + 0.2 != 0.3
    selection = argmax_selection(query, key, 3)
    assert selection.rows() == [[1, 2]] * 3
    head = Head("tie", HARD, query, key, Linear.of(width, [{TOKEN: 1}]), Linear.writes(1, width, [width - 1]))
    network = _network(n, [Layer((head,), MLP.empty(width))], ["mean"], {"y": {width - 1: 1}})
    assert run(network, EXACT, [Fraction(4), Fraction(6)])["y"] == [5, 5]


def test_a_softmax_head_with_equal_scores_is_the_exact_mean_over_its_mask():
    n, width = 3, len(embedding_dims(3)) + 1
    mask = np.ones((4, 4), dtype=bool)
    mask[:, 0] = False
    zero = Linear.of(width, [{}])
    head = Head("uniform", SOFT, zero, zero, Linear.of(width, [{TOKEN: 1}]), Linear.writes(1, width, [width - 1]),
                mask)
    network = _network(n, [Layer((head,), MLP.empty(width))], ["mean"], {"y": {width - 1: 1}})
    assert run(network, EXACT, [Fraction(1), Fraction(2), Fraction(6)])["y"] == [3, 3, 3]


def test_a_mask_that_allows_no_key_is_refused():
    width = len(embedding_dims(2))
    mask = np.ones((3, 3), dtype=bool)
    mask[1] = False
    zero = Linear.of(width, [{}])
    with pytest.raises(ShapeError, match="allows no key at query 1"):
        Head("empty", SOFT, zero, zero, zero, Linear.of(1, [[] for _ in range(width)]), mask)


def test_a_hard_head_whose_scores_read_the_input_is_decided_exactly_on_one_input_and_refused_otherwise():
    width = len(embedding_dims(2)) + 1
    reads_token = Linear.of(width, [{TOKEN: 1}])
    head = Head("data", HARD, reads_token, reads_token, reads_token, Linear.writes(1, width, [width - 1]))
    network = _network(2, [Layer((head,), MLP.empty(width))], ["h"], {"y": {width - 1: 1}})
    # score(t, s) = x_t x_s: query 2 (token 2) prefers the key of token 2; query 1 too (2 > 1); BOS ties all
    assert run(network, EXACT, [Fraction(1), Fraction(2)])["y"] == [2, 2]
    assert run(network, EXACT, [Fraction(-1), Fraction(2)])["y"] == [-1, 2]
    with pytest.raises(EvaluationError, match="scores that read the input"):
        run(network, NUMERIC, np.array([[1.0, 2.0]]))


def test_a_network_runs_on_its_own_length_only():
    with pytest.raises(ShapeError, match="length 4, got 3"):
        run(_toy(4), EXACT, [Fraction(1)] * 3)


def test_a_float_weight_is_refused():
    with pytest.raises(TypeError, match="exact"):
        Linear.of(3, [{0: 0.5}])


def test_the_fingerprint_changes_with_any_weight():
    network = _toy()
    head = network.layers[0].heads[0]
    changed = head.value.replaced(TOKEN, 0, 2)
    other = network.with_layer(0, Layer((Head(head.name, head.kind, head.query, head.key, changed, head.output),)
                                        + network.layers[0].heads[1:], network.layers[0].mlp))
    assert other.fingerprint() != network.fingerprint()
    assert _toy().fingerprint() == network.fingerprint()
