"""A layer's arrays as U's input, and U run on them: what ``usim simulate`` does.

A layer is given by named arrays (the names: ``usim simulate --help``):
:func:`spec_from_arrays` checks them (real, finite numbers; one positive number
for scale and eps; an encoder says which variant it is, and U simulates only a
post-norm ReLU one) and reads the :class:`LayerSpec` from their names and shapes
(:func:`usim.constructions.universal.spec_for`). :func:`run_simulation` builds
U (for the layer's sizes, or for a larger bound: the hierarchy, either for
sequences up to the bound or, given ``at_bound``, U_N of a family the layer
belongs to, built for N x N: what ``usim simulate --bound N`` passes where a
statement for every size is about the layer's form), places the
arrays into U's input by U's own embedding
(:func:`usim.constructions.universal.embed_arrays`) and runs U once in the
strict numeric interpretation: in float64, else in long double, else a
RangeError naming the attention scores. A PyTorch layer's arrays come from
:mod:`usim.transformer.torch_layers` (this module imports no PyTorch).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from usim.constructions.options import MAX_LENGTH, MAX_N
from usim.constructions.universal.schedule import Universal, build
from usim.constructions.universal.embed import embed_arrays
from usim.constructions.universal.spec import LayerSpec, spec_for
from usim.encodings.numeric import NumericInterpretation, type_name
from usim.encodings.evaluate import evaluate
from usim.encodings.families import UnsupportedFamily
from usim.encodings.runners import PRECISIONS, NumericEvaluator, run_evaluator_in_range
from usim.errors import InputError, RangeError, ShapeError

VARIANT = {"activation": ("relu",), "norm": ("post", "none")}  # what U simulates
SCALARS = ("scale", "eps1", "eps2")  # one positive number each


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


def _head_count(a: np.ndarray) -> int:
    """The entry ``heads`` (H heads side by side in WQ, WK, WV): one whole number >= 1."""
    if a.dtype.kind == "b":
        raise InputError(f"heads must be a whole number >= 1, not a truth value ({a.dtype})")
    if a.size != 1:
        raise ShapeError(f"heads must be one number, got an array of shape {tuple(a.shape)}")
    value = float(a.reshape(()))
    if value != int(value) or value < 1:
        raise InputError(f"heads must be a whole number >= 1, got {value:g}")
    return int(value)


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


def spec_from_arrays(arrays: Mapping[str, np.ndarray]) -> tuple[LayerSpec, dict[str, np.ndarray], float]:
    """The layer's spec, its arrays as matrices (by U's block names), and the scale."""
    variant = {k: _variant_entry(k, v) for k, v in arrays.items() if k in VARIANT}
    m = {k: _matrix(k, v) for k, v in arrays.items() if k not in VARIANT}
    if "X" not in m:
        raise InputError("the parameters have no array X (the input, n x d)")
    scalars = {k: _positive_number(k, np.asarray(arrays[k])) for k in SCALARS if k in m}
    heads = _head_count(np.asarray(arrays["heads"])) if m.pop("heads", None) is not None else None
    spec = spec_for({k: a.shape for k, a in m.items()}, norm=encoder_norm(variant, "W1" in m), heads=heads)
    wanted = dict(spec.parameter_shapes())
    scale = scalars.get("scale", 1.0 if spec.form == "merged" else 1.0 / math.sqrt(spec.d_k))
    return spec, {k: m[k] for k in wanted}, scale


def heads_side_by_side(arrays: Mapping[str, np.ndarray]) -> dict[str, np.ndarray] | None:
    """The same layer with its heads stacked side by side, for U over stacked heads: the
    per-head blocks A_0, A_1, ... (merged form) or W_Q0, W_Q1, ... (projected form, and
    W_K, W_V, the biases) placed as A = [A_0 | ... | A_{H-1}], W_Q = [W_Q0 | ... |
    W_Q{H-1}], with the entry ``heads`` = H (one head: its arrays as they are, with
    ``heads`` = 1); None for a layer already stacked or of neither form. An exact
    rearrangement: the layer computes the same function."""
    merged = "A" in arrays or "A_0" in arrays
    if "heads" in arrays or not (merged or "WQ" in arrays or "WQ_0" in arrays):
        return None
    first = "A" if merged else "WQ"
    bases = ("A", "V") if merged else ("WQ", "WK", "WV", "bQ", "bK", "bV")
    count = 1 if first in arrays else sum(1 for k in arrays if k.startswith(first + "_"))
    if merged and count == 1 and np.shape(arrays[first])[-1] != np.shape(arrays.get("X", arrays[first]))[-1]:
        return None  # A wider than d: already side by side
    out = {k: v for k, v in arrays.items() if count == 1 or not any(k.startswith(base + "_") for base in bases)}
    if count > 1:
        for base in bases:
            parts = [arrays.get(f"{base}_{h}") for h in range(count)]
            if any(p is None for p in parts):
                if all(p is None for p in parts):
                    continue
                return None  # a head's block missing: spec_for names it on the layer as given
            out[base] = np.hstack([_matrix(f"{base}_{h}", p) for h, p in enumerate(parts)])
    out["heads"] = np.array([[count]])
    return out


def largest_score(spec: LayerSpec, m: Mapping[str, np.ndarray], scale: float) -> float:
    """max |c q_i . k_j| over every head (numpy, float64; inf beyond its range)."""
    x, top = m["X"], 0.0
    with np.errstate(all="ignore"):
        for h in range(spec.heads):
            def block(base: str) -> np.ndarray:  # head h's block (stacked: its columns of the block)
                width = spec.head_width(base)
                return m[spec.head(base, h)] if width is None else m[base][:, h * width:(h + 1) * width]

            if spec.form == "merged":
                s = x @ block("A") @ x.T
            else:
                q, k = x @ block("WQ"), x @ block("WK")
                if spec.bias:
                    q, k = q + block("bQ"), k + block("bK")
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
    """T(X) as U computed it (an array of the float type the run needed: float64,
    or long double, never rounded to float64), U itself, and that type."""

    y: np.ndarray
    u: Universal
    dtype: type


def check_limits(spec: LayerSpec, bound: int | None,
                 at_bound: Callable[[int, int], LayerSpec] | None = None) -> Universal:
    """U for ``spec``, or for ``bound``, checked against the limits.

    Args:
        spec: the layer's specification.
        bound: None (U for the layer's own sizes), or the bound N U is built for.
        at_bound: U's specification at (N, N) (U_N of a family the layer belongs to,
            :func:`usim.proofs.about_layer`); None: the layer's parts for
            sequences up to N (its other sizes its own).

    Returns:
        U, within the limits.
    """
    big = spec
    if bound is not None:
        if bound < spec.n:
            raise ShapeError(f"the bound {bound} is below the sequence length n = {spec.n}")
        if bound > MAX_N:
            raise ShapeError(f"the bound {bound} exceeds usim simulate's limit of {MAX_N}")
        if at_bound is not None and bound < spec.d:
            raise ShapeError(f"the bound {bound} is below the width d = {spec.d} (U_N is built for N x N)")
        big = spec.smaller(n=bound) if at_bound is None else at_bound(bound, bound)
    u = build(big)
    check_size(u)
    return u


@dataclass(frozen=True)
class Prepared:
    """A layer read and placed into U's input: its LayerSpec, its matrices, the
    scale, U (for the layer or a larger bound) and U's input sequence (1, L)."""

    spec: LayerSpec
    matrices: Mapping[str, np.ndarray]
    scale: float
    u: Universal
    sequence: np.ndarray

    def result(self, y: np.ndarray) -> np.ndarray:
        """T(X) from U's output sequence (L,): the block Y, cut to the layer's sizes."""
        return self.u.output_layout.decode_numeric(np.asarray(y)[None, :])[0][: self.spec.n,
                                                                              : self.spec.output_shape()[1]]

    def _run_u(self, interp: NumericInterpretation, array: np.ndarray) -> Mapping[str, np.ndarray]:
        """U's program on ``array``, its head families evaluated as arrays; head by
        head where a family holds a value that cannot be (never at U's sizes)."""
        try:
            return evaluate(self.u.runnable_program, interp, array, once=True)
        except UnsupportedFamily:
            return evaluate(self.u.program, interp, array, once=True)

    def checked_run(self, evaluator: NumericEvaluator | None = None) -> Simulation:
        """T(X) by one checked numeric run on U's input: float64, else long double,
        else a :class:`RangeError` that gives the largest attention score.

        Args:
            evaluator: what runs (its output ``Y`` is U's): U's program by
                default, its product and row heads evaluated family by family
                (:attr:`Universal.runnable_program`); U compiled to a network,
                its forward pass.

        Returns:
            T(X) in the type the run needed, U, and that type.
        """
        if evaluator is None:
            evaluator = self._run_u
        try:
            outputs, dtype = run_evaluator_in_range(evaluator, self.sequence)
        except RangeError as error:
            raise _out_of_range(error, largest_score(self.spec, self.matrices, self.scale)) from None
        y = self.result(outputs["Y"][0])  # in the type U ran in: a long double keeps its digits and its range
        if not np.all(np.isfinite(y)):
            i, j = (int(v) for v in np.argwhere(~np.isfinite(y))[0])
            raise RangeError(f"T(X) has an entry beyond {type_name(dtype)}'s range at ({i}, {j})")
        return Simulation(y, self.u, dtype)


def prepare(arrays: Mapping[str, np.ndarray], bound: int | None = None,
            at_bound: Callable[[int, int], LayerSpec] | None = None) -> Prepared:
    """The layer's arrays checked, U built within the limits (:func:`check_limits`),
    the arrays embedded."""
    spec, m, scale = spec_from_arrays(arrays)
    u = check_limits(spec, bound, at_bound)
    return Prepared(spec, m, scale, u, embed_arrays(u, spec, m, scale))


def run_simulation(arrays: Mapping[str, np.ndarray], bound: int | None = None,
                   at_bound: Callable[[int, int], LayerSpec] | None = None) -> Simulation:
    """One checked numeric run of U (:func:`check_limits`) on the layer: float64,
    else long double, else a RangeError."""
    return prepare(arrays, bound, at_bound).checked_run()


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


def simulate(arrays: Mapping[str, np.ndarray], bound: int | None = None,
             at_bound: Callable[[int, int], LayerSpec] | None = None) -> tuple[np.ndarray, Universal]:
    """T(X) computed by U (:func:`check_limits`; one checked numeric run of one
    program), and U."""
    result = run_simulation(arrays, bound, at_bound)
    return result.y, result.u
