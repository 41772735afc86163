"""Soft attention from average-hard attention: what holds, what breaks, the fix.

**What usim proves.** Every aggregate of the paper's blocks (transpose, product,
softmax) is an average-hard head with 0/1 scores: its selector is a boolean
combination of ``select`` comparisons, so each query gives score 1 to the keys
it selects and 0 to the rest, and the head outputs the mean of the values over
the keys of maximal score. Everything else is element-wise (exp, products,
division). So a softmax attention layer softmax(Q K^T) V is computed by an
average-hard-attention transformer (AHAT) whose softmax is *exact*, computed
by element-wise exp and division, never by attention weights. The claim
``soft_from_hard`` proves this for the program :func:`attention_program` built
from the corrected blocks below, under AHAT semantics (``Semantics.AHAT`` on
every aggregate), for every n, d, d_v up to the bound.

**Where the published blocks rely on RASP.** AHAT and RASP agree on a query
that selects at least one key. On a query that selects nothing, RASP gives the
default 0 while AHAT (all scores tied at 0) averages *every* position. The
published blocks use empty rows as zeros in three places:

* the softmax block (Lemma 4): head b selects only at the queries of row b; at
  every other query it is empty, and the sum of the r heads is meant to be that
  query's own row sum. Under AHAT each of the r - 1 other heads adds the mean of
  exp over the whole sequence: wrong for r >= 2 (refuted, ``softmax_published_ahat``);
* the product block (Lemma 5), layer 2: head (i, j) selects only at the query
  i*c + j; under AHAT every other query adds the mean of the product sequence,
  and positions past r*c are no longer 0 (refuted, ``matmul_published_ahat``);
* gathers with source -1 (``base.guarded``, the transpose block's
  ``out_size_guard``): under AHAT a padding position gets the mean of all values
  instead of 0.

The standalone transpose (Lemma 3) has no empty row (every source is in range)
and is correct under both semantics.

**The corrected blocks (AHAT_BLOCKS).** No selector ever has an empty row, so
RASP and AHAT give the same result on them (:func:`empty_rows` checks it per
length), and the zeros come from element-wise masks instead:

* softmax: ONE head, select(row, row, ==): a query of row b selects the c keys
  of row b (itself included, never empty); mean times c is its row sum. Width 1
  instead of r.
* product, layer 2: head (i, j) selects the keys 0..k-1 at *every* query (never
  empty since k >= 1); its value is (AB)[i][j] / k everywhere, and the
  element-wise map k * sum_ij where(p == i*c + j, head_ij, 0) keeps it at i*c + j.
* a gather with an invalid source reads a valid one instead (position 0, or the
  block's first entry) and the result is masked: where(valid, gathered, 0).

Same layers and heads as the published blocks (the softmax needs fewer).
"""

from __future__ import annotations

from dataclasses import dataclass

from usim.constructions.base import Construction, gather, inside, pair
from usim.constructions.matmul import matmul_block, matmul_program
from usim.constructions.softmax import softmax_block, softmax_program
from usim.constructions.transpose import transpose_block
from usim.encodings.evaluate import plan_for
from usim.encodings.layout import SequenceLayout
from usim.encodings.selection import StaticSelection
from usim.rasp.expr import (
    Aggregate,
    Expr,
    Predicate,
    SOp,
    Select,
    Selector,
    Semantics,
    aggregate,
    constant,
    exp,
    indices,
    select,
    tokens,
    where,
)
from usim.rasp.program import Program
from usim.rasp.rewrite import clone_with


# ----------------------------------------------------------------------------
# Semantics of a whole program.


def with_semantics(program: Program, semantics: Semantics, name: str | None = None) -> Program:
    """``program`` with every aggregate's empty-row rule set to ``semantics``.

    Args:
        program: the program to rebuild (left unchanged).
        semantics: the empty-row rule every aggregate gets (RASP: default 0;
            AHAT: the mean over all positions).
        name: the new program's name; None: ``program``'s name and the
            semantics (``softmax_r2_ahat``).

    Returns:
        The program with the same outputs, node names and description, its
        aggregates under ``semantics``.
    """
    rebuilt: dict[int, Expr] = {}
    for node in program.nodes():
        children = tuple(rebuilt[c.id] for c in node.children())
        changed = any(a is not b for a, b in zip(children, node.children()))
        new = clone_with(node, children) if changed else node
        if isinstance(node, Aggregate) and node.semantics is not semantics:
            new = Aggregate(children[0], children[1], node.default, semantics, node.single)
            if node.has_name:
                new.named(node.name)
        rebuilt[node.id] = new
    outputs = {key: rebuilt[sop.id] for key, sop in program.outputs}
    return Program.of(name or f"{program.name}_{semantics.value}", outputs, program.description)


