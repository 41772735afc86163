"""Theorem 9's U with the output projection W_O, at one to four heads, stage by stage, for every size.

Claim ``theorem9_one_head`` (bounded): for a bound N, the one program U_{N,1}
built for N x N with one merged head and W_O, given <hdr = [n, d, c], X (n x d),
A (d x d), V (d x d), W_O (d x d)> zero-padded to its N x N blocks, outputs, for
every n, d <= N,

    softmax(c X A X^T) X V W_O

zero-padded to N x N: Theorem 9 at H = 1, the projection included (the claim
``theorem9`` states every H: bounded, the per-head programs for H <= min(4, N)). U_{N,1} is five
stages, each a function of one sequence:

    stage 1: XT = X^T;  Y1 = X A;  Y4 = X V     (W_O carried)
    stage 2: Y2 = Y1 XT
    stage 3: P = softmax(c Y2), keys and rows >= n masked (the header's n and c)
    stage 4: O = P Y4
    stage 5: Att = O W_O

Claims ``theorem9_one_head_padded_stage1`` ... ``stage5``: stage k of U_{N,1} on
its workspace zero-padded to T's sizes n x d (:class:`~usim.proofs._stages.PaddedFamily`:
the zeroing and the header's n, d inside each stage's statement), against the
zero-padded meanings of its steps, for every N and every 1 <= n, d <= N.
``usim prove theorem9_one_head --all-sizes`` proves each for every size (its
tie to the builder, witness and broken variants) and checks the chain that
composes them (:func:`~usim.proofs._stages.composition`: the workspaces chain
as polynomials in N, U's output is the last stage's result in its top-left
corner, U's steps are T's route and compose to the formula at symbolic n, d):
U_{N,1} outputs softmax(c X A X^T) X V W_O zero-padded for every N and every
n, d <= N.

Claim ``theorem9_two_heads``: the same for U_{N,2}, two merged heads of value
width d each, their outputs concatenated by a routing head (head 1's at columns
N .. of the N x 2N block C) and W_O (2d x d, read head by head: rows h*d .. at
rows h*N ..):

    [softmax(c X A_0 X^T) X V_0 | softmax(c X A_1 X^T) X V_1] W_O

zero-padded, for every N and every n, d <= N, as five padded stages
(``theorem9_two_heads_padded_stage1`` ... ``stage5``) and their chain. Stage 4
(O_h = P_h Y4_h routed into C) needs the engine to read a case that the
padding states with quotients (``(N*(l % N) + j) % N < d``, j < N) as the
case's facts state it (``Prover.simplify`` inside a sum's body); stage 5 splits
the product's sums at the heads' boundaries. ``theorem9_three_heads`` and
``theorem9_four_heads`` are the same at H = 3 and 4 (:func:`with_heads`; head h's
output at columns h N .. of C, W_O's rows h d .. at rows h N ..): stage 5 splits
each sum of C W_O at the 2H - 1 boundaries of C's padded blocks.

Claim ``theorem9`` (:mod:`usim.proofs.theorem9_multihead`) for every size:
:data:`THEOREM9`, the four composed claims H = 1 .. 4 side by side and U_{N,H}
over stacked heads (:mod:`usim.proofs.theorem9_stacked`, its seven stages and
their equation, H a dimension) after them (:func:`~usim.proofs._heads.over_heads`),
so it holds for every N, every H and every n, d, d_v <= N, and for H <= 4 the
programs with each head's blocks on their own (U's route one list of steps per
head: one program U_{N,H} per H) hold too.

Broken variants, refuted for every size with an input replayed: stages 1, 2
and 4 routing a carried block one position too far, the softmax without its
key mask (erratum E10); for every size only, stage 2 reading its carried
blocks' source positions q >= 1100 from q - 1100 (``wraps-past-1100``: U_{N,1}'s
workspaces have 3 + 4 N^2 positions, 1027 at N = 16 and 1159 at N = 17, so it
is right at every N <= 16, where every bounded proof stops, and reads W_O's
last entries from the start at N = 17); for the bounded proof only, stage 5's
product with 1 added to what its heads read (for every size it is UNKNOWN,
outside the engine's fragment: a case split inside a sum). With two heads:
stage 2 and stage 4 routing a carried block one position too far, stage 4
routing head 1's output one position too far into the concatenation
(``second-head-misplaced``), head 1's softmax without its key mask; for the
bounded proof only (not yet run for every size), stage 1 routing a carried
block one position too far and stage 5's product with 1 added to what its
heads read. With three and four heads the same, the last head's softmax without
its key mask and its output one position too far into the concatenation
(``third-head-misplaced``, ``fourth-head-misplaced``).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from usim.constructions.universal import LayerSpec
from usim.engine.claim import Claim
from usim.engine.parametric.composed import ComposedClaim
from usim.engine.parametric.statement import FamilyClaim
from usim.proofs import theorem9_multihead as multihead
from usim.proofs import theorem9_stacked as stacked
from usim.proofs._heads import EveryHead, over_heads
from usim.proofs._stages import PaddedFamily, composed_claim, stage_claims
from usim.proofs._universal import attention_formula, attention_term, universal_claim
from usim.proofs.theorem6_attention import ENGINES
from usim.proofs.theorem6_stages import misplaced, no_key_mask, wrapping
from usim.rasp.rewrite import Replacements

Broken = Mapping[int, Mapping[str, Callable[..., Replacements]]]
"""Broken variants by stage: stage -> name -> the variant's replacements at given sizes."""


