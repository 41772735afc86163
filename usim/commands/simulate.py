"""``usim simulate``: run the universal simulator U on a real layer.

    usim simulate PARAMS.npz [--bound N] [--out Y.npy]
    usim simulate --torch mha|encoder [--n 4] [--d 4] [--heads 2] [--ff 8] [--seed 0] [--save P.npz]

U (one RASP program, :mod:`usim.constructions.universal`) is run once, in the
numeric interpretation (float64), on the layer's parameters and input laid out
in one sequence; the result is printed (or saved).

Array names in PARAMS.npz (2-D arrays; a vector may be 1-D):

* ``X`` (n x d), the input; ``scale`` (optional scalar c: scores are c X A X^T;
  default 1 for the merged form, 1/sqrt(d_k) for the projected form);
* merged form: ``A`` (d x d) and ``V`` (d x d_v), or per head ``A_0``, ``V_0``, ...;
* projected form: ``WQ``, ``WK`` (d x d_k), ``WV`` (d x d_v) (per head ``WQ_0``...)
  and optionally ``bQ``, ``bK``, ``bV`` (1 x d_k / d_v) (all or none);
* optional ``WO`` (H d_v x d_out) with ``bO`` (when the q/k/v biases are given);
* optional encoder: ``W1`` (d x F), ``W2`` (F x d), optionally ``b1``, ``b2``, and
  optionally ``g1``, ``be1``, ``eps1``, ``g2``, ``be2``, ``eps2`` (the post-norm
  layer norms; eps as a scalar).

With ``--torch``, a ``torch.nn.MultiheadAttention`` or
``torch.nn.TransformerEncoderLayer`` (float64, eval mode, dropout 0, post-norm,
ReLU) with seeded random weights is converted to these arrays (W = weight^T,
per head the slices of in_proj; c = 1/sqrt(d/H)), U is run, and its output is
compared with the layer's: the command fails unless they agree within 1e-10.
PyTorch is optional (``pip install usim[torch]``).
"""

from __future__ import annotations

import argparse
import math
from typing import Mapping

import numpy as np

from usim.constructions.universal import HEADER, Spec, build, embed_pieces
from usim.encodings.runners import run_numeric
from usim.errors import InputError, ShapeError, UsimError

TOLERANCE = 1e-10


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "simulate", help="run the universal simulator U on a layer's parameters (.npz) or a PyTorch layer",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("params", nargs="?", help="an .npz file of the layer's arrays (see above)")
    parser.add_argument("--bound", type=int, default=None,
                        help="build U for sequences up to this length and pad (the hierarchy)")
    parser.add_argument("--out", metavar="FILE", help="save U's output T(X) as .npy")
    parser.add_argument("--torch", choices=("mha", "encoder"), help="simulate a random PyTorch layer")
    parser.add_argument("--n", type=int, default=4, help="sequence length for --torch (default 4)")
    parser.add_argument("--d", type=int, default=4, help="model width for --torch (default 4)")
    parser.add_argument("--heads", type=int, default=2, help="heads for --torch (default 2)")
    parser.add_argument("--ff", type=int, default=8, help="feed-forward width for --torch encoder")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random layer and input")
    parser.add_argument("--save", metavar="FILE", help="with --torch: save the layer's arrays as .npz")
    parser.set_defaults(func=run)


# -- arrays -> Spec -----------------------------------------------------------

