"""Theorem 9's U with one head and the output projection W_O, stage by stage, for every size.

Claim ``theorem9_one_head`` (bounded): for a bound N, the one program U_{N,1}
built for N x N with one merged head and W_O, given <hdr = [n, d, c], X (n x d),
A (d x d), V (d x d), W_O (d x d)> zero-padded to its N x N blocks, outputs, for
every n, d <= N,

    softmax(c X A X^T) X V W_O

zero-padded to N x N: Theorem 9 at H = 1, the projection included (the claim
``theorem9`` states every H <= min(4, N), up to a bound only). U_{N,1} is five
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
the product's sums at the heads' boundaries. H symbolic is not proved: U's
route has one list of steps per head.

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
heads read.
"""

from __future__ import annotations

from usim.constructions.universal import LayerSpec
from usim.proofs._stages import PaddedFamily, composed_claim, stage_claims
from usim.proofs._universal import attention_term, universal_claim
from usim.proofs.theorem6_attention import ENGINES
from usim.proofs.theorem6_stages import misplaced, no_key_mask, wrapping


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


PADDED = PaddedFamily(_spec)
"""U_{N,1} with W_O, each stage on its workspace zero-padded to T's sizes n x d."""

PADDED_CLAIMS, PADDED_FAMILIES = stage_claims(
    "theorem9_one_head_padded", PADDED, paper="Theorem 9 (U's stages, H = 1, every n, d <= N)",
    what="one merged head and W_O on T of every size n, d <= N, zero-padded",
    mutants={1: {"misplaced-block": misplaced("s1.route.3")},
             2: {"misplaced-block": misplaced("s2.route.1")},
             3: {"no-key-mask": no_key_mask(3)},
             4: {"misplaced-block": misplaced("s4.route.1")}},
    bounded_mutants={5: {"product-off-by-one": lambda *sizes: {"s5.Att.m": _output_off_by_one}}},
    all_sizes_mutants={2: {f"wraps-past-{STAGE_WRAP}": wrapping("s2.route.1", STAGE_WRAP)}},
    replay_positions=REPLAY, engines=ENGINES, default_max_n=3, ci_max_n=2, category="our statement",
    notes="the stage on its workspace zero-padded to n x d; header n, d set by the stage")

THEOREM9_ONE_HEAD = composed_claim(CLAIM, PADDED, PADDED_FAMILIES, attention_term)
"""Theorem 9 at H = 1 for every N and every n, d <= N: the padded stages and their composition."""



def _two_heads(n, d, heads=2) -> LayerSpec:
    """Two merged heads of value width d each, and W_O (2d x d)."""
    return LayerSpec(n, d, heads=2, d_v=d, out_proj=True)


TWO_HEADS_CLAIM = universal_claim(
    "theorem9_two_heads",
    spec_of=_two_heads,
    formula=attention_term,
    paper="Theorem 9 (H = 2)",
    title="U simulates two heads with W_O, [head_0 | head_1] W_O: one RASP program for every n, d <= N",
    statement=(
        "For every N, the one RASP program U_{N,2} (built for N x N, two merged heads of value width d "
        "and W_O): for every n, d <= N and every real X (n x d), A_0, V_0, A_1, V_1 (d x d), W_O "
        "(2d x d) and scale c, U_{N,2} run on <[n, d, c], X, A_0, V_0, A_1, V_1, W_O>, each "
        "zero-padded to its blocks (W_O head by head: rows h*d .. to rows h*N ..), outputs "
        "[softmax(c X A_0 X^T) X V_0 | softmax(c X A_1 X^T) X V_1] W_O zero-padded to N x N. Shapes "
        "N x n x d x k: stage k of U_{N,2} at header n, d (0: free); k = 0 the padding lemma."
    ),
    engines=ENGINES,
    default_max_n=3,
    ci_max_n=2,
    notes="merged heads, d_v = d each, concatenation by routing (head 1 at columns N ..), W_O by a product block",
    category="our statement",
)

TWO_HEADS = PaddedFamily(_two_heads)
"""U_{N,2} with W_O, each stage on its workspace zero-padded to T's sizes n x d."""

TWO_HEADS_CLAIMS, TWO_HEADS_FAMILIES = stage_claims(
    "theorem9_two_heads_padded", TWO_HEADS, paper="Theorem 9 (U's stages, H = 2, every n, d <= N)",
    what="two merged heads and W_O on T of every size n, d <= N, zero-padded",
    mutants={2: {"misplaced-block": misplaced("s2.route.1")},
             3: {"no-key-mask": no_key_mask(3, "P_1")},
             4: {"misplaced-block": misplaced("s4.route.2"), "second-head-misplaced": misplaced("s4.route.1")}},
    bounded_mutants={1: {"misplaced-block": misplaced("s1.route.3")},
                     5: {"product-off-by-one": lambda *sizes: {"s5.Att.m": _output_off_by_one}}},
    replay_positions=REPLAY, engines=ENGINES, default_max_n=2, ci_max_n=2, category="our statement",
    notes="the stage on its workspace zero-padded to n x d; header n, d set by the stage")

THEOREM9_TWO_HEADS = composed_claim(TWO_HEADS_CLAIM, TWO_HEADS, TWO_HEADS_FAMILIES, attention_term)
"""Theorem 9 at H = 2 for every N and every n, d <= N: the padded stages and their composition."""

CLAIMS = (CLAIM, *PADDED_CLAIMS, TWO_HEADS_CLAIM, *TWO_HEADS_CLAIMS)
FAMILIES = (*PADDED_FAMILIES, *TWO_HEADS_FAMILIES)
COMPOSED = (THEOREM9_ONE_HEAD, THEOREM9_TWO_HEADS)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(*(c.id for c in CLAIMS))
