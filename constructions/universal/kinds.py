"""The kinds of step U computes: ONE table, each kind's block, meaning and shape.

A step ``out = kind(args)`` of T's route (:mod:`usim.constructions.universal.route`)
is computed by U as a RASP block reading the stage's workspace sequence. Each
kind in :data:`STEP_KINDS` says, in one place,

* ``block``: the RASP that computes it on the workspace ``w`` (whose layout
  says where each argument sits), returning a :class:`Part`: the sequence and
  where the result sits in it;
* ``meaning``: what it is, in sympy, written from the formula (a product is
  A*B, softmax is exp(c s_ij) / sum_l exp(c s_il), ...): the proofs compare
  the block with it;
* ``shape``: the result's shape from the arguments';
* ``length``: the sequence length the block needs (default: the result's
  size; a product reads row i of A at every position of its layer-1 heads, and
  needs r*k as well);
* ``reads_header``: the block reads n, d or c from U's header;
* ``at_zero``: the block writes its result row-major from position 0 (a
  product, a transpose) rather than in place over its first argument;
* ``routed``: there is no block: routing assembles the result (a concatenation).

Adding a kind (GELU, pre-norm) is adding an entry here; a route then uses it,
and the schedule, the proofs and the mutants follow. A broken variant replaces
an entry (``{**STEP_KINDS, "softmax": broken}``) in a stage's table.

The masks (why the header): a smaller T is zero-padded into U's blocks, and the
header's n and d make padding exact where a block averages over a dimension:
keys j >= n leave the softmax, rows i >= n are set to 0 by the softmax and get
no bias, columns j >= d leave the layer norm and are set to 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import sympy

from usim.constructions.base import gather, guarded, inside
from usim.constructions.matmul import matmul_block
from usim.constructions.routing import Part
from usim.constructions.softmax import softmax_block
from usim.constructions.transpose import transpose_block
from usim.constructions.universal.spec import HDR_D, HDR_N, HDR_SCALE, HEADER
from usim.encodings.layout import Block, SequenceLayout
from usim.errors import ShapeError
from usim.rasp.expr import Predicate, SOp, aggregate, indices, maximum, select, sqrt, where

Shape2 = tuple[int, int]


@dataclass(frozen=True)
class Step:
    """``out = kind(args)`` over named matrices."""

    out: str
    kind: str
    args: tuple[str, ...]

    def describe(self) -> str:
        if self.kind == "matmul":
            return f"{self.out} = {self.args[0]} {self.args[1]}"
        return f"{self.out} = {self.kind}({', '.join(self.args)})"


@dataclass(frozen=True)
class StepKind:
    """One kind of step: see the module docstring."""

    name: str
    meaning: Callable[[Sequence[sympy.Matrix], sympy.Expr], sympy.Matrix]
    block: Callable[[Step, SOp, SequenceLayout], Part] | None
    shape: Callable[[Sequence[Shape2]], Shape2] = lambda shapes: shapes[0]
    length: Callable[[Sequence[Shape2], Shape2], int] = lambda args, out: out[0] * out[1]
    reads_header: bool = False
    at_zero: bool = False
    routed: bool = False


# -- helpers of the blocks -----------------------------------------------------------

def broadcast(w: SOp, position: int, name: str) -> SOp:
    """One head: the value at ``position`` at every position (select key == position)."""
    return gather(w, position).named(name)


def header(w: SOp, lay: SequenceLayout, field: int, name: str) -> SOp:
    return broadcast(w, lay.block(HEADER).offset + field, name)


def in_place(name: str, m: Block, length: int) -> SequenceLayout:
    """The layout with block ``name`` where ``m`` is (other positions: unspecified)."""
    return SequenceLayout((Block(name, m.shape, m.offset),), length)


def _column(m: Block) -> SOp:
    return ((indices - m.offset) % m.shape.cols).named("col")


def _row(m: Block) -> SOp:
    return ((indices - m.offset) // m.shape.cols).named("row")


# -- the blocks ---------------------------------------------------------------------

def transpose(step: Step, w: SOp, lay: SequenceLayout) -> Part:
    """Lemma 3 on the argument's block, written from position 0."""
    m = lay.block(step.args[0])
    out = transpose_block(w, m.shape.rows, m.shape.cols, offset=m.offset, out_size_guard=True)
    return Part(out, SequenceLayout.of((step.out, (m.shape.cols, m.shape.rows)), length=lay.length), clean=True)


