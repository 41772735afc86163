"""The rows of an r x c matrix rotated up by one: row i of the output is row (i + 1) mod r.

One head: output position i * c + j gathers input position ((i + 1) mod r) * c + j,
an index the query computes from its own position alone (1 layer, 1 head).
"""

from __future__ import annotations

import usim
from usim.constructions.base import fresh, gather
from usim.rasp.expr import indices, tokens


def rotate_program(rows: int, cols: int) -> "usim.Program":
    """The program: one gather from the position one row down (the last row from the first).

    Args:
        rows: r, the matrix's rows.
        cols: c, its columns.

    Returns:
        The RASP program, its output named "rotated".
    """
    row, col = indices // cols, indices % cols
    source = fresh(((row + 1) % rows) * cols + col, "rotate_src")
    return usim.Program.of(f"rotate_rows_{rows}x{cols}", {"rotated": gather(tokens, source).named("rotated")})


def rotate_construction(rows: int, cols: int) -> "usim.Construction":
    """The program with its layouts: M (r x c) in, R (r x c) out, row-major.

    Args:
        rows: r.
        cols: c.

    Returns:
        The construction usim proves.
    """
    return usim.Construction(f"rotate rows {rows}x{cols}", rotate_program(rows, cols),
                             usim.SequenceLayout.of(("M", (rows, cols))), usim.SequenceLayout.of(("R", (rows, cols))))
