"""Theorem 9 (arXiv v2): one RASP program U simulates H-head attention.

Claim ``theorem9``, for every n, d <= N and H <= min(2, N): U built for
(n, d, H), given <hdr = [n, d, c], X (n x d), A_h (d x d), V_h (d x d) for
h < H, W_O (H d x d)> outputs

    [head_0 | ... | head_{H-1}] W_O,   head_h = softmax(c X A_h X^T) X V_h,

the heads concatenated by columns (a routing of U: head h's block goes to
columns h*d .. of the concatenation) and projected by W_O (a product block).
Obligations ``n x d x H x k``: stage k of U (see :mod:`usim.proofs._universal`).
The heads' blocks are computed side by side in the same stages, so U's depth
does not grow with H (tests/test_universal.py asserts it).
"""

from __future__ import annotations

import sys

from usim.constructions.universal import Spec
from usim.proofs._universal import attention_term, universal_claim

MAX_HEADS = 2


def sizes(n: int) -> list[tuple[int, int, int]]:
    """(n, d, H) with n, d <= N and H <= min(N, MAX_HEADS)."""
    return [(a, b, h) for a in range(1, n + 1) for b in range(1, n + 1)
            for h in range(1, min(MAX_HEADS, n) + 1)]


CLAIM = universal_claim(
    "theorem9",
    spec_of=lambda size: Spec(size[0], size[1], heads=size[2], d_v=size[1], out_proj=True),
    sizes=sizes,
    formula=attention_term,
    paper="Theorem 9",
    title="U simulates H-head attention: heads concatenated and projected by W_O",
    statement=(
        "For every n, d <= N and H <= 2, one RASP program U, for every real X (n x d), A_h, V_h "
        "(d x d), W_O (H d x d) and scale c, run on <[n, d, c], X, A_0, V_0, ..., W_O> outputs "
        "[softmax(c X A_0 X^T) X V_0 | ... ] W_O. Shapes n x d x H x k: stage k of U."
    ),
    default_max_n=3,
    ci_max_n=2,
    notes="merged heads, d_v = d per head, concatenation by routing, W_O by a product block",
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":
    from usim.commands.prove import prove_main

    sys.exit(prove_main(CLAIM.id))
