"""3x3 determinant by row-0 expansion (the paper's determinant section).

Claim: on a real 3x3 matrix A (length 9), the output ``det`` of
:func:`usim.constructions.determinant.det3_program` holds det(A) at position 0
and 0 elsewhere, for every real A. The published step: the products
A[0][j] * C[0][j] are kept at positions < 3 (masked elsewhere), one head averages
all 9 positions, and the mean times 9 is the Laplace expansion along row 0.
2 attention layers (4 heads, then 1). Target: sympy's det (Bareiss), independent.
"""

from __future__ import annotations

from usim.constructions.determinant import det3_construction
from usim.engine.declare import claim
from usim.rasp.expr import indices, where

CLAIM = claim(
    "det3",
    paper="3x3 determinant",
    title="3x3 determinant by row-0 expansion: 2 layers, 5 heads",
    statement=(
        "For every real 3x3 matrix A laid out row-major, the published construction "
        "(cofactors by the cyclic trick; A[0][j] C[0][j] kept at positions < 3; one head "
        "averaging all 9 positions; times 9) outputs det(A) at position 0 (0 elsewhere). "
        "2 attention layers with 4 and 1 heads (the paper counts 5 layers)."
    ),
    construction=lambda rows, cols: det3_construction(),
    target=lambda m: {"det": [[m["A"].det(method="bareiss")]]},
    output="det",
    shapes=lambda n: [(3, 3)] if n >= 3 else [],
    mutants={
        # the mean multiplied by 3 (the number of kept products) instead of 9 (the keys averaged)
        "factor-3": lambda s: {"det": lambda node: 3 * node.args[1]},
        # the mask keeps row 0 and the first entry of row 1
        "mask-4": lambda s: {"row0_products": lambda node: where(indices < 4, node.args[1], 0)},
    },
    default_max_n=3,
    ci_max_n=3,
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
