"""What T is: the bounds U is built for, the parts T has, its parameter blocks.

The input of U is ``< hdr (1 x 3) = [n, d, c], X (N x D), T's matrices >`` in
the order :meth:`LayerSpec.parameter_shapes` gives, each block row-major, then zeros
up to U's length (see :mod:`usim.constructions.universal`). :func:`spec_for`
reads a LayerSpec back from the names and shapes of a layer's matrices (what
``usim simulate`` is given).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

from usim.encodings.notation import shape_label
from usim.errors import InputError, ShapeError
from usim.rasp.family import is_symbolic, same_size

HEADER = "hdr"
HDR_N, HDR_D, HDR_SCALE = 0, 1, 2
FORMS = ("merged", "projected")


@dataclass(frozen=True)
class LayerSpec:
    """The bounds U is built for and the parts T has: the spec of the layer U
    simulates (not a listing's specification, :mod:`usim.listings`).

    ``n``, ``d``: sequence length and model width (X is n x d). ``heads``: H.
    ``d_k``, ``d_v``: per-head query/key and value widths (defaults: d for one
    head, d // H for several; the merged form's d_k is d, its A_h being d x d:
    nothing reads it, and one default makes a layer read from its arrays equal
    to the same layer stated by its sizes). ``out_proj``:
    W_O (and b_O with ``bias``); default: when H > 1. ``d_out``: W_O's columns
    (default d). ``encoder``: add the feed-forward part (width ``d_ff``, default
    d) with ``residual`` connections and post-norm ``norm`` layers, each
    switchable; the attention output must then be d wide. ``stacked``: T's heads side
    by side in one block each, A = [A_0 | ... | A_{H-1}] (d x H d) and
    V = [V_0 | ... | V_{H-1}] (d x H d_v) in the merged form, W_Q = [W_Q0 | ... |
    W_Q{H-1}] (d x H d_k), W_K, W_V (d x H d_v) and their biases likewise in the
    projected form (torch's in_proj, transposed), and U's route over the heads stacked
    (:func:`~usim.constructions.universal.route.stacked_heads_route`,
    :func:`~usim.constructions.universal.route.stacked_projected_route`): one list of
    steps for every H, so ``heads`` may be a symbol (give d_v, out_proj and, for
    the projected form, d_k with a symbolic H).
    """

    n: int
    d: int
    heads: int = 1
    form: str = "merged"
    d_k: int | None = None
    d_v: int | None = None
    bias: bool = False
    out_proj: bool | None = None
    d_out: int | None = None
    encoder: bool = False
    d_ff: int | None = None
    residual: bool = True
    norm: bool = True
    ffn_bias: bool = True
    stacked: bool = False

    def __post_init__(self) -> None:
        if self.form not in FORMS:
            raise ShapeError(f"unknown attention form {self.form!r}: use one of {', '.join(FORMS)}")
        for what in ("n", "d", "heads"):
            value = getattr(self, what)
            if is_symbolic(value) and (what != "heads" or self.stacked):
                continue  # a size of the family of U (usim.rasp.family): at least 1 by its statement
            if is_symbolic(value):
                raise ShapeError("a symbolic head count needs the heads stacked (stacked=True): the route "
                                 "with one list of steps per head has a list per H")
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ShapeError(f"{what} must be a positive whole number, got {value!r}")
        if is_symbolic(self.heads) and (self.d_v is None or self.out_proj is None):
            raise ShapeError("a symbolic head count: give d_v and out_proj")
        if not is_symbolic(self.heads) and self.heads == 1:
            default = self.d
        elif is_symbolic(self.d, self.heads):  # d // H is no size of the family: the widths are given
            if self.d_v is None or (self.form == "projected" and self.d_k is None):
                raise ShapeError("several heads over a symbolic width: give d_k and d_v")
            default = self.d  # the merged form's d_k, which nothing reads
        else:
            default = max(1, self.d // self.heads)
        key_width = self.d if self.form == "merged" else default
        for what, fallback in (("d_k", key_width), ("d_v", default), ("d_out", self.d), ("d_ff", self.d)):
            if getattr(self, what) is None or (not is_symbolic(getattr(self, what)) and not getattr(self, what)):
                object.__setattr__(self, what, fallback)
        if self.out_proj is None:
            object.__setattr__(self, "out_proj", self.heads > 1)  # H is an integer here (checked above)
        width = self.d_out if self.out_proj else self.heads * self.d_v
        if self.encoder and not same_size(width, self.d):
            raise ShapeError(
                f"the encoder adds the attention output ({width} wide) to X ({self.d} wide): "
                f"give out_proj with d_out = d, or d_v = d for one head")
        if not self.out_proj and not same_size(self.d_out, self.d):
            raise ShapeError("d_out is the width of W_O: it needs out_proj")

    @property
    def attention_width(self) -> int:
        return self.d_out if self.out_proj else self.heads * self.d_v

    def head_width(self, base: str) -> int | None:
        """The columns of one head in T's block ``base`` when the heads are stacked side
        by side in it (A: d; W_Q, W_K, b_Q, b_K: d_k; V, W_V, b_V: d_v), else None."""
        if not self.stacked:
            return None
        return {"A": self.d, "V": self.d_v, "WQ": self.d_k, "WK": self.d_k, "bQ": self.d_k, "bK": self.d_k,
                "WV": self.d_v, "bV": self.d_v}.get(base)

    def head(self, base: str, h: int) -> str:
        """Head h's block named ``base`` (``A``, ``V_1``, ...).

        Raises:
            ShapeError: the heads are stacked: A and V each hold every head, and no block
                is head h's alone.
        """
        if self.stacked:
            raise ShapeError(f"with the heads stacked, {base} holds every head: no block is head {h}'s alone")
        return base if self.heads == 1 else f"{base}_{h}"

    def parameter_shapes(self) -> list[tuple[str, tuple[int, int]]]:
        """T's parameter blocks (and X), in input order, at these sizes."""
        n, d, dk, dv = self.n, self.d, self.d_k, self.d_v
        out: list[tuple[str, tuple[int, int]]] = [("X", (n, d))]
        if self.stacked and self.form == "merged":  # [A_0 | ... | A_{H-1}], [V_0 | ... | V_{H-1}]
            out += [("A", (d, self.heads * d)), ("V", (d, self.heads * dv))]
        elif self.stacked:  # [W_Q0 | ... | W_Q{H-1}], ... and the biases likewise
            h = self.heads
            out += [("WQ", (d, h * dk)), ("WK", (d, h * dk)), ("WV", (d, h * dv))]
            if self.bias:
                out += [("bQ", (1, h * dk)), ("bK", (1, h * dk)), ("bV", (1, h * dv))]
        for h in (() if self.stacked else range(self.heads)):
            if self.form == "merged":
                out += [(self.head("A", h), (d, d)), (self.head("V", h), (d, dv))]
            else:
                out += [(self.head("WQ", h), (d, dk)), (self.head("WK", h), (d, dk)),
                        (self.head("WV", h), (d, dv))]
                if self.bias:
                    out += [(self.head("bQ", h), (1, dk)), (self.head("bK", h), (1, dk)),
                            (self.head("bV", h), (1, dv))]
        if self.out_proj:
            out.append(("WO", (self.heads * dv, self.d_out)))
            if self.bias:
                out.append(("bO", (1, self.d_out)))
        if self.encoder:
            out += [("W1", (d, self.d_ff))]
            if self.ffn_bias:
                out += [("b1", (1, self.d_ff))]
            out += [("W2", (self.d_ff, d))]
            if self.ffn_bias:
                out += [("b2", (1, d))]
            if self.norm:
                out += [("g1", (1, d)), ("be1", (1, d)), ("eps1", (1, 1)),
                        ("g2", (1, d)), ("be2", (1, d)), ("eps2", (1, 1))]
        return out

    def output_shape(self) -> tuple[int, int]:
        return (self.n, self.d if self.encoder else self.attention_width)

    def smaller(self, **sizes: int) -> "LayerSpec":
        """The same parts at smaller sizes (for the hierarchy); without W_O, d_out follows d."""
        if not self.out_proj:
            sizes.setdefault("d_out", None)
        return replace(self, **sizes)

    @property
    def tag(self) -> str:
        """A short name of the parts and sizes, e.g. ``merged_n2_d2_h1_dv2``."""
        parts = [self.form, f"n{self.n}", f"d{self.d}", f"h{self.heads}"]
        if self.form == "projected":
            parts.append(f"dk{self.d_k}")
        parts.append(f"dv{self.d_v}")
        if self.out_proj:
            parts.append(f"o{self.d_out}")
        if self.bias:
            parts.append("bias")
        if self.stacked:
            parts.append("stacked")
        if self.encoder:
            parts.append(f"enc{self.d_ff}" + ("" if self.residual else "-nores")
                         + ("" if self.norm else "-nonorm") + ("" if self.ffn_bias else "-nofb"))
        return "_".join(parts)


def spec_for(shapes: Mapping[str, tuple[int, int]], norm: bool | None = None, heads: int | None = None) -> LayerSpec:
    """The LayerSpec of a layer given by the names and shapes of its matrices (X and
    T's blocks as :meth:`LayerSpec.parameter_shapes` names them; ``scale`` may be
    among them and is ignored). ``norm`` says whether an encoder has its layer
    norms (default: where g1 is given). Every block the LayerSpec needs must be there
    with its shape, and nothing else: each mistake is one line naming the block.
    An A of H d columns (H >= 2) with W_O is H merged heads stacked, A = [A_0 | ... |
    A_{H-1}] and V likewise (U over stacked heads, one list of steps for every H).
    ``heads`` (the file's entry ``heads``) with the projected form's WQ, WK, WV
    unsuffixed: H heads stacked side by side in them, W_Q = [W_Q0 | ... | W_Q{H-1}]
    (torch's in_proj, transposed), d_k and d_v their widths over H; with the merged
    form it must be the head count the arrays' names or A's width give (A of width d
    with W_O and heads = 1: one head, stacked)."""
    if "X" not in shapes:
        raise InputError("the parameters have no array X (the input, n x d)")
    n, d = shapes["X"]
    merged = "A" in shapes or "A_0" in shapes
    projected = "WQ" in shapes or "WQ_0" in shapes
    if merged == projected:
        raise InputError("give either A and V (merged form) or WQ, WK, WV (projected form)")
    first = "A" if merged else "WQ"
    named = 1 if first in shapes else sum(1 for k in shapes if k.startswith(first + "_"))
    head = (lambda b, h: b) if named == 1 else (lambda b, h: f"{b}_{h}")  # noqa: E731
    stacked = merged and "A" in shapes and shapes["A"][1] > d and shapes["A"][1] % d == 0 and "WO" in shapes
    count = named
    if heads is not None and first not in shapes:
        raise InputError(f"heads = {heads} says the heads are side by side in {first}, but the arrays are given "
                         f"head by head ({first}_0, ...): leave heads out")
    if stacked:  # A = [A_0 | ... | A_{H-1}] (d x H d), V = [V_0 | ... | V_{H-1}]: H heads stacked
        count = shapes["A"][1] // d
        if "V" not in shapes or shapes["V"][1] % count:
            raise ShapeError(f"A holds {count} heads side by side (d x {count} d): V must hold {count} heads' "
                             f"values side by side too, got {shape_label(shapes['V']) if 'V' in shapes else 'none'}")
    elif heads is not None and merged and "A" in shapes and "WO" in shapes and shapes["A"][1] == d:
        stacked = True  # one merged head, given as stacked by the entry heads
    elif heads is not None and not merged and "WQ" in shapes:  # W_Q = [W_Q0 | ... | W_Q{H-1}]: H heads stacked
        stacked, count = True, heads
        for name in ("WQ", "WK", "WV"):
            if name in shapes and shapes[name][1] % heads:
                raise ShapeError(f"the array {name} has {shapes[name][1]} columns: heads = {heads} side by side "
                                 f"need a multiple of {heads}")
    if heads is not None and heads != count:
        raise ShapeError(f"heads = {heads}, but the arrays hold {count} head(s)")
    heads = count
    try:
        if merged:
            d_k = d
            d_v = shapes[head("V", 0)][1] // (heads if stacked else 1)
        else:
            d_k = shapes[head("WQ", 0)][1] // (heads if stacked else 1)
            d_v = shapes[head("WV", 0)][1] // (heads if stacked else 1)
    except KeyError as missing:
        raise InputError(f"the parameters have no array {missing.args[0]}") from None
    kw: dict = dict(n=n, d=d, heads=heads, form="merged" if merged else "projected", d_k=d_k, d_v=d_v,
                    bias="bQ" in shapes or "bQ_0" in shapes, out_proj="WO" in shapes, stacked=stacked)
    if "WO" in shapes:
        kw["d_out"] = shapes["WO"][1]
    if "W1" in shapes:
        kw.update(encoder=True, d_ff=shapes["W1"][1], residual=True,
                  norm="g1" in shapes if norm is None else norm, ffn_bias="b1" in shapes)
    spec = LayerSpec(**kw)
    wanted = dict(spec.parameter_shapes())
    extra = sorted(set(shapes) - set(wanted) - {"scale"})
    if extra:
        raise InputError(f"unexpected array {extra[0]!r} for this layer (expected: {', '.join(wanted)})")
    for name, shape in wanted.items():
        if name not in shapes:
            raise InputError(f"the parameters have no array {name} ({shape_label(shape)})")
        if tuple(shapes[name]) != shape:
            raise ShapeError(f"the array {name} has shape {shape_label(shapes[name])}, this layer needs {shape_label(shape)}")
    return spec
