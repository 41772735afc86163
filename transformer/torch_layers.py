"""PyTorch's layers as U's arrays (the optional extra ``torch``): what ``usim simulate --torch`` runs.

:func:`torch_layer` makes a random float64 ``torch.nn.MultiheadAttention``
or post-norm ReLU ``torch.nn.TransformerEncoderLayer`` in eval mode, runs it
on a random input and reads its weights as the named arrays ``usim simulate``
takes (:func:`torch_arrays`: the stacked in-projection cut per head and
transposed, so that Q = X WQ + bQ; the out-projection, the feed-forward part
and the layer norms with their eps; the variant, activation and norm, as
strings). :func:`torch_layer_spec` gives the layer's spec before PyTorch makes
anything, so that the sizes are checked first. PyTorch is imported only when a
layer is made or read; U itself runs in
:mod:`usim.constructions.universal.simulate`, and a compiled network as a
PyTorch module in :mod:`usim.transformer.network_to_torch`.
"""

from __future__ import annotations

import math

import numpy as np

from usim.constructions.universal.spec import LayerSpec
from usim.errors import ShapeError, UsimError


def torch_layer_spec(kind: str, n: int, d: int, heads: int, ff: int) -> LayerSpec:
    """The LayerSpec of the layer :func:`torch_layer` makes (to check sizes before making it).

    Args:
        kind: "mha" (an attention layer) or "encoder" (an encoder layer).
        n, d, heads, ff: sequence length, width, heads, feed-forward width.

    Returns:
        The projected form with biases and out-projection (d_k = d_v = d // heads),
        with the post-norm feed-forward part for an encoder.
    """
    if d % heads:
        raise ShapeError(f"the width d = {d} is not divisible by heads = {heads}")
    kw: dict = dict(n=n, d=d, heads=heads, form="projected", d_k=d // heads, d_v=d // heads, bias=True,
                    out_proj=True, d_out=d)
    if kind == "encoder":
        kw.update(encoder=True, d_ff=ff, residual=True, norm=True, ffn_bias=True)
    return LayerSpec(**kw)


def torch_layer(kind: str, n: int, d: int, heads: int, ff: int, seed: int):
    """A random float64 layer in eval mode, its input, its output and its arrays.

    Args:
        kind: "mha" or "encoder" (see :func:`torch_layer_spec`).
        n, d, heads, ff: the sizes; seed: torch's seed for the weights and X.

    Returns:
        (PyTorch's output on X (n x d), the layer's arrays with ``X``).
    """
    import torch

    layer, attn, x = torch_module(kind, n, d, heads, ff, seed)
    with torch.no_grad():
        y = forward(kind, layer, x)
    arrays = torch_arrays(layer if kind == "encoder" else None, attn)
    arrays["X"] = x[0].numpy()
    return y[0].detach().numpy(), arrays


def forward(kind: str, layer, x):
    """The layer's output on ``x`` (1 x n x d): attention of x to itself, or the encoder's."""
    return layer(x, x, x, need_weights=False)[0] if kind == "mha" else layer(x)


def torch_module(kind: str, n: int, d: int, heads: int, ff: int, seed: int):
    """The random float64 layer (eval mode) of :func:`torch_layer`, its attention and its input.

    Args:
        kind: "mha" or "encoder" (see :func:`torch_layer_spec`).
        n, d, heads, ff: the sizes; seed: torch's seed for the weights and X.

    Returns:
        (the layer, its MultiheadAttention, X as a 1 x n x d tensor).
    """
    try:
        import torch
    except ImportError:
        raise UsimError("--torch needs PyTorch: pip install usim[torch]") from None
    if d % heads:
        raise ShapeError(f"the width d = {d} is not divisible by heads = {heads}")
    torch.manual_seed(seed)
    if kind == "mha":
        layer = torch.nn.MultiheadAttention(d, heads, dropout=0.0, bias=True, batch_first=True,
                                            dtype=torch.float64)
        attn = layer
    else:
        layer = torch.nn.TransformerEncoderLayer(d, heads, dim_feedforward=ff, dropout=0.0,
                                                 activation="relu", batch_first=True, norm_first=False,
                                                 dtype=torch.float64)
        attn = layer.self_attn
        with torch.no_grad():  # non-trivial affine parameters
            for norm in (layer.norm1, layer.norm2):
                norm.weight.normal_()
                norm.bias.normal_()
    layer.eval()
    x = torch.randn(1, n, d, dtype=torch.float64)
    return layer, attn, x


def _activation_name(encoder) -> str:
    """'relu', 'gelu' or the name of another activation of a TransformerEncoderLayer."""
    import torch
    import torch.nn.functional as F

    act = encoder.activation
    if act is F.relu or isinstance(act, torch.nn.ReLU):
        return "relu"
    if act is F.gelu or isinstance(act, torch.nn.GELU):
        return "gelu"
    return str(getattr(act, "__name__", type(act).__name__)).lower()


def torch_arrays(encoder, attn) -> dict[str, np.ndarray]:
    """U's arrays of a torch MultiheadAttention (and encoder layer, with its variant).

    Args:
        encoder: the ``TransformerEncoderLayer`` holding ``attn``, or None.
        attn: its (or a standalone) ``MultiheadAttention``.

    Returns:
        The named arrays ``usim simulate`` reads (without ``X``).
    """
    e, h = attn.embed_dim, attn.num_heads
    hd = e // h
    w = attn.in_proj_weight.detach().numpy()
    b = attn.in_proj_bias.detach().numpy()
    name = (lambda base, i: base) if h == 1 else (lambda base, i: f"{base}_{i}")  # noqa: E731
    out: dict[str, np.ndarray] = {}
    for i in range(h):
        rows = slice(i * hd, (i + 1) * hd)
        for k, (wn, bn) in enumerate((("WQ", "bQ"), ("WK", "bK"), ("WV", "bV"))):
            out[name(wn, i)] = w[k * e:(k + 1) * e][rows].T.copy()
            out[name(bn, i)] = b[k * e:(k + 1) * e][rows][None, :].copy()
    out["WO"] = attn.out_proj.weight.detach().numpy().T.copy()
    out["bO"] = attn.out_proj.bias.detach().numpy()[None, :].copy()
    out["scale"] = np.array([[1.0 / math.sqrt(hd)]])
    if encoder is not None:
        out["activation"] = np.array(_activation_name(encoder))
        out["norm"] = np.array("pre" if encoder.norm_first else "post")
        out["W1"] = encoder.linear1.weight.detach().numpy().T.copy()
        out["b1"] = encoder.linear1.bias.detach().numpy()[None, :].copy()
        out["W2"] = encoder.linear2.weight.detach().numpy().T.copy()
        out["b2"] = encoder.linear2.bias.detach().numpy()[None, :].copy()
        for k, norm in ((1, encoder.norm1), (2, encoder.norm2)):
            out[f"g{k}"] = norm.weight.detach().numpy()[None, :].copy()
            out[f"be{k}"] = norm.bias.detach().numpy()[None, :].copy()
            out[f"eps{k}"] = np.array([[norm.eps]])
    return out
