"""Lemma 5 at the weight level: the product compiled to a network.

Claim ``lemma5_weights``, for every r, k, c <= N with r*c <= k(r + c) and
part p (see :mod:`usim.proofs._weights`): the product program of Lemma 5,
compiled for length k(r + c), is a network of 2 layers: layer 1 has r + c
average-hard gather heads (scored by values: d_k = 3) and r*c bilinear MLP
units (the products A[i][m] B[m][j], exact); layer 2 has r*c average-hard
heads, each selecting the keys 0..k-1 at the one query i*c + j and the BOS
sink at every other query (scored by rows: d_k = 2), so that a row that
selects nothing gives RASP's default 0; the readout multiplies their sum by
k. It outputs AB and 0 after it (part 0), what the program does (part 1),
and the same under softmax attention with masks (part 2).

Broken networks (must be REFUTED): two keys' score vectors swapped, the sink
removed (an empty row then averages every position), a bilinear unit's
output weight doubled.
"""

from __future__ import annotations

from usim.proofs._weights import weights_claim
from usim.proofs.lemma5_matmul import CLAIM as LEMMA5
from usim.transformer import broken

CLAIM = weights_claim(
    "lemma5_weights",
    base="lemma5",
    source=LEMMA5.obligation,
    shapes=LEMMA5.shapes,
    mutants={"wrong-score": broken.wrong_score, "missing-sink": broken.without_sink,
             "wrong-mlp-weight": broken.wrong_mlp_weight},
    paper="Lemma 5 (weights)",
    title="the product compiled to weights: 2 layers, bilinear units, a BOS sink",
    statement=(
        "For every r, k, c <= N with r*c <= k(r + c), the network compiled from Lemma 5's program for "
        "length k(r + c) (2 layers: r + c gather heads and r*c bilinear units, then r*c average-hard "
        "heads with a BOS sink) outputs, for all real A and B: AB then 0 (part 0), the program's output "
        "at every position (part 1), and the same under softmax attention with masks (part 2)."
    ),
    default_max_n=4,
    ci_max_n=2,
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
