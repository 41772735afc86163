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

import functools

import sympy

from usim.constructions.determinant import inverse3_construction
from usim.engine.declare import claim
from usim.rasp.expr import indices


@functools.cache
def _generic_inverse() -> tuple[sympy.Matrix, sympy.Matrix]:
    """A generic 3x3 matrix G of fresh symbols and its LU inverse, each entry in lowest terms."""
    G = sympy.Matrix(3, 3, sympy.symbols("g0:3(0:3)"))
    return G, G.inv(method="LU").applyfunc(sympy.cancel)


def inverse_target(m):
    """sympy's LU inverse of a generic matrix, each entry in lowest terms, read at A.

    LU divides by pivots (G[0,0], ...) that can vanish while det(G) != 0;
    cancelling leaves the single denominator +-det(G). It is computed on a
    generic matrix and read at A (``subs``), so the target written is that
    rational function: defined on the whole precondition det(A) != 0. (Run on
    A itself, it would divide by A[0,0] as written, undefined at A[0,0] = 0
    under symbols: :mod:`usim.encodings.written`.)
    """
    G, inverse = _generic_inverse()
    return {"Ainv": inverse.subs(dict(zip(G, m["A"])), simultaneous=True)}


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
