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
from usim.engine.claim import Claim
from usim.proofs._universal import encoder_term, make_claim

MAX_HEADS = 2


def _spec(size) -> Spec:
    n, d, h = size
    return Spec(n, d, heads=h, d_v=d, out_proj=True, encoder=True)


def _sizes(n: int) -> list[tuple[int, int, int]]:
    return [(a, b, h) for a in range(1, n + 1) for b in range(1, n + 1)
            for h in range(1, min(MAX_HEADS, n) + 1)]


_shapes, _obligation, _mutants = make_claim("corollary9_1", _spec, encoder_term, None)

CLAIM = Claim(
    id="corollary9_1",
    paper="Corollary 9.1",
    title="U simulates an H-head post-norm encoder layer",
    statement=(
        "For every n, d <= N and H <= 2, one RASP program U, for every real input with "
        "eps1, eps2 > 0, run on <[n, d, c], X, A_0, V_0, ..., W_O, W1, b1, W2, b2, g1, be1, eps1, "
        "g2, be2, eps2> outputs LN2(Z + ReLU(Z W1 + 1 b1) W2 + 1 b2) with "
        "Z = LN1(X + [softmax(c X A_h X^T) X V_h]_h W_O). Shapes n x d x H x k: stage k of U."
    ),
    shapes=lambda n: _shapes(_sizes(n)),
    obligation=_obligation,
    mutants=_mutants,
    default_max_n=3,
    ci_max_n=2,
    notes="merged heads, d_v = d, W_O (H d x d); post-norm; ReLU decided by z3",
)


CLAIMS = (CLAIM,)

if __name__ == "__main__":
    from usim.commands.prove import prove_main

    sys.exit(prove_main(CLAIM.id))
