"""Corollary 6.1 (arXiv v2): one RASP program U simulates a single-head encoder layer.

Claim ``corollary6_1``, for every n, d <= N: U built for (n, d) with the
encoder parts on, given <hdr = [n, d, c], X (n x d), A, V (d x d), W1 (d x d),
b1 (1 x d), W2 (d x d), b2 (1 x d), g1, be1 (1 x d), eps1 (1 x 1), g2, be2,
eps2> outputs the post-norm encoder layer (as torch's TransformerEncoderLayer
with norm_first=False, ReLU, dropout off)

    Z   = LN1(X + softmax(c X A X^T) X V)
    out = LN2(Z + ReLU(Z W1 + 1 b1) W2 + 1 b2)

LN(z)_ij = (z_ij - mu_i) / sqrt(var_i + eps) * g_j + be_j, mu_i and the biased
var_i over row i, for every real input with eps1, eps2 > 0 (the precondition).
The paper leaves residuals and layer norm open; usim includes them (each can
be switched off in :class:`~usim.constructions.universal.Spec`; the proof
covers the full layer). The square root is sound in both engines: sympy keeps
sqrt(var + eps) as an algebraic expression of the expanded argument; z3 makes
it a fresh s with s >= 0 and s*s = var + eps (given var + eps >= 0).
The ReLU is max(x, 0): sympy's canonical forms cannot decide Max, z3 can.

Obligations ``n x d x k``: stage k of U (see :mod:`usim.proofs._universal`
for why the stages, with the wiring check, prove U); the whole program at
once does not finish in 60 s even at n = d = 2 (sqrt over exp atoms).
"""

from __future__ import annotations

import sys

from usim.constructions.universal import Spec
from usim.engine.declare import every_shape
from usim.proofs._universal import encoder_term, universal_claim

CLAIM = universal_claim(
    "corollary6_1",
    spec_of=lambda size: Spec(*size, encoder=True),
    sizes=every_shape(2),
    formula=encoder_term,
    paper="Corollary 6.1",
    title="U simulates a post-norm encoder layer (attention, residuals, layer norms, ReLU FFN)",
    statement=(
        "For every n, d <= N, one RASP program U, for every real X (n x d), A, V, W1, W2 "
        "(d x d), b1, b2, g1, be1, g2, be2 (1 x d), eps1, eps2 > 0 and scale c, run on "
        "<[n, d, c], X, A, V, W1, b1, W2, b2, g1, be1, eps1, g2, be2, eps2> outputs "
        "LN2(Z + ReLU(Z W1 + 1 b1) W2 + 1 b2) with Z = LN1(X + softmax(c X A X^T) X V). "
        "Shapes n x d x k: stage k of U."
    ),
    default_max_n=3,
    ci_max_n=2,
    notes="post-norm, biased variance, eps > 0 precondition; ReLU decided by z3",
    category="our statement",
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":
    from usim.commands.prove import prove_main

    sys.exit(prove_main(CLAIM.id))
