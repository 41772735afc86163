"""Corollary 9.1's U (H heads with W_O, then the post-norm encoder) at H = 1 to 4,
stage by stage, for every size.

Claims ``corollary9_1_one_head``, ``corollary9_1_two_heads``,
``corollary9_1_three_heads`` and ``corollary9_1_four_heads`` (bounded): for a
bound N, the one program U_{N,H} built for N x N with H merged heads of value
width d, W_O (H d x d) and the encoder parts, given <hdr = [n, d, c], X,
A_h, V_h (h < H), W_O, W1, b1, W2, b2, g1, be1, eps1, g2, be2, eps2> zero-padded
to its blocks (W_O head by head: rows h d .. at rows h N ..), outputs, for every
n, d <= N and every real input with eps1, eps2 > 0,

    Z   = LN1(X + [softmax(c X A_0 X^T) X V_0 | ... ] W_O)
    out = LN2(Z + ReLU(Z W1 + 1 b1) W2 + 1 b2)

zero-padded to N x N: Corollary 9.1 at that H. U_{N,H} is thirteen stages:
Theorem 9's five (:mod:`usim.proofs.theorem9_stages`), then Corollary 6.1's
eight encoder stages (:mod:`usim.proofs.corollary6_1_stages`), which do not
depend on H:

    stage 6: Z1 = X + Att;  stage 7: N1 = LN1(Z1);  stage 8: F1 = N1 W1;
    stage 9: R = max(F1 + [i < n] b1, 0);  stage 10: F2 = R W2;
    stage 11: F2b = F2 + [i < n] b2;  stage 12: Z2 = N1 + F2b;  stage 13: N2 = LN2(Z2)

Claims ``corollary9_1_one_head_padded_stage1`` ... ``stage13`` (and the same
for two, three and four heads): stage k on its workspace zero-padded to n x d,
for every N and every n, d <= N; ``usim prove corollary9_1_three_heads
--all-sizes`` proves each for every size and checks the chain that composes
them. ``usim prove corollary9_1 --all-sizes`` proves the claim ``corollary9_1``
as the four side by side and U_{N,H} over stacked heads with the encoder
(:mod:`usim.proofs.corollary9_1_stacked`, H a dimension) after them
(:func:`~usim.proofs._heads.over_heads`): for every N, H and n, d, d_v <= N.

Broken variants, refuted for every size with an input replayed: a carried or
routed block one position too far, the last head's softmax without its key
mask, the last head's output one position too far into the concatenation, the residual's addend one position too far, the bias added
on the padded rows too, and the layer norm's mean over the whole row of its block.
"""

from __future__ import annotations

from typing import Any

from usim.constructions.universal import LayerSpec
from usim.engine.claim import Claim
from usim.engine.parametric.composed import ComposedClaim
from usim.engine.parametric.statement import FamilyClaim
from usim.proofs import corollary9_1_multihead_encoder as multihead_encoder
from usim.proofs import corollary9_1_stacked as stacked
from usim.proofs._heads import EveryHead, over_heads
from usim.proofs._stages import PaddedFamily, composed_claim, stage_claims
from usim.proofs._universal import encoder_formula, encoder_term, universal_claim
from usim.proofs.corollary6_1_encoder import ENGINES
from usim.proofs.corollary6_1_stages import mean_over_the_block
from usim.proofs.theorem6_stages import bias_on_every_row, misplaced
from usim.proofs.theorem9_multihead import MAX_HEADS
from usim.proofs.theorem9_stages import ORDINALS, REPLAY, Broken, attention_broken

ENCODER_BROKEN: Broken = {
    5: {"misplaced-block": misplaced("s5.route.1")},
    6: {"misplaced-addend": misplaced("s6.Z1.addend")},
    7: {"mean-over-the-block": mean_over_the_block(7, "N1")},
    8: {"misplaced-block": misplaced("s8.route.1")},
    9: {"bias-on-every-row": bias_on_every_row(9, "R")},
    10: {"misplaced-block": misplaced("s10.route.1")},
    11: {"bias-on-every-row": bias_on_every_row(11, "F2b")},
    12: {"misplaced-addend": misplaced("s12.Z2.addend")},
    13: {"mean-over-the-block": mean_over_the_block(13, "N2")},
}
"""The broken variants of stages 5 to 13, the same at every H."""

WORDS = {1: ("one_head", "one head", "one merged head"),
         **{h: (f"{word}_heads", f"{word} heads", f"{word} merged heads") for h, (word, _) in ORDINALS.items()}}
"""H in the claims' ids and words."""