def aggregates(program: Program) -> list[Aggregate]:
    """The heads of ``program``.

    Args:
        program: a RASP program.

    Returns:
        Its aggregate nodes, in the order of :meth:`Program.nodes`.
    """
    return [node for node in program.nodes() if isinstance(node, Aggregate)]


def is_average_hard(program: Program) -> bool:
    """Every aggregate is an AHAT head whose selector is built from ``select`` (0/1 scores).

    Args:
        program: a RASP program.

    Returns:
        True when every head of ``program`` is average-hard.

    >>> from usim.constructions.softmax import softmax_program
    >>> is_average_hard(softmax_program(2)), is_average_hard(softmax_ahat_program(2, 2, corrected=True))
    (False, True)
    """

    def zero_one(selector: Selector) -> bool:
        return isinstance(selector, Select) or all(
            isinstance(c, Selector) and zero_one(c) for c in selector.children())

    return all(a.semantics is Semantics.AHAT and zero_one(a.selector) for a in aggregates(program))


def empty_rows(program: Program, n: int) -> dict[str, list[int]]:
    """For each aggregate whose selector is index-only: the queries selecting nothing at length n.

    An aggregate with no empty row means the same under RASP and AHAT. A selector
    that depends on the tokens is reported under its name with the list [-1]
    (not decided here).

    Args:
        program: a RASP program.
        n: the sequence length.

    Returns:
        Head name -> the queries where it selects nothing (heads with none are
        left out).

    Lemma 4's head b selects nothing at the queries outside row b:

    >>> from usim.constructions.softmax import softmax_program
    >>> empty_rows(softmax_program(2), 4)
    {'row_mean0': [2, 3], 'row_mean1': [0, 1]}
    """
    roots = tuple(sop for _, sop in program.outputs)
    plan = plan_for(roots, n)
    found: dict[str, list[int]] = {}
    for node in aggregates(program):
        selection = plan.selection(node.selector)
        if selection is None:
            found[node.name] = [-1]
            continue
        empty = [int(q) for q in (selection.counts == 0).nonzero()[0]] if isinstance(
            selection, StaticSelection) else []
        if empty:
            found[node.name] = empty
    return found


# ----------------------------------------------------------------------------
# Blocks: the published ones (RASP) and the corrected ones (any semantics).


