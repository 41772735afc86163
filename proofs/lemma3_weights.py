"""Lemma 3 at the weight level: the transpose program compiled to a network.

Claim ``lemma3_weights``, for every r, c <= N and part k (see
:mod:`usim.proofs._weights`): the transpose program of Lemma 3 (r fixed, c
from length), compiled for sequences of length r*c, is a network of 1 layer
with 1 average-hard head (no MLP): the head's scores come from the one-hot
position code (select(indices, src, ==) by values: d_k = 3, whatever r and c
are); it outputs M^T (part 0), exactly what the program does at every
position (part 1), and so does the same network under softmax attention with
its maximisers as the mask (part 2).

Broken networks (must be REFUTED): two keys' score vectors swapped. (The
program selects a key at every query, so a missing sink changes nothing and
there is no MLP: those variants belong to Lemma 5 and U.)
"""

from __future__ import annotations

from usim.engine.declare import every_shape
from usim.proofs._weights import weights_claim
from usim.proofs.lemma3_transpose import CLAIM as LEMMA3
from usim.transformer import broken

CLAIM = weights_claim(
    "lemma3_weights",
    base="lemma3",
    source=LEMMA3.obligation,
    shapes=every_shape(2),
    mutants={"wrong-score": broken.wrong_score},
    paper="Lemma 3 (weights)",
    title="the transpose program compiled to weights: 1 layer, 1 average-hard head",
    statement=(
        "For every r, c <= N, the network compiled from Lemma 3's program for length r*c (one-hot "
        "positions, a BOS sink, 1 layer with 1 average-hard head scored from the positions) outputs, "
        "for every real M: M^T (part 0), the program's own output at every position (part 1); "
        "and so does the same network under softmax attention with masks (part 2)."
    ),
    default_max_n=8,
    ci_max_n=2,
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