def matmul(step: Step, w: SOp, lay: SequenceLayout) -> Part:
    """Lemma 5 on the two arguments' blocks, written from position 0."""
    x, y = (lay.block(a) for a in step.args)
    out = matmul_block(w, x.shape.rows, x.shape.cols, y.shape.cols, a_offset=x.offset, b_offset=y.offset)
    return Part(out, SequenceLayout.of((step.out, (x.shape.rows, y.shape.cols)), length=lay.length), clean=True)


def softmax(step: Step, w: SOp, lay: SequenceLayout) -> Part:
    """Lemma 4 on c * S in place: keys j >= n left out (the mask), rows i >= n set to 0."""
    m = lay.block(step.args[0])
    n = header(w, lay, HDR_N, "n")
    scale = header(w, lay, HDR_SCALE, "scale")
    key_ok = (_column(m) < n).named("key_ok")
    soft = softmax_block(w * scale, m.shape.rows, m.shape.cols, offset=m.offset, guard=True, mask=key_ok)
    return Part(where(_row(m) < n, soft, 0).named("softmax_rows"), in_place(step.out, m, lay.length))


def _biased(step: Step, w: SOp, lay: SequenceLayout) -> SOp:
    """b[j] added on rows i < n only: padded rows stay 0 (so every later step keeps them 0)."""
    m, vec = lay.block(step.args[0]), lay.block(step.args[1])
    n = header(w, lay, HDR_N, "n")
    shifted = gather(w, guarded(vec.offset + _column(m), m.offset, m.end)).named("bias_b")
    return (w + where(_row(m) < n, shifted, 0)).named("biased")


def bias(step: Step, w: SOp, lay: SequenceLayout) -> Part:
    return Part(_biased(step, w, lay), in_place(step.out, lay.block(step.args[0]), lay.length))


def bias_relu(step: Step, w: SOp, lay: SequenceLayout) -> Part:
    out = maximum(_biased(step, w, lay), 0).named("relu")
    return Part(out, in_place(step.out, lay.block(step.args[0]), lay.length))


def relu(step: Step, w: SOp, lay: SequenceLayout) -> Part:
    return Part(maximum(w, 0).named("relu"), in_place(step.out, lay.block(step.args[0]), lay.length))


def add(step: Step, w: SOp, lay: SequenceLayout) -> Part:
    """The second argument's block moved onto the first's by one head, and added."""
    m, other = (lay.block(a) for a in step.args)
    shifted = gather(w, guarded(indices + (other.offset - m.offset), m.offset, m.end)).named("addend")
    return Part((w + shifted).named("sum"), in_place(step.out, m, lay.length))


