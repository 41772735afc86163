"""``usim simulate``: run the universal simulator U on a real layer.

    usim simulate PARAMS.npz [--bound N | --compiled] [--out Y.npy]
    usim simulate --torch mha|encoder [--n 4] [--d 4] [--heads 2] [--ff 8] [--seed 0]
                  [--save P.npz] [--bound N | --compiled] [--out Y.npy]

U (one RASP program, :mod:`usim.constructions.universal`) is run once on the
layer's parameters and input laid out in one sequence; the result is printed
(and saved with --out). The run is checked: float64 first; if a value leaves
float64's range (an overflow, an underflow to 0, a subnormal), long double
(80-bit on x86-64); if that fails too, the command stops with one line (exit
status 2) and gives the largest attention score. T(X) is printed, compared
and saved in the type U ran in (a long double run's .npy holds long doubles:
rounded to float64, a value below 2.2e-308 would lose its digits or become 0).
U computes softmax as
exp(S) / sum exp(S) without subtracting the row maximum, as the paper does:
scores above about 709 (or below about -708) leave float64, above about 11356
long double. A result is right or there is none: floating point is
cross-validation, never proof.

Array names in PARAMS.npz (numeric 2-D arrays; a vector may be 1-D):

* ``X`` (n x d), the input; ``scale`` (optional, one positive number c: scores
  are c X A X^T; default 1 for the merged form, 1/sqrt(d_k) for the projected form);
* merged form: ``A`` (d x d) and ``V`` (d x d_v), or per head ``A_0``, ``V_0``, ...,
  or H >= 2 heads stacked: ``A`` = [A_0 | ... | A_{H-1}] (d x H d), ``V`` likewise
  (d x H d_v) and ``WO`` (U over stacked heads: one program for every H);
* projected form: ``WQ``, ``WK`` (d x d_k), ``WV`` (d x d_v) (per head ``WQ_0``...)
  and optionally ``bQ``, ``bK``, ``bV`` (1 x d_k / d_v) (all or none); or, with the
  entry ``heads`` = H (one whole number), H heads stacked side by side as torch
  holds them: ``WQ`` = [W_Q0 | ... | W_Q{H-1}] (d x H d_k, torch's in_proj
  transposed), ``WK``, ``WV`` and the biases likewise (U over stacked heads);
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
512, and U's own sequence (every matrix, laid out) at most 8 000 000 positions.
U's product and row heads run family by family, as array operations
(:mod:`usim.encodings.family_arrays`), so the time and memory of a run grow with
U's length times the sequences alive at once: torch's MultiheadAttention with
H = 2 takes about 0.1 s at n = d = 64 and 0.5 s at 256; BERT-base's sizes (n =
128, d = 768, 12 heads) about 10 s and 0.6 GB for the attention and 40 s and
2 GB for the encoder layer (feed-forward width 3072) on two cores
(``benchmarks/bench_simulate.py``, ``docs/scale.md``).

With ``--torch``, a ``torch.nn.MultiheadAttention`` or
``torch.nn.TransformerEncoderLayer`` (float64, eval mode, dropout 0, post-norm,
ReLU) with seeded random weights is converted to these arrays (W = weight^T,
per head the slices of in_proj; c = 1/sqrt(d/H)), U is run, and its output is
compared with the layer's: the command fails unless they agree within 1e-10.
--save writes the layer's arrays (with activation and norm for an encoder).
PyTorch is optional (``pip install usim[torch]``).

With ``--compiled``, U (for the layer's own sizes, its header's n and d
fixed) is compiled into a network (:mod:`usim.transformer`, what ``usim
compile`` writes) and run as a PyTorch module of standard parts
(``nn.MultiheadAttention`` with masks, ``nn.Linear``, ``nn.Embedding``) in
float64, instead of running U's RASP program; it needs PyTorch, and U's
encoder with layer norms does not compile (its layer norm divides by a
data-dependent square root). PyTorch's run is checked: the same network is
run by usim with every operation's range checked (float64, else long double,
as above), and the command stops with one line (exit status 2) where an entry
of T(X) is beyond float64's range (a value below 2.2e-308 that float64 holds as
0 or with too few digits) or PyTorch's value is lost (not finite, 0 or
subnormal where the checked one is not) or differs from the checked one by
more than 1e-10 (relative, for values above 1).

Which statement for every size is about the program that ran is said in one
line (also with --compiled). usim's statements for every size are about U_N,
built for N x N, of their forms (one merged head, the users' form with biases,
H <= 4 merged heads with W_O, any H merged heads stacked with W_O, the
encoder after them, and any H heads of the users' form stacked with W_O and
biases, torch's MultiheadAttention;
``usim.proofs.about_layer``): for every n, d <= N, U_N on the layer zero-padded
gives the layer's output (their verdicts: paper_map.md). With ``--bound N`` a
layer of such a form is run by that U_N where N >= n, d, d_k, d_v (a layer given head by
head that only a statement over stacked heads is about, as torch's layers read
by ``--torch``, by U_N over stacked heads, its heads' blocks placed side by
side: the same function); otherwise by U for its
parts with sequences up to N. Without it, U is built for the layer's own
n x d, which is U_N only where n = d.

The output files' folders are checked
first, and files are written only once U has run, never after an error
(.npy / .npz is appended when missing, as numpy does).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import tempfile
import zipfile
import zlib
from pathlib import Path
from typing import IO, TYPE_CHECKING, Callable

import numpy as np

from usim.commands.options import help_text
from usim.constructions.options import MAX_LENGTH, MAX_N
from usim.errors import InputError, RangeError

if TYPE_CHECKING:
    from usim.constructions.universal.spec import LayerSpec

TOLERANCE = 1e-10
MAX_SEED = 2**64 - 1  # torch.manual_seed's largest


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "simulate", help="run the universal simulator U on a layer's parameters (.npz) or a PyTorch layer",
        description=help_text(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("params", nargs="?", help="an .npz file of the layer's arrays (see above)")
    parser.add_argument("--bound", type=int, default=None,
                        help=f"build U for this bound N (at most {MAX_N}) and pad (the hierarchy): U_N for N x N "
                             "where a statement for every size is about the layer's form and N >= d, else U for "
                             "sequences up to N")
    parser.add_argument("--out", metavar="FILE", help="save U's output T(X) as .npy")
    parser.add_argument("--torch", choices=("mha", "encoder"), help="simulate a random PyTorch layer")
    parser.add_argument("--n", type=int, default=None, help=f"sequence length for --torch (default 4, at most {MAX_N})")
    parser.add_argument("--d", type=int, default=None, help="model width for --torch (default 4)")
    parser.add_argument("--heads", type=int, default=None, help="heads for --torch (default 2; must divide d)")
    parser.add_argument("--ff", type=int, default=None, help="feed-forward width for --torch encoder (default 8)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random layer and input (default 0)")
    parser.add_argument("--save", metavar="FILE", help="with --torch: save the layer's arrays as .npz")
    parser.add_argument("--compiled", action="store_true",
                        help="run U compiled to transformer weights, as a PyTorch module (needs PyTorch)")
    parser.set_defaults(func=run)


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
    try:
        handle = tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False)
    except OSError as error:
        raise InputError(f"cannot write {path}: {_one_line(error)}") from None
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


def spec_text(spec: LayerSpec) -> str:
    """The layer's spec as this command prints it: ``Spec(n=3, d=4, ...)``, every
    field in order, as it was printed before the class was named LayerSpec (``stacked``,
    added since, only where it is set).

    Args:
        spec: the spec U was built for.

    Returns:
        One line.
    """
    fields = ", ".join(f"{f.name}={getattr(spec, f.name)!r}" for f in dataclasses.fields(spec)
                       if f.name != "stacked" or spec.stacked)
    return f"Spec({fields})"


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


def _compiled(arrays):
    """T(X) by U compiled to a network and run as a PyTorch module (float64), U,
    the network's size, and the type the network's checked run needed
    (:func:`_float64_holds`)."""
    from usim.constructions.universal.simulate import prepare
    from usim.transformer.compiler import CHECKED_POSITIONS, MAX_POSITIONS, compile_universal
    from usim.transformer.forward import run as run_network
    from usim.transformer.network_to_torch import network_to_torch, run_torch
    from usim.transformer.size import size_of

    p = prepare(arrays)
    if p.u.length > MAX_POSITIONS:
        raise InputError(f"--compiled: U for this layer has {p.u.length} positions, above the {MAX_POSITIONS} "
                         "that usim compile builds a network for (run it without --compiled)")
    network = compile_universal(p.u, check=p.u.length <= CHECKED_POSITIONS)
    y = p.result(run_torch(network_to_torch(network), p.sequence)[0, :, 0])
    try:
        checked = p.checked_run(lambda interp, array: run_network(network, interp, array))
    except RangeError as error:
        raise RangeError(f"--compiled: PyTorch's float64 run is checked against the network's strict run by "
                         f"usim, which fails: {error}") from None
    _float64_holds(y, checked.y)
    return y, p.u, size_of(network), checked.dtype


def _float64_holds(y: np.ndarray, checked: np.ndarray) -> None:
    """Refuse PyTorch's float64 T(X) ``y`` unless it holds the values of the
    network's checked run (``checked``, in its own type): no entry of T(X)
    beyond float64's range (an overflow, or a non-zero value below its normal
    range, which float64 holds as 0 or with too few digits), none that PyTorch
    gives as a non-finite, 0 or subnormal value where the checked run's is not 0,
    and every entry within TOLERANCE (relative to the value, from 1 down) of it.

    Args:
        y: T(X) as PyTorch's float64 forward pass computed it.
        checked: T(X) as the strict run of the same network computed it.

    Raises:
        RangeError: one line naming the entry and both values.
    """
    from usim.encodings.digits import significant

    f64 = np.finfo(np.float64)
    magnitude = np.abs(checked)
    beyond = (checked != 0) & ((magnitude < f64.smallest_normal) | (magnitude > f64.max))
    with np.errstate(invalid="ignore"):
        lost = ~np.isfinite(y) | ((checked != 0) & (np.abs(y) < f64.smallest_normal))
        off = np.abs(y - checked) > TOLERANCE * np.maximum(magnitude, 1)

    def entry(mask: np.ndarray) -> str:
        i, j = (int(v) for v in np.argwhere(mask)[0])
        return (f"T(X)[{i}, {j}]: the network's checked run gives {significant(checked[i, j], 7)}, "
                f"PyTorch's float64 run {significant(y[i, j], 7)}")

    if beyond.any():
        raise RangeError(f"--compiled runs the network in PyTorch's float64, which does not hold T(X) here: "
                         f"{entry(beyond)} (beyond float64's range; usim simulate without --compiled runs U "
                         "in long double)")
    if lost.any():
        raise RangeError(f"PyTorch's float64 run of the compiled network loses a value of T(X): {entry(lost)}")
    if off.any():
        raise RangeError(f"PyTorch's float64 run of the compiled network differs from its checked run beyond "
                         f"{TOLERANCE:g}: {entry(off)}")


def reuse_freed_memory() -> None:
    """Ask the C library's allocator to keep freed memory for the next allocation.

    U's numeric run at a model's size makes thousands of arrays of millions of
    positions, each freed after its last reader. By default glibc gives every
    block above 32 MB fresh pages from the kernel and returns them on free, and
    touching fresh pages costs as much as the arithmetic: measured on
    BERT-base's encoder layer, the run took 96 s as it is and 73 s with these
    settings (``docs/scale.md``). Blocks up to 1 GB come from the heap, which
    keeps up to 1 GB free at its top. Nothing changes where the C library is
    not glibc (the call is skipped)."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        mallopt = libc.mallopt if libc is not None else None
    except (OSError, AttributeError):
        return
    if mallopt is None:
        return
    m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3  # glibc's malloc.h
    mallopt(m_mmap_threshold, 1 << 30)
    mallopt(m_trim_threshold, 1 << 30)
    mallopt(m_top_pad, 1 << 26)


