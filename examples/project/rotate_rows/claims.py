"""What the block computes, as usim claims: prove them with ``usim prove rotate_rows.claims``."""

from __future__ import annotations

import sympy

import usim
from rotate_rows.construction import rotate_construction
from usim.rasp.expr import indices


def rotated(m: dict) -> dict:
    """The target: row i of R is row (i + 1) mod r of M."""
    M = m["M"]
    return {"R": sympy.Matrix(M.rows, M.cols, lambda i, j: M[(i + 1) % M.rows, j])}


ROTATE = usim.claim(
    "rotate_rows",
    paper="(example project)",
    title="the rows of an r x c matrix rotated up by one: 1 layer, 1 head",
    statement="For every r, c <= N and every real M (r x c), the program outputs R with R[i, j] = M[(i+1) mod r, j].",
    construction=rotate_construction,
    target=rotated,
    shapes=usim.every_shape(2),
    mutants={
        # forgets the wrap-around: the last row reads past the matrix
        "no-wrap": lambda shape: {"rotate_src": lambda node: (indices // shape[1] + 1) * shape[1] + indices % shape[1]},
        "identity": lambda shape: {"rotate_src": lambda node: indices},  # no rotation at all
    },
    default_max_n=4,
    ci_max_n=3,
)

CLAIMS = (ROTATE,)
