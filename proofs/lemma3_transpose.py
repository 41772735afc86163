"""Lemma 3 (arXiv v2): matrix transposition by a RASP program of depth 1.

Claim, for every r, c <= N: the program of :mod:`usim.constructions.transpose`
with r rows fixed (c read from ``length``), run on M (r x c) laid out row-major,
outputs M^T (c x r) row-major from position 0, for every real matrix M.
1 attention layer with 1 head (2 layers counting the layer that computes length).

The target is sympy's own transpose of the symbolic input; the construction is
interpreted, not trusted.
"""

from __future__ import annotations

from usim.constructions.transpose import transpose_construction
from usim.engine.declare import claim, every_shape
from usim.engine.parametric.statement import FamilyClaim
from usim.rasp.expr import indices


def transpose_target(m):
    """M^T: sympy's own transpose, or entry (a, b) = M[b, a] for all sizes."""
    return {"MT": m["M"].T}


CLAIM = claim(
    "lemma3",
    paper="Lemma 3",
    title="transpose of an r x c matrix: 1 layer, 1 head",
    statement=(
        "For every r, c <= N and every real r x c matrix M laid out row-major, the "
        "transpose program with r fixed and c = length // r outputs M^T (c x r) "
        "row-major from position 0, using 1 attention layer with 1 head "
        "(2 layers counting the layer that computes length)."
    ),
    construction=transpose_construction,
    target=transpose_target,
    shapes=every_shape(2),
    mutants={
        # row and column swapped in the source position: (p // r) * c + p mod r
        "swapped-index": lambda s: {"transpose_src": lambda node: (indices // s[0]) * s[1] + indices % s[0]},
        # the source is one position too far (the last entry falls off the end)
        "off-by-one": lambda s: {"transpose_src": lambda node: node + 1},
    },
    default_max_n=8,
    ci_max_n=4,
)

CLAIMS = (CLAIM,)

ALL_SIZES = FamilyClaim(
    CLAIM,
    transpose_construction,
    target=transpose_target,
    mutants={
        # the column index p // r taken mod 16: right for every c <= 16, wrong past it
        "column-index-mod-16": lambda r, c: {"transpose_src": lambda node: node.args[0] + node.args[1] % 16},
        "swapped-index": lambda r, c: {"transpose_src": lambda node: (indices // r) * c + indices % r},
        "off-by-one": lambda r, c: {"transpose_src": lambda node: node + 1},
    },
)
"""Lemma 3 for every r, c >= 1 (usim prove lemma3 --all-sizes)."""

FAMILIES = (ALL_SIZES,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
