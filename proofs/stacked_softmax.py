"""The softmax of H heads stacked (Theorem 9 over a symbolic head count), for every size.

A U whose head count is a symbol keeps the heads' scores stacked,
S = [S_0; ...; S_{H-1}] (H N x N), and takes their softmax in one layer: row a
of S is row a mod N of head a // N, keys j >= n are left out and rows with
a mod N >= n are set to 0 (an input of n <= N tokens, padded to N).

Claim ``stacked_softmax``, for every N, n, H with n <= N (and, with
``--all-sizes``, for every N >= n >= 1 and H >= 1): the program of
:func:`usim.constructions.softmax.stacked_softmax_program` outputs
P = [P_0; ...; P_{H-1}], P_h[i, j] = exp(S_h[i, j]) / sum_{l < n} exp(S_h[i, l])
for i, j < n and 0 elsewhere, for every real S. Its broken variants:
``heads-past-8-zeroed`` (every row of a head h >= 8 set to 0: right for every
H <= 8, so every bounded check up to N = 8 passes it; refuted for every size at
H = 9) and ``rows-of-head-0-only`` (the row mask i < n without the mod: every
row of the heads after the first set to 0).

Here n is a size of the program, as U's stages state it (the header's n fixed
to n, :mod:`usim.proofs._stages`); U reads it from its header.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import sympy

from usim.constructions.softmax import stacked_softmax_construction
from usim.encodings.sized import both, matrix_of, total, when
from usim.engine.declare import claim
from usim.engine.parametric.statement import FamilyClaim, one_per_shape
from usim.rasp.expr import indices
from usim.rasp.family import Condition

Shape = tuple[int, int, int]


def fits(bound: Any, size: Any, heads: Any) -> Condition | bool:
    """n <= N: the input's tokens fit each head's block."""
    return size <= bound


def shapes(most: int) -> list[Shape]:
    """(N, n, H) with N, H <= the bound and n <= N."""
    return [(bound, size, heads) for bound in range(1, most + 1) for size in range(1, bound + 1)
            for heads in range(1, most + 1)]


@one_per_shape
def stacked_for(bound: Any, size: Any, heads: Any) -> Callable[[Mapping[str, Any]], dict]:
    """The target at (N, n, H): each head's n x n corner's row softmax, zeros elsewhere.

    Args:
        bound: N (an integer, or a symbolic size for every size).
        size: n.
        heads: H (the target reads it from S's shape).

    Returns:
        The target function, one per shape (:func:`one_per_shape`).
    """
    def stacked(m: Mapping[str, Any]) -> dict:
        s = m["S"]
        return {"P": matrix_of(s.rows, s.cols, lambda i, j: when(
            both(i % bound < size, j < size),
            lambda: sympy.exp(s[i, j]) / total(size, lambda l: sympy.exp(s[i, l])),
            lambda: 0))}
    return stacked


CLAIM = claim(
    "stacked_softmax",
    paper="Theorem 9 (the heads' softmax, stacked)",
    title="the softmax of H stacked heads' n x n corners: 1 layer, H N heads",
    statement=(
        "For every N, H and 1 <= n <= N, and all real S (H N x N), the H blocks S_h = S[h N : (h + 1) N] "
        "stacked, the program outputs P (H N x N): P[h N + i, j] = exp(S_h[i, j]) / sum_{l < n} "
        "exp(S_h[i, l]) for i, j < n, and 0 elsewhere (keys j >= n left out, rows i >= n of every "
        "head set to 0)."
    ),
    construction=stacked_softmax_construction,
    target_for=lambda shape: stacked_for(*shape),
    shapes=shapes,
    mutants={"rows-of-head-0-only": lambda s: {"row_ok": lambda node: (indices // s[0]) < s[1]}},
    default_max_n=3,
    ci_max_n=2,
    category="our statement",
    notes="exp is an atom for the sympy engine and an uninterpreted positive function for z3.",
)

ALL_SIZES = FamilyClaim(
    CLAIM,
    stacked_softmax_construction,
    target=None,
    target_for=stacked_for,
    side_condition=fits,
    mutants={
        # the rows of every head h >= 8 set to 0: right for every H <= 8
        "heads-past-8-zeroed": lambda N, n, h: {"row_ok": lambda node: node & (indices < 8 * N * N)},
        "rows-of-head-0-only": lambda N, n, h: {"row_ok": lambda node: (indices // N) < n},
    },
)
"""The stacked softmax for every N >= n >= 1 and H >= 1 (usim prove stacked_softmax --all-sizes)."""

CLAIMS = (CLAIM,)
FAMILIES = (ALL_SIZES,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
