"""MaxMin at the weight level: GroupSort-2 as heads and ReLU units.

Claim ``maxmin_weights``, for every n <= N and part k (see
:mod:`usim.proofs._weights`): the corrected MaxMin program
(:mod:`usim.constructions.maxmin`), compiled for length n, is a network whose
heads fetch each entry's partner (average-hard, scored from the positions)
and whose ReLU units compute max(a, b) = b + relu(a - b) and
min(a, b) = a - relu(a - b) exactly: it outputs every pair sorted (part 0),
the program's output at every position (part 1), and the same under softmax
attention with masks (part 2), for every real input.

Broken networks (must be REFUTED): two keys' score vectors swapped, a ReLU
unit's output weight doubled.
"""

from __future__ import annotations

from usim.proofs._weights import weights_claim
from usim.proofs.maxmin import CLAIM as MAXMIN
from usim.transformer import broken

CLAIM = weights_claim(
    "maxmin_weights",
    base="maxmin",
    source=MAXMIN.obligation,
    shapes=MAXMIN.shapes,
    mutants={"wrong-score": broken.wrong_score, "wrong-mlp-weight": broken.wrong_mlp_weight},
    paper="MaxMin (weights)",
    title="GroupSort-2 compiled to weights: partner heads and exact ReLU units",
    statement=(
        "For every n <= N, the network compiled from the corrected MaxMin program for length n "
        "(average-hard heads fetching each partner, ReLU units for max and min) outputs, for every "
        "real x: each pair (x_2t, x_2t+1) as (max, min), an odd tail unchanged (part 0), the program's "
        "output at every position (part 1), and the same under softmax attention with masks (part 2)."
    ),
    default_max_n=8,
    ci_max_n=3,
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
