"""k-PARITY by construction: 1 attention layer, 1 head, any k and n.

Claim, for every length n <= N and every set S of k >= 1 positions listed
below: on every 0/1 input b_0..b_{n-1}, the program of
:mod:`usim.constructions.parity` outputs (sum_{s in S} b_s) mod 2 at every
position. The paper claims k-PARITY solved by construction without a listing;
this is our precise statement.

Shapes are (n, s_1, .., s_k): the length and the chosen positions (label
``5x0x1x2`` is n = 5, S = {0, 1, 2}). For each n <= N they are the first k
positions for every k <= n (the task "among the first k positions"), the last
k, the even and the odd positions, and, for n <= 4, every non-empty subset.

Engines: exhaustive over {0,1}^n (every input, exact arithmetic), z3 over
integers restricted to 0/1, and sympy (the construction's k * (mean over S)
simplifies to the same sum as the target's, so the forms coincide).

The target is written directly: Mod(sum of the chosen input symbols, 2).
"""

from __future__ import annotations

import itertools

import sympy

from usim.constructions.parity import parity_construction
from usim.engine.claim import Shape
from usim.engine.declare import claim
from usim.rasp.expr import indices, where

ALL_SUBSETS_UP_TO = 4


def parity_target(positions: tuple[int, ...]):
    def target(m) -> dict:
        x = m["x"]
        value = sympy.Mod(sympy.Add(*[x[0, s] for s in positions]), 2)
        return {"y": sympy.Matrix([[value] * x.cols])}
    return target


def _split(shape: Shape) -> tuple[int, tuple[int, ...]]:
    return shape[0], tuple(shape[1:])


def _drop_first(n: int, positions: tuple[int, ...]):
    """A membership map that is wrong about S: its first position left out; a
    single position replaced by the next one (mod n); at n = 1 the empty set."""
    first = positions[0]
    if len(positions) > 1:
        return lambda node: where(indices == first, 0, node)
    if n > 1:
        return lambda node: where(indices == (first + 1) % n, 1, 0)
    return lambda node: node * 0


MUTANTS = {
    # the mean rescaled by k + 1 instead of k (wrong for every k)
    "wrong-scale": lambda s: {"count": lambda node: (len(_split(s)[1]) + 1) * node.args[1]},
    # quotient for remainder: count // 2 instead of count mod 2
    "quotient": lambda s: {"parity": lambda node: node.args[0] // 2},
    # the set misses its first position (for k = 1: another position, or none)
    "missing-position": lambda s: {"in_set": _drop_first(*_split(s))},
}


def _shapes(bound: int) -> list[Shape]:
    shapes: list[Shape] = []
    for n in range(1, bound + 1):
        sets: list[tuple[int, ...]] = []
        if n <= ALL_SUBSETS_UP_TO:
            for k in range(1, n + 1):
                sets.extend(itertools.combinations(range(n), k))
        else:
            for k in range(1, n + 1):
                sets.append(tuple(range(k)))
                sets.append(tuple(range(n - k, n)))
            sets.append(tuple(range(0, n, 2)))
            sets.append(tuple(range(1, n, 2)))
        seen = set()
        for s in sets:
            if s not in seen:
                seen.add(s)
                shapes.append((n, *s))
    return shapes


CLAIM = claim(
    "parity",
    paper="k-PARITY (by construction)",
    title="k-PARITY of a 0/1 input: 1 layer, 1 head (mean over the k positions, times k, mod 2)",
    statement=(
        "For every length n <= N and every set S of k positions listed (the first k for "
        "every k <= n, the last k, the even and the odd positions, every subset for n <= 4), "
        "on every 0/1 input the k-PARITY program outputs (number of ones at S) mod 2 at "
        "every position, with 1 attention layer and 1 head whatever k and n. Shapes "
        "(n, s_1, .., s_k)."
    ),
    construction=lambda n, *positions: parity_construction(n, positions),
    target_for=lambda s: parity_target(_split(s)[1]),
    domain="integer",
    values=(0, 1),
    shapes=_shapes,
    mutants=MUTANTS,
    default_max_n=8,
    ci_max_n=4,
    notes="0/1 inputs only; a non-binary input is refused by usim.constructions.parity.run_parity.",
    category="our statement",
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