def encoder_with_heads(heads: int) -> tuple[Claim, PaddedFamily, list[Claim], list[FamilyClaim], ComposedClaim]:
    """Corollary 9.1 at ``heads`` heads: the bounded claim, U_{N,H}'s padded family,
    its stages' claims and statements for every size, and the claim for every size
    they compose to.

    Args:
        heads: H, 1 to 4 (:data:`WORDS`).

    Returns:
        (the bounded claim, the family, the stages' bounded claims, their
        statements for every size, the composed claim).
    """
    tag, few, merged = WORDS[heads]

    def spec_of(n: Any, d: Any, h: int = heads) -> LayerSpec:  # h: universal_claim's H, 1 for a claim without heads
        return multihead_encoder.spec_of(n, d, heads)

    bounded = universal_claim(
        f"corollary9_1_{tag}",
        spec_of=spec_of,
        formula=encoder_term,
        paper=f"Corollary 9.1 (H = {heads})",
        title=f"U simulates the post-norm encoder layer with {few} and W_O: one RASP program for every n, d <= N",
        statement=(
            f"For every N, the one RASP program U_{{N,{heads}}} (built for N x N, {merged} of value width d, "
            "W_O and the encoder parts): for every n, d <= N and every real input with eps1, eps2 > 0, it "
            "outputs LN2(Z + ReLU(Z W1 + 1 b1) W2 + 1 b2) with Z = LN1(X + [softmax(c X A_h X^T) X V_h]_h "
            "W_O), zero-padded to N x N. Shapes N x n x d x k: stage k at header n, d (0: free); k = 0 the "
            "padding lemma."),
        engines=ENGINES, default_max_n=3 if heads <= 2 else 2, ci_max_n=2, category="our statement",
        notes=f"Corollary 9.1 at H = {heads}: merged heads, d_v = d, W_O (H d x d); post-norm")
    family = PaddedFamily(spec_of)
    claims, families = stage_claims(
        f"corollary9_1_{tag}_padded", family, paper=f"Corollary 9.1 (U's stages, H = {heads}, every n, d <= N)",
        what=f"the encoder layer with {few} and W_O on T of every size n, d <= N, zero-padded",
        mutants={**attention_broken(heads), **ENCODER_BROKEN}, replay_positions=REPLAY, engines=ENGINES,
        default_max_n=2, ci_max_n=2, category="our statement",
        notes="the stage on its workspace zero-padded to n x d; header n, d set by the stage; eps1, eps2 > 0")
    return bounded, family, claims, families, composed_claim(bounded, family, families, encoder_term)


ONE_HEAD_CLAIM, ONE_HEAD, ONE_HEAD_CLAIMS, ONE_HEAD_FAMILIES, COROLLARY9_1_ONE_HEAD = encoder_with_heads(1)
TWO_HEADS_CLAIM, TWO_HEADS, TWO_HEADS_CLAIMS, TWO_HEADS_FAMILIES, COROLLARY9_1_TWO_HEADS = encoder_with_heads(2)
THREE_HEADS_CLAIM, THREE_HEADS, THREE_HEADS_CLAIMS, THREE_HEADS_FAMILIES, COROLLARY9_1_THREE_HEADS = \
    encoder_with_heads(3)
FOUR_HEADS_CLAIM, FOUR_HEADS, FOUR_HEADS_CLAIMS, FOUR_HEADS_FAMILIES, COROLLARY9_1_FOUR_HEADS = encoder_with_heads(4)

COROLLARY9_1 = over_heads(multihead_encoder.CLAIM, multihead_encoder.spec_of, {
    1: (ONE_HEAD, COROLLARY9_1_ONE_HEAD), 2: (TWO_HEADS, COROLLARY9_1_TWO_HEADS),
    3: (THREE_HEADS, COROLLARY9_1_THREE_HEADS), 4: (FOUR_HEADS, COROLLARY9_1_FOUR_HEADS)},
    encoder_term, heads=range(1, MAX_HEADS + 1),
    every_h=EveryHead(stacked.FAMILY, stacked.COROLLARY9_1_STACKED, encoder_formula))
"""Corollary 9.1 for every N, every H and every n, d, d_v <= N: U_{N,H} over stacked heads with the encoder
(:data:`~usim.proofs.corollary9_1_stacked.COROLLARY9_1_STACKED`), and for every H <= 4
(:data:`~usim.proofs.theorem9_multihead.MAX_HEADS`) U_{N,H} head by head too, each proved as its stages
and their chain."""

CLAIMS = (ONE_HEAD_CLAIM, *ONE_HEAD_CLAIMS, TWO_HEADS_CLAIM, *TWO_HEADS_CLAIMS, THREE_HEADS_CLAIM,
          *THREE_HEADS_CLAIMS, FOUR_HEADS_CLAIM, *FOUR_HEADS_CLAIMS)
FAMILIES = (*ONE_HEAD_FAMILIES, *TWO_HEADS_FAMILIES, *THREE_HEADS_FAMILIES, *FOUR_HEADS_FAMILIES)
COMPOSED = (COROLLARY9_1_ONE_HEAD, COROLLARY9_1_TWO_HEADS, COROLLARY9_1_THREE_HEADS, COROLLARY9_1_FOUR_HEADS,
            COROLLARY9_1)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(*(c.id for c in CLAIMS))
