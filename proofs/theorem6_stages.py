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

What this proves of Theorem 6 for every size: every stage of U_N, so (the
stages composing by the evaluator's induction, the wiring being the formula
as terms, :mod:`usim.proofs._universal`) U_N computes
softmax(c X A X^T) X V for every N at n = d = N, where the padding lemma is
trivial (no block is padded). For n, d < N the padding lemma is checked per
size up to the bounded claim's bound (``theorem6``): that part of the
hierarchy is not yet proved for every size.

Broken variants, refuted for every size: the softmax without its key mask
(erratum E10: wrong at every n < N), stages 1 and 2 routing their carried
blocks one position too far; and, for the bounded proof only, stage 4's
product with 1 added to what its heads read (for every size it is UNKNOWN:
the node replaced is inside a head's body, and such a family is not
instantiated for a replay).
"""

from __future__ import annotations

from usim.constructions.universal import LayerSpec
from usim.proofs._stages import PaddedFamily, UniversalFamily, stage_claims
from usim.proofs.theorem6_attention import ENGINES
from usim.rasp.expr import Aggregate, Predicate, indices, select


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


def misplaced(head: str):
    """Broken variant: the routing head ``head`` reads one position too far."""
    return lambda *sizes: {head: _shifted_source}


def no_key_mask(stage: int):
    """Broken variant: the softmax of ``stage`` without its key mask (erratum E10)."""
    return lambda *sizes: {f"s{stage}.P.key_ok": lambda node: indices >= 0}


def product_off_by_one(stage: int):
    """Broken variant: 1 added to what the product of ``stage`` reads. Refuted by the
    bounded proof at every shape; for every size it is UNKNOWN (the node replaced is
    inside a head's body, and such a family is not instantiated for a replay), so it
    is a bounded variant only."""
    return {stage: {"product-off-by-one": lambda *sizes: {f"s{stage}.O.m": lambda node: node + 1}}}


SETTINGS = dict(engines=ENGINES, default_max_n=3, ci_max_n=2, category="our statement",
                notes="the stage on its whole workspace (scratch included); header n set by the stage")
"""What the stage claims of both forms share."""

MERGED_CLAIMS, MERGED_FAMILIES = stage_claims(
    "theorem6", FAMILY, paper="Theorem 6 (U's stages)", what="one merged head",
    mutants={1: {"misplaced-block": misplaced("s1.route.3")},
             2: {"misplaced-block": misplaced("s2.route.1")},
             3: {"no-key-mask": no_key_mask(3)}},
    bounded_mutants=product_off_by_one(4), **SETTINGS)

USERS_CLAIMS, USERS_FAMILIES = stage_claims(
    "theorem6_users", USERS_FAMILY, paper="Theorem 6 (U's stages, users' form)",
    what="the users' form with biases",
    mutants={1: {"misplaced-block": misplaced("s1.route.3")},
             2: {"bias-on-every-row": lambda *sizes: {"s2.Qb.biased": _bias_on_every_row}},
             3: {"misplaced-block": misplaced("s3.route.1")},
             4: {"misplaced-block": misplaced("s4.route.1")},
             5: {"no-key-mask": no_key_mask(5)}},
    bounded_mutants=product_off_by_one(6), **SETTINGS)

PADDED = PaddedFamily(FAMILY.spec_of)
"""U_N for one merged head, each stage on its workspace zero-padded to T's sizes n x d."""

USERS_PADDED = PaddedFamily(USERS_FAMILY.spec_of)
"""The users' form, each stage on its workspace zero-padded to T's sizes n x d."""

PADDED_SETTINGS = {**SETTINGS, "notes": "the stage on its workspace zero-padded to n x d; header n, d set by "
                                        "the stage"}

PADDED_CLAIMS, PADDED_FAMILIES = stage_claims(
    "theorem6_padded", PADDED, paper="Theorem 6 (U's stages, every n, d <= N)",
    what="one merged head on T of every size n, d <= N, zero-padded",
    mutants={1: {"misplaced-block": misplaced("s1.route.3")},
             2: {"misplaced-block": misplaced("s2.route.1")},
             3: {"no-key-mask": no_key_mask(3)}},
    bounded_mutants=product_off_by_one(4), **PADDED_SETTINGS)

USERS_PADDED_CLAIMS, USERS_PADDED_FAMILIES = stage_claims(
    "theorem6_users_padded", USERS_PADDED, paper="Theorem 6 (U's stages, users' form, every n, d <= N)",
    what="the users' form on T of every size n, d <= N, zero-padded",
    mutants={1: {"misplaced-block": misplaced("s1.route.3")},
             2: {"bias-on-every-row": lambda *sizes: {"s2.Qb.biased": _bias_on_every_row}},
             5: {"no-key-mask": no_key_mask(5)}},
    bounded_mutants=product_off_by_one(6), **PADDED_SETTINGS)

CLAIMS = tuple(MERGED_CLAIMS + USERS_CLAIMS + PADDED_CLAIMS + USERS_PADDED_CLAIMS)
FAMILIES = tuple(MERGED_FAMILIES + USERS_FAMILIES + PADDED_FAMILIES + USERS_PADDED_FAMILIES)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(*(c.id for c in CLAIMS))