def _matrix(name: str, value: np.ndarray) -> np.ndarray:
    a = np.asarray(value, dtype=np.float64)
    if a.ndim == 0:
        a = a.reshape(1, 1)
    elif a.ndim == 1:
        a = a.reshape(1, -1)
    if a.ndim != 2:
        raise ShapeError(f"the array {name} must be a matrix or a vector, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise InputError(f"the array {name} has a non-finite value")
    return a


def spec_from_arrays(arrays: Mapping[str, np.ndarray]) -> tuple[Spec, dict[str, np.ndarray], float]:
    """The layer's Spec, its arrays as matrices (by U's block names), and the scale."""
    m = {k: _matrix(k, v) for k, v in arrays.items()}
    if "X" not in m:
        raise InputError("the parameters have no array X (the input, n x d)")
    n, d = m["X"].shape
    merged = "A" in m or "A_0" in m
    projected = "WQ" in m or "WQ_0" in m
    if merged == projected:
        raise InputError("give either A and V (merged form) or WQ, WK, WV (projected form)")
    first = "A" if merged else "WQ"
    heads = 1 if first in m else sum(1 for k in m if k.startswith(first + "_"))
    head = (lambda b, h: b) if heads == 1 else (lambda b, h: f"{b}_{h}")  # noqa: E731
    try:
        if merged:
            d_k = d
            d_v = m[head("V", 0)].shape[1]
        else:
            d_k = m[head("WQ", 0)].shape[1]
            d_v = m[head("WV", 0)].shape[1]
    except KeyError as missing:
        raise InputError(f"the parameters have no array {missing.args[0]}") from None
    bias = "bQ" in m or "bQ_0" in m
    out_proj = "WO" in m
    encoder = "W1" in m
    kw: dict = dict(n=n, d=d, heads=heads, form="merged" if merged else "projected", d_k=d_k, d_v=d_v,
                    bias=bias, out_proj=out_proj)
    if out_proj:
        kw["d_out"] = m["WO"].shape[1]
    if encoder:
        kw.update(encoder=True, d_ff=m["W1"].shape[1], residual=True, norm="g1" in m, ffn_bias="b1" in m)
    spec = Spec(**kw)
    wanted = dict(spec.parameter_shapes())
    extra = sorted(set(m) - set(wanted) - {"scale"})
    if extra:
        raise InputError(f"unexpected array {extra[0]!r} for this layer (expected: {', '.join(wanted)})")
    for name, shape in wanted.items():
        if name not in m:
            raise InputError(f"the parameters have no array {name} ({shape[0]}x{shape[1]})")
        if m[name].shape != shape:
            got = "x".join(map(str, m[name].shape))
            raise ShapeError(f"the array {name} has shape {got}, this layer needs {shape[0]}x{shape[1]}")
    scale = float(m["scale"][0, 0]) if "scale" in m else (1.0 if merged else 1.0 / math.sqrt(d_k))
    return spec, {k: m[k] for k in wanted}, scale


def pad_for(u_spec: Spec, small: Spec, arrays: Mapping[str, np.ndarray], u) -> dict[str, np.ndarray]:
    """The arrays zero-padded into U's blocks, as the RASP embedding places them."""
    pieces = embed_pieces(u, small)
    out = {}
    for block in u.input_layout.blocks:
        if block.name == HEADER:
            continue
        big = np.zeros((block.shape.rows, block.shape.cols))
        for piece in pieces.get(block.name, ()):
            src = arrays[piece.source]
            rows = src.shape[0] - piece.src_row if piece.rows is None else piece.rows
            cols = src.shape[1] - piece.src_col if piece.cols is None else piece.cols
            big[piece.row:piece.row + rows, piece.col:piece.col + cols] = \
                src[piece.src_row:piece.src_row + rows, piece.src_col:piece.src_col + cols]
        out[block.name] = big
    return out


def simulate(arrays: Mapping[str, np.ndarray], bound: int | None = None) -> tuple[np.ndarray, object]:
    """T(X) computed by U (one numeric run of one program), and U."""
    spec, m, scale = spec_from_arrays(arrays)
    big = spec
    if bound is not None:
        if bound < spec.n:
            raise ShapeError(f"the bound {bound} is below the sequence length n = {spec.n}")
        big = spec.smaller(n=bound)
    u = build(big)
    padded = pad_for(big, spec, m, u) if big is not spec else m
    seq = u.input_layout.encode_numeric({HEADER: np.array([[spec.n, spec.d, scale]]), **padded})
    out = run_numeric(u.program, seq)["Y"]
    y = u.output_layout.decode_numeric(out)[0]
    return y[: spec.n, : spec.output_shape()[1]], u


# -- PyTorch ----------------------------------------------------------------------

def torch_layer(kind: str, n: int, d: int, heads: int, ff: int, seed: int):
    """A random float64 layer in eval mode, its input, its output and its arrays."""
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
    with torch.no_grad():
        y = layer(x, x, x, need_weights=False)[0] if kind == "mha" else layer(x)
    arrays = torch_arrays(layer if kind == "encoder" else None, attn)
    arrays["X"] = x[0].numpy()
    return y[0].detach().numpy(), arrays


def torch_arrays(encoder, attn) -> dict[str, np.ndarray]:
    """U's arrays of a torch MultiheadAttention (and encoder layer)."""
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
        out["W1"] = encoder.linear1.weight.detach().numpy().T.copy()
        out["b1"] = encoder.linear1.bias.detach().numpy()[None, :].copy()
        out["W2"] = encoder.linear2.weight.detach().numpy().T.copy()
        out["b2"] = encoder.linear2.bias.detach().numpy()[None, :].copy()
        for k, norm in ((1, encoder.norm1), (2, encoder.norm2)):
            out[f"g{k}"] = norm.weight.detach().numpy()[None, :].copy()
            out[f"be{k}"] = norm.bias.detach().numpy()[None, :].copy()
            out[f"eps{k}"] = np.array([[norm.eps]])
    return out


# -- the command -------------------------------------------------------------------

def run(args: argparse.Namespace) -> int:
    if args.torch:
        expected, arrays = torch_layer(args.torch, args.n, args.d, args.heads, args.ff, args.seed)
        if args.save:
            np.savez(args.save, **arrays)
    elif args.params:
        expected = None
        try:
            with np.load(args.params) as data:
                arrays = {k: data[k] for k in data.files}
        except (OSError, ValueError) as error:
            raise InputError(f"cannot read {args.params}: {error}") from None
    else:
        raise InputError("give an .npz file of parameters, or --torch mha|encoder")
    y, u = simulate(arrays, args.bound)
    print(f"U for {u.spec}: sequence length {u.length}; {u.cost.summary()}")
    with np.printoptions(precision=6, suppress=True):
        print("T(X) =")
        print(y)
    if args.out:
        np.save(args.out, y)
    if expected is not None:
        deviation = float(np.max(np.abs(y - expected)))
        verdict = "agree" if deviation <= TOLERANCE else "DIFFER"
        print(f"PyTorch {args.torch}: max |U - torch| = {deviation:.3e} ({verdict}, tolerance {TOLERANCE:g})")
        return 0 if deviation <= TOLERANCE else 1
    return 0
