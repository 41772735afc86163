"""Corollary 6.1's U (the post-norm encoder layer), stage by stage, for every size.

U_N for the encoder (:mod:`usim.proofs.corollary6_1_encoder`, one merged head)
is twelve stages, each a function of one sequence:

    stage 1:  XT = X^T;  Y1 = X A;  Y4 = X V
    stage 2:  Y2 = Y1 XT
    stage 3:  P = softmax(c Y2), keys and rows >= n masked
    stage 4:  O = P Y4
    stage 5:  Z1 = X + O                                 (the first residual)
    stage 6:  N1 = LN1(Z1): rows i < n over their first d columns, 0 elsewhere
    stage 7:  F1 = N1 W1
    stage 8:  R = max(F1 + [i < n] b1, 0)                (bias on rows i < n, ReLU)
    stage 9:  F2 = R W2
    stage 10: F2b = F2 + [i < n] b2
    stage 11: Z2 = N1 + F2b                              (the second residual)
    stage 12: N2 = LN2(Z2)

Claims ``corollary6_1_padded_stage1`` ... ``stage12``: stage k of U_N on its
workspace zero-padded to T's sizes n x d (:class:`~usim.proofs._stages.PaddedFamily`),
against the zero-padded meanings of its steps, for every N and every
1 <= n, d <= N, and every real input with eps1, eps2 > 0 (the precondition,
every stage carries eps1 and eps2). ``usim prove corollary6_1 --all-sizes``
proves each for every size and checks the chain that composes them
(:func:`~usim.proofs._stages.composition`): U_N outputs the encoder layer
LN2(Z + ReLU(Z W1 + 1 b1) W2 + 1 b2), Z = LN1(X + softmax(c X A X^T) X V),
zero-padded, for every N and every n, d <= N.

What the layer norm needs of the parametric engine, each sound on its own: a
key given by cases on its position (``row`` of a position inside Z, ``-1 - p``
outside) is inverted case by case and the guess is proved like any other
(:func:`usim.engine.parametric.selection.infer`); the square root is defined
where its argument is evidently >= 0 (the variance is a sum of squares, a sum
atom whose body is a square is >= 0) and eps > 0 is the claim's precondition,
used by the sign analysis of the definedness step as ``eps1[0, 0] > 0`` and
nothing else; the ReLU is max(x, 0), a total function compared on equal
arguments.

Broken variants, refuted for every size with an input replayed: a carried or
routed block one position too far (stages 1, 2, 4, 5, 7, 9, 11), the softmax
without its key mask (stage 3), the bias added on the padded rows too (stages
8 and 10), and the layer norm's mean taken over the whole row of the block
(N columns, not the first d: stages 6 and 12, wrong wherever d < N).
"""

from __future__ import annotations

from usim.constructions.universal import LayerSpec
from usim.proofs._stages import PaddedFamily, composed_claim, stage_claims
from usim.proofs._universal import encoder_term
from usim.proofs.corollary6_1_encoder import CLAIM, ENGINES
from usim.proofs.theorem6_stages import bias_on_every_row, misplaced, no_key_mask
from usim.rasp.expr import Aggregate


def _mean_over_the_block(node):
    """The layer norm's mean as the row's sum over the block's N columns, not its first d
    (mu = row_mean_c * N / d, or row_mean_c / d where N is 1: its row mean row_mean_c)."""
    inner = node.args[0]
    return inner if isinstance(inner, Aggregate) else inner.args[0]


def mean_over_the_block(stage: int, out: str):
    """Broken variant: the layer norm of ``stage`` (its result ``out``) averaging
    each row over the whole block (right only where d = N)."""
    return lambda *sizes: {f"s{stage}.{out}.mu": _mean_over_the_block}


ENCODER = PaddedFamily(lambda n, d: LayerSpec(n, d, encoder=True))
"""U_N for the post-norm encoder layer, each stage on its workspace zero-padded to n x d."""

STAGE_CLAIMS, STAGE_FAMILIES = stage_claims(
    "corollary6_1_padded", ENCODER, paper="Corollary 6.1 (U's stages, every n, d <= N)",
    what="the post-norm encoder layer on T of every size n, d <= N, zero-padded",
    mutants={1: {"misplaced-block": misplaced("s1.route.3")},
             2: {"misplaced-block": misplaced("s2.route.1")},
             3: {"no-key-mask": no_key_mask(3)},
             4: {"misplaced-block": misplaced("s4.route.1")},
             5: {"misplaced-addend": misplaced("s5.Z1.addend")},
             6: {"mean-over-the-block": mean_over_the_block(6, "N1")},
             7: {"misplaced-block": misplaced("s7.route.1")},
             8: {"bias-on-every-row": bias_on_every_row(8, "R")},
             9: {"misplaced-block": misplaced("s9.route.1")},
             10: {"bias-on-every-row": bias_on_every_row(10, "F2b")},
             11: {"misplaced-addend": misplaced("s11.Z2.addend")},
             12: {"mean-over-the-block": mean_over_the_block(12, "N2")}},
    engines=ENGINES, default_max_n=2, ci_max_n=2, category="our statement",
    notes="the stage on its workspace zero-padded to n x d; header n, d set by the stage; eps1, eps2 > 0")

COROLLARY6_1 = composed_claim(CLAIM, ENCODER, STAGE_FAMILIES, encoder_term)
"""Corollary 6.1 for every N and every n, d <= N: the padded stages and their composition."""

CLAIMS = tuple(STAGE_CLAIMS)
FAMILIES = tuple(STAGE_FAMILIES)
COMPOSED = (COROLLARY6_1,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(*(c.id for c in CLAIMS))
