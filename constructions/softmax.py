"""Lemma 4: row-wise softmax in one attention layer with r heads.

Input: S (r x c) row-major. Output: softmax(S) row by row, in place.

1. Element-wise: e = exp(S) at every position (the paper's listing uses
   2.718 ** S instead of exp: ``base=2.718``; that is an approximation of e and
   is reported as such, never proved).
2. Row of a position: row(p) = p // c.
3. Head b (one per row b = 0..r-1) selects, at the queries of row b, the keys of
   row b: select(row, b, ==) & select(b, row, ==). Its aggregate of e at a query
   of row b is the mean (1/c) * sum_j e[b][j]; at every other query it selects
   nothing and gives the default 0 (RASP semantics: under average-hard attention
   an empty row would average all positions instead, and the sum below would be
   wrong).
4. Element-wise: at p in row b, only head b is non-zero, so
   c * sum_b head_b(p) = sum_j e[b][j], and softmax = e / (c * sum_b head_b).

No row maximum is subtracted (as in the paper): the numeric interpretation
overflows for entries above about 709. Cost: 1 layer, r heads; with the length
layer, 2.

Example: the construction at r = 2, c = 3 has one layer with a head per row.

>>> softmax_construction(2, 3).cost.heads
(('row_mean0', 'row_mean1'),)
"""

from __future__ import annotations

from fractions import Fraction

from usim.constructions.base import SizedConstruction, fresh
from usim.rasp.family import head_sum
from usim.rasp.expr import (
    Predicate,
    SOp,
    aggregate,
    exp,
    indices,
    length,
    select,
    tokens,
    where,
)
from usim.rasp.program import Program

PAPER_BASE = Fraction(2718, 1000)


