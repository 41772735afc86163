"""3x3 inverse as transpose(cofactor) / det (the paper's determinant section).

Claim: for every real 3x3 matrix A with det(A) != 0, the output ``inverse`` of
:func:`usim.constructions.determinant.det3_program` is A^{-1} row-major. The
precondition det(A) != 0 is part of the statement: the program does not guard
it (at run time :func:`usim.constructions.determinant.invert3` raises an
InputError for a singular matrix). Target: sympy's LU inverse (independent of
the adjugate formula). 2 attention layers (4 heads, then 2).

Both sides are rational functions with denominator det(A): the sympy engine
proves the identity by canonical forms (one numerator over one denominator).
"""

from __future__ import annotations

import sympy

from usim.constructions.determinant import inverse3_construction
from usim.engine.declare import claim
from usim.rasp.expr import indices


def inverse_target(m):
    """sympy's LU inverse, each entry brought to lowest terms.

    LU divides by pivots (A[0,0], ...) that can vanish while det(A) != 0;
    cancelling leaves the single denominator +-det(A), so the target is defined
    on the whole precondition det(A) != 0.
    """
    return {"Ainv": m["A"].inv(method="LU").applyfunc(sympy.cancel)}


def nonsingular(m):
    return [sympy.Ne(m["A"].det(method="bareiss"), 0)]


CLAIM = claim(
    "inverse3",
    paper="3x3 inverse",
    title="3x3 inverse as transpose(cofactor) / det, where det != 0",
    statement=(
        "For every real 3x3 matrix A with det(A) != 0, laid out row-major, the published "
        "construction outputs A^{-1} row-major (the adjugate by one transpose head, divided "
        "element-wise by the determinant). The program does not guard det = 0; the run-time "
        "entry point rejects a singular matrix with an error."
    ),
    construction=lambda rows, cols: inverse3_construction(),
    target=inverse_target,
    output="inverse",
    preconditions=nonsingular,
    shapes=lambda n: [(3, 3)] if n >= 3 else [],
    mutants={
        # cofactor / det without the transpose
        "no-transpose": lambda s: {"adj_src": lambda node: indices},
        # divided by det twice over 9 (the mean, not the determinant)
        "mean-not-det": lambda s: {"det": lambda node: node.args[1]},
    },
    default_max_n=3,
    ci_max_n=3,
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
