"""Lemma 5: the product of A (r x k) and B (k x c) in two attention layers.

Input: <A, B>: A[i][m] at i*k + m, B[m][j] at r*k + m*c + j (n = k*(r + c)).
Output: AB (r x c) row-major from position 0, zeros after.

Let m(p) = p mod k at every position p.

Layer 1 (r + c heads, all pure routing):
  head a_i (i < r) selects key i*k + m(p): it moves A[i][m(p)] to position p;
  head b_j (j < c) selects key r*k + m(p)*c + j: it moves B[m(p)][j] to p.
Element-wise: prod_ij = a_i * b_j, so prod_ij(p) = A[i][m] * B[m][j], m = m(p).
Layer 2 (r*c heads): head (i, j) selects, at the single query i*c + j, the keys
  0..k-1 (where m(p) = p): its mean there is (1/k) sum_m A[i][m] B[m][j]; at
  every other query it selects nothing and gives 0.
Element-wise: out = k * sum_ij head_ij: at i*c + j exactly (AB)[i][j], 0 past r*c.

The result needs r*c positions but the sequence has k*(r + c): the construction
is defined only when r*c <= k*(r + c) (3x1 times 1x3 does not fit). As in the
paper, r and c are fixed and k = length // (r + c).
Cost: 2 layers with r + c and r*c heads; with the length layer, 3.

Example: at r = k = c = 2, two layers of 4 heads each; 3x1 times 1x3 does not fit.

>>> built = matmul_construction(2, 2, 2)
>>> built.cost.layers, [len(heads) for heads in built.cost.heads]
(2, [4, 4])
>>> matmul_construction(3, 1, 3)
Traceback (most recent call last):
    ...
usim.errors.ShapeError: the product of 3x1 and 1x3 has 9 entries but the input sequence only 6 positions: Lemma 5's layout cannot hold it
"""

from __future__ import annotations

from usim.constructions.base import SizedConstruction, fresh, gather, pair
from usim.rasp.family import head_family, head_sum
from usim.rasp.expr import Predicate, SOp, aggregate, indices, length, select, tokens
from usim.rasp.program import Program


def matmul_block(values: SOp, rows: int, inner: int | SOp, cols: int,
                 a_offset: int | SOp = 0, b_offset: int | SOp | None = None) -> SOp:
    """A B at [0, r*c) for A (rows x inner) at a_offset and B (inner x cols) at b_offset.

    Args:
        values: the sequence holding A and B, each row-major.
        rows: r, the rows of A (r heads a_i in the first layer).
        inner: k, the columns of A and rows of B (an int, or a sequence such
            as ``length // (r + c)``).
        cols: c, the columns of B (c heads b_j in the first layer).
        a_offset: the position of A[0][0].
        b_offset: the position of B[0][0]; None: right after A, at
            ``a_offset + rows * inner``.

    Returns:
        The sequence holding AB (r x c) row-major from position 0 and 0 past
        r*c: k times the sum of the r*c second-layer heads (node ``product``).
    """
    if b_offset is None:
        b_offset = a_offset + rows * inner
    m = (indices % inner).named("m")
    a = head_family(rows, lambda i: gather(values, fresh(m + i * inner + a_offset, f"a_src{i}")).named(f"a{i}"),
                    name="i")
    b = head_family(cols, lambda j: gather(values, fresh(m * cols + (b_offset + j), f"b_src{j}")).named(f"b{j}"),
                    name="j")

    def head(i, j):
        product = (a[i] * b[j]).named(f"prod{pair(i, j, rows, cols)}")
        selector = (select(indices, inner, Predicate.LT)
                    & select(i * cols + j, indices, Predicate.EQ)).named(f"dot{pair(i, j, rows, cols)}")
        return aggregate(selector, product).named(f"mean{pair(i, j, rows, cols)}")

    total = head_sum((rows, cols), head, names=("i", "j"))  # mean00 + mean01 + ..., row-major
    return fresh(inner * total, "product")


def matmul_program(rows: int, cols: int) -> Program:
    """The paper's program: r and c fixed, k = length // (r + c).

    Args:
        rows: r, the rows of A.
        cols: c, the columns of B.

    Returns:
        The program with one output, ``product``: AB row-major, zeros after.

    A = [[1, 2]] (1 x 2) and B = [[3], [4]] (2 x 1): AB = [[11]].

    >>> from usim.encodings import run_exact
    >>> run_exact(matmul_program(1, 1), [1, 2, 3, 4])
    {'product': [11, 0, 0, 0]}
    """
    inner = (length // (rows + cols)).named("k")
    return Program.of(
        f"matmul_r{rows}_c{cols}",
        {"product": matmul_block(tokens, rows, inner, cols)},
        f"A B for A with {rows} rows and B with {cols} columns (k read from length)",
    )


def matmul_fits(rows: int, inner: int, cols: int) -> bool:
    """Whether the product's r*c entries fit in the input's k*(r + c) positions.

    Args:
        rows: r, the rows of A.
        inner: k, the columns of A and rows of B.
        cols: c, the columns of B.

    Returns:
        True when r*c <= k*(r + c), the shapes Lemma 5's layout can hold.

    >>> matmul_fits(2, 1, 2), matmul_fits(3, 1, 3)
    (True, False)
    """
    return rows * cols <= inner * (rows + cols)


def _does_not_fit(rows: int, inner: int, cols: int) -> str | None:
    if matmul_fits(rows, inner, cols):
        return None
    return (f"the product of {rows}x{inner} and {inner}x{cols} has {rows * cols} entries but the "
            f"input sequence only {inner * (rows + cols)} positions: Lemma 5's layout cannot hold it")


matmul_construction = SizedConstruction(
    name=lambda rows, inner, cols: f"matmul {rows}x{inner} . {inner}x{cols}",
    dims=("r", "k", "c"),
    program=lambda rows, inner, cols: matmul_program(rows, cols),
    inputs=lambda rows, inner, cols: [("A", (rows, inner)), ("B", (inner, cols))],
    outputs=lambda rows, inner, cols: [("AB", (rows, cols))],
    refuse=_does_not_fit,
)
"""Lemma 5's construction at (r, k, c): the product family's instance (usim prove lemma5 --all-sizes).

Called as ``matmul_construction(rows, inner, cols)``, it gives the
:class:`~usim.constructions.base.Construction` reading A (rows x inner) and
B (inner x cols) and writing AB; a shape whose product does not fit
(:func:`matmul_fits`) raises :class:`~usim.errors.ShapeError` (see the
module's example)."""
