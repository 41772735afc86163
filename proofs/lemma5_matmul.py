"""Lemma 5 (arXiv v2): the product of A (r x k) and B (k x c) in two layers.

Claim, for every r, k, c <= N with r*c <= k*(r + c): the program of
:mod:`usim.constructions.matmul` with r, c fixed (k read from ``length``), run
on <A, B>, outputs AB (r x c) row-major from position 0 and 0 after it, for all
real A and B. 2 attention layers with r + c and r*c heads (3 counting length).

The side condition is a correction: the result must fit in the k*(r + c)
positions of the input; for 3x1 times 1x3 (9 entries, 6 positions) it does not,
and the construction is undefined there (see paper_map.md, errata).
The target is sympy's own matrix product.
"""

from __future__ import annotations

from usim.constructions.matmul import matmul_construction, matmul_fits
from usim.engine.claim import Shape
from usim.engine.declare import claim
from usim.engine.parametric.statement import FamilyClaim
from usim.rasp.expr import Aggregate, Predicate, minimum, select


def product_target(m):
    """AB: sympy's own product, or entry (i, j) = sum_l A[i, l] B[l, j] for all sizes."""
    return {"AB": m["A"] * m["B"]}


def shapes(n: int) -> list[Shape]:
    """(r, k, c) with every dimension <= n whose product fits: r*c <= k(r + c)."""
    return [(r, k, c) for r in range(1, n + 1) for k in range(1, n + 1) for c in range(1, n + 1)
            if matmul_fits(r, k, c)]


CLAIM = claim(
    "lemma5",
    paper="Lemma 5",
    title="product of r x k and k x c matrices: 2 layers, r + c and r*c heads",
    statement=(
        "For every r, k, c <= N with r*c <= k*(r + c), and all real A (r x k) and B (k x c) "
        "laid out as <A, B>, the product program with r, c fixed and k = length // (r + c) "
        "outputs AB row-major from position 0 and 0 at every later position, using 2 attention "
        "layers with r + c and r*c heads (3 counting the layer that computes length)."
    ),
    construction=matmul_construction,
    target=product_target,
    shapes=shapes,
    mutants={
        # the mean is not multiplied by k
        "missing-factor-k": lambda s: {"product": lambda node: node.args[1]},
        # head (0, 0) gives 1 at queries where it selects nothing
        "wrong-default": lambda s: {"mean00": lambda node: Aggregate(node.selector, node.values, default=1)},
        # row 0 of A is read one position too far
        "off-by-one": lambda s: {"a_src0": lambda node: node + 1},
    },
    default_max_n=6,
    ci_max_n=3,
    category="after correction",
)

CLAIMS = (CLAIM,)

ALL_SIZES = FamilyClaim(
    CLAIM,
    matmul_construction,
    target=product_target,
    side_condition=matmul_fits,
    mutants={
        # the second layer's heads read the keys below min(k, 12): right for every k <= 12,
        # from k = 13 on the terms m >= 12 of each entry are dropped
        "inner-sum-capped-at-12": lambda r, k, c: {
            "dot{i}{j}": lambda node: select(node.left.keys, minimum(node.left.queries, 12), Predicate.LT)
            & node.right},
        "missing-factor-k": lambda r, k, c: {"product": lambda node: node.args[1]},
        "off-by-one": lambda r, k, c: {"a_src{i}": lambda node: node + 1},
    },
)
"""Lemma 5 for every r, k, c >= 1 with r*c <= k*(r + c) (usim prove lemma5 --all-sizes)."""

FAMILIES = (ALL_SIZES,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
