"""The paper's blocks, runnable on one input: what ``usim run`` offers.

Each :class:`RunnableBlock` says how its shape is written (``RxC``, ``RxKxC``), builds
its construction for a shape, and computes an independent reference for the
same input: numpy's (exact on Fractions for transpose and product), sympy's
for the 3x3 determinant and inverse, and mpmath's for softmax (to 128 bits
from the exact entries, never through float64: :func:`softmax_rows`).
``validate`` refuses an input the construction is not claimed for (a
singular matrix for the inverse).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import numpy as np
import sympy

from usim.constructions.base import Construction
from usim.constructions.determinant import det3_construction, inverse3_construction
from usim.constructions.matmul import matmul_construction
from usim.constructions.softmax import softmax_construction
from usim.constructions.transpose import transpose_construction
from usim.errors import InputError, ShapeError


@dataclass(frozen=True)
class RunnableBlock:
    """One runnable block: its shape syntax, its construction and an independent reference."""

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


REFERENCE_BITS = 128  # mpmath's working precision for the softmax reference (about 38 digits)


@dataclass(frozen=True)
class SoftmaxRow:
    """One row of softmax(S), from its exact entries, to ``bits`` bits (mpmath).

    With the row maximum subtracted, ``exps[j]`` = exp(s_j - max) is exactly 1
    at each of the ``top`` entries that hold the maximum (``at_top``); ``rest``
    is the sum of the others' exps, so the total is top + rest. Each inexact
    exp, ``rest`` and the total are within ``error`` (relative) of their true
    values. A row whose entries are all equal has rest 0 and softmax exactly
    1/C; any other entry is irrational (exp(a) / sum_j exp(s_j) = q rational
    would make the exps of the row's distinct values linearly dependent over the
    rationals, which Lindemann-Weierstrass excludes), so a float can differ from
    it only by a non-zero amount.

    The error, in units of 2**-bits: each d = s - max is rounded twice (its
    numerator, the division), so exp(d) is within 2|d| + 2 (its own rounding
    included); a sum of C positive terms within that plus C roundings; the
    total 1 more. Taken as 2 max|d| + 2C + 8, which also covers the products
    and subtractions :meth:`deviation` rounds (2 more).
    """

    bits: int
    exps: tuple[Any, ...]
    at_top: tuple[bool, ...]
    top: int
    rest: Any
    error: Any

    def value(self, j: int) -> Any:
        """softmax(S) at entry j: a Fraction (1/C) when the row is constant, else mpmath's number."""
        import mpmath

        if not self.rest:
            return Fraction(1, self.top)
        with mpmath.workprec(self.bits):
            return self.exps[j] / (self.top + self.rest)

    def deviation(self, j: int, output: Fraction) -> tuple[Any, Any]:
        """|output - softmax(S)_j| and a bound on how far that is from the true difference.

        Computed as |exp_j - output * total| / total, with exp_j - output * top
        exact at the maximum (exp_j = 1): the difference keeps its digits however
        close the output is to the softmax (an output of exactly 1 or 1/16 where
        the softmax is 1 - 1e-4909 or 1/16 - 1e-4910), since only terms of the
        difference's own size are rounded.

        Args:
            j: the entry of the row.
            output: the output value there, exactly.

        Returns:
            (the difference, its error bound): a Fraction and 0 when the row is
            constant, else two mpmath numbers.
        """
        import mpmath

        if not self.rest:
            return abs(output - Fraction(1, self.top)), Fraction(0)
        with mpmath.workprec(self.bits):
            def real(q: Fraction) -> Any:
                return mpmath.mpf(q.numerator) / q.denominator

            unit, o = mpmath.ldexp(1, -self.bits), real(output)
            total = self.top + self.rest
            if self.at_top[j]:
                exact_part = real(1 - output * self.top)
                numerator = exact_part - o * self.rest
                error = self.error * abs(o) * self.rest + unit * (abs(exact_part) + abs(numerator))
            else:
                numerator = self.exps[j] - o * total
                error = self.error * (self.exps[j] + abs(o) * total) + unit * abs(numerator)
            difference = abs(numerator) / total
            return difference, error / total * (1 + 4 * self.error) + self.error * difference


def softmax_rows(m: dict[str, np.ndarray], bits: int = REFERENCE_BITS) -> list[SoftmaxRow]:
    """Each row of softmax(S) from S's exact entries (Fractions), to ``bits``
    bits, whatever the magnitudes (mpmath's exponents are unbounded: exp(-11355)
    is no harder than exp(-1)); see :class:`SoftmaxRow`.

    Args:
        m: the input matrices; ``m["S"]`` an object array of Fractions (r x c).
        bits: mpmath's working precision.

    Returns:
        One :class:`SoftmaxRow` per row of S.
    """
    import mpmath

    rows = []
    with mpmath.workprec(bits):
        for row in m["S"]:
            values = [Fraction(v) for v in row]
            top = max(values)
            at_top = tuple(v == top for v in values)
            exps = tuple(mpmath.mpf(1) if t else mpmath.exp(mpmath.mpf((v - top).numerator) / (v - top).denominator)
                         for v, t in zip(values, at_top))
            rest = mpmath.fsum(e for e, t in zip(exps, at_top) if not t)
            spread = max(top - v for v in values)
            error = mpmath.mpf(2 * math.ceil(spread) + 2 * len(values) + 8) * mpmath.ldexp(1, -bits)
            rows.append(SoftmaxRow(bits, exps, at_top, sum(at_top), rest, error))
    return rows


def softmax_reference(m: dict[str, np.ndarray]) -> np.ndarray:
    """softmax(S) to REFERENCE_BITS bits (:func:`softmax_rows`), as an object array.

    Args:
        m: the input matrices; ``m["S"]`` an object array of Fractions (r x c).

    Returns:
        An r x c object array: a Fraction where the row is constant (1/c),
        else mpmath's number.

    >>> import numpy as np
    >>> from fractions import Fraction
    >>> softmax_reference({"S": np.array([[Fraction(0), Fraction(0)]], dtype=object)})
    array([[Fraction(1, 2), Fraction(1, 2)]], dtype=object)
    """
    return np.array([[row.value(j) for j in range(len(row.exps))] for row in softmax_rows(m)], dtype=object)


BLOCKS: dict[str, RunnableBlock] = {
    "transpose": RunnableBlock("Lemma 3", "RxC", transpose_construction, lambda m: m["M"].T, True),
    "softmax": RunnableBlock("Lemma 4", "RxC", softmax_construction, softmax_reference, False,
                             reference_by="mpmath"),
    "matmul": RunnableBlock("Lemma 5", "RxKxC", matmul_construction, lambda m: m["A"] @ m["B"], True),
    "det3": RunnableBlock("3x3 determinant", "RxC", _only_3x3(det3_construction),
                          lambda m: np.array([[_exact_det(m)]], dtype=object), True, output="det",
                          reference_by="sympy"),
    "inverse3": RunnableBlock("3x3 inverse", "RxC", _only_3x3(inverse3_construction), _exact_inverse, True,
                              validate=_nonsingular, output="inverse",
                              reference_by="sympy"),
}
