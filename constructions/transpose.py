"""Lemma 3: matrix transposition in one attention layer with one head.

Input: M (r x c) row-major, M[i][j] at position i*c + j.
Output: M^T (c x r) row-major from position 0: M^T[a][b] = M[b][a] at a*r + b.

At output position p we want a = p // r, b = p mod r, so the source position is

    src(p) = (p mod r) * c + p // r.

The single head selects, at query p, the key whose index equals src(p) and
aggregates the tokens: a mean over one key, hence exactly M[b][a]. src is an
element-wise map of ``indices`` (and of ``length`` when c is read from it), so
the head's selector is decided by positions alone.

As in the paper, the standalone program fixes r and reads c = length // r:
1 attention layer, 1 head; counting the layer that computes ``length``, 2.

Example: the construction at r = 2, c = 3, its cost, and its run on M laid out
by its input layout, read back by its output layout.

>>> from usim.encodings import run_exact
>>> built = transpose_construction(2, 3)
>>> built.cost.layers, built.cost.layers_with_length
(1, 2)
>>> sequence = built.input_layout.encode({"M": [[1, 2, 3], [4, 5, 6]]})
>>> built.output_layout.decode(run_exact(built.program, sequence)["transpose"], "MT")
[[1, 4], [2, 5], [3, 6]]
"""

from __future__ import annotations

from usim.constructions.base import SizedConstruction, fresh, gather, guarded
from usim.rasp.expr import SOp, indices, length, tokens
from usim.rasp.program import Program


def transpose_block(values: SOp, rows: int, cols: int | SOp, offset: int = 0,
                    out_size_guard: bool = False) -> SOp:
    """M^T at positions [0, r*c) for M (rows x cols) read from ``offset``.

    With ``out_size_guard`` positions past r*c select nothing (default 0); the
    standalone program fills the sequence and needs no guard.

    Args:
        values: the sequence holding M row-major from ``offset``.
        rows: r, the number of rows of M.
        cols: c, the number of columns (an int, or a sequence such as
            ``length // r`` when it is read from the input).
        offset: the position of M[0][0] in ``values``.
        out_size_guard: whether positions past r*c select nothing (0 there).

    Returns:
        The sequence holding M^T (c x r) row-major from position 0: one head,
        whose source position is the node named ``transpose_src``.
    """
    p = indices
    source = (p % rows) * cols + p // rows + offset
    if out_size_guard:
        source = guarded(source, 0, rows * cols)
    source = fresh(source, "transpose_src")
    return gather(values, source).named("transpose")


def transpose_program(rows: int) -> Program:
    """The paper's program: r fixed, c = length // r.

    Args:
        rows: r, fixed in the program; c is read from the sequence's length.

    Returns:
        The program with one output, ``transpose``: M^T row-major.

    >>> from usim.encodings import run_exact
    >>> run_exact(transpose_program(2), [1, 2, 3,
    ...                                  4, 5, 6])
    {'transpose': [1, 4, 2, 5, 3, 6]}
    """
    cols = (length // rows).named("cols")
    out = transpose_block(tokens, rows, cols)
    return Program.of(f"transpose_r{rows}", {"transpose": out},
                      f"M^T for M with {rows} rows (columns read from length)")


transpose_construction = SizedConstruction(
    name=lambda rows, cols: f"transpose {rows}x{cols}",
    dims=("r", "c"),
    program=lambda rows, cols: transpose_program(rows),
    inputs=lambda rows, cols: [("M", (rows, cols))],
    outputs=lambda rows, cols: [("MT", (cols, rows))],
)
"""Lemma 3's construction at (r, c): the transpose family's instance (usim prove lemma3 --all-sizes).

Called as ``transpose_construction(rows, cols)``, it gives the
:class:`~usim.constructions.base.Construction` reading M (rows x cols) and
writing MT (cols x rows); see the module's example."""
