"""The n x n determinant at constant depth by the Leibniz expansion.

Claim: for every n <= N and every real n x n matrix A laid out row-major and
followed by zeros up to length max(n^2, n!), the program
:func:`usim.constructions.determinant.leibniz_program` outputs det(A) at
position 0 and 0 elsewhere. 2 attention layers with n + 1 heads, for every n:
position p < n! holds the Leibniz term of the permutation with Lehmer code p
(n gather heads and one element-wise product), one head sums the n! terms.
The depth is constant; the sequence length n! is the price (see the module
docstring of :mod:`usim.constructions.determinant` for why a polynomial-size
constant-depth construction is not to be expected). Target: sympy's det.
"""

from __future__ import annotations

import math

from usim.constructions.determinant import leibniz_construction
from usim.engine.declare import claim, every_shape

CLAIM = claim(
    "det_leibniz",
    paper="determinant (general n, usim's construction)",
    title="n x n determinant in 2 layers, n + 1 heads, sequence length max(n^2, n!)",
    statement=(
        "For every n <= N and every real n x n matrix A laid out row-major and padded with "
        "zeros to length max(n^2, n!), the Leibniz program outputs det(A) at position 0 and 0 "
        "elsewhere, with 2 attention layers (n gather heads, then 1 summing head)."
    ),
    construction=leibniz_construction,
    target=lambda m: {"det": [[m["A"].det(method="berkowitz")]]},  # division-free (Bareiss divides by pivots as written)
    shapes=every_shape(1),
    mutants={
        # every term with the opposite sign: -det(A)
        "negated-sign": lambda s: {"sign": lambda node: -node},
        # the mean times n! + 1
        "wrong-count": lambda s: {"det": lambda node: node.args[0] * (math.factorial(s[0]) + 1)},
    },
    default_max_n=4,
    ci_max_n=4,
    category="our statement",
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
