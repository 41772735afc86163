"""Errata: constructions as published that usim refutes, as claims of their own.

Each claim here states a published construction exactly as the paper gives it
(as reconstructed from its description where the listing is not available) and
is registered with ``expected=REFUTED``: ``usim prove all`` shows it refuted
with a replayed counterexample, and counts that as the right outcome. The
corrected constructions are the claims ``maxmin`` and ``match2``.

(The softmax and product blocks under average-hard empty rows are errata of the
same kind: ``softmax_published_ahat`` and ``matmul_published_ahat`` in
:mod:`usim.proofs.soft_from_hard`.)
"""

from __future__ import annotations

import dataclasses
import sys

from usim.engine.claim import Claim, Obligation, Shape, Status
from usim.engine.registry import get, register


def _published(claim_id: str, of: str):
    def build(shape: Shape) -> Obligation:
        return dataclasses.replace(get(of).mutants["published"](shape), claim_id=claim_id)
    return build


def _shapes(of: str):
    return lambda n: list(get(of).shapes(n))


MAXMIN_PUBLISHED = register(Claim(
    id="maxmin_published",
    paper="MaxMin as published (erratum)",
    title="the published MaxMin: wrong where an odd position is below its partner",
    statement=(
        "The published MaxMin construction (reconstructed from its description: a flip flag "
        "that adds the position's parity to the comparison) outputs max/min of each pair for "
        "every real input. Expected REFUTED: its flag reaches 2 at an odd position below its "
        "partner, e.g. x = (0, -1) gives (0, 1). Correct only at n = 1 (no pair)."
    ),
    shapes=_shapes("maxmin"),
    obligation=_published("maxmin_published", "maxmin"),
    default_max_n=4,
    ci_max_n=3,
    expected=Status.REFUTED,
    notes="The fix, proved, is the claim maxmin.",
))

MATCH2_PUBLISHED = register(Claim(
    id="match2_published",
    paper="Match2 as published (erratum)",
    title="the published Match2: misses residue 0, counts j = i, averages matches away",
    statement=(
        "The published Match2 construction (select x_j mod p = p - (x_i mod p), average, output "
        "1 where non-zero) answers 'some j has x_i + x_j = 0 mod p'. Expected REFUTED: it never "
        "fires when x_i mod p = 0, counts j = i, and can average a match to 0."
    ),
    shapes=_shapes("match2"),
    obligation=_published("match2_published", "match2"),
    engines=("z3",),
    default_max_n=3,
    ci_max_n=2,
    expected=Status.REFUTED,
    notes="The fix, proved, is the claim match2.",
))


if __name__ == "__main__":
    from usim.commands.prove import prove_main

    sys.exit(prove_main(MAXMIN_PUBLISHED.id))
