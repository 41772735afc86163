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
* ``reads``: which fields of U's header the block reads: ``"n"``, ``"d"``,
  ``"scale"`` (what the proofs may leave free: a stage none of whose blocks
  reads n or d is proved once for every header, see
  :mod:`usim.proofs._universal`);
* ``masked``: what the block computes when it reads n or d, given them: its
  *masked meaning* (default: the block reads neither, and computes
  ``meaning``). Written from the formula too: the masked softmax at n is the
  row softmax of the top-left n x n corner of its argument, placed in the
  corner of a zero matrix, and so on (see below);
* ``at_zero``: the block writes its result row-major from position 0 (a
  product, a transpose) rather than in place over its first argument;
* ``routed``: there is no block: routing assembles the result (a concatenation);
* ``term``: what the step composes to in U's wiring
  (:mod:`usim.constructions.universal.terms`; default ``kind(args)``: a
  product is a flattened product chain, a transpose an involution);
* ``notation``: how the step is written after ``out =`` (default
  ``kind(args)``; a product is written ``A B``).

A step may carry sizes of its own (:attr:`Step.sizes`) where its arguments'
shapes do not fix its result: the kinds over H stacked heads (``stack``, the
H side-by-side r x c blocks of its argument stacked; ``diagonal``, the H
diagonal r x c blocks of its argument side by side) take (H, r, c), and their
shape, meaning and notation get them after their usual arguments. With them
and ``stacked_softmax`` (each head's rows masked where (row mod N) >= n) a
route has one list of steps for every H, so H may be a symbol
(:func:`~usim.constructions.universal.route.stacked_heads_route`).

Adding a kind (GELU, pre-norm) is adding an entry here; a route then uses it,
and the schedule, the proofs and the mutants follow. A broken variant replaces
an entry (``{**STEP_KINDS, "softmax": broken}``) in a stage's table.

The masks (why the header): a smaller T is zero-padded into U's blocks, and the
header's n and d make padding exact where a block averages over a dimension:
keys j >= n leave the softmax, rows i >= n are set to 0 by the softmax and get
no bias, columns j >= d leave the layer norm and are set to 0. The masked
meanings say exactly that, for ANY content of the block (the stage proofs run
on fresh symbols at every position, not on padded ones), with [i < n] the
0/1 indicator and corner(M, r, c) the r x c zero matrix with M top-left:

=============== =====================================================================
softmax at n     corner(softmax_rows(S[:n, :n], c), r, c): rows i < n, keys j < n
                 exp(c s_ij) / sum_{l<n} exp(c s_il); every other entry 0
stacked_softmax  S = [S_0; ...; S_{H-1}] (H N x N): rows a with (a mod N) < n, keys
at n             j < n: exp(c s_aj) / sum_{l<n} exp(c s_al); every other entry 0
bias at n        A + [i < n] b: b added on rows i < n only, the other rows as they are
bias_relu at n   max(A + [i < n] b, 0)
layernorm at n,d corner(LN(Z[:n, :d], g[:d], be[:d], eps), r, c): mean and (biased)
                 variance over the first d columns, rows i < n; every other entry 0
=============== =====================================================================

With n and d the block's own sizes each is the kind's ``meaning``. Why a
masked meaning on zero-padded arguments is the zero-padded meaning (the
padding lemma, which makes one U serve every smaller size) is in
:mod:`usim.proofs.hierarchy`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import sympy

from usim.constructions.base import gather, guarded, inside
from usim.constructions.matmul import matmul_block
from usim.constructions.routing import Part, diagonal_blocks, slice_heads
from usim.constructions.softmax import softmax_block, stacked_softmax_block
from usim.constructions.transpose import transpose_block
from usim.constructions.universal.spec import HDR_D, HDR_N, HDR_SCALE, HEADER
from usim.constructions.universal.terms import Term, mm, op, tr
from usim.encodings.layout import Block, SequenceLayout
from usim.errors import ShapeError
from usim.encodings.sized import both, matrix_like, matrix_of, size_value, total, when
from usim.rasp.family import is_symbolic, largest, same_size
from usim.rasp.expr import Predicate, SOp, aggregate, indices, maximum, select, sqrt, where

Shape2 = tuple[int, int]


@dataclass(frozen=True)
class Step:
    """``out = kind(args)`` over named matrices; ``sizes``: the step's own sizes, for a
    kind whose result its arguments' shapes do not fix: (H, r, c) for the kinds over
    H stacked heads' r x c blocks (:func:`stack` and :func:`diagonal`), () for the others."""

    out: str
    kind: str
    args: tuple[str, ...]
    sizes: tuple[Any, ...] = ()

    def describe(self, kinds: Mapping[str, "StepKind"] | None = None) -> str:
        """``out = ...`` as the step's kind writes it.

        Args:
            kinds: the table of step kinds (default :data:`STEP_KINDS`).

        Returns:
            One line, such as ``Y1 = X A`` or ``P = softmax(Y2)``.
        """
        return f"{self.out} = {(STEP_KINDS if kinds is None else kinds)[self.kind].written(self.args, self.sizes)}"


@dataclass(frozen=True)
class StepKind:
    """One kind of step: see the module docstring."""

    name: str
    meaning: Callable[..., sympy.Matrix]  # (args, scale, *the step's sizes)
    block: Callable[[Step, SOp, SequenceLayout], Part] | None
    shape: Callable[..., Shape2] = lambda shapes: shapes[0]  # (the arguments' shapes, *the step's sizes)
    length: Callable[[Sequence[Shape2], Shape2], int] = lambda args, out: out[0] * out[1]
    reads: frozenset[str] = frozenset()
    masked: Callable[..., sympy.Matrix] | None = None  # (args, scale, n, d, *the step's sizes)
    at_zero: bool = False
    routed: bool = False
    term: Callable[..., Term] | None = None
    notation: Callable[..., str] | None = None  # (the arguments' names, *the step's sizes)

    def __post_init__(self) -> None:
        object.__setattr__(self, "reads", frozenset(self.reads))
        unknown = self.reads - set(HEADER_FIELDS)
        if unknown:
            raise ValueError(f"step kind {self.name}: the header has no field {sorted(unknown)[0]!r} "
                             f"(fields: {', '.join(HEADER_FIELDS)})")
        if self.masked is None and self.reads & set(SIZE_FIELDS):
            raise ValueError(f"step kind {self.name} reads {', '.join(sorted(self.reads & set(SIZE_FIELDS)))} "
                             "from the header: give its masked meaning")
        if self.masked is not None and not self.reads & set(SIZE_FIELDS):
            raise ValueError(f"step kind {self.name} has a masked meaning but reads no size (n, d) from the "
                             "header: its stages are proved for every header, against its meaning")

    def composed(self, args: Sequence[Term], sizes: Sequence[Any] = ()) -> Term:
        """The term a step of this kind composes to.

        Args:
            args: its arguments' terms.
            sizes: the step's own sizes (a kind over stacked heads: (H, r, c)), kept in
                its term so that two steps on other sizes compose to different terms
                (a symbolic size by its name).

        Returns:
            The kind's term (its own ``term``, else the kind applied to the arguments).
        """
        if self.term is not None:
            return self.term(*args)
        own = (("sizes", *(str(s) if is_symbolic(s) else s for s in sizes)),) if sizes else ()
        return op(self.name, *args, *own)

    def written(self, args: Sequence[str], sizes: Sequence[Any] = ()) -> str:
        """The step on its arguments (and its own sizes), as written after ``out =``."""
        if self.notation is not None:
            return self.notation(args, *sizes)
        return f"{self.name}({', '.join(args)}{''.join(f', {s!s}' for s in sizes)})"  # a symbol by its name

    def result_shape(self, step: Step, shapes: Sequence[Shape2]) -> Shape2:
        """The shape of the step's result.

        Args:
            step: the step (its own sizes are passed on after the shapes).
            shapes: its arguments' shapes.

        Returns:
            (rows, cols) of its result.
        """
        return self.shape(shapes, *step.sizes)

    def meaning_of(self, step: Step, args: Sequence[sympy.Matrix], scale: sympy.Expr) -> sympy.Matrix:
        """What the step is, from the formula (its unmasked meaning).

        Args:
            step: the step (its own sizes are passed on after the scale).
            args: its arguments' values.
            scale: c, the header's third field.

        Returns:
            The step's result.
        """
        return self.meaning(args, scale, *step.sizes)

    @property
    def reads_header(self) -> bool:
        return bool(self.reads)

    @property
    def reads_sizes(self) -> frozenset[str]:
        """The sizes (n, d) of the header the block reads."""
        return self.reads & frozenset(SIZE_FIELDS)

    def meaning_at(self, args: Sequence[sympy.Matrix], scale: sympy.Expr,
                   n: int | None = None, d: int | None = None, sizes: Sequence[Any] = ()) -> sympy.Matrix:
        """What the block computes on any workspace whose header holds n and d
        (the masked meaning; ``meaning`` for a block that reads neither).

        The masked meaning gets only the sizes the kind declares it reads (the
        others are None, and a masked meaning that needs one raises): the stage
        proofs fix only the declared sizes, so the padding lemma must state the
        same function, or the two would check different meanings."""
        if self.masked is None:
            return self.meaning(args, scale, *sizes)
        for field, value in (("n", n), ("d", d)):
            if field in self.reads and value is None:
                raise ShapeError(f"the step kind {self.name} reads {field} from the header: give its value")
        return self.masked(args, scale, n if "n" in self.reads else None, d if "d" in self.reads else None,
                           *sizes)


HEADER_FIELDS = {"n": HDR_N, "d": HDR_D, "scale": HDR_SCALE}
"""The header's fields, by name, and their positions in it."""
SIZE_FIELDS = {"n": HDR_N, "d": HDR_D}
"""The fields that are sizes: a stage that reads one is proved per value of it."""


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


def stacked_softmax(step: Step, w: SOp, lay: SequenceLayout) -> Part:
    """Lemma 4 on c * S in place, S = [S_0; ...; S_{H-1}] holding H heads' N x N scores
    stacked (H N x N): keys j >= n left out, rows whose (row mod N) >= n set to 0
    (:func:`~usim.constructions.softmax.stacked_softmax_block`, n from the header)."""
    m = lay.block(step.args[0])
    n = header(w, lay, HDR_N, "n")
    scale = header(w, lay, HDR_SCALE, "scale")
    out = stacked_softmax_block(w * scale, m.shape.rows, m.shape.cols, n, offset=m.offset)
    return Part(out, in_place(step.out, m, lay.length))


def stack(step: Step, w: SOp, lay: SequenceLayout) -> Part:
    """The H side-by-side r x c blocks of the argument, [Q_0 | ... | Q_{H-1}], stacked
    as [Q_0; ...; Q_{H-1}] from position 0 by one head
    (:func:`~usim.constructions.routing.slice_heads`; the step's sizes are (H, r, c))."""
    heads, rows, cols = step.sizes
    m = lay.block(step.args[0])
    out = slice_heads(w, rows, cols, heads, offset=m.offset)
    return Part(out, SequenceLayout.of((step.out, (heads * rows, cols)), length=lay.length), clean=True)


def diagonal(step: Step, w: SOp, lay: SequenceLayout) -> Part:
    """The H diagonal r x c blocks of the argument (H r x H c) side by side,
    [Z_00 | ... | Z_{H-1,H-1}], from position 0 by one head
    (:func:`~usim.constructions.routing.diagonal_blocks`; the step's sizes are (H, r, c))."""
    heads, rows, cols = step.sizes
    m = lay.block(step.args[0])
    out = diagonal_blocks(w, rows, cols, heads, offset=m.offset)
    return Part(out, SequenceLayout.of((step.out, (rows, heads * cols)), length=lay.length), clean=True)


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
    """Row softmax of c*s: exp(c s_ij) / sum_l exp(c s_il) (written once for every
    size, :mod:`usim.encodings.sized`)."""
    return matrix_of(s.rows, s.cols, lambda i, j: sympy.exp(c * s[i, j])
                     / total(s.cols, lambda l: sympy.exp(c * s[i, l])))


def _normalized(z: sympy.Matrix, g: sympy.Matrix, b: sympy.Matrix, eps: sympy.Expr, i, j, d) -> sympy.Expr:
    """(z_ij - mu_i) / sqrt(var_i + eps) * g_j + b_j over the first d columns of row i:
    mu_i = (1/d) sum_{l<d} z_il, var_i = (1/d) sum_{l<d} (z_il - mu_i)^2 (biased)."""
    width = size_value(d)
    mu = total(d, lambda l: z[i, l]) / width
    var = total(d, lambda l: (z[i, l] - mu) ** 2) / width
    return (z[i, j] - mu) / sympy.sqrt(var + eps) * g[0, j] + b[0, j]


def layer_norm(z: sympy.Matrix, g: sympy.Matrix, b: sympy.Matrix, eps: sympy.Expr) -> sympy.Matrix:
    """(z_ij - mu_i) / sqrt(var_i + eps) * g_j + b_j, mu and var (biased) over row i."""
    return matrix_of(z.rows, z.cols, lambda i, j: _normalized(z, g, b, eps, i, j, z.cols))


def relu_of(m: sympy.Matrix) -> sympy.Matrix:
    return m.applyfunc(lambda x: sympy.Max(x, 0))


def add_row(m: sympy.Matrix, b: sympy.Matrix) -> sympy.Matrix:
    """M + 1 b: the row vector b added to every row."""
    return matrix_of(m.rows, m.cols, lambda i, j: m[i, j] + b[0, j])


def corner(m: sympy.Matrix, rows: int, cols: int) -> sympy.Matrix:
    """The rows x cols zero matrix with ``m`` in its top-left corner."""
    if m.rows > rows or m.cols > cols:
        raise ShapeError(f"a {m.rows}x{m.cols} matrix does not fit the corner of {rows}x{cols}")
    out = sympy.zeros(rows, cols)
    out[: m.rows, : m.cols] = m
    return out


def _sizes_fit(kind: str, m: sympy.Matrix, **needed: int | None) -> None:
    """Raise unless each size the masked meaning needs is between 1 and the block's
    (n: its rows, d: its columns); a needed size that was not given (its kind does
    not declare it) is None here. Symbolic sizes are not checked here: the
    statement of a family states 1 <= n <= N as its side condition."""
    most = {"n": m.rows, "d": m.cols}
    for field, value in needed.items():
        if value is None:
            raise ShapeError(f"the masked {kind} needs {field} from the header, and its kind does not "
                             f"declare that it reads {field}")
        if is_symbolic(value, most[field]):
            continue
        if not 1 <= value <= most[field]:
            raise ShapeError(f"{kind} at {field} = {value} on a {m.rows}x{m.cols} block: "
                             f"{field} must be between 1 and {most[field]}")


def masked_softmax(a: Sequence[sympy.Matrix], c: sympy.Expr, n: int | None, d: int | None) -> sympy.Matrix:
    """Rows i < n: exp(c s_ij) / sum_{l<n} exp(c s_il) for keys j < n, 0 for j >= n; rows i >= n: 0."""
    s = a[0]
    _sizes_fit("softmax", s, n=n)
    if not is_symbolic(n, s.cols) and n > s.cols:
        raise ShapeError(f"softmax at n = {n} over {s.cols} keys")
    return matrix_of(s.rows, s.cols, lambda i, j: when(
        both(i < n, j < n), lambda: sympy.exp(c * s[i, j]) / total(n, lambda l: sympy.exp(c * s[i, l])),
        lambda: 0))


def masked_stacked_softmax(a: Sequence[sympy.Matrix], c: sympy.Expr, n: int | None, d: int | None) -> sympy.Matrix:
    """Each head's n x n corner's row softmax, in the corner of its zero block (with one
    head, the masked softmax).

    Args:
        a: the step's one argument, S = [S_0; ...; S_{H-1}] (H N x N).
        c: the scale.
        n: the header's n (1 <= n <= N).
        d: not read (None).

    Returns:
        P (H N x N): entry (a, j) is exp(c s_aj) / sum_{l<n} exp(c s_al) where (a mod N) < n
        and j < n, else 0.
    """
    s = a[0]
    _sizes_fit("stacked_softmax", s, n=n)
    if not is_symbolic(n, s.cols) and n > s.cols:
        raise ShapeError(f"stacked_softmax at n = {n} over {s.cols} keys")
    return matrix_of(s.rows, s.cols, lambda i, j: when(
        both(i % s.cols < n, j < n), lambda: sympy.exp(c * s[i, j]) / total(n, lambda l: sympy.exp(c * s[i, l])),
        lambda: 0))


def stack_of(a: Sequence[sympy.Matrix], c: sympy.Expr, heads: int, rows: int, cols: int) -> sympy.Matrix:
    """[Q_0; ...; Q_{H-1}] from Q = [Q_0 | ... | Q_{H-1}] (written once for every size).

    Args:
        a: the step's one argument, Q (r x H c).
        c: the scale (not read).
        heads: H.
        rows: r, each block's rows.
        cols: c, each block's columns.

    Returns:
        T (H r x c): entry (a, b) is Q[a mod r, floor(a / r) c + b].
    """
    q = a[0]
    _stacked_shape("stack")([q.shape], heads, rows, cols)
    return matrix_of(heads * rows, cols, lambda i, j: q[i % rows, (i // rows) * cols + j])


def diagonal_of(a: Sequence[sympy.Matrix], c: sympy.Expr, heads: int, rows: int, cols: int) -> sympy.Matrix:
    """[Z_00 | ... | Z_{H-1,H-1}], the diagonal blocks of Z side by side (written once for every size).

    Args:
        a: the step's one argument, Z (H r x H c).
        c: the scale (not read).
        heads: H.
        rows: r, each block's rows.
        cols: c, each block's columns.

    Returns:
        C (r x H c): entry (i, j) is Z[floor(j / c) r + i, j].
    """
    z = a[0]
    _stacked_shape("diagonal")([z.shape], heads, rows, cols)
    return matrix_of(rows, heads * cols, lambda i, j: z[(j // cols) * rows + i, j])


_STACKED_SHAPES: Mapping[str, Callable[[Any, Any, Any], tuple[Shape2, Shape2]]] = {
    "stack": lambda h, r, c: ((r, h * c), (h * r, c)),
    "diagonal": lambda h, r, c: ((h * r, h * c), (r, h * c)),
}
"""A kind over stacked heads: (H, r, c) -> (its argument's shape, its result's)."""


def _stacked_shape(kind: str) -> Callable[..., Shape2]:
    """The shape rule of a kind over stacked heads: its argument's shape checked against
    the step's sizes (H, r, c), its result's given (:data:`_STACKED_SHAPES`)."""
    def shape(shapes: Sequence[Shape2], heads: Any, rows: Any, cols: Any) -> Shape2:
        (r, c), (want, out) = shapes[0], _STACKED_SHAPES[kind](heads, rows, cols)
        if not (same_size(r, want[0]) and same_size(c, want[1])):
            raise ShapeError(f"{kind} of {heads} blocks of {rows}x{cols} given a {r}x{c} matrix")
        return out
    return shape


def masked_bias(a: Sequence[sympy.Matrix], c: sympy.Expr, n: int | None, d: int | None) -> sympy.Matrix:
    """A + [i < n] b: b added on the first n rows, the other rows as they are."""
    m, b = a
    _sizes_fit("bias", m, n=n)
    return matrix_of(m.rows, m.cols, lambda i, j: when(i < n, lambda: m[i, j] + b[0, j], lambda: m[i, j]))


def masked_bias_relu(a: Sequence[sympy.Matrix], c: sympy.Expr, n: int | None, d: int | None) -> sympy.Matrix:
    """max(A + [i < n] b, 0): the ReLU of the masked bias, case by case."""
    m, b = a
    _sizes_fit("bias_relu", m, n=n)
    return matrix_of(m.rows, m.cols, lambda i, j: when(i < n, lambda: sympy.Max(m[i, j] + b[0, j], 0),
                                                       lambda: sympy.Max(m[i, j], 0)))


def masked_layer_norm(a: Sequence[sympy.Matrix], c: sympy.Expr, n: int | None, d: int | None) -> sympy.Matrix:
    """The layer norm of the top-left n x d corner (gains, biases: their first d), in the
    corner of a zero matrix: entry (i, j) is the layer norm of row i over its first d
    columns where i < n and j < d, else 0 (written once for every size)."""
    z, g, b, eps = a
    _sizes_fit("layernorm", z, n=n, d=d)
    return matrix_of(z.rows, z.cols, lambda i, j: when(
        both(i < n, j < d), lambda: _normalized(z, g, b, eps[0, 0], i, j, d), lambda: 0))


def concatenate(a: Sequence[sympy.Matrix]) -> sympy.Matrix:
    """[A_0 | A_1 | ...]: entry (i, j) is A_h's entry (i, j - w_0 - ... - w_{h-1}) for the h
    with w_0 + ... + w_{h-1} <= j < w_0 + ... + w_h (w_h: A_h's columns); at fixed and
    symbolic widths alike."""
    widths = [m.shape[1] for m in a]
    starts = [sum(widths[:h]) for h in range(len(a))]

    def entry(i, j):
        out = lambda: a[-1][i, j - starts[-1]]  # noqa: E731
        for h in reversed(range(len(a) - 1)):
            out = (lambda h, rest: lambda: when(j < starts[h] + widths[h], lambda: a[h][i, j - starts[h]],
                                                rest))(h, out)
        return out()
    return matrix_like(a[0], a[0].shape[0], sum(widths), entry)


def _product_shape(shapes: Sequence[Shape2]) -> Shape2:
    (r, k), (k2, c) = shapes
    if not same_size(k, k2):
        raise ShapeError(f"a product of {r}x{k} and {k2}x{c}")
    return (r, c)


STEP_KINDS: Mapping[str, StepKind] = {kind.name: kind for kind in (
    StepKind("transpose", lambda a, c: a[0].T, transpose, shape=lambda s: (s[0][1], s[0][0]), at_zero=True,
             term=tr),
    StepKind("matmul", lambda a, c: a[0] * a[1], matmul, shape=_product_shape, at_zero=True,
             length=lambda args, out: largest(out[0] * out[1], out[0] * args[0][1]), term=mm,
             notation=lambda args: f"{args[0]} {args[1]}"),
    StepKind("softmax", lambda a, c: softmax_rows(a[0], c), softmax, reads={"n", "scale"},
             masked=masked_softmax),
    StepKind("bias", lambda a, c: add_row(a[0], a[1]), bias, reads={"n"}, masked=masked_bias),
    StepKind("bias_relu", lambda a, c: relu_of(add_row(a[0], a[1])), bias_relu, reads={"n"},
             masked=masked_bias_relu),
    StepKind("relu", lambda a, c: relu_of(a[0]), relu),
    StepKind("add", lambda a, c: a[0] + a[1], add),
    StepKind("layernorm", lambda a, c: layer_norm(a[0], a[1], a[2], a[3][0, 0]), layernorm, reads={"n", "d"},
             masked=masked_layer_norm),
    StepKind("concat", lambda a, c: concatenate(a), None,
             shape=lambda s: (s[0][0], sum(x[1] for x in s)), routed=True),
    # over H stacked heads (a head count that may be a symbol): the step's sizes are (H, r, c)
    StepKind("stack", stack_of, stack, at_zero=True, shape=_stacked_shape("stack"),
             notation=lambda args, h, r, c: f"stack({args[0]}: {h!s} blocks of {r!s} x {c!s})"),
    StepKind("stacked_softmax", lambda a, c: softmax_rows(a[0], c), stacked_softmax, reads={"n", "scale"},
             masked=masked_stacked_softmax),
    StepKind("diagonal", diagonal_of, diagonal, at_zero=True, shape=_stacked_shape("diagonal"),
             notation=lambda args, h, r, c: f"diagonal({args[0]}: {h!s} blocks of {r!s} x {c!s})"),
)}
