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
import sys

from usim.constructions.base import Construction
from usim.constructions.determinant import leibniz_construction
from usim.engine.claim import Claim, Obligation, Shape
from usim.engine.registry import register
from usim.engine.mutants import mutant_builder


def _obligation(shape: Shape, construction: Construction | None = None,
                mutant: str | None = None) -> Obligation:
    (n,) = shape
    right = leibniz_construction(n)
    return Obligation(
        claim_id="det_leibniz",
        shape=shape,
        construction=construction or right,
        target=lambda m: {"det": [[m["A"].det(method="bareiss")]]},
        reference=right,
        mutant=mutant,
    )


def _mutant(name, replace):
    return mutant_builder(name, lambda s: leibniz_construction(s[0]), _obligation, replace)


MUTANTS = {
    # every term with the opposite sign: -det(A)
    "negated-sign": _mutant("negated-sign", lambda s: {"sign": lambda node: -node}),

    # the mean times n! - 1
    "wrong-count": _mutant("wrong-count", lambda s: {
        "det": lambda node: node.args[0] * (math.factorial(s[0]) + 1)}),
}

CLAIM = register(Claim(
    id="det_leibniz",
    paper="determinant (general n, usim's construction)",
    title="n x n determinant in 2 layers, n + 1 heads, sequence length max(n^2, n!)",
    statement=(
        "For every n <= N and every real n x n matrix A laid out row-major and padded with "
        "zeros to length max(n^2, n!), the Leibniz program outputs det(A) at position 0 and 0 "
        "elsewhere, with 2 attention layers (n gather heads, then 1 summing head)."
    ),
    shapes=lambda n: [(k,) for k in range(1, n + 1)],
    obligation=_obligation,
    mutants=MUTANTS,
    default_max_n=4,
    ci_max_n=4,
))


if __name__ == "__main__":
    from usim.commands.prove import prove_main

    sys.exit(prove_main(CLAIM.id))
