"""Theorem 6's U_N, stage by stage, for every N: the schedule and every block as families.

Two forms: the paper's (one merged head, claims ``theorem6_stage1`` to
``theorem6_stage4``) and the users' with biases (``theorem6_users_stage1`` to
``theorem6_users_stage6``: Q, K, V = X W + 1 b; the bias stage, like the
softmax, reads n, adding b on rows i < n only).

U_N for one merged head (:mod:`usim.proofs.theorem6_attention`) is four stages:

    stage 1: XT = X^T;  Y1 = X A;  Y4 = X V     (transpose and two products, side by side)
    stage 2: Y2 = Y1 XT
    stage 3: P = softmax(c Y2), keys and rows >= n masked (the header's n and c)
    stage 4: O = P Y4

Claims ``theorem6_stage1`` ... ``theorem6_stage4``: for every N >= 1 (stage 3:
and every 1 <= n <= N), stage k of U_N on its whole workspace outputs the
next workspace (:mod:`usim.proofs._stages`). With ``--all-sizes`` the
parametric engine proves each for every size: the workspaces' offsets and
U's length 3 + 3N^2 are polynomials in N, the products' N + N^2 and N^2
heads are head sums over symbolic head indices, the header's n set by the
stage is a symbolic integer the key mask compares with, and the masked row
sum over keys l < n is one sum (the engine splits the row's keys at n).

Claims ``theorem6_padded_stage1`` ... (and ``theorem6_users_padded_stage1``
...): the same stages on their workspaces zero-padded to T's sizes n x d
(:class:`~usim.proofs._stages.PaddedFamily`: the zeroing and the header's
n, d inside each stage's statement), proved for every N and every
1 <= n, d <= N. They compose to Theorem 6 itself, for every size:
``usim prove theorem6 --all-sizes`` (and ``theorem6_users``) proves each
padded stage for every size and checks the chain that composes them
(:func:`~usim.proofs._stages.composition`: the layouts chain as polynomials
in N, U's output is the last stage's result, U's steps are T's route and
compose to the formula at symbolic n, d): U_N outputs softmax(c X A X^T) X V
zero-padded for every N and every n, d <= N, the hierarchy included
(:mod:`usim.engine.parametric.composed`). Its broken variants are the padded
stages', each refuted for every size by its stage alone, replayed.

Claim ``theorem6_placement``: the hierarchy's placement of T's compact input
<c, X, A, V> (sizes n x d) into U_N's input (one routing head of corner
pieces, the header's n and d fixed), for every N and every n, d <= N. With
it first, the padded stages compose to the claim ``hierarchy`` for every
size (``usim prove hierarchy --all-sizes``): the program of the hierarchy's
bounded proof, U_N applied to the placement, on every padded size.

Broken variants, refuted for every size: the softmax without its key mask
(erratum E10: wrong at every n < N), stages 1 and 2 routing their carried
blocks one position too far; for every size only, stage 2 reading its carried
blocks' source positions q >= 800 from q - 800 (``wraps-past-800``: right at
every N <= 16, where every bounded proof stops; refuted at N = 20, replayed on
stage 2 alone), and stage 3's softmax keeping keys j < min(n, 20) only
(``key-mask-capped-at-20``: right wherever T has at most 20 rows; refuted at
N = n = 21, replayed on stage 3 alone), and stage 3's softmax reading row i >= 24 of
its block as row i - 24 (``row-heads-wrap-past-24``: its row heads average two rows
and its row mask keeps a padded one; the same values at every N <= 24, refuted at
N = 25, replayed on stage 3 alone); and, for the bounded proof only, stage 4's
product with 1 added to what its heads read (for every size it is UNKNOWN,
outside the engine's fragment: on the whole workspace the product's sum then
reads positions of several input blocks, on the padded one it holds a case
split inside a sum).
"""

from __future__ import annotations

from typing import Any

from usim.constructions.universal import LayerSpec
from usim.proofs._placement import placement_claims
from usim.proofs._stages import PaddedFamily, UniversalFamily, composed_claim, stage_claims
from usim.proofs._universal import attention_term
from usim.proofs.hierarchy import CLAIM as HIERARCHY
from usim.proofs.theorem6_attention import CLAIM, CLAIM_USERS, ENGINES
from usim.rasp.expr import Aggregate, Predicate, indices, select, where
from usim.rasp.rewrite import Replacements


def _shifted_source(node):
    """A routing head reading one position too far."""
    return Aggregate(select(node.selector.keys, node.selector.queries + 1, Predicate.EQ), node.values)


