"""Corollary 9.1 (arXiv v2): one RASP program U simulates an H-head encoder layer.

Claim ``corollary9_1``, for every n, d <= N and H <= min(2, N): as
Corollary 6.1 (:mod:`usim.proofs.corollary6_1_encoder`) with the attention of
Theorem 9 ([head_0 | ... | head_{H-1}] W_O, merged heads, d_v = d):

    Z   = LN1(X + [head_0 | ...] W_O)
    out = LN2(Z + ReLU(Z W1 + 1 b1) W2 + 1 b2),   eps1, eps2 > 0.

Obligations ``n x d x H x k``: stage k of U (see :mod:`usim.proofs._universal`).
"""

from __future__ import annotations

import sys

from usim.constructions.universal import Spec
from usim.proofs._universal import encoder_term, universal_claim
from usim.proofs.theorem9_multihead import sizes

CLAIM = universal_claim(
    "corollary9_1",
    spec_of=lambda size: Spec(size[0], size[1], heads=size[2], d_v=size[1], out_proj=True, encoder=True),
    sizes=sizes,
    formula=encoder_term,
    paper="Corollary 9.1",
    title="U simulates an H-head post-norm encoder layer",
    statement=(
        "For every n, d <= N and H <= 2, one RASP program U, for every real input with "
        "eps1, eps2 > 0, run on <[n, d, c], X, A_0, V_0, ..., W_O, W1, b1, W2, b2, g1, be1, eps1, "
        "g2, be2, eps2> outputs LN2(Z + ReLU(Z W1 + 1 b1) W2 + 1 b2) with "
        "Z = LN1(X + [softmax(c X A_h X^T) X V_h]_h W_O). Shapes n x d x H x k: stage k of U."
    ),
    default_max_n=3,
    ci_max_n=2,
    notes="merged heads, d_v = d, W_O (H d x d); post-norm; ReLU decided by z3",
    category="our statement",
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":
    from usim.commands.prove import prove_main

    sys.exit(prove_main(CLAIM.id))