def _spec(n, d, heads=1) -> LayerSpec:
    """One merged head of value width d, and W_O (d x d)."""
    return LayerSpec(n, d, heads=1, d_v=d, out_proj=True)


CLAIM = universal_claim(
    "theorem9_one_head",
    spec_of=_spec,
    formula=attention_term,
    paper="Theorem 9 (H = 1)",
    title="U simulates one head with W_O, softmax(c X A X^T) X V W_O: one RASP program for every n, d <= N",
    statement=(
        "For every N, the one RASP program U_{N,1} (built for N x N, one merged head and W_O): for every "
        "n, d <= N and every real X (n x d), A, V, W_O (d x d) and scale c, U_{N,1} run on "
        "<[n, d, c], X, A, V, W_O>, each zero-padded to its N x N block, outputs "
        "softmax(c X A X^T) X V W_O zero-padded to N x N. Shapes N x n x d x k: stage k of U_{N,1} at "
        "header n, d (0: free); k = 0 the padding lemma."
    ),
    engines=ENGINES,
    default_max_n=8,
    ci_max_n=3,
    notes="merged head, d_v = d, W_O by a product block; Theorem 9 at H = 1",
    category="our statement",
)

STAGE_WRAP = 1100
"""Where the broken stage 2 ``wraps-past-1100`` wraps the source positions of its
carried blocks: U_{N,1}'s workspaces have 3 + 4N^2 positions, 1027 at N = 16 and
1159 at N = 17, so the variant is right at every N <= 16 (every bounded proof)
and wrong from N = 17 on (W_O's last entries read from the start). The identity
the engine finds failing first is the header's, which wraps from N = 24 on
(2N^2 + 3 >= 1100): its replay there is on 2307 positions (:data:`REPLAY`)."""

REPLAY = 2560
"""The longest workspace a counterexample of U_{N,1}'s stages is replayed on:
3 + 4N^2 up to N = 25 (stage 2 at N = 24 is replayed exactly in a few seconds)."""


def _output_off_by_one(node):
    """1 added to what the W_O product's heads read."""
    return node + 1


ORDINALS = {2: ("two", "second"), 3: ("three", "third"), 4: ("four", "fourth")}
"""H in words, and the ordinal of its last head (the one a broken variant misplaces)."""