def layernorm(step: Step, w: SOp, lay: SequenceLayout) -> Part:
    """Post-norm layer norm of each row of Z (r x c) over its first d columns, in place;
    rows i >= n (padding) and columns j >= d give 0.

    With row(p) the row of p inside Z (a distinct negative number outside, so an
    outside query selects only itself), one head select(row, row, ==) averages a
    row: its mean of zm = (Z where col < d, else 0) is (1/c) sum_{j<d} Z[i][j];
    times c/d that is the row mean mu. A second head of the same selector
    averages (Z - mu)^2 over the kept columns: times c/d the (biased) variance.
    y = (Z - mu) / sqrt(var + eps) * gamma + beta on columns j < d of rows i < n,
    0 elsewhere (a padded row has mu = var = 0 and gives 0, not beta).
    sqrt is the element-wise square root (defined: var + eps > 0 as eps > 0).
    """
    z, gamma, beta, eps = (lay.block(a) for a in step.args)
    p = indices
    r, c, o = z.shape.rows, z.shape.cols, z.offset
    col = _column(z)
    row = where(inside(o, o + r * c), (p - o) // c, -1 - p).named("ln_row")
    d = header(w, lay, HDR_D, "d")
    n = header(w, lay, HDR_N, "n")
    eps_b = broadcast(w, eps.offset, "eps")
    g = gather(w, gamma.offset + col).named("gamma")
    be = gather(w, beta.offset + col).named("beta")
    keep = ((col < d) & ((p - o) // c < n)).named("kept_entry")
    same_row = select(row, row, Predicate.EQ).named("same_row")
    kept = where(keep, w, 0).named("kept")
    mean = (aggregate(same_row, kept).named("row_mean_c") * c / d).named("mu")
    dev = where(keep, w - mean, 0).named("dev")
    var = (aggregate(same_row, dev * dev).named("row_var_c") * c / d).named("var")
    s = sqrt(var + eps_b).named("std")
    return Part(where(keep, dev / s * g + be, 0).named("layernorm"), in_place(step.out, z, lay.length))


# -- the meanings, written from the formulas ---------------------------------------------

def softmax_rows(s: sympy.Matrix, c: sympy.Expr = 1) -> sympy.Matrix:
    """Row softmax of c*s: exp(c s_ij) / sum_l exp(c s_il)."""
    rows = []
    for i in range(s.rows):
        e = [sympy.exp(c * s[i, j]) for j in range(s.cols)]
        total = sympy.Add(*e)
        rows.append([x / total for x in e])
    return sympy.Matrix(rows)


def layer_norm(z: sympy.Matrix, g: sympy.Matrix, b: sympy.Matrix, eps: sympy.Expr) -> sympy.Matrix:
    """(z_ij - mu_i) / sqrt(var_i + eps) * g_j + b_j, mu and var (biased) over row i."""
    out = []
    for i in range(z.rows):
        row = [z[i, j] for j in range(z.cols)]
        mu = sympy.Add(*row) / len(row)
        var = sympy.Add(*[(x - mu) ** 2 for x in row]) / len(row)
        out.append([(row[j] - mu) / sympy.sqrt(var + eps) * g[0, j] + b[0, j] for j in range(len(row))])
    return sympy.Matrix(out)


def relu_of(m: sympy.Matrix) -> sympy.Matrix:
    return m.applyfunc(lambda x: sympy.Max(x, 0))


def add_row(m: sympy.Matrix, b: sympy.Matrix) -> sympy.Matrix:
    """M + 1 b: the row vector b added to every row."""
    return m + sympy.ones(m.rows, 1) * b


def _product_shape(shapes: Sequence[Shape2]) -> Shape2:
    (r, k), (k2, c) = shapes
    if k != k2:
        raise ShapeError(f"a product of {r}x{k} and {k2}x{c}")
    return (r, c)


STEP_KINDS: Mapping[str, StepKind] = {kind.name: kind for kind in (
    StepKind("transpose", lambda a, c: a[0].T, transpose, shape=lambda s: (s[0][1], s[0][0]), at_zero=True),
    StepKind("matmul", lambda a, c: a[0] * a[1], matmul, shape=_product_shape, at_zero=True,
             length=lambda args, out: max(out[0] * out[1], out[0] * args[0][1])),
    StepKind("softmax", lambda a, c: softmax_rows(a[0], c), softmax, reads_header=True),
    StepKind("bias", lambda a, c: add_row(a[0], a[1]), bias, reads_header=True),
    StepKind("bias_relu", lambda a, c: relu_of(add_row(a[0], a[1])), bias_relu, reads_header=True),
    StepKind("relu", lambda a, c: relu_of(a[0]), relu),
    StepKind("add", lambda a, c: a[0] + a[1], add),
    StepKind("layernorm", lambda a, c: layer_norm(a[0], a[1], a[2], a[3][0, 0]), layernorm, reads_header=True),
    StepKind("concat", lambda a, c: sympy.Matrix.hstack(*a), None,
             shape=lambda s: (s[0][0], sum(x[1] for x in s)), routed=True),
)}
