"""Kernelised linear attention (Performer / linear transformer) from the blocks.

Claims: for every n, d, d_v <= N and all real Q, K (n x d), V (n x d_v) laid
out <Q, K, V> (zero-padded), the program
:func:`usim.constructions.linear_attention.performer_program` computes
phi(Q) (phi(K)^T [V | 1]) and divides by the last column, and outputs

    Y[i][j] = sum_l A[i][l] V[l][j] / sum_l A[i][l],   A = phi(Q) phi(K)^T

row-major, 0 past it, with phi element-wise:

``performer``      phi(x) = elu(x) + 1 (x + 1 for x > 0, exp(x) otherwise), the
                   feature map of Katharopoulos et al.; a piecewise map, so the
                   z3 engine (ite) decides it, sympy's canonical forms cannot.
``performer_exp``  phi(x) = exp(x); both engines.

The target is written in the quadratic order (the n x n matrix A normalised by
rows, then times V), the construction computes in the linear order: the claim
includes that reassociation. Performer's random-feature map (FAVOR+) is not
element-wise and is not covered.
"""

from __future__ import annotations

import sympy

from usim.constructions.linear_attention import performer_construction
from usim.engine.claim import Claim
from usim.engine.declare import claim, every_shape
from usim.rasp.expr import indices, where


def phi(name: str):
    """The feature map: exp, or elu(x) + 1 = x + 1 for x > 0, exp(x) otherwise."""
    if name == "exp":
        return sympy.exp
    return lambda x: sympy.Piecewise((x + 1, x > 0), (sympy.exp(x), True))


def kernel_attention(m, name: str) -> dict:
    """phi(Q) phi(K)^T, each row normalised to sum 1, times V."""
    f = phi(name)
    a = m["Q"].applyfunc(f) * m["K"].applyfunc(f).T
    normalised = sympy.Matrix(a.rows, a.cols, lambda i, l: a[i, l] / sum(a[i, t] for t in range(a.cols)))
    return {"Y": normalised * m["V"]}


def performer_claim(claim_id: str, name: str, engines: tuple[str, ...], title: str, notes: str) -> Claim:
    return claim(
        claim_id,
        paper="linear-attention variants (Performer / kernelised)",
        title=title,
        statement=(
            f"For every n, d, d_v <= N and all real Q, K (n x d), V (n x d_v) laid out <Q, K, V> "
            f"(zero-padded), one RASP program built from the published transpose and product "
            f"blocks, gather routing and element-wise maps outputs phi(Q)(phi(K)^T V) / "
            f"phi(Q)(phi(K)^T 1) row-major, 0 past it, with phi = {name} element-wise "
            f"(RASP semantics)."
        ),
        construction=lambda n, d, dv: performer_construction(n, d, dv, phi=name),
        target=lambda m: kernel_attention(m, name),
        shapes=every_shape(3),
        mutants={
            # the normaliser read from the first column instead of the last
            "wrong-normaliser": lambda s: {"normaliser": lambda node: where(indices < s[0] * s[2], 1, 0)},
            # the column of ones left out: numerator only
            "no-normalising": lambda s: {
                "linear_attention": lambda node: where(node.args[0], node.args[1].args[0], 0)},
        },
        engines=engines,
        default_max_n=2,
        ci_max_n=1,
        notes=notes,
        category="our statement",
    )


CLAIM = performer_claim(
    "performer", "elu1", ("z3",), "kernelised linear attention, phi = elu + 1 (Katharopoulos et al.)",
    "phi is piecewise: proved by z3 (ite) for n >= 2; sympy's canonical forms cannot decide "
    "Piecewise. At n = 1 the target simplifies (sympy turns 1/exp(x) into exp(-x)) and z3, "
    "with exp uninterpreted, lacks exp(x) exp(-x) = 1: UNKNOWN (an engine limitation).")
CLAIM_EXP = performer_claim(
    "performer_exp", "exp", ("sympy", "z3"), "kernelised linear attention, phi = exp",
    "phi = exp: exp atoms are positive, canonical forms decide it.")

CLAIMS = (CLAIM, CLAIM_EXP)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id, CLAIM_EXP.id)