@dataclass(frozen=True)
class Blocks:
    """The routing and arithmetic blocks a bigger program is built from.

    ``corrected`` False: the published blocks (they need RASP's empty rows).
    ``corrected`` True: blocks with no empty row, masked element-wise; every
    aggregate gets ``semantics``.
    """

    corrected: bool
    semantics: Semantics = Semantics.RASP

    def gather(self, values: SOp, source: SOp | int, valid: SOp | None = None) -> SOp:
        """values[source] where ``valid`` (default: everywhere), else 0."""
        if valid is None:
            return aggregate(select(indices, source, Predicate.EQ), values, semantics=self.semantics)
        if not self.corrected:
            return gather(values, where(valid, source, -1))
        safe = where(valid, source, 0)
        read = aggregate(select(indices, safe, Predicate.EQ), values, semantics=self.semantics)
        return where(valid, read, 0)

    def transpose(self, values: SOp, rows: int, cols: int, offset: int = 0) -> SOp:
        """M^T (cols x rows) at [0, r*c) for M at ``offset``; 0 past r*c."""
        if not self.corrected:
            return transpose_block(values, rows, cols, offset, out_size_guard=True)
        p = indices
        source = ((p % rows) * cols + p // rows + offset).named("transpose_src")
        return self.gather(values, source, inside(0, rows * cols)).named("transpose")

    def matmul(self, values: SOp, rows: int, inner: int, cols: int,
               a_offset: int = 0, b_offset: int | None = None) -> SOp:
        """A B (rows x cols) at [0, r*c); 0 past it."""
        if not self.corrected:
            return matmul_block(values, rows, inner, cols, a_offset, b_offset)
        if b_offset is None:
            b_offset = a_offset + rows * inner
        m = (indices % inner).named("m")
        a = [self.gather(values, m + i * inner + a_offset).named(f"a{i}") for i in range(rows)]
        b = [self.gather(values, m * cols + (b_offset + j)).named(f"b{j}") for j in range(cols)]
        first_keys = select(indices, inner, Predicate.LT).named("first_keys")
        total = None
        for i in range(rows):
            for j in range(cols):
                product = (a[i] * b[j]).named(f"prod{pair(i, j, rows, cols)}")
                head = aggregate(first_keys, product, semantics=self.semantics).named(f"mean{pair(i, j, rows, cols)}")
                kept = where(indices == i * cols + j, head, 0).named(f"at{pair(i, j, rows, cols)}")
                total = kept if total is None else total + kept
        # constant(inner): a product node even for k = 1 (k * x with k = 1 would be x itself)
        return (total * constant(inner)).named("product")

    def softmax(self, values: SOp, rows: int, cols: int, offset: int = 0) -> SOp:
        """Row softmax of the rows x cols block at ``offset``, in place; 0 outside it."""
        if not self.corrected:
            return softmax_block(values, rows, cols, offset, guard=True)
        e = exp(values).named("e")
        row = ((indices - offset) // cols).named("row")
        same_row = select(row, row, Predicate.EQ).named("same_row")
        row_mean = aggregate(same_row, e, semantics=self.semantics).named("row_mean")
        row_sum = (row_mean * constant(cols)).named("row_sum")
        in_block = inside(offset, offset + rows * cols).named("in_block")
        return where(in_block, e / where(in_block, row_sum, 1), 0).named("softmax")

    def move(self, values: SOp, source_offset: int, size: int, at: int) -> SOp:
        """values[source_offset : source_offset + size] placed at [at, at + size); 0 elsewhere."""
        return self.gather(values, indices - at + source_offset, inside(at, at + size))

    def keep(self, values: SOp, size: int) -> SOp:
        """values on [0, size), 0 past it (element-wise)."""
        return where(indices < size, values, 0)

    def pair(self, first: SOp, first_size: int, second: SOp, second_size: int,
             second_offset: int = 0) -> SOp:
        """<first[0:first_size], second[second_offset : second_offset + second_size]>."""
        return self.keep(first, first_size) + self.move(second, second_offset, second_size, first_size)


PUBLISHED_BLOCKS = Blocks(corrected=False, semantics=Semantics.RASP)
AHAT_BLOCKS = Blocks(corrected=True, semantics=Semantics.AHAT)
CORRECTED_RASP_BLOCKS = Blocks(corrected=True, semantics=Semantics.RASP)


# ----------------------------------------------------------------------------
# Softmax attention softmax(Q K^T) V from the blocks.


def attention_length(n: int, d: int, dv: int) -> int:
    """Input <Q (n x d), K (n x d), V (n x dv)>, padded to hold every intermediate.

    Args:
        n: the rows of Q, K and V.
        d: the columns of Q and K.
        dv: the columns of V.

    Returns:
        The sequence length: the largest of the input n*(2d + dv), the scores
        with V beside them n^2 + n*dv, and Q beside K^T 2*n*d.
    """
    return max(n * (2 * d + dv), n * n + n * dv, 2 * n * d)


def attention_program(n: int, d: int, dv: int, blocks: Blocks = AHAT_BLOCKS) -> Program:
    """softmax(Q K^T) V, row-major at [0, n*dv), 0 past it.

    1. K^T (d x n) by the transpose block from K at n*d.
    2. <Q, K^T>: Q kept at [0, n*d), K^T moved to [n*d, 2*n*d); S = Q K^T by the
       product block (inner dimension d): n x n at [0, n^2).
    3. P = row softmax of S (n rows of n).
    4. <P, V>: P kept at [0, n^2), V moved from 2*n*d to [n^2, n^2 + n*dv);
       Y = P V by the product block (inner dimension n).

    Args:
        n: the rows of Q, K and V.
        d: the columns of Q and K.
        dv: the columns of V.
        blocks: the blocks it is built from: the published ones
            (``PUBLISHED_BLOCKS``), the corrected ones under AHAT (the
            default) or under RASP.

    Returns:
        The program with one output, ``attention``.
    """
    k_t = blocks.transpose(tokens, n, d, offset=n * d)
    scores = blocks.matmul(blocks.pair(tokens, n * d, k_t, d * n), n, d, n).named("scores")
    weights = blocks.softmax(scores, n, n).named("weights")
    out = blocks.matmul(blocks.pair(weights, n * n, tokens, n * dv, second_offset=2 * n * d), n, n, dv)
    kind = "published" if not blocks.corrected else "corrected"
    return Program.of(f"attention_{kind}_{blocks.semantics.value}_{n}_{d}_{dv}",
                      {"attention": out.named("attention")},
                      f"softmax(Q K^T) V for n={n}, d={d}, d_v={dv} ({kind} blocks, "
                      f"{blocks.semantics.value} semantics)")


def attention_construction(n: int, d: int, dv: int, blocks: Blocks = AHAT_BLOCKS) -> Construction:
    """softmax(Q K^T) V as a construction: :func:`attention_program` and its layouts.

    Args:
        n: the rows of Q, K and V.
        d: the columns of Q and K.
        dv: the columns of V.
        blocks: the blocks it is built from (as in :func:`attention_program`).

    Returns:
        The construction reading Q, K, V and writing Y (n x dv), in a sequence
        of :func:`attention_length`.
    """
    length = attention_length(n, d, dv)
    return Construction(
        name=f"attention n={n} d={d} dv={dv} ({blocks.semantics.value})",
        program=attention_program(n, d, dv, blocks),
        input_layout=SequenceLayout.of(("Q", (n, d)), ("K", (n, d)), ("V", (n, dv)), length=length),
        output_layout=SequenceLayout.of(("Y", (n, dv)), length=length),
        semantics=blocks.semantics,
    )


# ----------------------------------------------------------------------------
# The standalone blocks, published (under AHAT: refuted) and corrected.


def softmax_ahat_program(rows: int, cols: int, corrected: bool) -> Program:
    """Row softmax of an r x c matrix (length r*c) with every aggregate under AHAT.

    Published: Lemma 4's own program (r fixed, c read from length).

    Args:
        rows: r.
        cols: c (the corrected program fixes it; the published one reads it
            from length).
        corrected: the corrected block (one head over the query's own row)
            rather than Lemma 4's.

    Returns:
        The program with one output, ``softmax``.
    """
    if not corrected:
        return with_semantics(softmax_program(rows), Semantics.AHAT)
    return Program.of(f"softmax_corrected_{rows}x{cols}",
                      {"softmax": AHAT_BLOCKS.softmax(tokens, rows, cols)})


def matmul_ahat_program(rows: int, inner: int, cols: int, corrected: bool) -> Program:
    """A B with every aggregate under AHAT. Published: Lemma 5's own program.

    Args:
        rows: r, the rows of A.
        inner: k (the corrected program fixes it; the published one reads it
            from length).
        cols: c, the columns of B.
        corrected: the corrected block (each head kept at its own query by an
            element-wise map) rather than Lemma 5's.

    Returns:
        The program with one output, ``product``.
    """
    if not corrected:
        return with_semantics(matmul_program(rows, cols), Semantics.AHAT)
    return Program.of(f"matmul_corrected_{rows}x{inner}x{cols}",
                      {"product": AHAT_BLOCKS.matmul(tokens, rows, inner, cols)})


def softmax_ahat_construction(rows: int, cols: int, corrected: bool) -> Construction:
    """:func:`softmax_ahat_program` with Lemma 4's layouts (S in, softmax(S) out).

    Args:
        rows: r.
        cols: c.
        corrected: the corrected block rather than Lemma 4's.

    Returns:
        The construction, under AHAT semantics.
    """
    return Construction(
        name=f"softmax {rows}x{cols} under AHAT ({'corrected' if corrected else 'published'})",
        program=softmax_ahat_program(rows, cols, corrected),
        input_layout=SequenceLayout.of(("S", (rows, cols))),
        output_layout=SequenceLayout.of(("softmax(S)", (rows, cols))),
        semantics=Semantics.AHAT,
    )


def matmul_ahat_construction(rows: int, inner: int, cols: int, corrected: bool) -> Construction:
    """:func:`matmul_ahat_program` with Lemma 5's layouts (A, B in; AB out).

    Args:
        rows: r, the rows of A.
        inner: k.
        cols: c, the columns of B.
        corrected: the corrected block rather than Lemma 5's.

    Returns:
        The construction, under AHAT semantics.
    """
    n = inner * (rows + cols)
    return Construction(
        name=f"matmul {rows}x{inner}.{inner}x{cols} under AHAT ({'corrected' if corrected else 'published'})",
        program=matmul_ahat_program(rows, inner, cols, corrected),
        input_layout=SequenceLayout.of(("A", (rows, inner)), ("B", (inner, cols))),
        output_layout=SequenceLayout.of(("AB", (rows, cols)), length=n),
        semantics=Semantics.AHAT,
    )
