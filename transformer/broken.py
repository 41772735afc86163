"""Deliberately broken networks: each checker must refute them.

Each function returns a copy of a compiled network with one mistake a
compiler could make, or None when the network has nothing of that kind:

* :func:`wrong_score`: in the first average-hard head whose keys differ (a
  transpose's first), the key vectors of two real positions are swapped (the
  head attends to the wrong key);
* :func:`without_sink`: every average-hard head loses its sink (the real
  queries' weight on the sink coordinate is 0), so a query that selects
  nothing ties with other keys instead of attending to BOS alone;
* :func:`wrong_mlp_weight`: the first weight an MLP writes back with is doubled;
* :func:`wrong_mask`: the first softmax head's mask allows one more key in
  the first row it restricts;
* :func:`wrong_relation`: in the first average-hard head whose queries read
  the input (a selector that reads values), one entry of the relation is
  dropped (the first weight its W_Q puts on a dimension past the position code):
  a query value no longer selects a key value it should.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np

from usim.transformer.forward import head_selection
from usim.transformer.model import HARD, SOFT, Head, Layer, Linear, Network, heads_in, position_dim


def _with_head(network: Network, layer: int, index: int, head: Head, what: str) -> Network:
    heads = list(network.layers[layer].heads)
    heads[index] = head
    return network.with_layer(layer, Layer(tuple(heads), network.layers[layer].mlp), f"{network.name} [{what}]")


def _key_vectors(key: Linear, size: int) -> list[tuple[Fraction, ...]]:
    return [tuple(key.entry(position_dim(t), j) for j in range(key.cols)) for t in range(size)]


def wrong_score(network: Network, prefer: str = "transpose") -> Network | None:
    """Heads whose name contains ``prefer`` are tried first (a transpose's keys
    are all read; a routing head may copy keys nothing reads later)."""
    size = network.n + 1
    candidates = sorted(heads_in(network), key=lambda item: prefer not in item[2].name)
    for layer, index, head in candidates:
        if head.kind != HARD:
            continue
        vectors = _key_vectors(head.key, size)
        read = sorted({int(k) for k in head_selection(head, size).keys if k})  # keys some query attends to
        pairs = [(a, b) for a in read for b in read if a < b and vectors[a] != vectors[b]]
        if not pairs:
            continue
        a, b = pairs[0]
        key = head.key
        for j in range(key.cols):
            key = key.replaced(position_dim(a), j, vectors[b][j]).replaced(position_dim(b), j, vectors[a][j])
        return _with_head(network, layer, index, replace(head, key=key), "wrong score")
    return None


def without_sink(network: Network, last_only: bool = False) -> Network | None:
    """Every hard head's sink coordinate (where BOS's key is not 0) gets weight 0
    at every real query: the sink no longer scores between the selected keys and
    the others (the BOS query still attends to BOS). ``last_only``: only the last
    head that has a row selecting nothing loses it."""
    out, found = network, False
    size = network.n + 1
    heads = [(layer, index, head) for layer, index, head in heads_in(network) if head.kind == HARD]
    if last_only:
        empty = [item for item in heads if any(list(row) == [0] for row in head_selection(item[2], size).rows()[1:])]
        heads = empty[-1:]
    for layer, index, head in heads:
        sinks = [j for j in range(head.key.cols) if head.key.entry(position_dim(0), j)]
        query = head.query
        for j in sinks:
            for t in range(1, size):
                if query.entry(position_dim(t), j):
                    query = query.replaced(position_dim(t), j, 0)
                    found = True
        out = _with_head(out, layer, index, replace(head, query=query), "no sink")
    return replace(out, name=f"{network.name} [no sink]") if found else None


def wrong_mlp_weight(network: Network) -> Network | None:
    for index, layer in enumerate(network.layers):
        for field in ("gate_out", "relu_out"):
            m: Linear = getattr(layer.mlp, field)
            for d, column in enumerate(m.columns):
                if column:
                    unit, w = column[0]
                    mlp = replace(layer.mlp, **{field: m.replaced(unit, d, 2 * w)})
                    return network.with_layer(index, Layer(layer.heads, mlp), f"{network.name} [wrong MLP weight]")
    return None


def wrong_mask(network: Network) -> Network | None:
    for layer, index, head in heads_in(network):
        if head.kind != SOFT or head.mask is None:
            continue
        mask = head.mask.copy()
        for q in range(1, mask.shape[0]):
            closed = np.flatnonzero(~mask[q, 1:])
            if mask[q, 1:].any() and closed.size:
                mask[q, closed[0] + 1] = True
                return _with_head(network, layer, index, replace(head, mask=mask), "wrong mask")
    return None


def wrong_relation(network: Network) -> Network | None:
    past = network.n + 2  # the token and the position code come first
    for layer, index, head in heads_in(network):
        if head.kind != HARD:
            continue
        for j, column in enumerate(head.query.columns):
            for d, _ in column:
                if d >= past:
                    return _with_head(network, layer, index, replace(head, query=head.query.replaced(d, j, 0)),
                                      "wrong relation")
    return None
