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
the softmax family's instance (usim prove lemma4 --all-sizes)."""
