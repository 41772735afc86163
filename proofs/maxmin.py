"""MaxMin (GroupSort with groups of 2): the published construction refuted, a corrected one proved.

Claim, for every length n <= N (odd n included) and every real input: the
corrected program of :mod:`usim.constructions.maxmin` outputs, for each pair
(2t, 2t+1), max(x_2t, x_2t+1) at 2t and min(x_2t, x_2t+1) at 2t+1, and x_{n-1}
unchanged at the trailing position of an odd n. 1 attention layer, 1 head
(2 layers counting the layer that computes ``length``, used by the guard).

The target is written directly with sympy Max/Min of the input symbols. z3
states both sides with If and proves them; the sympy engine's canonical forms
cannot decide Max/Min in general, but the corrected construction produces the
very same Max/Min terms, so its forms are identical.

Claim ``maxmin_published`` (an erratum, expected REFUTED) states the authors'
listing (``MaxMin.rasp``, ``MaxMinSort``, rebuilt step by step in
:mod:`usim.constructions.maxmin`) against the same statement. It is refuted at
every n >= 1: its flag compares an odd position with 0 instead of with its
partner and is carried to the next position, so a negative value misleads it
(x = (-1) gives (0); x = (0, -1) gives (0, 0); x = (-2, -1) gives (-1, -3)). On
non-negative inputs it is right.
"""

from __future__ import annotations

import sympy

from usim.constructions.maxmin import maxmin_construction
from usim.engine.declare import claim, erratum, every_shape
from usim.rasp.expr import indices, maximum, minimum, tokens, where


def maxmin_target(m) -> dict:
    """GroupSort-2 written from its definition, independent of the construction."""
    x = m["x"]
    n = x.cols
    y = []
    for p in range(n):
        if p % 2 == 0 and p + 1 < n:
            y.append(sympy.Max(x[0, p], x[0, p + 1]))
        elif p % 2 == 1:
            y.append(sympy.Min(x[0, p - 1], x[0, p]))
        else:  # the trailing element of an odd length
            y.append(x[0, p])
    return {"y": sympy.Matrix([y])}


CLAIM = claim(
    "maxmin",
    paper="MaxMin (GroupSort-2)",
    title="MaxMin: pairs (2t, 2t+1) -> (max, min); corrected: 1 layer, 1 head",
    statement=(
        "For every length n <= N (odd included) and every real input, the corrected "
        "MaxMin program outputs max(x_2t, x_2t+1) at 2t, min(x_2t, x_2t+1) at 2t+1 and, "
        "for odd n, x_{n-1} unchanged at n-1, using 1 attention layer with 1 head that "
        "fetches the partner p xor 1 (2 layers counting length). The published "
        "construction (claim maxmin_published) is refuted."
    ),
    construction=maxmin_construction,
    target=maxmin_target,
    shapes=every_shape(1),
    mutants={
        # (min, max) instead of (max, min)
        "order-swapped": lambda s: {"ordered": lambda node: where(
            indices % 2 == 1, maximum(tokens, node.args[1].args[1]), minimum(tokens, node.args[1].args[1]))},
        # partner p+1 everywhere (odd positions compare with the next pair)
        "partner-next": lambda s: {"partner_pos": lambda node: indices + 1},
        # no guard: the trailing element of an odd length is compared with the default 0
        "unguarded-tail": lambda s: {"maxmin": lambda node: node.args[1]},
    },
    default_max_n=16,
    ci_max_n=5,
    category="after correction",
)

PUBLISHED = erratum(
    CLAIM,
    "maxmin_published",
    paper="MaxMin as published (erratum)",
    title="the published MaxMin (MaxMin.rasp): wrong on inputs with negative values",
    statement=(
        "The published MaxMin listing (MaxMin.rasp, MaxMinSort, rebuilt step by step) outputs "
        "max/min of each pair for every real input. Expected REFUTED at every n: its flag compares "
        "an odd element with 0 and carries it to the next position, e.g. x = (0, -1) gives (0, 0) "
        "and x = (-2, -1) gives (-1, -3). Right on non-negative inputs."
    ),
    construction=lambda n: maxmin_construction(n, published=True),
    default_max_n=4,
    ci_max_n=3,
    notes=("Rebuilt from the authors' listing MaxMin.rasp (DDuttaGit/TMA); usim.constructions.maxmin "
           "says how. The fix, proved, is the claim maxmin."),
)

CLAIMS = (CLAIM, PUBLISHED)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id, PUBLISHED.id)
