"""The universal simulator U (Theorem 6, Corollary 6.1, Theorem 9, Corollary 9.1): ONE RASP program.

U is given, in one input sequence, the description of an attention layer or
encoder layer T (its parameter matrices) and T's input X, and it outputs T(X)
row-major from position 0 (zeros after). No Python runs between its blocks:
U is one expression graph; every intermediate is placed where the next block
reads it by routing heads (:mod:`usim.constructions.routing`).

Input layout (the paper leaves it open; usim settles it)
-------------------------------------------------------
U is built for bounds: sequence length N, model width D, H heads, per-head
widths D_k, D_v, feed-forward width F, output width D_out. Its input is

    < hdr (1 x 3) = [n, d, c],  X (N x D),  T's matrices in a fixed order >

one block after another, each row-major (entry (i, j) of an r x c block at
offset + i*c + j), then zeros up to U's length L (scratch space for
intermediates; :attr:`Universal.length`). The matrices, per form:

* ``merged`` (the paper's form): per head h, A_h (D x D) the merged query-key
  matrix and V_h (D x D_v); T(X) = concat_h softmax(c X A_h X^T) X V_h, then
  (optional) W_O (H*D_v x D_out) and b_O (1 x D_out).
* ``projected`` (the form users write, torch's MultiheadAttention): per head
  WQ_h, WK_h (D x D_k), WV_h (D x D_v) and, with ``bias``, bQ_h, bK_h (1 x D_k),
  bV_h (1 x D_v); Q = X WQ + 1 bQ etc.; head h = softmax(c Q K^T) V.
  The users' 1/sqrt(d_k) is the scale c read from the header (see below).
* ``encoder``: then W1 (D x F), b1 (1 x F), W2 (F x D), b2 (1 x D) of the
  feed-forward part and, with ``norm``, g1, be1 (1 x D), eps1 (1 x 1), g2, be2,
  eps2 of the two layer norms.

Block names carry the head as a suffix (``A_0``, ``A_1``) when H > 1.

The header and why it is there: the shapes are fixed by U's bounds; a smaller
T (n <= N, d <= D, smaller widths) is given zero-padded to the bounds, and the
header tells U the true n and d. Zero padding is exact for every width except
two places that average over a dimension: the softmax over keys (a padded key
has score 0 and would weigh exp(0) = 1) and the layer norm's mean over the d
features. There U masks with n and d from the header: keys j >= n are left out
of the softmax, query rows i >= n are set to 0, feature columns j >= d are left
out of the layer norm and set to 0, and biases are added on rows i < n only, so
every padded row stays 0 through the whole layer. c is the softmax scale: scores are
c * X A X^T (the paper's form is c = 1; the users' form has c = 1/sqrt(d_k)).
Reading c from the input rather than fixing it in U keeps U universal and lets
the proofs treat c as a real symbol, so they cover c = 1/sqrt(d_k) exactly for
every d_k (no rational approximation of an irrational scale). A header that
U decodes for the shapes themselves (offsets depending on n) would make every
routing head data-dependent; the fixed layout keeps all routing static (decided
by positions alone), which is what lets the proofs scale.

How U computes (the paper's route)
----------------------------------
T is first written as a list of :class:`Step` s over named matrices (for one
merged head: XT = X^T; Y1 = X A; Y2 = Y1 XT; P = softmax(c Y2); Y4 = X V;
O = P Y4). Steps are grouped into stages by dependency depth: stage k holds
every step whose operands are ready after stage k-1, computed side by side.
Each stage reads a *workspace* sequence W_k (a :class:`SequenceLayout`: which
block sits where) and writes W_{k+1}:

    W_{k+1} = route(step results of stage k, W_k)  (one gather head per source)

holding exactly the blocks still needed later (and the header). The blocks:
``transpose_block`` (Lemma 3) and ``matmul_block`` (Lemma 5) read their
operands from W_k at the operands' offsets and write from position 0;
``softmax_block`` (Lemma 4, with the key mask) and the element-wise steps (bias,
residual add, ReLU, layer norm) write in place. U is

    U = stage_m o ... o stage_1,   each stage_k a function of ONE sequence,

so every stage can be proved on its own, on fresh symbols for its workspace
(see :mod:`usim.proofs.theorem6_attention`).

Cost (asserted in tests/test_universal.py): the number of attention layers
depends on which parts T has, never on n, d or the widths; heads per layer grow
with the sizes (a product block has r + c and r*c heads).

No row maximum is subtracted before exp (as in the paper): the numeric
interpretation overflows for scores above about 709.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Callable, Mapping, Sequence

from usim.constructions.base import gather, guarded, inside
from usim.constructions.matmul import matmul_block
from usim.constructions.routing import Part, Piece, fix, route
from usim.constructions.softmax import softmax_block
from usim.constructions.transpose import transpose_block
from usim.encodings.layout import Block, MatrixShape, SequenceLayout
from usim.errors import ShapeError
from usim.rasp.cost import Cost, cost
from usim.rasp.expr import (
    Expr,
    Predicate,
    SOp,
    aggregate,
    indices,
    maximum,
    select,
    sqrt,
    tokens,
    where,
)
from usim.rasp.program import Program, topological_order

HEADER = "hdr"
HDR_N, HDR_D, HDR_SCALE = 0, 1, 2
FORMS = ("merged", "projected")
NEEDS_HEADER = frozenset({"softmax", "unmasked_softmax", "layernorm", "bias", "bias_relu"})  # steps that read n (or d)


# ----------------------------------------------------------------------------
# What T is: the specification and its parameter blocks.

@dataclass(frozen=True)
class Spec:
    """The bounds U is built for and the parts T has.

    ``n``, ``d``: sequence length and model width (X is n x d). ``heads``: H.
    ``d_k``, ``d_v``: per-head query/key and value widths (defaults: d for one
    head, d // H for several; d_k is unused by the merged form). ``out_proj``:
    W_O (and b_O with ``bias``); default: when H > 1. ``d_out``: W_O's columns
    (default d). ``encoder``: add the feed-forward part (width ``d_ff``, default
    d) with ``residual`` connections and post-norm ``norm`` layers, each
    switchable; the attention output must then be d wide.
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

    def __post_init__(self) -> None:
        if self.form not in FORMS:
            raise ShapeError(f"unknown attention form {self.form!r}: use one of {', '.join(FORMS)}")
        for what in ("n", "d", "heads"):
            value = getattr(self, what)
            if not isinstance(value, int) or value < 1:
                raise ShapeError(f"{what} must be a positive whole number, got {value!r}")
        default = self.d if self.heads == 1 else max(1, self.d // self.heads)
        object.__setattr__(self, "d_k", self.d_k or default)
        object.__setattr__(self, "d_v", self.d_v or default)
        if self.out_proj is None:
            object.__setattr__(self, "out_proj", self.heads > 1)
        object.__setattr__(self, "d_out", self.d_out or self.d)
        object.__setattr__(self, "d_ff", self.d_ff or self.d)
        width = self.d_out if self.out_proj else self.heads * self.d_v
        if self.encoder and width != self.d:
            raise ShapeError(
                f"the encoder adds the attention output ({width} wide) to X ({self.d} wide): "
                f"give out_proj with d_out = d, or d_v = d for one head")
        if not self.out_proj and self.d_out != self.d:
            raise ShapeError("d_out is the width of W_O: it needs out_proj")

    @property
    def attention_width(self) -> int:
        return self.d_out if self.out_proj else self.heads * self.d_v

    def head(self, base: str, h: int) -> str:
        return base if self.heads == 1 else f"{base}_{h}"

    def parameter_shapes(self) -> list[tuple[str, tuple[int, int]]]:
        """T's parameter blocks (and X), in input order, at these sizes."""
        n, d, dk, dv = self.n, self.d, self.d_k, self.d_v
        out: list[tuple[str, tuple[int, int]]] = [("X", (n, d))]
        for h in range(self.heads):
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

    def smaller(self, **sizes: int) -> "Spec":
        """The same parts at smaller sizes (for the hierarchy); without W_O, d_out follows d."""
        if not self.out_proj:
            sizes.setdefault("d_out", None)
        return replace(self, **sizes)


# ----------------------------------------------------------------------------
# T as a list of steps over named matrices.

KINDS = ("transpose", "matmul", "softmax", "bias", "bias_relu", "add", "layernorm", "concat")


@dataclass(frozen=True)
class Step:
    """``out = kind(args)``; see :data:`KINDS` and :func:`_compute`."""

    out: str
    kind: str
    args: tuple[str, ...]


def steps_of(spec: Spec) -> list[Step]:
    """The paper's route for T, written as steps (the order is the data flow)."""
    s: list[Step] = []
    heads_out = []
    if spec.form == "merged":
        s.append(Step("XT", "transpose", ("X",)))
    for h in range(spec.heads):
        name = lambda base: spec.head(base, h)  # noqa: E731
        if spec.form == "merged":
            s += [Step(name("Y1"), "matmul", ("X", name("A"))),
                  Step(name("Y2"), "matmul", (name("Y1"), "XT")),
                  Step(name("P"), "softmax", (name("Y2"),)),
                  Step(name("Y4"), "matmul", ("X", name("V"))),
                  Step(name("O"), "matmul", (name("P"), name("Y4")))]
        else:
            q, k, v = name("Q"), name("K"), name("Vp")
            s += [Step(q, "matmul", ("X", name("WQ"))),
                  Step(k, "matmul", ("X", name("WK"))),
                  Step(v, "matmul", ("X", name("WV")))]
            if spec.bias:
                s += [Step(q + "b", "bias", (q, name("bQ"))),
                      Step(k + "b", "bias", (k, name("bK"))),
                      Step(v + "b", "bias", (v, name("bV")))]
                q, k, v = q + "b", k + "b", v + "b"
            s += [Step(name("KT"), "transpose", (k,)),
                  Step(name("S"), "matmul", (q, name("KT"))),
                  Step(name("P"), "softmax", (name("S"),)),
                  Step(name("O"), "matmul", (name("P"), v))]
        heads_out.append(name("O"))
    att = heads_out[0]
    if spec.heads > 1:
        s.append(Step("C", "concat", tuple(heads_out)))
        att = "C"
    if spec.out_proj:
        s.append(Step("Att", "matmul", (att, "WO")))
        att = "Att"
        if spec.bias:
            s.append(Step("Attb", "bias", (att, "bO")))
            att = "Attb"
    if spec.encoder:
        z = att
        if spec.residual:
            s.append(Step("Z1", "add", ("X", z)))
            z = "Z1"
        if spec.norm:
            s.append(Step("N1", "layernorm", (z, "g1", "be1", "eps1")))
            z = "N1"
        s.append(Step("F1", "matmul", (z, "W1")))
        s.append(Step("R", "bias_relu", ("F1", "b1")) if spec.ffn_bias else Step("R", "relu", ("F1",)))
        s.append(Step("F2", "matmul", ("R", "W2")))
        f = "F2"
        if spec.ffn_bias:
            s.append(Step("F2b", "bias", ("F2", "b2")))
            f = "F2b"
        if spec.residual:
            s.append(Step("Z2", "add", (z, f)))
            f = "Z2"
        if spec.norm:
            s.append(Step("N2", "layernorm", (f, "g2", "be2", "eps2")))
            f = "N2"
        att = f
    s.append(Step("Y", "output", (att,)))
    return s


def _shapes(spec: Spec, steps: Sequence[Step]) -> dict[str, tuple[int, int]]:
    shapes = dict(spec.parameter_shapes())
    for st in steps:
        a = [shapes[x] for x in st.args]
        if st.kind == "transpose":
            shapes[st.out] = (a[0][1], a[0][0])
        elif st.kind == "matmul":
            if a[0][1] != a[1][0]:
                raise ShapeError(f"{st.out} = {st.args[0]} {st.args[1]}: {a[0]} times {a[1]}")
            shapes[st.out] = (a[0][0], a[1][1])
        elif st.kind == "concat":
            shapes[st.out] = (a[0][0], sum(x[1] for x in a))
        else:
            shapes[st.out] = a[0]
    return shapes


# ----------------------------------------------------------------------------
# The blocks of a stage, each reading the workspace w.

def _broadcast(w: SOp, position: int, name: str) -> SOp:
    """One head: the value at ``position`` at every position (select key == position)."""
    return gather(w, position).named(name)


def _compute(step: Step, w: SOp, lay: SequenceLayout) -> Part:
    """Step ``step`` on workspace ``w``: a part holding block ``step.out``."""
    L = lay.length
    b = [lay.block(a) for a in step.args]
    p = indices
    kind = step.kind
    if kind == "transpose":
        m = b[0]
        out = transpose_block(w, m.shape.rows, m.shape.cols, offset=m.offset, out_size_guard=True)
        return Part(out, SequenceLayout.of((step.out, (m.shape.cols, m.shape.rows)), length=L), clean=True)
    if kind == "matmul":
        x, y = b
        out = matmul_block(w, x.shape.rows, x.shape.cols, y.shape.cols, a_offset=x.offset, b_offset=y.offset)
        return Part(out, SequenceLayout.of((step.out, (x.shape.rows, y.shape.cols)), length=L), clean=True)
    m = b[0]
    r, c, o = m.shape.rows, m.shape.cols, m.offset
    in_place = _in_place(step.out, m, L)
    hdr = lay.block(HEADER).offset if kind in NEEDS_HEADER else -1
    col = ((p - o) % c).named("col")
    if kind == "softmax":
        # scores c * S; keys j >= n left out (mask); query rows i >= n set to 0
        n = _broadcast(w, hdr + HDR_N, "n")
        scale = _broadcast(w, hdr + HDR_SCALE, "scale")
        key_ok = (col < n).named("key_ok")
        soft = softmax_block(w * scale, r, c, offset=o, guard=True, mask=key_ok)
        row = ((p - o) // c).named("row")
        return Part(where(row < n, soft, 0).named("softmax_rows"), in_place)
    if kind == "unmasked_softmax":  # a deliberately broken variant (no masks), for mutants
        scale = _broadcast(w, hdr + HDR_SCALE, "scale")
        return Part(softmax_block(w * scale, r, c, offset=o, guard=True), in_place)
    if kind in ("bias", "bias_relu"):
        # b[j] added on rows i < n only: padded rows stay 0 (so every later step keeps them 0)
        vec = b[1]
        n = _broadcast(w, hdr + HDR_N, "n")
        row = ((p - o) // c).named("row")
        shifted = gather(w, guarded(vec.offset + col, o, o + r * c)).named("bias_b")
        out = (w + where(row < n, shifted, 0)).named("biased")
        if kind == "bias_relu":
            out = maximum(out, 0).named("relu")
        return Part(out, in_place)
    if kind == "relu":
        return Part(maximum(w, 0).named("relu"), in_place)
    if kind == "add":
        other = b[1]
        shifted = gather(w, guarded(p + (other.offset - o), o, o + r * c)).named("addend")
        return Part((w + shifted).named("sum"), in_place)
    if kind == "layernorm":
        return Part(_layernorm(w, m, b[1], b[2], b[3], hdr), in_place)
    raise ValueError(f"no block for step kind {kind!r}")


def _in_place(name: str, m: Block, length: int) -> SequenceLayout:
    """The layout with block ``name`` where ``m`` is (other positions: unspecified)."""
    return SequenceLayout((Block(name, m.shape, m.offset),), length)


def _layernorm(w: SOp, z: Block, gamma: Block, beta: Block, eps: Block, hdr: int) -> SOp:
    """Post-norm layer norm of each row of Z (r x c) over its first d columns, in place;
    rows i >= n (padding) and columns j >= d give 0.

    With row(p) the row of p inside Z (a distinct negative number outside, so an
    outside query selects only itself), one head select(row, row, ==) averages a
    row: its mean of zm = (Z where col < d, else 0) is (1/c) sum_{j<d} Z[i][j];
    times c/d that is the row mean mu. A second head of the same selector
    averages (Z - mu)^2 over the kept columns: times c/d the (biased) variance.
    y = (Z - mu) / sqrt(var + eps) * gamma + beta on columns j < d of rows i < n,
    0 elsewhere (a padded row has mu = var = 0 and gives 0, not beta).
    sqrt is the element-wise square root (the smt interpretation makes it a
    fresh s with s >= 0 and s*s = var + eps, exact as eps > 0).
    """
    p = indices
    r, c, o = z.shape.rows, z.shape.cols, z.offset
    col = ((p - o) % c).named("col")
    row = where(inside(o, o + r * c), (p - o) // c, -1 - p).named("ln_row")
    d = _broadcast(w, hdr + HDR_D, "d")
    n = _broadcast(w, hdr + HDR_N, "n")
    eps_b = _broadcast(w, eps.offset, "eps")
    g = gather(w, gamma.offset + col).named("gamma")
    be = gather(w, beta.offset + col).named("beta")
    keep = ((col < d) & ((p - o) // c < n)).named("kept_entry")
    same_row = select(row, row, Predicate.EQ).named("same_row")
    kept = where(keep, w, 0).named("kept")
    mean = (aggregate(same_row, kept).named("row_mean_c") * c / d).named("mu")
    dev = where(keep, w - mean, 0).named("dev")
    var = (aggregate(same_row, dev * dev).named("row_var_c") * c / d).named("var")
    s = sqrt(var + eps_b).named("std")
    return where(keep, dev / s * g + be, 0).named("layernorm")


# ----------------------------------------------------------------------------
# Stages and U.

@dataclass(frozen=True, eq=False)
class Stage:
    """Steps computed side by side on workspace ``input``, routed into ``output``.

    ``compute`` and ``route_to`` override, for deliberately broken variants only,
    the steps actually computed and the layout actually routed to (the stage's
    specification, ``steps`` and ``output``, stays the correct one).
    """

    index: int
    steps: tuple[Step, ...]
    input: SequenceLayout
    output: SequenceLayout
    pieces: Mapping[str, tuple[Piece, ...]] = field(default_factory=dict)
    compute: tuple[Step, ...] | None = None
    route_to: SequenceLayout | None = None

    def apply(self, values: SOp) -> SOp:
        parts = []
        before = {node.id for node in topological_order([values])}
        for st in (self.steps if self.compute is None else self.compute):
            part = _compute(st, values, self.input)
            _prefix(part.sop, f"s{self.index}.{st.out}", before)
            parts.append(part)
        parts.append(Part(values, self.input))
        target = self.output if self.route_to is None else self.route_to
        return route(parts, target, self.pieces, name=f"s{self.index}.route")

    def program(self) -> Program:
        return Program.of(f"stage{self.index}", {"W": self.apply(tokens)},
                          f"stage {self.index}: " + "; ".join(_describe(s) for s in self.steps))


def _describe(step: Step) -> str:
    if step.kind == "matmul":
        return f"{step.out} = {step.args[0]} {step.args[1]}"
    return f"{step.out} = {step.kind}({', '.join(step.args)})"


def _prefix(root: SOp, prefix: str, stop: set[int]) -> None:
    """Prefix the names of the nodes a block made (unique names for mutants)."""
    for node in topological_order([root]):
        if node.id not in stop and node.has_name and not node.name.startswith(prefix + "."):
            node.named(f"{prefix}.{node.name}")


@dataclass(frozen=True, eq=False)
class Universal:
    """U for a :class:`Spec`: its stages, layouts and the one program."""

    spec: Spec
    steps: tuple[Step, ...]
    shapes: Mapping[str, tuple[int, int]]
    stages: tuple[Stage, ...]
    input_layout: SequenceLayout
    output_layout: SequenceLayout

    @property
    def length(self) -> int:
        return self.input_layout.length

    @property
    def layouts(self) -> tuple[SequenceLayout, ...]:
        """W_1 (the input), W_2, ..., the output."""
        return (self.input_layout,) + tuple(s.output for s in self.stages)

    def apply(self, values: SOp) -> SOp:
        w = values
        for stage in self.stages:
            w = stage.apply(w)
        return w.named("Y")

    @property
    def program(self) -> Program:
        cached = self.__dict__.get("_program")
        if cached is None:
            cached = Program.of(f"universal_{_tag(self.spec)}", {"Y": self.apply(tokens)},
                                f"U for {_tag(self.spec)}: T(X) from <hdr, X, T's matrices>")
            object.__setattr__(self, "_program", cached)
        return cached

    @property
    def cost(self) -> Cost:
        return cost(self.program)

    def header(self, n: int, d: int) -> dict[int, int]:
        """Positions of the header's n and d, with their values (for :func:`fix`)."""
        o = self.input_layout.block(HEADER).offset
        return {o + HDR_N: n, o + HDR_D: d}


def _tag(spec: Spec) -> str:
    parts = [spec.form, f"n{spec.n}", f"d{spec.d}", f"h{spec.heads}"]
    if spec.form == "projected":
        parts.append(f"dk{spec.d_k}")
    parts.append(f"dv{spec.d_v}")
    if spec.out_proj:
        parts.append(f"o{spec.d_out}")
    if spec.bias:
        parts.append("bias")
    if spec.encoder:
        parts.append(f"enc{spec.d_ff}" + ("" if spec.residual else "-nores")
                     + ("" if spec.norm else "-nonorm") + ("" if spec.ffn_bias else "-nofb"))
    return "_".join(parts)


def build(spec: Spec) -> Universal:
    """Schedule T's steps into stages, lay out every workspace, size the sequence."""
    steps = steps_of(spec)
    shapes = _shapes(spec, steps)
    final = steps[-1]
    steps = steps[:-1]
    level: dict[str, int] = {name: 0 for name, _ in spec.parameter_shapes()}
    level[HEADER] = 0
    needs_header = NEEDS_HEADER
    for st in steps:
        top = max(level[a] for a in st.args)
        level[st.out] = top if st.kind == "concat" else top + 1
    depth = max(level[st.out] for st in steps)
    result = final.args[0]

    # the blocks each stage must leave in its output workspace
    def live_after(k: int) -> list[str]:
        wanted: list[str] = []
        for st in steps:
            if level[st.out] > k:
                for a in st.args:
                    if level[a] <= k and a not in wanted:
                        wanted.append(a)
                if st.kind in needs_header and level[st.out] > k and HEADER not in wanted:
                    wanted.append(HEADER)
        if k == depth:
            return [result]
        return wanted

    def layout_of(names: list[str], length: int | None) -> SequenceLayout:
        # the header first when it is there, then blocks made at offset 0 by this stage
        return SequenceLayout.of(*[(nm, (1, 3) if nm == HEADER else shapes[nm]) for nm in names],
                                 length=length)

    input_names = [HEADER] + [name for name, _ in spec.parameter_shapes()]
    names_per_layout = [input_names]
    for k in range(1, depth + 1):
        live = live_after(k)
        made_at_zero = [st.out for st in steps if level[st.out] == k
                        and st.kind in ("matmul", "transpose") and st.out in live]
        ordered = made_at_zero[:1] + [x for x in live if x not in made_at_zero[:1]]
        names_per_layout.append(ordered)
    length = max(layout_of(names, None).used for names in names_per_layout)
    for st in steps:
        r, c = shapes[st.out]
        length = max(length, r * c)
        if st.kind == "matmul":  # every position p reads A at a_off + i*k + p mod k: in range
            length = max(length, r * shapes[st.args[0]][1])
    layouts = [layout_of(names, length) for names in names_per_layout]
    if layouts[-1].blocks[0].offset != 0:  # pragma: no cover - result is the only block
        raise AssertionError("U's result must sit at position 0")
    stages = []
    for k in range(1, depth + 1):
        mine = tuple(st for st in steps if level[st.out] == k and st.kind != "concat")
        pieces = {}
        for st in steps:
            if st.kind == "concat" and level[st.out] == k:
                col, ps = 0, []
                for a in st.args:
                    ps.append(Piece(a, col=col))
                    col += shapes[a][1]
                pieces[st.out] = tuple(ps)
        stages.append(Stage(k, mine, layouts[k - 1], layouts[k], pieces))
    output = SequenceLayout.of(("Y", shapes[result]), length=length)
    return Universal(spec, tuple(steps), shapes, tuple(stages), layouts[0], output)


# ----------------------------------------------------------------------------
# Placing a smaller T into U's input (the hierarchy; what `usim simulate` does in numpy).

def compact_layout(spec: Spec, length: int) -> SequenceLayout:
    """<scale (1 x 1), X, T's matrices> at T's own sizes, padded to ``length``."""
    return SequenceLayout.of(("scale", (1, 1)), *spec.parameter_shapes(), length=length)


def embed_pieces(u: Universal, small: Spec) -> dict[str, tuple[Piece, ...]]:
    """Where each matrix of ``small`` goes in U's (zero-padded) input blocks.

    Every block is copied to the top-left corner of U's block; W_O's rows are
    per head: rows h*d_v .. of the small W_O go to rows h*D_v .. of U's.
    """
    big = u.spec
    if small.heads != big.heads or small.form != big.form or small.bias != big.bias \
            or small.encoder != big.encoder or small.out_proj != big.out_proj \
            or (small.encoder and (small.residual, small.norm, small.ffn_bias)
                != (big.residual, big.norm, big.ffn_bias)):
        raise ShapeError("a smaller T must have the same parts as U's (form, heads, bias, encoder)")
    for what in ("n", "d", "d_k", "d_v", "d_out", "d_ff"):
        if getattr(small, what) > getattr(big, what):
            raise ShapeError(f"T's {what} = {getattr(small, what)} exceeds U's bound {getattr(big, what)}")
    pieces: dict[str, tuple[Piece, ...]] = {HEADER: (Piece("scale", col=HDR_SCALE),)}
    for name, _ in small.parameter_shapes():
        if name == "WO":
            pieces[name] = tuple(Piece("WO", row=h * big.d_v, src_row=h * small.d_v, rows=small.d_v)
                                 for h in range(small.heads))
        else:
            pieces[name] = (Piece(name),)
    return pieces


def embed(u: Universal, small: Spec, values: SOp) -> SOp:
    """U's input sequence built from the compact layout of ``small`` (header fixed)."""
    layout = compact_layout(small, u.length)
    routed = route([Part(values, layout)], u.input_layout, embed_pieces(u, small), name="embed")
    return fix(routed, u.header(small.n, small.d))


def simulation_program(u: Universal, small: Spec | None = None) -> Program:
    """U applied to the embedding of ``small`` (default: U's own sizes)."""
    small = small or u.spec
    return Program.of(f"{u.program.name}_on_{_tag(small)}", {"Y": u.apply(embed(u, small, tokens))},
                      f"U for {_tag(u.spec)} on T of sizes {_tag(small)}")
