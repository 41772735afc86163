"""ReLU (paper: the feed-forward part of Corollaries 6.1 / 9.1): an element-wise map.

Claim, for every length n <= N: the program ``maximum(tokens, 0)`` outputs
max(x_p, 0) at every position p, for every real input. 0 attention layers.

The target is written independently as sympy's ``Max(x, 0)``. Max is not a
rational function, so the sympy engine can only prove positions whose forms are
identical (they are here); z3 states Max as an ``If`` and proves it for all
reals.
"""

from __future__ import annotations

import sys

import sympy

from usim.constructions.base import Construction
from usim.constructions.relu import relu_construction
from usim.engine.claim import Claim, Obligation, Shape
from usim.engine.mutants import mutant_builder
from usim.engine.registry import register
from usim.rasp.expr import minimum, tokens, where


def _target(m) -> dict:
    x = m["x"]
    return {"y": sympy.Matrix([[sympy.Max(x[0, j], 0) for j in range(x.cols)]])}


def _obligation(shape: Shape, construction: Construction | None = None,
                mutant: str | None = None) -> Obligation:
    (n,) = shape
    right = relu_construction(n)
    return Obligation(
        claim_id="relu",
        shape=shape,
        construction=construction or right,
        target=_target,
        reference=right,
        mutant=mutant,
    )


def _mutant(name: str, replacement):
    return mutant_builder(name, lambda shape: relu_construction(*shape), _obligation,
                          lambda shape: {"relu": replacement})


MUTANTS = {
    # min instead of max: right only at 0
    "min": _mutant("min", lambda node: minimum(tokens, 0)),
    # a leaky ReLU (slope 1/100 below 0)
    "leaky": _mutant("leaky", lambda node: where(tokens > 0, tokens, tokens / 100)),
    # the kink at 1 instead of 0
    "shifted": _mutant("shifted", lambda node: where(tokens > 1, tokens, 0)),
}

CLAIM = register(Claim(
    id="relu",
    paper="Cor. 6.1 (ReLU)",
    title="ReLU as an element-wise map: 0 attention layers",
    statement=(
        "For every length n <= N and every real input x_0..x_{n-1}, the program "
        "maximum(tokens, 0) outputs max(x_p, 0) at every position p; it uses no "
        "attention layer (the map is the MLP of a layer)."
    ),
    shapes=lambda n: [(k,) for k in range(1, n + 1)],
    obligation=_obligation,
    mutants=MUTANTS,
    default_max_n=16,
    ci_max_n=4,
))


if __name__ == "__main__":
    from usim.commands.prove import prove_main

    sys.exit(prove_main(CLAIM.id))