def attention_broken(heads: int) -> Broken:
    """The broken variants of the attention's stages 1 to 4 at ``heads`` heads: a
    routed block one position too far (stages 1, 2 and 4), the last head's softmax
    without its key mask; with H >= 2 also the last head's output one position too far
    into the concatenation (``second-head-misplaced`` at H = 2, ``third-`` at 3, ...),
    Theorem 9's and Corollary 9.1's at H heads.

    Args:
        heads: H, 1 to 4.

    Returns:
        stage -> name -> the broken variant.
    """
    if heads == 1:
        return {1: {"misplaced-block": misplaced("s1.route.3")},
                2: {"misplaced-block": misplaced("s2.route.1")},
                3: {"no-key-mask": no_key_mask(3)},
                4: {"misplaced-block": misplaced("s4.route.1")}}
    return {1: {"misplaced-block": misplaced("s1.route.3")},
            2: {"misplaced-block": misplaced("s2.route.1")},
            3: {"no-key-mask": no_key_mask(3, f"P_{heads - 1}")},
            4: {"misplaced-block": misplaced(f"s4.route.{heads}"),
                f"{ORDINALS[heads][1]}-head-misplaced": misplaced(f"s4.route.{heads - 1}")}}


PADDED = PaddedFamily(_spec)
"""U_{N,1} with W_O, each stage on its workspace zero-padded to T's sizes n x d."""

PADDED_CLAIMS, PADDED_FAMILIES = stage_claims(
    "theorem9_one_head_padded", PADDED, paper="Theorem 9 (U's stages, H = 1, every n, d <= N)",
    what="one merged head and W_O on T of every size n, d <= N, zero-padded",
    mutants=attention_broken(1),
    bounded_mutants={5: {"product-off-by-one": lambda *sizes: {"s5.Att.m": _output_off_by_one}}},
    all_sizes_mutants={2: {f"wraps-past-{STAGE_WRAP}": wrapping("s2.route.1", STAGE_WRAP)}},
    replay_positions=REPLAY, engines=ENGINES, default_max_n=3, ci_max_n=2, category="our statement",
    notes="the stage on its workspace zero-padded to n x d; header n, d set by the stage")

THEOREM9_ONE_HEAD = composed_claim(CLAIM, PADDED, PADDED_FAMILIES, attention_term)
"""Theorem 9 at H = 1 for every N and every n, d <= N: the padded stages and their composition."""





def with_heads(heads: int) -> tuple[Claim, PaddedFamily, list[Claim], list[FamilyClaim], ComposedClaim]:
    """Theorem 9 at ``heads`` >= 2 heads: the bounded claim, U_{N,H}'s padded family,
    its stages' claims and statements for every size, and the claim for every size
    they compose to.

    Args:
        heads: H, 2 to 4 (:data:`ORDINALS`).

    Returns:
        (the bounded claim, the family, the stages' bounded claims, their
        statements for every size, the composed claim).
    """
    word, last = ORDINALS[heads]
    broken = attention_broken(heads)
    names = ", ".join(f"A_{h}, V_{h}" for h in range(heads))
    concatenation = " | ".join(f"softmax(c X A_{h} X^T) X V_{h}" for h in range(heads))
    placed = "head 1 at columns N .." if heads == 2 else "head h at columns h N .."

    def spec_of(n: Any, d: Any, h: int = heads) -> LayerSpec:  # h: universal_claim's H, 1 for a claim without heads
        return LayerSpec(n, d, heads=heads, d_v=d, out_proj=True)

    bounded = universal_claim(
        f"theorem9_{word}_heads",
        spec_of=spec_of,
        formula=attention_term,
        paper=f"Theorem 9 (H = {heads})",
        title=(f"U simulates {word} heads with W_O, [{' | '.join(f'head_{h}' for h in range(heads))}] W_O: "
               "one RASP program for every n, d <= N"),
        statement=(
            f"For every N, the one RASP program U_{{N,{heads}}} (built for N x N, {word} merged heads of value "
            f"width d and W_O): for every n, d <= N and every real X (n x d), {names} (d x d), W_O "
            f"({heads}d x d) and scale c, U_{{N,{heads}}} run on <[n, d, c], X, {names}, W_O>, each "
            "zero-padded to its blocks (W_O head by head: rows h*d .. to rows h*N ..), outputs "
            f"[{concatenation}] W_O zero-padded to N x N. Shapes N x n x d x k: stage k of U_{{N,{heads}}} "
            "at header n, d (0: free); k = 0 the padding lemma."
        ),
        engines=ENGINES,
        default_max_n=3 if heads == 2 else 2,
        ci_max_n=2,
        notes=f"merged heads, d_v = d each, concatenation by routing ({placed}), W_O by a product block",
        category="our statement",
    )
    family = PaddedFamily(spec_of)
    claims, families = stage_claims(
        f"theorem9_{word}_heads_padded", family, paper=f"Theorem 9 (U's stages, H = {heads}, every n, d <= N)",
        what=f"{word} merged heads and W_O on T of every size n, d <= N, zero-padded",
        mutants={k: broken[k] for k in (2, 3, 4)},
        bounded_mutants={1: broken[1], 5: {"product-off-by-one": lambda *sizes: {"s5.Att.m": _output_off_by_one}}},
        replay_positions=REPLAY, engines=ENGINES, default_max_n=2, ci_max_n=2, category="our statement",
        notes="the stage on its workspace zero-padded to n x d; header n, d set by the stage")
    return bounded, family, claims, families, composed_claim(bounded, family, families, attention_term)


