"""ReLU (paper: the feed-forward part of Corollaries 6.1 / 9.1): an element-wise map.

Claim, for every length n <= N: the program ``maximum(tokens, 0)`` outputs
max(x_p, 0) at every position p, for every real input. 0 attention layers.

The target is written independently as sympy's ``Max(x, 0)``. Max is not a
rational function, so the sympy engine can only prove positions whose forms are
identical (they are here); z3 states Max as an ``If`` and proves it for all
reals.
"""

from __future__ import annotations

import sympy

from usim.constructions.relu import relu_construction
from usim.engine.declare import claim, every_shape
from usim.rasp.expr import minimum, tokens, where


def relu_target(m) -> dict:
    x = m["x"]
    return {"y": sympy.Matrix([[sympy.Max(x[0, j], 0) for j in range(x.cols)]])}


CLAIM = claim(
    "relu",
    paper="Cor. 6.1 (ReLU)",
    title="ReLU as an element-wise map: 0 attention layers",
    statement=(
        "For every length n <= N and every real input x_0..x_{n-1}, the program "
        "maximum(tokens, 0) outputs max(x_p, 0) at every position p; it uses no "
        "attention layer (the map is the MLP of a layer)."
    ),
    construction=relu_construction,
    target=relu_target,
    shapes=every_shape(1),
    mutants={
        # min instead of max: right only at 0
        "min": lambda s: {"relu": lambda node: minimum(tokens, 0)},
        # a leaky ReLU (slope 1/100 below 0)
        "leaky": lambda s: {"relu": lambda node: where(tokens > 0, tokens, tokens / 100)},
        # the kink at 1 instead of 0
        "shifted": lambda s: {"relu": lambda node: where(tokens > 1, tokens, 0)},
    },
    default_max_n=16,
    ci_max_n=4,
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
