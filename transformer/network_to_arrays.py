"""A network's weights as named float64 arrays (what ``usim compile`` saves as .npz).

Names (l the layer, h the head within it, from 0):

* ``embedding.token`` (W) and ``embedding.positions`` ((n + 1) x W, one-hot;
  row 0 is BOS), ``dims`` (W labels);
* ``layer{l}.head{h}.W_Q``, ``.W_K`` (W x d_k), ``.W_V`` (W x d_v), ``.W_O``
  (d_v x W), ``.kind`` ("hard" or "soft"), ``.mask`` ((n + 1) x (n + 1),
  True where a key is allowed: a softmax head's additive mask is 0 there and
  -inf elsewhere; for an average-hard head, its maximisers decided exactly, so
  that the same network under softmax attention is W_Q = W_K = 0 and these
  masks);
* ``layer{l}.mlp.relu_in`` (W x U_r), ``.relu_out`` (U_r x W), ``.gate_a``,
  ``.gate_b`` (W x U_b), ``.gate_out`` (U_b x W);
* ``readout.{name}`` (W) for each output.

A row r(t) of the residual stream times a matrix is the readout, as in
:mod:`usim.transformer.model`. The weights are exact rationals; as float64
some (1/3) are rounded: the proofs use the exact ones.
"""

from __future__ import annotations

import numpy as np

from usim.transformer.forward import head_selection
from usim.transformer.model import HARD, TOKEN, Network, position_dim


def network_arrays(network: Network) -> dict[str, np.ndarray]:
    size = network.n + 1
    out: dict[str, np.ndarray] = {"dims": np.asarray(network.dims)}
    token = np.zeros(network.width)
    token[TOKEN] = 1.0
    positions = np.zeros((size, network.width))
    positions[np.arange(size), [position_dim(t) for t in range(size)]] = 1.0
    out["embedding.token"], out["embedding.positions"] = token, positions
    for l, layer in enumerate(network.layers):
        for h, head in enumerate(layer.heads):
            p = f"layer{l}.head{h}"
            out[f"{p}.W_Q"], out[f"{p}.W_K"] = head.query.dense(), head.key.dense()
            out[f"{p}.W_V"], out[f"{p}.W_O"] = head.value.dense(), head.output.dense()
            out[f"{p}.kind"] = np.asarray(head.kind)
            if head.kind == HARD:
                out[f"{p}.mask"] = head_selection(head, size).dense()
            else:
                out[f"{p}.mask"] = np.ones((size, size), dtype=bool) if head.mask is None else head.mask
        m = layer.mlp
        for name in ("relu_in", "relu_out", "gate_a", "gate_b", "gate_out"):
            out[f"layer{l}.mlp.{name}"] = getattr(m, name).dense()
    for name, readout in network.outputs:
        out[f"readout.{name}"] = readout.dense()[:, 0]
    return out
