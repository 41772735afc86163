"""Linformer attention built from the paper's blocks, proved against its formula.

Claim: for every n, d, k, d_v <= N and all real Q, K (n x d), V (n x d_v),
E, F (k x n) laid out <Q, K, V, E, F> (padded, see
:func:`usim.constructions.linear_attention.linformer_length`), the program
:func:`usim.constructions.linear_attention.linformer_program` (published blocks,
RASP semantics) outputs

    softmax( Q (E K)^T / sqrt(d) ) (F V)        (exact exp, exact sqrt)

row-major from position 0, 0 past it. Target: sympy, written from the formula.
"""

from __future__ import annotations

import sympy

from usim.constructions.linear_attention import linformer_construction
from usim.engine.declare import claim, every_shape
from usim.proofs.soft_from_hard import row_softmax
from usim.rasp.expr import constant


def linformer_target(shape):
    """softmax(Q (E K)^T / sqrt(d)) (F V), d = shape[1]."""
    d = shape[1]

    def target(m):
        scores = m["Q"] * (m["E"] * m["K"]).T / sympy.sqrt(d)
        return {"Y": row_softmax(scores) * (m["F"] * m["V"])}
    return target


CLAIM = claim(
    "linformer",
    paper="linear-attention variants (Linformer)",
    title="Linformer softmax(Q (E K)^T / sqrt d) (F V) from transpose, product and softmax blocks",
    statement=(
        "For every n, d, k, d_v <= N and all real Q, K (n x d), V (n x d_v), E, F (k x n) laid "
        "out <Q, K, V, E, F> (zero-padded), one RASP program built from the published transpose, "
        "product and softmax blocks and gather routing outputs softmax(Q (E K)^T / sqrt(d)) (F V) "
        "(exact exp and sqrt) row-major from position 0 and 0 past it (RASP semantics)."
    ),
    construction=linformer_construction,
    target_for=linformer_target,
    shapes=every_shape(4),
    mutants={
        # a routing mistake: the values projected by E instead of F
        "values-by-E": lambda s: {"f_offset": lambda node: constant(2 * s[0] * s[1] + s[0] * s[3])},
        # the projected values doubled (a wrong factor in the product's mean-times-k)
        "fv-doubled": lambda s: {"fv": lambda node: node * 2},
    },
    default_max_n=2,
    ci_max_n=1,
    notes=("sympy proves every shape up to N=2 in < 0.1 s each; z3 (exp uninterpreted, "
           "sqrt(2) as an algebraic number) times out (60 s) where d = k = 2: UNKNOWN, not proof."),
    category="our statement",
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