FAMILY = UniversalFamily(lambda n, d: LayerSpec(n, d))
"""U_N for one merged head, N symbolic or an integer."""

USERS_FAMILY = UniversalFamily(lambda n, d: LayerSpec(n, d, form="projected", bias=True))
"""U_N for the users' form (Q, K, V = X W + 1 b; ``theorem6_users``), N symbolic or an integer."""


def _bias_on_every_row(node):
    """The bias added on the padded rows too (its row mask i < n dropped)."""
    kept, masked = node.args
    return kept + masked.args[1]


def bias_on_every_row(stage: int, out: str):
    """Broken variant: the bias of ``stage`` (its result ``out``) added on the padded rows too."""
    return lambda *sizes: {f"s{stage}.{out}.biased": _bias_on_every_row}


def misplaced(head: str):
    """Broken variant: the routing head ``head`` reads one position too far."""
    return lambda *sizes: {head: _shifted_source}


def no_key_mask(stage: int, block: str = "P"):
    """Broken variant: the softmax of ``stage`` computing ``block`` without its key
    mask (erratum E10)."""
    return lambda *sizes: {f"s{stage}.{block}.key_ok": lambda node: indices >= 0}


def wrapping(head: str, at: int):
    """Broken variant: the routing head ``head`` reading source position q - ``at``
    for q >= ``at``: right on every sequence of at most ``at`` positions, so
    wrong only on longer ones."""
    def wrapped(node):
        q = node.selector.queries
        return Aggregate(select(node.selector.keys, where(q >= at, q - at, q), Predicate.EQ), node.values)

    return lambda *sizes: {head: wrapped}


def key_mask_capped(stage: int, cap: int):
    """Broken variant: the softmax of ``stage`` keeping keys j < min(n, ``cap``) only
    (its key mask j < n and j < ``cap``): right wherever n <= ``cap``, so wrong
    only for T with more than ``cap`` rows."""
    return lambda *sizes: {f"s{stage}.P.key_ok": lambda node: node & (node.args[0] < cap)}


def row_heads_wrapping(stage: int, at: int, block: str = "P"):
    """Broken variant: the softmax of ``stage`` reading a position in row i of its
    block, at <= i < N, as row i - ``at`` (its row heads then average two rows, and
    its row mask keeps rows it should zero): another program that computes the same
    values wherever the block, N x N, has at most ``at`` rows (no row wraps), so wrong
    only for U built for N > ``at``."""
    def wrapped(bound: Any, *sizes: Any) -> Replacements:
        return {f"s{stage}.{block}.row": lambda node: where((node >= at) & (node < bound), node - at, node)}

    return wrapped


ROW_WRAP = 24
"""Where the broken softmax ``row-heads-wrap-past-24`` wraps its rows: the same values
at every N <= 24 (every bounded proof stops at 16), wrong from N = 25 on."""


KEY_MASK_CAP = 20
"""Where the broken softmax ``key-mask-capped-at-20`` stops keeping keys: right at
every n <= 20, so at every N <= 16 (every bounded proof), wrong from n = 21 on."""


STAGE_WRAP = 800
"""Where the broken stage 2 ``wraps-past-800`` wraps the source positions of its
carried blocks: U_N's workspaces have 3 + 3N^2 positions, 771 at N = 16 and
870 at N = 17, so the variant is right at every N <= 16 (every bounded proof)
and wrong from N = 17 on (Y4's last entries read from the start)."""


def product_off_by_one(stage: int, block: str = "O"):
    """Broken variant: 1 added to what the product of ``stage`` (making ``block``) reads.
    Refuted by the bounded proof at every shape; for every size it is UNKNOWN (outside
    the engine's fragment: a sum reading positions of several input blocks, or on a
    padded workspace a case split inside a sum), so it is a bounded variant only."""
    return {stage: {"product-off-by-one": lambda *sizes: {f"s{stage}.{block}.m": lambda node: node + 1}}}


SETTINGS = dict(engines=ENGINES, default_max_n=3, ci_max_n=2, category="our statement",
                notes="the stage on its whole workspace (scratch included); header n set by the stage")
"""What the stage claims of both forms share."""

MERGED_BROKEN = dict(
    mutants={1: {"misplaced-block": misplaced("s1.route.3")},
             2: {"misplaced-block": misplaced("s2.route.1")},
             3: {"no-key-mask": no_key_mask(3)}},
    bounded_mutants=product_off_by_one(4),
    all_sizes_mutants={2: {f"wraps-past-{STAGE_WRAP}": wrapping("s2.route.1", STAGE_WRAP)},
                       3: {f"key-mask-capped-at-{KEY_MASK_CAP}": key_mask_capped(3, KEY_MASK_CAP),
                           f"row-heads-wrap-past-{ROW_WRAP}": row_heads_wrapping(3, ROW_WRAP)}})
