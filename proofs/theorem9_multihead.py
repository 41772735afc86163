"""Theorem 9 (arXiv v2): one RASP program U simulates H-head attention.

Claim ``theorem9``, bounded: for a bound N and every H <= min(4, N), the one program
U_{N,H} built for N x N and H heads (merged form, d_v = N, W_O), given
<hdr = [n, d, c], X (n x d), A_h (d x d), V_h (d x d) for h < H, W_O (H d x d)>
zero-padded to its blocks (W_O per head: rows h*d .. to rows h*N ..), outputs
for every n, d <= N

    [head_0 | ... | head_{H-1}] W_O,   head_h = softmax(c X A_h X^T) X V_h,

zero-padded to N x N; the heads concatenated by columns (a routing of U: head
h's block goes to columns h*N .. of the concatenation) and projected by W_O (a
product block). Obligations ``N x H x n x d x k`` (see
:mod:`usim.proofs._universal`): stage k of U_{N,H} (the softmax stage per n,
the others once), k = 0 the padding lemma, which checks that the concatenation
of padded heads times the per-head padded W_O is the padded product. The
heads' blocks are computed side by side in the same stages, so U's depth does
not grow with H (tests/test_constructions_universal.py asserts it).

For every size (``usim prove theorem9 --all-sizes``, :data:`usim.proofs.theorem9_stages.THEOREM9`)
the claim holds for every H: U_{N,H} over stacked heads
(:mod:`usim.proofs.theorem9_stacked`, one list of steps for every H) for every N, H and
n, d, d_v <= N, and the programs above for H <= 4, each proved as its stages and their chain.
"""

from __future__ import annotations

from typing import Any

from usim.constructions.universal import LayerSpec
from usim.proofs._universal import attention_term, universal_claim

MAX_HEADS = 4


def heads(bound: int) -> range:
    """H = 1 .. min(N, MAX_HEADS): one U per number of heads."""
    return range(1, min(MAX_HEADS, bound) + 1)


def spec_of(n: Any, d: Any, h: int) -> LayerSpec:
    """H merged heads of value width d each, and W_O (H d x d)."""
    return LayerSpec(n, d, heads=h, d_v=d, out_proj=True)


CLAIM = universal_claim(
    "theorem9",
    spec_of=spec_of,
    heads=heads,
    formula=attention_term,
    paper="Theorem 9",
    title="U simulates H-head attention: heads concatenated and projected by W_O",
    statement=(
        "For every N and H, one RASP program U_{N,H}: for every n, d <= N and every real X (n x d), A_h, "
        "V_h (d x d), W_O (H d x d) and scale c, U_{N,H} run on <[n, d, c], X, A_0, V_0, ..., W_O>, each "
        "zero-padded to its blocks (W_O head by head), outputs [softmax(c X A_0 X^T) X V_0 | ... ] W_O "
        "zero-padded to N x N. For H <= min(4, N) U_{N,H} reads each head's blocks on their own; for every H, "
        "U_{N,H} over stacked heads (theorem9_stacked's program) reads A = [A_0 | ... ] and V likewise, and "
        "every value width d_v <= N. Bounded: the heads read on their own, shapes N x H x n x d x k: stage k "
        "of U_{N,H} at header n, d (0: free); k = 0 the padding lemma (the stacked program's bounded "
        "check: theorem9_stacked). For every size (--all-sizes): both programs, every N, H and n, d, d_v <= N."
    ),
    engines=("sympy", "cvc5"),
    default_max_n=8,
    ci_max_n=3,
    notes="merged heads, d_v = d per head, concatenation by routing, W_O by a product block",
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