def statements_about(layer: LayerSpec) -> tuple[list, bool]:
    """The statements for every size about the layer (:func:`usim.proofs.about_layer`),
    else about the same layer with its heads stacked side by side (its per-head
    blocks, as torch's MultiheadAttention read by ``--torch``, or A_0, ..., A_4 of five
    merged heads), and
    whether they are about the stacked one (``--bound N`` then runs U_N over stacked
    heads on the arrays so rearranged)."""
    from usim.proofs import about_layer

    about = about_layer(layer)
    if about or layer.stacked:
        return about, False
    stacked = about_layer(dataclasses.replace(layer, stacked=True))
    return stacked, bool(stacked)


def widest(layer: LayerSpec) -> int:
    """The least N whose U_N (built for N x N, every width N) holds the layer: its n, d,
    d_k and d_v (the merged form's d_k is d)."""
    return max(layer.n, layer.d, layer.d_k, layer.d_v)


def _at_bound(about: list, layer: LayerSpec, bound: int | None):
    """U_N's specification for --bound N: that of the first statement for every size
    about the layer's form (``about``, :func:`usim.proofs.about_layer`) where U_N, built
    for N x N, holds the layer (N >= :func:`widest`), else None (the layer's parts for
    sequences up to N)."""
    if bound is None or not about or bound < widest(layer):
        return None
    return about[0][1]