"""The broken variants of the merged form's stages, on whole and on zero-padded workspaces."""

USERS_BROKEN = dict(
    mutants={1: {"misplaced-block": misplaced("s1.route.3")},
             2: {"bias-on-every-row": bias_on_every_row(2, "Qb")},
             3: {"misplaced-block": misplaced("s3.route.1")},
             4: {"misplaced-block": misplaced("s4.route.1")},
             5: {"no-key-mask": no_key_mask(5)}},
    bounded_mutants=product_off_by_one(6))
"""The broken variants of the users' form's stages, on whole and on zero-padded workspaces."""

MERGED_CLAIMS, MERGED_FAMILIES = stage_claims(
    "theorem6", FAMILY, paper="Theorem 6 (U's stages)", what="one merged head",
    **MERGED_BROKEN, **SETTINGS)

USERS_CLAIMS, USERS_FAMILIES = stage_claims(
    "theorem6_users", USERS_FAMILY, paper="Theorem 6 (U's stages, users' form)",
    what="the users' form with biases",
    **USERS_BROKEN, **SETTINGS)

PADDED = PaddedFamily(FAMILY.spec_of)
"""U_N for one merged head, each stage on its workspace zero-padded to T's sizes n x d."""

USERS_PADDED = PaddedFamily(USERS_FAMILY.spec_of)
"""The users' form, each stage on its workspace zero-padded to T's sizes n x d."""

PADDED_SETTINGS = {**SETTINGS, "notes": "the stage on its workspace zero-padded to n x d; header n, d set by "
                                        "the stage"}

PADDED_CLAIMS, PADDED_FAMILIES = stage_claims(
    "theorem6_padded", PADDED, paper="Theorem 6 (U's stages, every n, d <= N)",
    what="one merged head on T of every size n, d <= N, zero-padded",
    **MERGED_BROKEN, **PADDED_SETTINGS)

USERS_PADDED_CLAIMS, USERS_PADDED_FAMILIES = stage_claims(
    "theorem6_users_padded", USERS_PADDED, paper="Theorem 6 (U's stages, users' form, every n, d <= N)",
    what="the users' form on T of every size n, d <= N, zero-padded",
    **USERS_BROKEN, **PADDED_SETTINGS)


def _n_left_unset(node):
    """The header's n not fixed by the placement (the fix of n dropped, d kept)."""
    return node.args[2]


WRAP = 1000
"""Where the broken placement ``wraps-past-1000`` wraps its source positions: it
is right on every input of at most 1000 positions, so at every N <= 18 (T's
compact input has 1 + n d + 2 d^2 <= 1 + 3 N^2 positions), wrong from N = 19 on."""


PLACEMENT, PLACEMENT_FAMILY = placement_claims(
    "theorem6_placement", PADDED, paper="Theorem 6 (the hierarchy's placement of T into U_N)",
    mutants={"misplaced-corner": misplaced("embed"), "n-left-unset": lambda *sizes: {"fixed": _n_left_unset}},
    all_sizes_mutants={f"wraps-past-{WRAP}": wrapping("embed", WRAP)},
    **PADDED_SETTINGS)

THEOREM6 = composed_claim(CLAIM, PADDED, PADDED_FAMILIES, attention_term)
"""Theorem 6 for every N and every n, d <= N: the padded stages and their composition."""

THEOREM6_USERS = composed_claim(CLAIM_USERS, USERS_PADDED, USERS_PADDED_FAMILIES, attention_term)
"""The users' form for every N and every n, d <= N, the same way."""

HIERARCHY_ALL_SIZES = composed_claim(HIERARCHY, PADDED, PADDED_FAMILIES, attention_term, PLACEMENT_FAMILY)
"""The hierarchy for every N' and every n, d <= N': T's compact input placed, then the padded stages."""

CLAIMS = tuple(MERGED_CLAIMS + USERS_CLAIMS + PADDED_CLAIMS + USERS_PADDED_CLAIMS) + (PLACEMENT,)
FAMILIES = tuple(MERGED_FAMILIES + USERS_FAMILIES + PADDED_FAMILIES + USERS_PADDED_FAMILIES) + (PLACEMENT_FAMILY,)
COMPOSED = (THEOREM6, THEOREM6_USERS, HIERARCHY_ALL_SIZES)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(*(c.id for c in CLAIMS))
