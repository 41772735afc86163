"""Corollary 9.1 (arXiv v2): one RASP program U simulates an H-head encoder layer.

Claim ``corollary9_1``, bounded: for a bound N and every H <= min(4, N), as Corollary
6.1 (:mod:`usim.proofs.corollary6_1_encoder`) with the attention of Theorem 9
([head_0 | ... | head_{H-1}] W_O, merged heads, d_v = d), the one program
U_{N,H} for every n, d <= N, zero-padded:

    Z   = LN1(X + [head_0 | ...] W_O)
    out = LN2(Z + ReLU(Z W1 + 1 b1) W2 + 1 b2),   eps1, eps2 > 0.

Obligations ``N x H x n x d x k`` (see :mod:`usim.proofs._universal`); the
engine is sympy, as for Corollary 6.1.

For every size (``usim prove corollary9_1 --all-sizes``,
:data:`usim.proofs.corollary9_1_stages.COROLLARY9_1`) the claim holds for every H: U_{N,H}
over stacked heads with the encoder (:mod:`usim.proofs.corollary9_1_stacked`) for every N, H
and n, d, d_v <= N, and the programs above for H <= 4, each proved as its stages and their chain.
"""

from __future__ import annotations

from typing import Any

from usim.constructions.universal import LayerSpec
from usim.proofs._universal import encoder_term, universal_claim
from usim.proofs.corollary6_1_encoder import ENGINES
from usim.proofs.theorem9_multihead import heads


def spec_of(n: Any, d: Any, h: int) -> LayerSpec:
    """H merged heads of value width d each, W_O (H d x d), then the encoder's parts."""
    return LayerSpec(n, d, heads=h, d_v=d, out_proj=True, encoder=True)


CLAIM = universal_claim(
    "corollary9_1",
    spec_of=spec_of,
    heads=heads,
    formula=encoder_term,
    paper="Corollary 9.1",
    title="U simulates an H-head post-norm encoder layer",
    statement=(
        "For every N and H, one RASP program U_{N,H}: for every n, d <= N and every "
        "real input with eps1, eps2 > 0, U_{N,H} run on <[n, d, c], X, A_0, V_0, ..., W_O, W1, b1, "
        "W2, b2, g1, be1, eps1, g2, be2, eps2>, each zero-padded to its blocks, outputs "
        "LN2(Z + ReLU(Z W1 + 1 b1) W2 + 1 b2) with Z = LN1(X + [softmax(c X A_h X^T) X V_h]_h W_O), "
        "zero-padded to N x N. For H <= min(4, N) U_{N,H} reads each head's blocks on their own; for every H, "
        "U_{N,H} over stacked heads (corollary9_1_stacked's program) reads A = [A_0 | ... ] and V likewise, and "
        "every value width d_v <= N. Bounded: the heads read on their own, shapes N x H x n x d x k: stage k of "
        "U_{N,H} at header n, d (0: free); k = 0 the padding lemma (the stacked program's bounded check: "
        "corollary9_1_stacked). For every size (--all-sizes): both programs, every N, H and n, d, d_v <= N."
    ),
    engines=ENGINES,
    default_max_n=8,
    ci_max_n=3,
    notes="merged heads, d_v = d, W_O (H d x d); post-norm",
    category="our statement",
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
