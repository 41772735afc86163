"""3x3 cofactors, determinant and inverse as published, and an n x n determinant.

**The published 3x3 construction.** Input: A (3 x 3) row-major, A[i][j] at
p = 3i + j, sequence length 9. With i = p // 3, j = p mod 3 and every index
taken mod 3, the signed cofactor of a 3x3 matrix is, by the cyclic symmetry of
the 3x3 determinant,

    C[i][j] = A[i+1][j+1] * A[i+2][j+2] - A[i+1][j+2] * A[i+2][j+1]

(for i = 0, j = 1: A[1][2]A[2][0] - A[1][0]A[2][2] = -(A10 A22 - A12 A20), the
sign (-1)^(i+j) comes out of the cyclic order by itself; this is a 3x3-only
trick: for n = 4 the cyclic shifts do not give the alternating signs).

Layer 1, four gather heads (each selects the single key at the given position):
  g22: A[i+2][j+2], g11: A[i+1][j+1], g21: A[i+2][j+1], g12: A[i+1][j+2].
Element-wise: cofactor = g11 * g22 - g12 * g21.
Element-wise: row0 = A[p] * cofactor where p < 3, else 0 (row 0's products
A[0][j] C[0][j] kept, the rest masked).
Layer 2, one head selecting every key: its mean is (1/9) sum_p row0(p) =
det(A)/9 (Laplace expansion along row 0); times 9 it is det(A) at every position.
Layer 2, one transpose head: cofT(p) = cofactor at 3j + i, the adjugate.
Element-wise: inverse = cofT / det.

Cost: 2 attention layers (4 heads, then 2), no ``length`` (the size is fixed);
the paper counts five layers for the same computation (it gives the mask, the
product and the division layers of their own). Nothing in the program guards
det = 0: :func:`invert3` and :func:`determinant3` are the run-time entry points
and raise :class:`~usim.errors.InputError` for a singular matrix.

**An n x n determinant at constant depth.** RASP can compute det(A) at constant
depth for every n, and this module builds one (the Leibniz expansion,
:func:`leibniz_construction`), but only by paying in sequence length:

    det(A) = sum over permutations s of sign(s) * prod_i A[i][s(i)].

Position p < n! stands for the permutation s_p whose Lehmer code is the
factorial-base digits of p (d_k = (p // (n-1-k)!) mod (n-k)); s_p(i) and
sign(s_p) = (-1)^(d_0 + ... + d_{n-1}) are element-wise maps of ``indices``
(static: decided once per length, see :func:`permutation_of_index`).
Layer 1, n heads: head i gathers A[i][s_p(i)] from position n*i + s_p(i).
Element-wise: term = sign(s_p) * prod_i (head i), one Leibniz term per p < n!.
Layer 2, one head: at query 0 select the keys p < n!; the mean times n! is the
determinant. Output: det at position 0, 0 elsewhere.
Cost: 2 attention layers, n + 1 heads; the sequence has max(n^2, n!) positions
(the input A is followed by zeros): exponential length is the price.

Why nothing cheaper is to be expected (written for the record, not proved
here). (1) If element-wise maps are unrestricted, the question is empty: n^2
heads copy every entry of A to every position (select the key at the constant
position n*i + j) and one element-wise map evaluates any formula for det(A)
(Leibniz, Gaussian elimination with pivoting by ``where``, or Berkowitz's
division-free algorithm): depth 1, width n^2, and all the work is in one MLP of
size n! * n (Leibniz) or O(n^4) (Berkowitz) whose own depth grows with n.
(2) If each element-wise map is a fixed-size, constant-depth arithmetic circuit
and the selectors are index-only (as in every block of the paper), a
constant-depth RASP program of polynomial width and length is a constant-depth
arithmetic circuit of polynomial size (a static aggregate is a linear map). The
determinant is complete for algebraic branching programs, so such a circuit for
det_n would give polynomial-size constant-depth circuits for iterated matrix
multiplication, which Limaye, Srinivasan and Tavenas (FOCS 2021) rule out over
fields of characteristic 0 (superpolynomial lower bounds for every constant
product-depth). Data-dependent selectors (comparisons) and divisions fall
outside that argument; we know of no construction that uses them to beat it.
So: constant depth is possible, with the cost moved into either an n!-long
sequence (built here) or element-wise maps whose size or depth grows with n.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

from usim.constructions.base import Construction, gather, guarded
from usim.encodings.exact import as_exact
from usim.encodings.layout import SequenceLayout
from usim.errors import InputError, ShapeError
from usim.rasp.expr import Predicate, SOp, aggregate, constant, indices, select, tokens, where
from usim.rasp.program import Program

SIZE = 3


# ----------------------------------------------------------------------------
# The published 3x3 construction.


def _cyclic_gather(values: SOp, di: int, dj: int) -> SOp:
    """A[(i + di) mod 3][(j + dj) mod 3] at position 3i + j (one head)."""
    i = indices // SIZE
    j = indices % SIZE
    source = (((i + di) % SIZE) * SIZE + (j + dj) % SIZE).named(f"src{di}{dj}")
    return gather(values, source).named(f"g{di}{dj}")


def cofactor_block(values: SOp) -> SOp:
    """The signed cofactors C[i][j] of the 3x3 matrix at [0, 9), in place.

    Args:
        values: the sequence holding A (3 x 3) row-major at [0, 9).

    Returns:
        The sequence ``cofactor``: g11 * g22 - g12 * g21 at 3i + j, from four
        gather heads.
    """
    g22 = _cyclic_gather(values, 2, 2)
    g11 = _cyclic_gather(values, 1, 1)
    g21 = _cyclic_gather(values, 2, 1)
    g12 = _cyclic_gather(values, 1, 2)
    return (g11 * g22 - g12 * g21).named("cofactor")


def determinant_block(values: SOp, cofactor: SOp) -> SOp:
    """det(A) at every position: 9 * mean over all 9 keys of row 0's products.

    Args:
        values: the sequence holding A (3 x 3) row-major at [0, 9).
        cofactor: its signed cofactors (:func:`cofactor_block`).

    Returns:
        The sequence ``det``: det(A) at every position (one head selecting
        every key).
    """
    row0 = where(indices < SIZE, values * cofactor, 0).named("row0_products")
    everything = select(indices, indices, Predicate.TRUE).named("all_keys")
    mean = aggregate(everything, row0).named("det_mean")
    return (SIZE * SIZE * mean).named("det")


def adjugate_block(cofactor: SOp) -> SOp:
    """cofactor^T (the adjugate) at [0, 9): one transpose head.

    Args:
        cofactor: the signed cofactors (:func:`cofactor_block`).

    Returns:
        The sequence ``adjugate``: C[j][i] at 3i + j.
    """
    source = ((indices % SIZE) * SIZE + indices // SIZE).named("adj_src")
    return gather(cofactor, source).named("adjugate")


def det3_program() -> Program:
    """The published 3x3 program: cofactors, determinant, inverse.

    Returns:
        The program with outputs ``cofactor`` (in place), ``det`` (at position
        0, 0 elsewhere) and ``inverse`` (adjugate / det, undefined where
        det = 0).
    """
    cofactor = cofactor_block(tokens)
    det = determinant_block(tokens, cofactor)
    det_out = where(indices == 0, det, 0).named("det_out")
    adjugate = adjugate_block(cofactor)
    inverse = (adjugate / det).named("inverse")
    return Program.of(
        "det3",
        {"cofactor": cofactor, "det": det_out, "inverse": inverse},
        "3x3 cofactors (cyclic-index trick), determinant (row-0 expansion), inverse (adjugate / det)",
    )


def _layout_in() -> SequenceLayout:
    return SequenceLayout.of(("A", (SIZE, SIZE)))


def cofactor3_construction() -> Construction:
    """The published program's cofactors as a construction.

    Returns:
        The construction reading A (3 x 3) and writing C (3 x 3), output
        ``cofactor``.
    """
    return Construction("cofactor 3x3", det3_program(), _layout_in(),
                        SequenceLayout.of(("C", (SIZE, SIZE))),
                        notes="output 'cofactor'")


def det3_construction() -> Construction:
    """The published program's determinant as a construction.

    Returns:
        The construction reading A (3 x 3) and writing det (1 x 1) at
        position 0 of a sequence of 9, output ``det``.
    """
    return Construction("determinant 3x3", det3_program(), _layout_in(),
                        SequenceLayout.of(("det", (1, 1)), length=SIZE * SIZE),
                        notes="output 'det' (det at position 0, 0 elsewhere)")


def inverse3_construction() -> Construction:
    """The published program's inverse as a construction.

    Returns:
        The construction reading A (3 x 3) and writing Ainv (3 x 3), output
        ``inverse``; defined only where det(A) != 0.
    """
    return Construction("inverse 3x3", det3_program(), _layout_in(),
                        SequenceLayout.of(("Ainv", (SIZE, SIZE))),
                        notes="output 'inverse'; defined only where det != 0")


def square_product_block(left: SOp, right: SOp) -> SOp:
    """(L R)[i][j] at 3i + j for 3x3 matrices L and R, each at [0, 9) of its sequence.

    Six gather heads: at position 3i + j, L[i][m] (key 3i + m) and R[m][j]
    (key 3m + j) for m = 0, 1, 2; element-wise, the sum of the three products.
    Used only to check A * inverse = I inside RASP.

    Args:
        left: the sequence holding L (3 x 3) row-major at [0, 9).
        right: the sequence holding R (3 x 3) row-major at [0, 9).

    Returns:
        The sequence ``left_times_right``: (L R)[i][j] at 3i + j.
    """
    i = indices // SIZE
    j = indices % SIZE
    total = None
    for m in range(SIZE):
        a = gather(left, i * SIZE + m).named(f"left{m}")
        b = gather(right, m * SIZE + j).named(f"right{m}")
        total = a * b if total is None else total + a * b
    return total.named("left_times_right")


def inverse3_check_program() -> Program:
    """A * (the published inverse), computed in RASP: 3 layers.

    Returns:
        The program with one output, ``A_times_inverse`` (I wherever
        det(A) != 0).
    """
    cofactor = cofactor_block(tokens)
    det = determinant_block(tokens, cofactor)
    inverse = (adjugate_block(cofactor) / det).named("inverse")
    return Program.of("det3_check", {"A_times_inverse": square_product_block(tokens, inverse)},
                      "A times the published 3x3 inverse")


def inverse3_check_construction() -> Construction:
    """:func:`inverse3_check_program` as a construction.

    Returns:
        The construction reading A (3 x 3) and writing I (3 x 3); defined only
        where det(A) != 0.
    """
    return Construction("A * inverse 3x3", inverse3_check_program(), _layout_in(),
                        SequenceLayout.of(("I", (SIZE, SIZE))),
                        notes="defined only where det != 0")


# ----------------------------------------------------------------------------
# Run-time entry points (exact arithmetic): a singular matrix is a clear error.


def _exact_matrix(matrix: Any, n: int) -> list[list[Any]]:
    try:
        rows = [list(r) for r in matrix]
    except TypeError:
        raise ShapeError(f"expected a {n}x{n} matrix (a list of rows), got {matrix!r}") from None
    if len(rows) != n or any(len(r) != n for r in rows):
        shown = f"{len(rows)}x{len(rows[0]) if rows else 0}"
        raise ShapeError(f"expected a {n}x{n} matrix, got {shown}")
    try:
        return [[as_exact(x) for x in r] for r in rows]
    except (TypeError, ValueError) as error:
        raise InputError(f"the matrix cannot be read exactly: {error}") from None


def _run3(matrix: Any) -> dict[str, list]:
    from usim.encodings.runners import run_exact

    rows = _exact_matrix(matrix, SIZE)
    program = det3_program()
    # the inverse divides by det: evaluate the other outputs first
    partial = Program.of("det3_no_inverse", {k: v for k, v in program.outputs if k != "inverse"})
    out = run_exact(partial, [x for r in rows for x in r])
    if out["det"][0] == 0:
        raise InputError(
            "the matrix is singular (determinant 0): it has no inverse, and the "
            "construction's division by det is undefined"
        )
    out["inverse"] = run_exact(program, [x for r in rows for x in r])["inverse"]
    return out


def determinant3(matrix: Any) -> Fraction | int:
    """det(A) computed by the published construction, exactly.

    Args:
        matrix: A, 3 rows of 3 numbers read exactly (ints, Fractions, decimal
            strings).

    Returns:
        det(A) as an int or a Fraction.

    Raises:
        ShapeError: A is not 3 x 3.
        InputError: an entry cannot be read exactly.

    >>> determinant3([[2, 0, 0], [0, 3, 0], [0, 0, 4]])
    24
    """
    from usim.encodings.runners import run_exact

    rows = _exact_matrix(matrix, SIZE)
    partial = Program.of("det3_det", {"det": det3_program().outputs[1][1]})
    return run_exact(partial, [x for r in rows for x in r])["det"][0]


def invert3(matrix: Any) -> list[list[Fraction | int]]:
    """A^{-1} computed by the published construction, exactly.

    Raises :class:`InputError` for a singular matrix (det = 0).

    Args:
        matrix: A, 3 rows of 3 numbers read exactly.

    Returns:
        A^{-1}, 3 rows of ints and Fractions.

    >>> invert3([[2, 0, 0], [0, 1, 0], [0, 0, 4]])
    [[Fraction(1, 2), 0, 0], [0, 1, 0], [0, 0, Fraction(1, 4)]]
    >>> invert3([[1, 1, 0], [1, 1, 0], [0, 0, 1]])
    Traceback (most recent call last):
        ...
    usim.errors.InputError: the matrix is singular (determinant 0): it has no inverse, and the construction's division by det is undefined
    """
    out = _run3(matrix)
    return [out["inverse"][SIZE * i: SIZE * i + SIZE] for i in range(SIZE)]


# ----------------------------------------------------------------------------
# The n x n determinant by the Leibniz expansion (constant depth, length n!).


def lehmer_digits(position: SOp | int, n: int) -> list[SOp]:
    """The factorial-base digits d_0..d_{n-1} of ``position`` (d_k < n - k).

    Args:
        position: a position (a sequence such as ``indices``, or an int).
        n: the number of digits.

    Returns:
        [d_0, ..., d_{n-1}], d_k = (position // (n-1-k)!) mod (n-k), of the
        same kind as ``position``.

    >>> lehmer_digits(5, 3)
    [2, 1, 0]
    """
    return [(position // math.factorial(n - 1 - k)) % (n - k) for k in range(n)]


def permutation_of_index(position: SOp, n: int) -> tuple[list[SOp], SOp]:
    """(s(0), ..., s(n-1)) and sign(s) for the permutation with Lehmer code ``position``.

    Decoding from the right: s(n-1) = d_{n-1} = 0; for k = n-2 .. 0, s(k) = d_k
    and every s(l), l > k, with s(l) >= d_k moves up by one. The number of
    inversions of s is d_0 + ... + d_{n-1}, so sign(s) = 1 - 2 * (sum mod 2).
    All element-wise maps of ``position``.

    Args:
        position: the Lehmer code (``indices``: position p stands for s_p).
        n: the size of the permutations.

    Returns:
        ([s(0), ..., s(n-1)] named ``perm0`` ..., sign(s) named ``sign``).
    """
    digits = lehmer_digits(position, n)
    perm: list[SOp] = [None] * n  # type: ignore[list-item]
    perm[n - 1] = digits[n - 1]
    for k in range(n - 2, -1, -1):
        perm[k] = digits[k]
        for l in range(k + 1, n):
            perm[l] = where(perm[l] >= digits[k], perm[l] + 1, perm[l])
    total = digits[0]
    for d in digits[1:]:
        total = total + d
    sign = (1 - 2 * (total % 2)).named("sign")
    return [p.named(f"perm{i}") for i, p in enumerate(perm)], sign


def leibniz_length(n: int) -> int:
    """The Leibniz construction's sequence length.

    Args:
        n: the size of A.

    Returns:
        max(n^2, n!): room for A and for one term per permutation.
    """
    return max(n * n, math.factorial(n))


def leibniz_program(n: int) -> Program:
    """det(A) for A (n x n) by the Leibniz expansion: 2 layers, n + 1 heads.

    Args:
        n: the size of A (at least 1).

    Returns:
        The program with one output, ``det``: det(A) at position 0.

    Raises:
        ShapeError: n < 1.
    """
    if n < 1:
        raise ShapeError(f"a determinant needs n >= 1, got {n}")
    count = math.factorial(n)
    perm, sign = permutation_of_index(indices, n)
    term: SOp = sign
    for i in range(n):
        source = guarded(perm[i] + n * i, 0, count).named(f"leibniz_src{i}")
        term = term * gather(tokens, source).named(f"entry{i}")
    term = term.named("leibniz_term")
    selector = (select(indices, count, Predicate.LT) & select(0, indices, Predicate.EQ)).named("all_terms")
    # constant(count): a real product node even for n = 1 (count * x with count 1 is x)
    det = (aggregate(selector, term).named("terms_mean") * constant(count)).named("det")
    return Program.of(f"det_leibniz_{n}", {"det": det},
                      f"det of an {n}x{n} matrix by the Leibniz expansion over {count} positions")


def leibniz_construction(n: int) -> Construction:
    """:func:`leibniz_program` as a construction.

    Args:
        n: the size of A (at least 1).

    Returns:
        The construction reading A (n x n) followed by zeros and writing det
        (1 x 1), in a sequence of :func:`leibniz_length`.
    """
    length = leibniz_length(n)
    return Construction(
        name=f"determinant {n}x{n} (Leibniz, length {length})",
        program=leibniz_program(n),
        input_layout=SequenceLayout.of(("A", (n, n)), length=length),
        output_layout=SequenceLayout.of(("det", (1, 1)), length=length),
        notes=f"input A followed by zeros up to length max(n^2, n!) = {length}",
    )


def leibniz_determinant(matrix: Sequence[Sequence[Any]]) -> Fraction | int:
    """det(A) by the Leibniz construction, exactly (any n; length n!).

    Args:
        matrix: A, n rows of n numbers read exactly.

    Returns:
        det(A) as an int or a Fraction.

    >>> leibniz_determinant([[1, 2], [3, 4]])
    -2
    """
    from usim.encodings.runners import run_exact

    n = len(matrix)
    rows = _exact_matrix(matrix, n)
    construction = leibniz_construction(n)
    seq = construction.input_layout.encode({"A": rows})
    return run_exact(construction.program, seq)["det"][0]
