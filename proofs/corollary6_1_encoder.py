"""Corollary 6.1 (arXiv v2): one RASP program U simulates a single-head encoder layer.

Claim ``corollary6_1``, for a bound N: the one program U_N built for N x N
with the encoder parts on, given <hdr = [n, d, c], X (n x d), A, V (d x d),
W1 (d x d), b1 (1 x d), W2 (d x d), b2 (1 x d), g1, be1 (1 x d), eps1 (1 x 1),
g2, be2, eps2> zero-padded to its blocks, outputs for every n, d <= N the
post-norm encoder layer (as torch's TransformerEncoderLayer with
norm_first=False, ReLU, dropout off) zero-padded to N x N:

    Z   = LN1(X + softmax(c X A X^T) X V)
    out = LN2(Z + ReLU(Z W1 + 1 b1) W2 + 1 b2)

LN(z)_ij = (z_ij - mu_i) / sqrt(var_i + eps) * g_j + be_j, mu_i and the biased
var_i over the d entries of row i, for every real input with eps1, eps2 > 0
(the precondition). The paper leaves residuals and layer norm open; usim
includes them (each can be switched off in
:class:`~usim.constructions.universal.LayerSpec`; the proof covers the full layer).
The square root is sound in every engine: sympy keeps sqrt(var + eps) as an
algebraic expression of the expanded argument; z3 makes it a fresh s with
s >= 0 and s*s = var + eps (given var + eps >= 0). The ReLU is max(x, 0).

Obligations ``N x n x d x k`` (see :mod:`usim.proofs._universal`): the stages
of products, sums and the transpose once for every header; the softmax, bias
and bias-ReLU stages per n (they mask rows i >= n); the two layer-norm stages
per (n, d) (they average over d columns of the n rows); k = 0 the padding lemma
per size. The whole program at once does not finish in 60 s even at n = d = 2
(sqrt over exp atoms). The claim's engine is sympy alone, which is what the
layer-norm stages and the padding lemmas get: cvc5 cannot state the square
root, z3 times out on the layer-norm stage (300 s at N = 8), and either would
spend its deadline on every layer-norm stage, N^2 of them per bound
(``docs/scale.md``). Every other stage is a stage of U like Theorem 6's and
gets the engine choice for that kind (:mod:`usim.engine.choice`): sympy and
cvc5 (z3 without cvc5).
"""

from __future__ import annotations

from usim.constructions.universal import LayerSpec
from usim.proofs._universal import encoder_term, universal_claim

ENGINES = ("sympy",)
"""The engines of the layer-norm stages (N^2 per bound) and the padding lemmas:
sympy alone (cvc5 has no square root, z3 times out: docs/scale.md); the other
stages get the choice for a stage of U."""

CLAIM = universal_claim(
    "corollary6_1",
    spec_of=lambda n, d, heads: LayerSpec(n, d, encoder=True),
    formula=encoder_term,
    paper="Corollary 6.1",
    title="U simulates a post-norm encoder layer (attention, residuals, layer norms, ReLU FFN)",
    statement=(
        "For every N, one RASP program U_N: for every n, d <= N and every real X (n x d), A, V, W1, "
        "W2 (d x d), b1, b2, g1, be1, g2, be2 (1 x d), eps1, eps2 > 0 and scale c, U_N run on "
        "<[n, d, c], X, A, V, W1, b1, W2, b2, g1, be1, eps1, g2, be2, eps2>, each zero-padded to "
        "U_N's blocks, outputs LN2(Z + ReLU(Z W1 + 1 b1) W2 + 1 b2) with "
        "Z = LN1(X + softmax(c X A X^T) X V), zero-padded to N x N. Shapes N x n x d x k: stage k "
        "of U_N at header n, d (0: free); k = 0 the padding lemma at n x d."
    ),
    engines=ENGINES,
    default_max_n=8,
    ci_max_n=3,
    notes="post-norm, biased variance, eps > 0 precondition",
    category="our statement",
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
