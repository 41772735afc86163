"""``usim simulate``: run the universal simulator U on a real layer.

    usim simulate PARAMS.npz [--bound N] [--out Y.npy]
    usim simulate --torch mha|encoder [--n 4] [--d 4] [--heads 2] [--ff 8] [--seed 0]
                  [--save P.npz] [--bound N] [--out Y.npy]

U (one RASP program, :mod:`usim.constructions.universal`) is run once on the
layer's parameters and input laid out in one sequence; the result is printed
(and saved with --out). The run is checked: float64 first; if a value leaves
float64's range (an overflow, an underflow to 0, a subnormal), long double
(80-bit on x86-64); if that fails too, the command stops with one line (exit
status 2) and gives the largest attention score. U computes softmax as
exp(S) / sum exp(S) without subtracting the row maximum, as the paper does:
scores above about 709 (or below about -708) leave float64, above about 11356
long double. A result is right or there is none: floating point is
cross-validation, never proof.

Array names in PARAMS.npz (numeric 2-D arrays; a vector may be 1-D):

* ``X`` (n x d), the input; ``scale`` (optional, one positive number c: scores
  are c X A X^T; default 1 for the merged form, 1/sqrt(d_k) for the projected form);
* merged form: ``A`` (d x d) and ``V`` (d x d_v), or per head ``A_0``, ``V_0``, ...;
* projected form: ``WQ``, ``WK`` (d x d_k), ``WV`` (d x d_v) (per head ``WQ_0``...)
  and optionally ``bQ``, ``bK``, ``bV`` (1 x d_k / d_v) (all or none);
* optional ``WO`` (H d_v x d_out) with ``bO`` (when the q/k/v biases are given);
* optional encoder: ``W1`` (d x F), ``W2`` (F x d), optionally ``b1``, ``b2``;
  with ``norm = "post"`` also ``g1``, ``be1``, ``eps1``, ``g2``, ``be2``, ``eps2``
  (the two layer norms; eps one positive number).

An encoder's file must say which variant it is, in two string entries
(``np.savez(..., activation="relu", norm="post")``): ``activation`` is
``relu`` (U's feed-forward part; GELU and others are refused) and ``norm`` is
``post`` (a layer norm after each residual add, torch's norm_first=False) or
``none`` (no layer norm; a pre-norm layer, ``pre``, is refused). Residual adds
are always there. An encoder file without them is refused, as is either entry
in a file with no encoder.

Limits (checked before U is built): the sequence length n and --bound at most
64, and U's own sequence (every matrix, laid out) at most 20000 positions. The
time to run U grows with its length times its heads: n = 64 or d = 64 takes one
to three minutes.

With ``--torch``, a ``torch.nn.MultiheadAttention`` or
``torch.nn.TransformerEncoderLayer`` (float64, eval mode, dropout 0, post-norm,
ReLU) with seeded random weights is converted to these arrays (W = weight^T,
per head the slices of in_proj; c = 1/sqrt(d/H)), U is run, and its output is
compared with the layer's: the command fails unless they agree within 1e-10.
--save writes the layer's arrays (with activation and norm for an encoder).
PyTorch is optional (``pip install usim[torch]``). Their folders are checked
first, and files are written only once U has run, never after an error
(.npy / .npz is appended when missing, as numpy does).
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable, Mapping

import numpy as np

from usim.constructions.universal import Spec, Universal, build, embed_arrays, spec_for
from usim.encodings.numeric import type_name
from usim.encodings.runners import PRECISIONS, run_numeric_in_range
from usim.errors import InputError, RangeError, ShapeError, UsimError

TOLERANCE = 1e-10
MAX_N = 64  # sequence length n and --bound
MAX_LENGTH = 20_000  # positions of U's input sequence
MAX_SEED = 2**64 - 1  # torch.manual_seed's largest
VARIANT = {"activation": ("relu",), "norm": ("post", "none")}  # what U simulates
SCALARS = ("scale", "eps1", "eps2")  # one positive number each


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "simulate", help="run the universal simulator U on a layer's parameters (.npz) or a PyTorch layer",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("params", nargs="?", help="an .npz file of the layer's arrays (see above)")
    parser.add_argument("--bound", type=int, default=None,
                        help=f"build U for sequences up to this length (at most {MAX_N}) and pad (the hierarchy)")
    parser.add_argument("--out", metavar="FILE", help="save U's output T(X) as .npy")
    parser.add_argument("--torch", choices=("mha", "encoder"), help="simulate a random PyTorch layer")
    parser.add_argument("--n", type=int, default=None, help=f"sequence length for --torch (default 4, at most {MAX_N})")
    parser.add_argument("--d", type=int, default=None, help="model width for --torch (default 4)")
    parser.add_argument("--heads", type=int, default=None, help="heads for --torch (default 2; must divide d)")
    parser.add_argument("--ff", type=int, default=None, help="feed-forward width for --torch encoder (default 8)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random layer and input (default 0)")
    parser.add_argument("--save", metavar="FILE", help="with --torch: save the layer's arrays as .npz")
    parser.set_defaults(func=run)


# -- arrays -> Spec -----------------------------------------------------------

def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())


def _numbers(name: str, value: object) -> np.ndarray:
    """The array as float64, refusing what is not real numbers (complex, text, objects)."""
    a = np.asarray(value)
    kind = a.dtype.kind
    if kind == "c":
        raise InputError(f"the array {name} is complex ({a.dtype}): U simulates real layers")
    if kind in "US":
        raise InputError(f"the array {name} holds text ({a.dtype}), not numbers")
    if kind == "O":
        raise InputError(f"the array {name} holds Python objects, not numbers")
    if kind not in "biuf":
        raise InputError(f"the array {name} has dtype {a.dtype}, not numbers")
    if a.size == 0:
        raise ShapeError(f"the array {name} is empty (shape {a.shape})")
    if not np.all(np.isfinite(a)):
        raise InputError(f"the array {name} has a non-finite value")
    with np.errstate(over="ignore"):
        out = a.astype(np.float64)
    if not np.all(np.isfinite(out)):
        raise InputError(f"the array {name} has a value beyond float64's range")
    return out


def _matrix(name: str, value: object) -> np.ndarray:
    a = _numbers(name, value)
    if a.ndim == 0:
        a = a.reshape(1, 1)
    elif a.ndim == 1:
        a = a.reshape(1, -1)
    if a.ndim != 2:
        raise ShapeError(f"the array {name} must be a matrix or a vector, got shape {a.shape}")
    return a


def _positive_number(name: str, a: np.ndarray) -> float:
    """A scalar entry (scale, eps): exactly one positive finite number."""
    if a.size != 1:
        raise ShapeError(f"{name} must be one number, got an array of shape {tuple(a.shape)}")
    value = float(a.reshape(()))
    if not value > 0:
        raise InputError(f"{name} must be positive, got {value:g}")
    return value


def _variant_entry(name: str, value: object) -> str:
    """A string entry (activation, norm), lower-cased."""
    a = np.asarray(value)
    if a.dtype.kind not in "US" or a.size != 1:
        raise InputError(f"the entry {name} must be one string (e.g. {name}={VARIANT[name][0]!r}), "
                         f"got {a.dtype} of shape {tuple(a.shape)}")
    text = a.reshape(()).item()
    if isinstance(text, bytes):
        text = text.decode("ascii", errors="replace")
    return text.strip().lower()


def encoder_norm(variant: Mapping[str, str], encoder: bool) -> bool:
    """Whether the encoder has its post-norm layer norms; refuses what U does not simulate."""
    if not encoder:
        if variant:
            name = sorted(variant)[0]
            raise InputError(f"the entry {name} describes an encoder, but there is no W1 "
                             "(these are the arrays of an attention layer)")
        return False
    for name in VARIANT:
        if name not in variant:
            raise InputError(f"an encoder's file must say which variant it is: it has no entry {name} "
                             "(save it with activation='relu' and norm='post' or 'none')")
    if variant["activation"] not in VARIANT["activation"]:
        raise InputError(f"U simulates encoders with a ReLU feed-forward part, not activation="
                         f"{variant['activation']!r}")
    if variant["norm"] not in VARIANT["norm"]:
        what = " (pre-norm: layer norm before each block)" if variant["norm"] == "pre" else ""
        raise InputError(f"U simulates post-norm encoders (norm='post') or none (norm='none'), not "
                         f"norm={variant['norm']!r}{what}")
    return variant["norm"] == "post"


def spec_from_arrays(arrays: Mapping[str, np.ndarray]) -> tuple[Spec, dict[str, np.ndarray], float]:
    """The layer's Spec, its arrays as matrices (by U's block names), and the scale."""
    variant = {k: _variant_entry(k, v) for k, v in arrays.items() if k in VARIANT}
    m = {k: _matrix(k, v) for k, v in arrays.items() if k not in VARIANT}
    if "X" not in m:
        raise InputError("the parameters have no array X (the input, n x d)")
    scalars = {k: _positive_number(k, np.asarray(arrays[k])) for k in SCALARS if k in m}
    spec = spec_for({k: a.shape for k, a in m.items()}, norm=encoder_norm(variant, "W1" in m))
    wanted = dict(spec.parameter_shapes())
    scale = scalars.get("scale", 1.0 if spec.form == "merged" else 1.0 / math.sqrt(spec.d_k))
    return spec, {k: m[k] for k in wanted}, scale


def largest_score(spec: Spec, m: Mapping[str, np.ndarray], scale: float) -> float:
    """max |c q_i . k_j| over every head (numpy, float64; inf beyond its range)."""
    x, top = m["X"], 0.0
    with np.errstate(all="ignore"):
        for h in range(spec.heads):
            name = lambda base: spec.head(base, h)  # noqa: E731
            if spec.form == "merged":
                s = x @ m[name("A")] @ x.T
            else:
                q, k = x @ m[name("WQ")], x @ m[name("WK")]
                if spec.bias:
                    q, k = q + m[name("bQ")], k + m[name("bK")]
                s = q @ k.T
            top = max(top, float(np.nanmax(np.abs(scale * s))))
    return top


# -- running U ------------------------------------------------------------------

def check_size(u: Universal) -> None:
    """Refuse a U too long to run in reasonable time (before its program is built)."""
    if u.spec.n > MAX_N:
        raise ShapeError(f"the sequence length {u.spec.n} exceeds usim simulate's limit of {MAX_N}")
    if u.length > MAX_LENGTH:
        raise ShapeError(f"U for this layer needs a sequence of {u.length} positions, above usim "
                         f"simulate's limit of {MAX_LENGTH} (make d, the widths or n smaller)")


@dataclass(frozen=True)
class Simulation:
    """T(X) as U computed it, U itself, and the float type the run needed."""

    y: np.ndarray
    u: Universal
    dtype: type


def _universal(spec: Spec, bound: int | None) -> Universal:
    """U for ``spec`` (or for sequences up to ``bound``), checked against the limits."""
    big = spec
    if bound is not None:
        if bound < spec.n:
            raise ShapeError(f"the bound {bound} is below the sequence length n = {spec.n}")
        if bound > MAX_N:
            raise ShapeError(f"the bound {bound} exceeds usim simulate's limit of {MAX_N}")
        big = spec.smaller(n=bound)
    u = build(big)
    check_size(u)
    return u


def run_simulation(arrays: Mapping[str, np.ndarray], bound: int | None = None) -> Simulation:
    """One checked numeric run of U on the layer: float64, else long double, else a RangeError."""
    spec, m, scale = spec_from_arrays(arrays)
    u = _universal(spec, bound)
    seq = embed_arrays(u, spec, m, scale)
    try:
        outputs, dtype = run_numeric_in_range(u.program, seq)
    except RangeError as error:
        raise _out_of_range(error, largest_score(spec, m, scale)) from None
    y = u.output_layout.decode_numeric(outputs["Y"])[0][: spec.n, : spec.output_shape()[1]]
    with np.errstate(over="ignore"):
        y = y.astype(np.float64)
    if not np.all(np.isfinite(y)):
        i, j = (int(v) for v in np.argwhere(~np.isfinite(y))[0])
        raise RangeError(f"T(X) has an entry beyond float64's range at ({i}, {j}) "
                         f"(U ran in {type_name(dtype)})")
    return Simulation(y, u, dtype)


def _out_of_range(error: RangeError, score: float) -> RangeError:
    """One line: the scores (the usual cause) and where the widest type's run failed."""
    widest = error.__cause__ if isinstance(error.__cause__, RangeError) else error
    limits = " and ".join(f"{type_name(t)} beyond about {float(np.log(np.finfo(t).max)):.1f}"
                          for t in PRECISIONS)
    shown = f"{score:.4g} in magnitude" if math.isfinite(score) else "magnitudes beyond float64's range"
    if not math.isfinite(score) or score > float(np.log(np.finfo(np.float64).max)):
        return RangeError(f"the attention scores reach {shown}, beyond what U's softmax can "
                          f"take: it computes exp(S) / sum exp(S) with no row maximum subtracted (as the "
                          f"paper does), and exp leaves {limits} ({widest})", magnitude=score)
    return RangeError(f"{error} (the attention scores reach only {shown})",
                      magnitude=error.magnitude)


