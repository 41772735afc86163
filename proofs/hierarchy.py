"""The hierarchy: U built for a bound simulates every smaller size, with the same program.

Claim ``hierarchy``, for every N' <= N and every n, d <= N': the one program U
built for (N', N') (attention in the paper's form, d_v = N'), given a smaller
T (X n x d, A d x d, V d x d) zero-padded into its blocks and the header
[n, d, c], outputs softmax(c X A X^T) X V zero-padded to N' x N': the top-left
n x d block is T(X), every other entry is 0.

Why padding is enough: zero columns of X, A, V change no product; what would
change the result is the softmax over the N' - n padded keys (score 0, weight
exp(0) = 1) and the padded query rows. U reads n from its header and leaves
keys j >= n out of the softmax (e = 0 there) and sets rows i >= n to 0 (see
:mod:`usim.constructions.universal`; the layer norm likewise masks with d).

Obligations ``N' x n x d``: the whole program U, composed with the static
placement of the compact input <c, X, A, V> into U's layout (a routing: each
position is one input position or 0, and the header's n and d are set), against
the padded formula; each proved by the engines directly, size by size.
"""

from __future__ import annotations

import sys

import sympy

from dataclasses import replace

from usim.constructions.routing import Part
from usim.constructions.softmax import softmax_block
from usim.constructions.universal import HDR_SCALE, STEP_KINDS, Spec
from usim.constructions.universal.kinds import header, in_place
from usim.engine.claim import Claim, Obligation, Shape
from usim.proofs._universal import (
    attention_formula,
    broken_universal,
    misplaced_block,
    universal,
    whole_obligation,
    with_kind,
)


def _specs(shape: Shape) -> tuple[Spec, Spec]:
    bound, n, d = shape
    return Spec(bound, bound), Spec(n, d)


def _target(big: Spec, small: Spec):
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


def _unmasked_softmax(step, w, lay):
    """Lemma 4 on c * S in place, without the key and row masks."""
    m = lay.block(step.args[0])
    scale = header(w, lay, HDR_SCALE, "scale")
    soft = softmax_block(w * scale, m.shape.rows, m.shape.cols, offset=m.offset, guard=True)
    return Part(soft, in_place(step.out, m, lay.length))


UNMASKED_SOFTMAX = replace(STEP_KINDS["softmax"], block=_unmasked_softmax)


def _no_key_mask(shape: Shape) -> Obligation:
    """U without the softmax's key mask: padded keys weigh exp(0) = 1."""
    big, small = _specs(shape)
    u = universal(big)
    k = next(s.index for s in u.stages if any(st.kind == "softmax" for st in s.steps))
    return whole_obligation("hierarchy", shape, u, _target(big, small), small=small,
                            broken=broken_universal(u, k, with_kind(u, k, UNMASKED_SOFTMAX)),
                            mutant="no-key-mask")


def _shapes(n: int) -> list[Shape]:
    return [(b, a, c) for b in range(1, n + 1) for a in range(1, b + 1) for c in range(1, b + 1)]


CLAIM = Claim(
    id="hierarchy",
    paper="hierarchy (Section on universality)",
    title="U built for N' x N' simulates every n x d <= N' x N' with the same program",
    statement=(
        "For every N' <= N and n, d <= N': the RASP program U built for (N', N') run on "
        "<[n, d, c], X, A, V> with X (n x d), A, V (d x d) zero-padded to N' x N' outputs "
        "softmax(c X A X^T) X V zero-padded to N' x N', for every real X, A, V and c. "
        "Shapes N' x n x d."
    ),
    shapes=_shapes,
    obligation=_obligation,
    mutants={"misplaced-block": _misplaced, "no-key-mask": _no_key_mask},
    default_max_n=3,
    ci_max_n=2,
    notes="sizes from the header [n, d, c]; key mask and row mask in the softmax",
    category="after correction",
)


CLAIMS = (CLAIM,)

if __name__ == "__main__":
    from usim.commands.prove import prove_main

    sys.exit(prove_main(CLAIM.id))
