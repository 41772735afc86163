"""The hierarchy, checked directly: U built for N' on every smaller size, as one program.

Claim ``hierarchy``, for every N' <= N and every n, d <= N': the one program U
built for (N', N') (attention in the paper's form, d_v = N'), given a smaller
T (X n x d, A d x d, V d x d) zero-padded into its blocks and the header
[n, d, c], outputs softmax(c X A X^T) X V zero-padded to N' x N': the top-left
n x d block is T(X), every other entry is 0.

This is Theorem 6's statement (:mod:`usim.proofs.theorem6_attention`) proved
another way, as a cross-check: ``theorem6`` proves it by reuse (U_N's stages
once or per n, the padding lemma per size, the composition argument of
:mod:`usim.proofs._universal`); here each obligation is the whole program U
on one padded size, against the padded formula, with no argument at all. Its
cost grows with U's length and the size, so it runs at small N only.

For every size: ``usim prove hierarchy --all-sizes`` proves the placement
and each of U's stages on zero-padded workspaces for every N' and every
n, d <= N', and checks the chain that composes them
(:mod:`usim.proofs.theorem6_stages`).

Why padding is enough: zero columns of X, A, V change no product; what would
change the result is the softmax over the N' - n padded keys (score 0, weight
exp(0) = 1) and the padded query rows. U reads n from its header and leaves
keys j >= n out of the softmax (e = 0 there) and sets rows i >= n to 0 (see
:mod:`usim.constructions.universal`; the layer norm likewise masks with d).
The broken variant without the key mask is refuted at every n < N'
(erratum E10); a swapped operand and a misplaced block are refuted too.

Obligations ``N' x n x d``: the whole program U, composed with the static
placement of the compact input <c, X, A, V> into U's layout (a routing: each
position is one input position or 0, and the header's n and d are set), against
the padded formula, by sympy and cvc5 (the real exponential).
"""

from __future__ import annotations

import sympy

from usim.constructions.universal import LayerSpec
from usim.engine.claim import Claim, Obligation, Shape
from usim.proofs._universal import (
    UNMASKED_SOFTMAX,
    attention_formula,
    broken_universal,
    misplaced_block,
    softmax_stages,
    swapped_operand,
    universal,
    whole_obligation,
    with_kind,
)


def _specs(shape: Shape) -> tuple[LayerSpec, LayerSpec]:
    bound, n, d = shape
    return LayerSpec(bound, bound), LayerSpec(n, d)


def _target(big: LayerSpec, small: LayerSpec):
    def target(m):
        y = attention_formula(small, m, m["scale"][0, 0])
        padded = sympy.zeros(big.n, big.d_v)
        padded[: y.rows, : y.cols] = y
        return {"Y": padded}
    return target


def _obligation(shape: Shape) -> Obligation:
    big, small = _specs(shape)
    return whole_obligation("hierarchy", shape, universal(big), _target(big, small), small=small)


def _misplaced(shape: Shape) -> Obligation:
    big, small = _specs(shape)
    u = universal(big)
    return whole_obligation("hierarchy", shape, u, _target(big, small), small=small,
                            broken=broken_universal(u, 1, misplaced_block(u, 1)),
                            mutant="misplaced-block")


def _swapped(shape: Shape) -> Obligation:
    """U with its first product of two same-shaped blocks computed the other way round (X A as A X)."""
    big, small = _specs(shape)
    u = universal(big)
    index, stage = swapped_operand(u)
    return whole_obligation("hierarchy", shape, u, _target(big, small), small=small,
                            broken=broken_universal(u, index, stage), mutant="swapped-operand")


def _no_key_mask(shape: Shape) -> Obligation:
    """U without the softmax's key mask: padded keys weigh exp(0) = 1."""
    big, small = _specs(shape)
    u = universal(big)
    k = softmax_stages(u)[0]
    return whole_obligation("hierarchy", shape, u, _target(big, small), small=small,
                            broken=broken_universal(u, k, with_kind(u, k, UNMASKED_SOFTMAX)),
                            mutant="no-key-mask")


def _shapes(n: int) -> list[Shape]:
    return [(b, a, c) for b in range(1, n + 1) for a in range(1, b + 1) for c in range(1, b + 1)]


CLAIM = Claim(
    id="hierarchy",
    paper="hierarchy (Section on universality)",
    title="U built for N' x N' simulates every n x d <= N' x N' with the same program (whole program)",
    statement=(
        "For every N' <= N and n, d <= N': the RASP program U built for (N', N') run on "
        "<[n, d, c], X, A, V> with X (n x d), A, V (d x d) zero-padded to N' x N' outputs "
        "softmax(c X A X^T) X V zero-padded to N' x N', for every real X, A, V and c, each "
        "obligation the whole program at once (Theorem 6's statement, checked without the "
        "composition argument). Shapes N' x n x d."
    ),
    shapes=_shapes,
    obligation=_obligation,
    mutants={"swapped-operand": _swapped, "misplaced-block": _misplaced, "no-key-mask": _no_key_mask},
    engines=("sympy", "cvc5"),
    default_max_n=4,
    ci_max_n=2,
    notes="sizes from the header [n, d, c]; key mask and row mask in the softmax",
    category="after correction",
)


CLAIMS = (CLAIM,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