def softmax_block(values: SOp, rows: int, cols: int | SOp, offset: int = 0,
                  base: Fraction | None = None, guard: bool = False,
                  mask: SOp | None = None) -> SOp:
    """Row softmax of the rows x cols block at ``offset``, written in place.

    ``base`` None uses exp; a number b uses b ** S (the paper's 2.718).
    With ``guard``, positions outside the block give 0 (needed when the block
    does not fill the sequence). ``mask``, a boolean sequence, leaves out the
    entries where it is false: their e is 0, so they weigh nothing in their row's
    sum and their softmax is 0 (every row must keep one entry, or its sum is 0).
    Without a mask the block is exactly the paper's.

    Args:
        values: the sequence holding S row-major from ``offset``.
        rows: r, the number of rows (one head per row).
        cols: c, the number of columns (an int, or a sequence such as
            ``length // r``).
        offset: the position of S[0][0] in ``values``.
        base: None for exp; a number b for b ** S.
        guard: whether positions outside the block give 0.
        mask: a boolean sequence, false at the entries left out, or None.

    Returns:
        The sequence holding softmax(S) row by row, in place (at the block's
        positions).
    """
    e = (exp(values) if base is None else base ** values).named("e")
    if mask is not None:
        e = where(mask, e, 0).named("e_masked")
    row = ((indices - offset) // cols).named("row")

    def head(b):
        selector = (select(row, b, Predicate.EQ) & select(b, row, Predicate.EQ)).named(f"row{b}")
        return aggregate(selector, e).named(f"row_mean{b}")

    mean = head_sum(rows, head, names=("b",))  # row_mean0 + row_mean1 + ... + row_mean{r-1}
    denominator = fresh(cols * mean, "row_sum")
    if guard:
        in_block = ((indices >= offset) & (indices < offset + rows * cols)).named("in_block")
        return where(in_block, e / where(in_block, denominator, 1), 0).named("softmax")
    return (e / denominator).named("softmax")


def softmax_program(rows: int, base: Fraction | None = None) -> Program:
    """The paper's program: r fixed, c = length // r, softmax of every row.

    Args:
        rows: r, fixed in the program; c is read from the sequence's length.
        base: None for exp (the statement proved); a number b for b ** S
            (the paper's listing uses 2.718, an approximation of e).

    Returns:
        The program with one output, ``softmax``.

    With base 2 the values are exact: row [0, 1] gives [1/3, 2/3].

    >>> from fractions import Fraction
    >>> from usim.encodings import run_exact
    >>> run_exact(softmax_program(2, base=Fraction(2)), [0, 1,
    ...                                                  1, 1])
    {'softmax': [Fraction(1, 3), Fraction(2, 3), Fraction(1, 2), Fraction(1, 2)]}
    """
    cols = (length // rows).named("cols")
    variant = "exp" if base is None else f"{float(base)}**x"
    return Program.of(
        f"softmax_r{rows}" + ("" if base is None else "_base"),
        {"softmax": softmax_block(tokens, rows, cols, base=base)},
        f"row softmax ({variant}) of a matrix with {rows} rows (columns read from length)",
    )


softmax_construction = SizedConstruction(
    name=lambda rows, cols, base=None: f"softmax {rows}x{cols}" + ("" if base is None else f" (base {float(base)})"),
    dims=("r", "c"),
    program=lambda rows, cols, base=None: softmax_program(rows, base),
    inputs=lambda rows, cols: [("S", (rows, cols))],
    outputs=lambda rows, cols: [("softmax(S)", (rows, cols))],
)
"""Lemma 4's construction at (r, c), with ``base=`` a power in place of exp:
the softmax family's instance (usim prove lemma4 --all-sizes).

Called as ``softmax_construction(rows, cols)`` (or with ``base=``), it gives
the :class:`~usim.constructions.base.Construction` reading S and writing
softmax(S), both rows x cols: one layer with one head per row (see the
module's example)."""


def stacked_softmax_program(bound: int, size: int, heads: int) -> Program:
    """The softmax of H heads' scores stacked, as a U over a symbolic head count
    would take it: S = [S_0; ...; S_{H-1}] (H N x N, head h's N x N block at rows
    h N ..), each head's top-left n x n corner the scores of an n-token input.

    Row a of S is row a mod N of head a // N. Keys j >= n are left out (the mask
    of :func:`softmax_block`: e = 0 there), and rows whose a mod N >= n are set to
    0, so P = [P_0; ...; P_{H-1}] with P_h the row softmax of S_h's n x n corner
    in the corner of a zero block. One layer with one head per row (H N).

    Args:
        bound: N, each head's block being N x N.
        size: n, the tokens of the input (1 <= n <= N).
        heads: H.

    Returns:
        The program with one output, ``W``: P in place of S.
    """
    return Program.of("stacked_softmax", {"W": stacked_softmax_block(tokens, heads * bound, bound, size)},
                      "the row softmax of H stacked heads' n x n corners")


def stacked_softmax_block(values: SOp, rows: int, cols: int, size: int | SOp, offset: int = 0) -> SOp:
    """The softmax of stacked heads' corners, in place: the block S (rows x cols) at
    ``offset`` holds H = rows / cols heads' cols x cols blocks stacked; keys j >= n
    are left out (the mask of :func:`softmax_block`) and rows whose (row mod cols) >= n
    are set to 0 (node ``row_ok``), so each head's n x n corner gets its row softmax
    and the rest 0. With one head (rows = cols) it is the masked softmax of a
    square block. :func:`stacked_softmax_program` and U's step kind
    ``stacked_softmax`` (n read from U's header) are this block.

    Args:
        values: the sequence holding S row-major from ``offset``.
        rows: H N, the rows of S.
        cols: N, the columns of S and the rows of each head's block.
        size: n, the tokens (an integer, or a sequence such as U's header's n).
        offset: the position of S[0][0] in ``values``.

    Returns:
        The sequence holding P in place of S, zeros outside the block (node
        ``stacked_softmax``).
    """
    key_ok = (((indices - offset) % cols) < size).named("key_ok")
    row_ok = ((((indices - offset) // cols) % cols) < size).named("row_ok")
    soft = softmax_block(values, rows, cols, offset=offset, guard=True, mask=key_ok)
    return where(row_ok, soft, 0).named("stacked_softmax")


stacked_softmax_construction = SizedConstruction(
    name=lambda bound, size, heads: f"softmax of {heads} stacked heads of {bound}x{bound} at n = {size}",
    dims=("N", "n", "h"),
    program=stacked_softmax_program,
    inputs=lambda bound, size, heads: [("S", (heads * bound, bound))],
    outputs=lambda bound, size, heads: [("P", (heads * bound, bound))],
)
"""The stacked softmax claim's construction at (N, n, H): the family's instance
(usim prove stacked_softmax --all-sizes)."""
