"""Theorem 6 at the weight level: U compiled to a network, proved equal to attention.

Claim ``theorem6_weights``, for every n, d <= N and part k (see
:mod:`usim.proofs._weights`): U built for (n, d)
(:mod:`usim.constructions.universal`), with its header's n and d fixed to the
bounds (U for exactly these sizes, as its stage proofs fix them), is compiled
for its sequence length into one network: 10 layers of average-hard heads
(every routing, transpose and product head, scored from the one-hot position
code, with a BOS sink for the rows that select nothing), bilinear MLP units
(every product, and c * S), and ONE softmax head (the softmax block: logits
c (X A X^T)_ij, the row as its mask). Given <[n, d, c], X, A, V> (row-major,
then zeros), it outputs softmax(c X A X^T) X V row-major from position 0 and
0 after (part 0), exactly what U does at every position (part 1), and so does
the same network under softmax attention with masks (part 2), for every real
X, A, V and c. (The header's n and d entries are read by nothing: they are
the bounds.)

Broken networks (must be REFUTED; see
:func:`usim.proofs._weights.universal_mutants`): two keys' score vectors
swapped in the transpose head, the sink removed from the last head whose rows
can select nothing, a bilinear unit's output weight doubled.
"""

from __future__ import annotations

from usim.constructions.universal import LayerSpec
from usim.engine.declare import every_shape
from usim.proofs._weights import universal_mutants, universal_source, weights_claim

CLAIM = weights_claim(
    "theorem6_weights",
    source=universal_source("theorem6_weights", lambda size: LayerSpec(*size)),
    base="theorem6",
    shapes=every_shape(2),
    mutants=universal_mutants(),
    paper="Theorem 6 (weights)",
    title="U compiled to weights: one network computes softmax(c X A X^T) X V",
    statement=(
        "For every n, d <= N, the network compiled from U (built for n, d; header n, d fixed) for U's "
        "sequence length outputs, for every real X (n x d), A (d x d), V (d x d) and c given as "
        "<[n, d, c], X, A, V>: softmax(c X A X^T) X V then 0 (part 0), U's output at every position "
        "(part 1), and the same under softmax attention with masks (part 2)."
    ),
    default_max_n=3,
    ci_max_n=2,
    notes="average-hard routing heads, bilinear units, one softmax head; exact exp",
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
