"""Lemma 4 at the weight level: the softmax block as one softmax head.

Claim ``lemma4_weights``, for every r, c <= N and part k (see
:mod:`usim.proofs._weights`): the softmax program of Lemma 4 (exact exp),
compiled for length r*c, is a network of 1 layer: ONE softmax head whose
logits are the entries (W_K reads the token, W_Q is 1 at every position),
whose additive mask allows, at each query, the keys of its row (0) and
nothing else (-inf), and whose values are the one-hot code of the keys, so
that its output at a query is the softmax of its row; then r*c bilinear MLP
units read, at each position, the weight on its own key. No element-wise
exp, no division by an MLP: exp and the normalisation are the head's own.
It outputs softmax(S) row by row (part 0), exactly what the program does
(part 1), with its softmax head exact because the mask and the scores are
exactly the quantities softmaxed (part 2 is the same network: it has no
average-hard head).

Broken networks (must be REFUTED): the logits read twice the entry (a wrong
score), the mask allows a key of another row, a bilinear unit's weight doubled.
"""

from __future__ import annotations

from dataclasses import replace

from usim.engine.declare import every_shape
from usim.proofs._weights import weights_claim
from usim.proofs.lemma4_softmax import CLAIM as LEMMA4
from usim.transformer import broken
from usim.transformer.model import SOFT, Network, heads_in


def doubled_logits(network: Network) -> Network | None:
    """The first softmax head's logits doubled (softmax(2S) is not softmax(S))."""
    for layer, index, head in heads_in(network):
        if head.kind == SOFT and head.key.nonzeros:
            (i, w), = head.key.columns[0][:1]
            key = head.key.replaced(i, 0, 2 * w)
            return broken._with_head(network, layer, index, replace(head, key=key), "wrong score")
    return None


CLAIM = weights_claim(
    "lemma4_weights",
    base="lemma4",
    source=LEMMA4.obligation,
    shapes=every_shape(2),
    mutants={"wrong-score": doubled_logits, "wrong-mask": broken.wrong_mask,
             "wrong-mlp-weight": broken.wrong_mlp_weight},
    paper="Lemma 4 (weights)",
    title="the softmax block compiled to one softmax head with a mask: 1 layer",
    statement=(
        "For every r, c <= N, the network compiled from Lemma 4's program for length r*c (one softmax "
        "head: logits the entries, mask the row, values the one-hot key code; r*c bilinear units) "
        "outputs, for every real S: softmax(S) row by row (part 0), the program's output at every "
        "position (part 1), and the same under softmax attention with masks (part 2)."
    ),
    default_max_n=4,
    ci_max_n=2,
    notes="exp is an atom for sympy and an uninterpreted positive function for z3, as in lemma4",
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
