"""A network as a ``torch.nn.Module`` of standard parts (the optional extra ``torch``).

The module runs the network under softmax attention with masks (every
average-hard head first made a masked softmax head:
:mod:`usim.transformer.hard_to_masked`), in float64:

* embedding: ``nn.Linear(1, W)`` for the token and ``nn.Embedding(n + 1, W)``
  for the one-hot positions; BOS (token 0) is prepended, and dropped at the end;
* per layer, all its heads in ONE ``nn.MultiheadAttention(E, H, kdim=W,
  vdim=W, bias=False)`` with a 3-D float ``attn_mask`` (0 where a key is
  allowed, -inf elsewhere, one (n + 1) x (n + 1) slice per head), where
  E = H * hd and hd the layer's largest d_k or d_v (each head's matrices
  zero-padded to hd). Its query comes from ``nn.Linear(W, E)`` holding the
  stacked W_Q times sqrt(hd) (PyTorch divides the scores by sqrt(hd)), its
  in-projection of the queries and its out-projection are the identity, its
  key and value projections the stacked W_K, W_V; ``nn.Linear(E, W)`` holds
  the stacked W_O; the result is added to the residual stream;
* the MLP: ``nn.Linear`` -> ``nn.ReLU`` -> ``nn.Linear`` for the ReLU units and
  two ``nn.Linear`` whose outputs are multiplied (a bilinear GLU, no
  nonlinearity), then ``nn.Linear``, added to the residual stream;
* the readouts: ``nn.Linear(W, outputs)``.

``forward(x)`` takes (B, n) and returns (B, n, outputs). Masked heads have
zero scores, so they average exactly (up to the rounding of float64 sums);
the softmax head's scores carry one rounding of sqrt(hd).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from usim.errors import UsimError
from usim.transformer.hard_to_masked import hard_to_masked
from usim.transformer.model import HARD, TOKEN, Head, Network, position_dim


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise UsimError("a PyTorch module needs PyTorch: pip install usim[torch]") from None
    return torch


def network_to_torch(network: Network) -> Any:
    """The masked network as a float64 ``torch.nn.Module`` (eval mode)."""
    torch = _torch()
    nn = torch.nn
    masked = hard_to_masked(network) if any(h.kind == HARD for layer in network.layers for h in layer.heads) \
        else network
    width, size = masked.width, masked.n + 1
    f64 = torch.float64

    def tensor(a: np.ndarray) -> Any:
        return torch.tensor(np.asarray(a, dtype=np.float64), dtype=f64)

    class Attention(nn.Module):
        def __init__(self, heads: tuple[Head, ...]) -> None:
            super().__init__()
            count = len(heads)
            hd = max(max(h.d_k, h.d_v) for h in heads)
            e = count * hd
            self.query = nn.Linear(width, e, bias=False, dtype=f64)
            self.attention = nn.MultiheadAttention(e, count, bias=False, kdim=width, vdim=width,
                                                   batch_first=True, dtype=f64)
            self.output = nn.Linear(e, width, bias=False, dtype=f64)
            wq, wk, wv, wo = (np.zeros((width, e)), np.zeros((width, e)), np.zeros((width, e)),
                              np.zeros((e, width)))
            mask = np.zeros((count, size, size))
            for i, h in enumerate(heads):
                block = slice(i * hd, i * hd + h.d_k)
                wq[:, block], wk[:, block] = h.query.dense() * math.sqrt(hd), h.key.dense()
                wv[:, i * hd: i * hd + h.d_v] = h.value.dense()
                wo[i * hd: i * hd + h.d_v, :] = h.output.dense()
                if h.mask is not None:
                    mask[i] = np.where(h.mask, 0.0, -np.inf)
            with torch.no_grad():
                self.query.weight.copy_(tensor(wq.T))
                self.attention.q_proj_weight.copy_(torch.eye(e, dtype=f64))
                self.attention.k_proj_weight.copy_(tensor(wk.T))
                self.attention.v_proj_weight.copy_(tensor(wv.T))
                self.attention.out_proj.weight.copy_(torch.eye(e, dtype=f64))
                self.output.weight.copy_(tensor(wo.T))
            self.register_buffer("mask", tensor(mask))
            self.heads = count

        def forward(self, r: Any) -> Any:
            mask = self.mask.repeat(r.shape[0], 1, 1)
            out, _ = self.attention(self.query(r), r, r, attn_mask=mask, need_weights=False)
            return self.output(out)

    class Feedforward(nn.Module):
        def __init__(self, mlp: Any) -> None:
            super().__init__()
            self.relu = None
            self.gate = None
            if mlp.relu_units:
                self.relu = nn.Sequential(nn.Linear(width, mlp.relu_units, bias=False, dtype=f64), nn.ReLU(),
                                          nn.Linear(mlp.relu_units, width, bias=False, dtype=f64))
                with torch.no_grad():
                    self.relu[0].weight.copy_(tensor(mlp.relu_in.dense().T))
                    self.relu[2].weight.copy_(tensor(mlp.relu_out.dense().T))
            if mlp.gate_units:
                self.gate = nn.ModuleList([nn.Linear(width, mlp.gate_units, bias=False, dtype=f64),
                                           nn.Linear(width, mlp.gate_units, bias=False, dtype=f64),
                                           nn.Linear(mlp.gate_units, width, bias=False, dtype=f64)])
                with torch.no_grad():
                    for linear, m in zip(self.gate, (mlp.gate_a, mlp.gate_b, mlp.gate_out)):
                        linear.weight.copy_(tensor(m.dense().T))

        def forward(self, r: Any) -> Any:
            out = r
            if self.relu is not None:
                out = out + self.relu(r)
            if self.gate is not None:
                out = out + self.gate[2](self.gate[0](r) * self.gate[1](r))
            return out

    class Block(nn.Module):
        def __init__(self, layer: Any) -> None:
            super().__init__()
            self.attention = Attention(layer.heads) if layer.heads else None
            self.feedforward = Feedforward(layer.mlp)

        def forward(self, r: Any) -> Any:
            if self.attention is not None:
                r = r + self.attention(r)
            return self.feedforward(r)

    class CompiledTransformer(nn.Module):
        """The compiled network (softmax attention with masks), float64."""

        def __init__(self) -> None:
            super().__init__()
            self.token = nn.Linear(1, width, bias=False, dtype=f64)
            self.positions = nn.Embedding(size, width, dtype=f64)
            self.blocks = nn.ModuleList([Block(layer) for layer in masked.layers])
            self.readout = nn.Linear(width, len(masked.outputs), bias=False, dtype=f64)
            positions = np.zeros((size, width))
            positions[np.arange(size), [position_dim(t) for t in range(size)]] = 1.0
            token = np.zeros((width, 1))
            token[TOKEN, 0] = 1.0
            with torch.no_grad():
                self.token.weight.copy_(tensor(token))
                self.positions.weight.copy_(tensor(positions))
                self.readout.weight.copy_(tensor(np.stack([r.dense()[:, 0] for _, r in masked.outputs])))
            self.output_names = [name for name, _ in masked.outputs]

        def forward(self, x: Any) -> Any:
            bos = torch.zeros(x.shape[0], 1, dtype=x.dtype, device=x.device)
            tokens = torch.cat([bos, x], dim=1).unsqueeze(-1)
            r = self.token(tokens) + self.positions.weight.unsqueeze(0)
            for block in self.blocks:
                r = block(r)
            return self.readout(r)[:, 1:, :]

    module = CompiledTransformer()
    module.requires_grad_(False)
    module.eval()
    return module


def run_torch(module: Any, x: np.ndarray) -> np.ndarray:
    """The module on (B, n) or (n,) inputs, as a float64 array (B, n, outputs)."""
    torch = _torch()
    batch = np.atleast_2d(np.asarray(x, dtype=np.float64))
    with torch.no_grad():
        return module(torch.tensor(batch, dtype=torch.float64)).numpy()
