"""The paper's blocks, runnable on one input: what ``usim run`` offers.

Each :class:`Block` says how its shape is written (``RxC``, ``RxKxC``), builds
its construction for a shape, and computes an independent reference for the
same input: numpy's (exact on Fractions for transpose and product), or sympy's
for the 3x3 determinant and inverse. ``validate`` refuses an input the
construction is not claimed for (a singular matrix for the inverse).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np
import sympy

from usim.constructions.base import Construction
from usim.constructions.determinant import det3_construction, inverse3_construction
from usim.constructions.matmul import matmul_construction
from usim.constructions.softmax import softmax_construction
from usim.constructions.transpose import transpose_construction
from usim.errors import InputError, ShapeError


@dataclass(frozen=True)
class Block:
    """One runnable block: its shape syntax, its construction and numpy's reference."""

    lemma: str
    dims: str  # e.g. "RxC"
    build: Callable[..., Construction]
    reference: Callable[[dict[str, np.ndarray]], np.ndarray]
    exact_by_default: bool
    validate: Callable[[dict[str, np.ndarray]], None] | None = None
    output: str | None = None  # which output of the program (default: its first)
    reference_by: str = "numpy"


def _only_3x3(build: Callable[[], Construction]) -> Callable[..., Construction]:
    def construction(rows: int, cols: int) -> Construction:
        if (rows, cols) != (3, 3):
            raise ShapeError(f"the published construction is for 3x3 matrices only, not {rows}x{cols}")
        return build()
    return construction


def _exact_det(m: dict[str, np.ndarray]) -> Fraction:
    return Fraction(str(sympy.Matrix(m["A"].tolist()).det()))


def _nonsingular(m: dict[str, np.ndarray]) -> None:
    if _exact_det(m) == 0:
        raise InputError("the matrix is singular (determinant 0): it has no inverse, and the "
                         "construction would divide by 0")


def _exact_inverse(m: dict[str, np.ndarray]) -> np.ndarray:
    inverse = sympy.Matrix(m["A"].tolist()).inv()
    return np.array([[Fraction(str(x)) for x in row] for row in inverse.tolist()], dtype=object)


def _softmax_reference(m: dict[str, np.ndarray]) -> np.ndarray:
    s = m["S"].astype(np.float64)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


BLOCKS: dict[str, Block] = {
    "transpose": Block("Lemma 3", "RxC", transpose_construction, lambda m: m["M"].T, True),
    "softmax": Block("Lemma 4", "RxC", softmax_construction, _softmax_reference, False),
    "matmul": Block("Lemma 5", "RxKxC", matmul_construction, lambda m: m["A"] @ m["B"], True),
    "det3": Block("3x3 determinant", "RxC", _only_3x3(det3_construction),
                  lambda m: np.array([[_exact_det(m)]], dtype=object), True, output="det",
                  reference_by="sympy"),
    "inverse3": Block("3x3 inverse", "RxC", _only_3x3(inverse3_construction), _exact_inverse, True,
                      validate=_nonsingular, output="inverse",
                      reference_by="sympy"),
}

BLOCK_NAMES = tuple(sorted(BLOCKS))