def statement_line(layer: LayerSpec, u_spec: LayerSpec, about: list) -> str:
    """Which statement for every size is about the program this command ran, in one
    line: U_N, built for N x N by a family the layer belongs to, is the program of
    such a statement (whose verdict paper_map.md and its certificate give); a U
    built for the layer's own n x d (n != d) is no statement's program, and the line
    names the ``--bound`` that runs U_N instead.

    Args:
        layer: the layer's specification (T).
        u_spec: the specification U was built for.
        about: :func:`usim.proofs.about_layer` of the layer.

    Returns:
        One line.
    """
    size = u_spec.n
    proving = [claim_id for claim_id, spec_of in about if spec_of(size, size) == u_spec]
    if proving:
        # over stacked heads, T's value width (and the users' form's key width) is placed too
        widths = ("n, d, d_k, d_v" if u_spec.form == "projected" else "n, d, d_v") if u_spec.stacked else "n, d"
        return (f"for every size: this U is U_{size}, built for {size} x {size}, the program of the statement "
                f"`usim prove {proving[0]} --all-sizes` (every {widths} <= {size}"
                + (f"; also {', '.join(proving[1:])}" if proving[1:] else "") + "; its verdict: paper_map.md)")
    if about:
        wanted = widest(layer)
        return (f"for every size: this U (built for {u_spec.n} x {u_spec.d}) is no statement's program; "
                f"--bound {wanted} runs U_{wanted}, the program of `usim prove {about[0][0]} --all-sizes`")
    return ("for every size: no statement is about a layer of this form (those of paper_map.md's "
            "'Proofs for every size' are about U_N, built for N x N, of their forms)")