def simulate(arrays: Mapping[str, np.ndarray], bound: int | None = None) -> tuple[np.ndarray, Universal]:
    """T(X) computed by U (one checked numeric run of one program), and U."""
    result = run_simulation(arrays, bound)
    return result.y, result.u


# -- PyTorch ----------------------------------------------------------------------

def torch_spec(kind: str, n: int, d: int, heads: int, ff: int) -> Spec:
    """The Spec of the layer :func:`torch_layer` makes (to check sizes before making it)."""
    if d % heads:
        raise ShapeError(f"the width d = {d} is not divisible by heads = {heads}")
    kw: dict = dict(n=n, d=d, heads=heads, form="projected", d_k=d // heads, d_v=d // heads, bias=True,
                    out_proj=True, d_out=d)
    if kind == "encoder":
        kw.update(encoder=True, d_ff=ff, residual=True, norm=True, ffn_bias=True)
    return Spec(**kw)


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
    """U's arrays of a torch MultiheadAttention (and encoder layer, with its variant)."""
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


# -- files ------------------------------------------------------------------------

def load_arrays(path: str) -> dict[str, np.ndarray]:
    """The named arrays of an .npz file; one clear line for anything else."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"cannot read {path}: no such file")
    if p.is_dir():
        raise InputError(f"cannot read {path}: it is a folder, not an .npz file")
    try:
        loaded = np.load(p, allow_pickle=False)
    except EOFError:
        raise InputError(f"cannot read {path}: the file is empty") from None
    except (ValueError, zipfile.BadZipFile):
        raise InputError(f"cannot read {path}: it is not an .npz file of arrays") from None
    except OSError as error:
        raise InputError(f"cannot read {path}: {_one_line(error)}") from None
    if not isinstance(loaded, np.lib.npyio.NpzFile):
        raise InputError(f"{path} holds a single array (.npy), not named arrays: save the layer with "
                         "np.savez as an .npz (the names: usim simulate --help)")
    arrays = {}
    with loaded:
        for key in loaded.files:
            try:
                arrays[key] = loaded[key]
            except ValueError:
                raise InputError(f"the array {key} in {path} holds Python objects (pickled), "
                                 "which usim does not load: give numeric arrays") from None
            except (OSError, EOFError, zipfile.BadZipFile, zlib.error) as error:
                raise InputError(f"cannot read the array {key} in {path}: {_one_line(error)}") from None
    return arrays


def writable(text: str, suffix: str) -> Path:
    """The file numpy would write for ``text`` (``suffix`` appended when missing),
    checked before anything runs: its folder exists and it can be written."""
    if not text.strip():
        raise InputError("the file name is empty")
    if Path(text).is_dir():
        raise InputError(f"cannot write {text}: it is a folder (give a file name)")
    path = Path(text if text.endswith(suffix) else text + suffix)
    folder = path.parent
    if not folder.is_dir():
        raise InputError(f"cannot write {path}: the folder {folder} does not exist")
    if path.is_dir():
        raise InputError(f"cannot write {path}: it is a folder")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InputError(f"cannot write {path}: permission denied")
    return path


def write_atomically(path: Path, write: Callable[[IO[bytes]], None]) -> None:
    """Write through a temporary file in the same folder, then rename: never half a file."""
    handle = tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False)
    try:
        with handle:
            write(handle)
        os.replace(handle.name, path)
    except OSError as error:
        Path(handle.name).unlink(missing_ok=True)
        raise InputError(f"cannot write {path}: {_one_line(error)}") from None
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


# -- the command -------------------------------------------------------------------

TORCH_DEFAULTS = {"n": 4, "d": 4, "heads": 2, "ff": 8, "seed": 0}


def _torch_options(args: argparse.Namespace) -> dict[str, int]:
    """--n, --d, --heads, --ff, --seed: refused without --torch, checked with it."""
    given = [k for k in TORCH_DEFAULTS if getattr(args, k) is not None]
    if not args.torch:
        if given or args.save is not None:
            option = f"--{given[0]}" if given else "--save"
            raise InputError(f"{option} applies to --torch only")
        return {}
    if args.params:
        raise InputError(f"give either a parameters file ({args.params}) or --torch, not both")
    if args.ff is not None and args.torch != "encoder":
        raise InputError("--ff applies to --torch encoder only")
    options = {k: TORCH_DEFAULTS[k] if getattr(args, k) is None else getattr(args, k) for k in TORCH_DEFAULTS}
    for k in ("n", "d", "heads", "ff"):
        if options[k] < 1:
            raise InputError(f"--{k} must be a positive whole number, got {options[k]}")
    if not 0 <= options["seed"] <= MAX_SEED:
        raise InputError(f"--seed must be a whole number from 0 to 2**64 - 1, got {options['seed']}")
    return options


def run(args: argparse.Namespace) -> int:
    options = _torch_options(args)
    out = writable(args.out, ".npy") if args.out is not None else None
    save = writable(args.save, ".npz") if args.save is not None else None
    expected = None
    if args.torch:
        spec = torch_spec(args.torch, options["n"], options["d"], options["heads"], options["ff"])
        _universal(spec, args.bound)  # the limits, before PyTorch makes anything
        expected, arrays = torch_layer(args.torch, **options)
    elif args.params:
        arrays = load_arrays(args.params)
    else:
        raise InputError("give an .npz file of parameters, or --torch mha|encoder")
    result = run_simulation(arrays, args.bound)
    y, u = result.y, result.u
    code = 0
    print(f"U for {u.spec}: sequence length {u.length}; {u.cost.summary()}")
    if result.dtype is not np.float64:
        print(f"(run in {type_name(result.dtype)}: float64's range was not enough)")
    with np.printoptions(precision=6, suppress=True):
        print("T(X) =")
        print(y)
    if expected is not None:
        if not np.all(np.isfinite(expected)):
            raise RangeError(f"PyTorch's own {args.torch} output is not finite: nothing to compare with")
        deviation = float(np.max(np.abs(y - expected)))
        verdict = "agree" if deviation <= TOLERANCE else "DIFFER"
        print(f"PyTorch {args.torch}: max |U - torch| = {deviation:.3e} ({verdict}, tolerance {TOLERANCE:g})")
        code = 0 if deviation <= TOLERANCE else 1
    if save is not None:
        write_atomically(save, lambda f: np.savez(f, **arrays))
    if out is not None:
        write_atomically(out, lambda f: np.save(f, y))
    return code
