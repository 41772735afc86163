"""3x3 cofactors by the cyclic-index trick (the paper's determinant section).

Claim: on a real 3x3 matrix A laid out row-major (length 9), the output
``cofactor`` of :func:`usim.constructions.determinant.det3_program` is the
matrix of signed cofactors C[i][j] = (-1)^(i+j) M[i][j] row-major, for every
real A: a polynomial identity (degree 2). 1 attention layer, 4 gather heads.

The target is sympy's adjugate transposed (adj(A) = C^T), computed by sympy's
own minors, not by the cyclic trick.
"""

from __future__ import annotations

from usim.constructions.determinant import cofactor3_construction
from usim.engine.declare import claim
from usim.rasp.expr import indices

CLAIM = claim(
    "cofactor3",
    paper="3x3 determinant (cofactors)",
    title="3x3 signed cofactors by four cyclic gathers: 1 layer, 4 heads",
    statement=(
        "For every real 3x3 matrix A laid out row-major, the cofactor output of the "
        "published construction (heads gathering A[i+2][j+2], A[i+1][j+1], A[i+2][j+1], "
        "A[i+1][j+2], indices mod 3, and their cross difference) is the matrix of signed "
        "cofactors (-1)^(i+j) M_ij, row-major. 1 attention layer, 4 heads."
    ),
    construction=lambda rows, cols: cofactor3_construction(),
    target=lambda m: {"C": m["A"].adjugate().T},
    output="cofactor",
    shapes=lambda n: [(3, 3)] if n >= 3 else [],
    mutants={
        # the two products added instead of subtracted
        "plus-instead-of-minus": lambda s: {"cofactor": lambda node: node.args[0] + node.args[1]},
        # A[i+2][j+2] read from the wrong column: A[i+2][j]
        "wrong-shift": lambda s: {"src22": lambda node: ((indices // 3 + 2) % 3) * 3 + indices % 3},
    },
    default_max_n=3,
    ci_max_n=3,
    notes="fixed size 3x3: the cyclic trick gives the signs only for n = 3",
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
