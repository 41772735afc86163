"""Theorem 6 (arXiv v2): one fixed RASP program U simulates single-head attention.

Claim ``theorem6`` (the paper's form), for every n, d <= N: U built for
(n, d) by :mod:`usim.constructions.universal`, given <hdr = [n, d, c], X (n x d),
A (d x d), V (d x d)> in one sequence, outputs

    softmax(c X A X^T) X V        (row softmax; c = 1 is the paper's form)

row-major from position 0 and 0 after, for every real X, A, V and c.

Claim ``theorem6_users`` (the form users write, with biases), for every
n, d <= N (d_k = d_v = d): given <hdr, X, W_Q, W_K, W_V, b_Q, b_K, b_V>, U
outputs softmax(c Q K^T) V with Q = X W_Q + 1 b_Q, K = X W_K + 1 b_K,
V = X W_V + 1 b_V. The users' 1/sqrt(d_k) is the header's c: c is a real
symbol in the proof, so the statement holds for c = 1/sqrt(d_k) exactly for
every d_k (no rational approximation of an irrational scale; numerically
`usim simulate` puts the float 1/sqrt(d_k) there).

How it is proved (see :mod:`usim.proofs._universal`): obligations
``n x d x k``; k = 1..m are U's stages, each on fresh symbols for its whole
workspace (blocks and routing heads proved together, every position of the
next workspace checked), with the wiring of the stages checked against the
formula as terms; k = 0 (``theorem6`` only) is the whole program U against the
formula directly, with no composition argument: sympy proves it to n = d = 4
in a few seconds, z3 takes about a minute at 4 (UNKNOWN under a 60 s timeout,
never counted as proof). ``benchmarks/bench_universal.py`` prints how far each
part goes.

Mutants (must be REFUTED): a swapped operand (Y1 X^T computed as X^T Y1, where
the shapes allow it: n = d) and a misplaced block (stage 1 routes its first
block one position too far).
"""

from __future__ import annotations

import sys

from usim.constructions.universal import Spec
from usim.engine.declare import every_shape
from usim.proofs._universal import attention_formula, attention_term, universal_claim


def whole_target(spec: Spec):
    """softmax(c X A X^T) X V from the formula, c read from the input."""
    return lambda m: {"Y": attention_formula(spec, m, m["scale"][0, 0])}


CLAIM = universal_claim(
    "theorem6",
    spec_of=lambda size: Spec(*size),
    sizes=every_shape(2),
    formula=attention_term,
    whole_target=whole_target,
    paper="Theorem 6",
    title="U simulates single-head attention softmax(c X A X^T) X V: one RASP program",
    statement=(
        "For every n, d <= N there is one RASP program U (built for n, d) such that, for every "
        "real X (n x d), A (d x d), V (d x d) and scale c, U run on the sequence "
        "<[n, d, c], X, A, V> (row-major, then zeros) outputs softmax(c X A X^T) X V row-major "
        "from position 0 and 0 after. Shapes are n x d x k: k = 0 the whole program, k >= 1 "
        "stage k of U (the stages compose to U; their wiring is checked against the formula)."
    ),
    default_max_n=4,
    ci_max_n=2,
    notes="input layout <hdr=[n,d,c], X, A, V>; RASP empty-row default 0; exact exp",
    category="after correction",
)

CLAIM_USERS = universal_claim(
    "theorem6_users",
    spec_of=lambda size: Spec(*size, form="projected", bias=True),
    sizes=every_shape(2),
    formula=attention_term,
    paper="Theorem 6",
    title="U simulates softmax(c Q K^T) V with Q, K, V = X W + 1 b (users' form, c = 1/sqrt(d_k))",
    statement=(
        "For every n, d <= N (d_k = d_v = d), one RASP program U, for every real X, W_Q, W_K, "
        "W_V (d x d), b_Q, b_K, b_V (1 x d) and scale c, run on <[n, d, c], X, W_Q, W_K, W_V, "
        "b_Q, b_K, b_V> outputs softmax(c Q K^T) V, Q = X W_Q + 1 b_Q, K = X W_K + 1 b_K, "
        "V = X W_V + 1 b_V; c is a real symbol, so c = 1/sqrt(d_k) is covered exactly. "
        "Shapes n x d x k: stage k of U."
    ),
    default_max_n=4,
    ci_max_n=2,
    notes="projected form with biases; scale from the header",
    category="our statement",
)

CLAIMS = (CLAIM, CLAIM_USERS)

if __name__ == "__main__":
    from usim.commands.prove import prove_main

    sys.exit(prove_main(CLAIM.id, CLAIM_USERS.id))
