"""Theorem 6 (arXiv v2): one fixed RASP program U simulates single-head attention.

Claim ``theorem6`` (the paper's form, with the hierarchy): for a bound N, the
ONE program U_N built by :mod:`usim.constructions.universal` for N x N, given
<hdr = [n, d, c], X (n x d), A (d x d), V (d x d)> zero-padded to its N x N
blocks, outputs, for every n, d <= N,

    softmax(c X A X^T) X V        (row softmax; c = 1 is the paper's form)

zero-padded to N x N (row-major from position 0, 0 after), for every real
X, A, V and c. This is stronger than "for every n, d some U built for n, d":
one program serves every smaller size; at n = d = N nothing is padded.

Claim ``theorem6_users`` (the form users write, with biases), the same for
d_k = d_v = d: given <hdr, X, W_Q, W_K, W_V, b_Q, b_K, b_V> zero-padded, U_N
outputs softmax(c Q K^T) V zero-padded, Q = X W_Q + 1 b_Q, K = X W_K + 1 b_K,
V = X W_V + 1 b_V. The users' 1/sqrt(d_k) is the header's c: c is a real
symbol in the proof, so the statement holds for c = 1/sqrt(d_k) exactly for
every d_k (no rational approximation of an irrational scale; numerically
`usim simulate` puts the float 1/sqrt(d_k) there).

How it is proved (see :mod:`usim.proofs._universal`): obligations
``N x n x d x k``. For k >= 1, stage k of U_N on fresh symbols for its whole
workspace (blocks and routing heads together, every position of the next
workspace checked) against the masked meanings of its steps: the stages of
products and the transpose once for every header (``N x 0 x 0 x k``), the
softmax stage, which reads n (key and row masks), once per n
(``N x n x 0 x k``); the users' form also has its bias stage per n. For
k = 0, the padding lemma at size n x d (:mod:`usim.proofs._padding`). The
wiring is checked against the formula as terms at N and at every (n, d). At
N = 16 that is 3 stages once, the softmax stage 16 times and 256 padding
lemmas, where building and proving a U for each of the 256 sizes repeats the
same stages 256 times. The whole program at once, on every padded size, is
the claim ``hierarchy`` (a cross-check at small N). The engines are sympy and
cvc5 (real exp); z3, with exp uninterpreted, takes 25 s on the softmax stage
at N = 16 where cvc5 takes 1 s (``docs/scale.md``).

Mutants (must be REFUTED): a swapped operand (Y1 X^T computed as X^T Y1: the
shapes allow it, U_N's blocks are N x N), a misplaced block (stage 1 routes
its first block one position too far), the softmax without its key mask
(erratum E10: refuted by the softmax stage at every n < N).
"""

from __future__ import annotations

from usim.constructions.universal import LayerSpec
from usim.proofs._universal import attention_term, universal_claim

ENGINES = ("sympy", "cvc5")
"""Canonical forms and the real exponential: both prove every part; z3 (exp
uninterpreted) is slow on the softmax stage and not needed (docs/scale.md)."""

CLAIM = universal_claim(
    "theorem6",
    spec_of=lambda n, d, heads: LayerSpec(n, d),
    formula=attention_term,
    paper="Theorem 6",
    title="U simulates single-head attention softmax(c X A X^T) X V: one RASP program for every n, d <= N",
    statement=(
        "For every N, the one RASP program U_N (built for N x N) satisfies: for every n, d <= N and "
        "every real X (n x d), A (d x d), V (d x d) and scale c, U_N run on the sequence "
        "<[n, d, c], X, A, V> with X, A, V zero-padded to N x N (row-major, then zeros) outputs "
        "softmax(c X A X^T) X V zero-padded to N x N, row-major from position 0 and 0 after. "
        "Shapes N x n x d x k: k >= 1 stage k of U_N with the header's n, d fixed (0: free, the "
        "stage reads neither); k = 0 the padding lemma at n x d (the stages compose to U_N; "
        "their wiring is checked against the formula at N and at n x d)."
    ),
    engines=ENGINES,
    default_max_n=16,
    ci_max_n=3,
    notes="input layout <hdr=[n,d,c], X, A, V>, padded to N; RASP empty-row default 0; exact exp",
    category="after correction",
)

CLAIM_USERS = universal_claim(
    "theorem6_users",
    spec_of=lambda n, d, heads: LayerSpec(n, d, form="projected", bias=True),
    formula=attention_term,
    paper="Theorem 6",
    title="U simulates softmax(c Q K^T) V with Q, K, V = X W + 1 b (users' form, c = 1/sqrt(d_k))",
    statement=(
        "For every N, one RASP program U_N: for every n, d <= N (d_k = d_v = d) and every real "
        "X (n x d), W_Q, W_K, W_V (d x d), b_Q, b_K, b_V (1 x d) and scale c, U_N run on "
        "<[n, d, c], X, W_Q, W_K, W_V, b_Q, b_K, b_V>, each zero-padded to U_N's blocks, outputs "
        "softmax(c Q K^T) V zero-padded to N x N, Q = X W_Q + 1 b_Q, K = X W_K + 1 b_K, "
        "V = X W_V + 1 b_V; c is a real symbol, so c = 1/sqrt(d_k) is covered exactly. "
        "Shapes N x n x d x k: stage k of U_N at header n, d (0: free); k = 0 the padding lemma."
    ),
    engines=ENGINES,
    default_max_n=8,
    ci_max_n=3,
    notes="projected form with biases; scale from the header",
    category="our statement",
)

CLAIMS = (CLAIM, CLAIM_USERS)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id, CLAIM_USERS.id)