TWO_HEADS_CLAIM, TWO_HEADS, TWO_HEADS_CLAIMS, TWO_HEADS_FAMILIES, THEOREM9_TWO_HEADS = with_heads(2)
"""Theorem 9 at H = 2 for every N and every n, d <= N: the padded stages and their composition."""
THREE_HEADS_CLAIM, THREE_HEADS, THREE_HEADS_CLAIMS, THREE_HEADS_FAMILIES, THEOREM9_THREE_HEADS = with_heads(3)
FOUR_HEADS_CLAIM, FOUR_HEADS, FOUR_HEADS_CLAIMS, FOUR_HEADS_FAMILIES, THEOREM9_FOUR_HEADS = with_heads(4)

THEOREM9 = over_heads(multihead.CLAIM, multihead.spec_of, {
    1: (PADDED, THEOREM9_ONE_HEAD), 2: (TWO_HEADS, THEOREM9_TWO_HEADS),
    3: (THREE_HEADS, THEOREM9_THREE_HEADS), 4: (FOUR_HEADS, THEOREM9_FOUR_HEADS)},
    attention_term, heads=range(1, multihead.MAX_HEADS + 1),
    every_h=EveryHead(stacked.FAMILY, stacked.THEOREM9_STACKED, attention_formula))
"""Theorem 9 for every N, every H and every n, d, d_v <= N: U_{N,H} over stacked heads
(:data:`~usim.proofs.theorem9_stacked.THEOREM9_STACKED`), and for every H <= 4
(:data:`~usim.proofs.theorem9_multihead.MAX_HEADS`) U_{N,H} head by head too, each proved as its
padded stages and their chain."""

CLAIMS = (CLAIM, *PADDED_CLAIMS, TWO_HEADS_CLAIM, *TWO_HEADS_CLAIMS, THREE_HEADS_CLAIM, *THREE_HEADS_CLAIMS,
          FOUR_HEADS_CLAIM, *FOUR_HEADS_CLAIMS)
FAMILIES = (*PADDED_FAMILIES, *TWO_HEADS_FAMILIES, *THREE_HEADS_FAMILIES, *FOUR_HEADS_FAMILIES)
COMPOSED = (THEOREM9_ONE_HEAD, THEOREM9_TWO_HEADS, THEOREM9_THREE_HEADS, THEOREM9_FOUR_HEADS, THEOREM9)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(*(c.id for c in CLAIMS))