def run(args: argparse.Namespace) -> int:
    from usim.constructions.universal.simulate import (check_limits, heads_side_by_side, run_simulation,
                                                       spec_from_arrays)
    from usim.encodings.digits import significant
    from usim.encodings.numeric import type_name
    from usim.transformer.torch_layers import torch_layer, torch_layer_spec

    options = _torch_options(args)
    reuse_freed_memory()
    if args.compiled:
        if args.bound is not None:
            raise InputError("--compiled runs U compiled for the layer's own sizes: --bound does not apply")
        try:
            import torch  # noqa: F401
        except ImportError:
            raise InputError("--compiled runs U's network as a PyTorch module: pip install usim[torch]") from None
    out = writable(args.out, ".npy") if args.out is not None else None
    save = writable(args.save, ".npz") if args.save is not None else None
    expected = None
    if args.torch:
        spec = torch_layer_spec(args.torch, options["n"], options["d"], options["heads"], options["ff"])
        about, restack = statements_about(spec)
        at_bound = None if args.compiled else _at_bound(about, spec, args.bound)
        check_limits(dataclasses.replace(spec, stacked=True) if restack and at_bound else spec, args.bound,
                     at_bound)  # before PyTorch runs
        expected, arrays = torch_layer(args.torch, **options)
    elif args.params:
        arrays = load_arrays(args.params)
    else:
        raise InputError("give an .npz file of parameters, or --torch mha|encoder")
    code = 0
    layer = spec_from_arrays(arrays)[0]
    about, restack = statements_about(layer)
    as_given = arrays  # what --save writes: the layer's arrays as given
    side_by_side = heads_side_by_side(arrays) if restack else None
    if side_by_side is not None and not args.compiled and _at_bound(about, layer, args.bound):
        arrays, layer = side_by_side, spec_from_arrays(side_by_side)[0]  # run by U_N over stacked heads
    if args.compiled:
        y, u, size, checked_in = _compiled(arrays)
        print(f"U for {spec_text(u.spec)}: sequence length {u.length}; compiled to a network: {size.summary()}; "
              "run by PyTorch (nn.MultiheadAttention with masks), float64")
        print(f"(checked against the network's strict run by usim in {type_name(checked_in)}"
              + ("" if checked_in is np.float64 else ": float64's range was not enough for it") + ")")
        print(statement_line(layer, u.spec, about))
    else:
        result = run_simulation(arrays, args.bound, _at_bound(about, layer, args.bound))
        y, u = result.y, result.u
        per_layer = u.heads_per_layer
        print(f"U for {spec_text(u.spec)}: sequence length {u.length}; {len(per_layer)} attention layer(s), "
              f"{sum(per_layer)} heads, per layer [{', '.join(map(str, per_layer))}] (run family by family)")
        print(statement_line(layer, u.spec, about))
        if result.dtype is not np.float64:
            print(f"(run in {type_name(result.dtype)}: float64's range was not enough)")
    # 6 fixed decimals show an entry below 1e-3 with fewer than 4 significant digits (1.731e-6 as 0.000002)
    small = (y != 0) & (np.abs(y) < 1e-3)
    with np.printoptions(precision=6, suppress=not small.any()):
        print("T(X) =")
        print(y)
    if expected is not None:
        if not np.all(np.isfinite(expected)):
            raise RangeError(f"PyTorch's own {args.torch} output is not finite: nothing to compare with")
        deviation = np.max(np.abs(y - expected))  # in U's type: float64's values are exact in long double
        verdict = "agree" if deviation <= TOLERANCE else "DIFFER"
        print(f"PyTorch {args.torch}: max |U - torch| = {significant(deviation, 3, 'e')} ({verdict}, "
              f"tolerance {TOLERANCE:g})")
        code = 0 if deviation <= TOLERANCE else 1
    if save is not None:
        write_atomically(save, lambda f: np.savez(f, **as_given))
    if out is not None:
        write_atomically(out, lambda f: np.save(f, y))
    return code
