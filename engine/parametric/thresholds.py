"""Where a sum over keys l < count splits: the threshold t of a comparison.

A sum whose body needs a case on a comparison c(l) that holds exactly on the
first t keys (c(l) <=> l < t for every key) is the sum over the keys below t
plus the sum over the rest, each with the case decided (the program's sums,
:mod:`.sums`; a target's, :mod:`.target`). Splitting a sum's range anywhere is
sound; the threshold only decides whether the pieces can then be evaluated.
"""

from __future__ import annotations

from typing import Callable, Iterable

import z3

from usim.engine.parametric.integers import Formula, Term
from usim.engine.parametric.polynomials import free_constants


def threshold_of(parts: Iterable[Formula], var: Term, exactly: Callable[[Formula], bool],
                 splits: Callable[[Term], bool] | None = None) -> Term | None:
    """t free of ``var`` such that one of the comparisons ``parts`` holds exactly
    when var < t, or exactly when it does not (``exactly``: the caller's proof
    that a formula holds for every key), or None. The candidates: each side of a
    comparison and what makes the sides differ by var, each also plus one (< and
    <= alike). Where a condition holds exactly on the first t keys, a sum over
    the keys splits there (the program's sums, :mod:`.sums`; a target's,
    :mod:`.target`). ``splits``: the caller's check that t may leave keys on
    both sides (a comparison the facts decide for every key gives a t at or
    past an end, and a split there leaves the sum as it was)."""
    name = var.decl().name()
    for part in parts:
        if part.num_args() != 2 or name not in free_constants(part):
            continue
        a, b = part.children()
        if not (z3.is_int(a) and z3.is_int(b)):
            continue
        candidates = (b, z3.simplify(b - a + var), a, z3.simplify(a - b + var))
        for t in candidates + tuple(z3.simplify(c + 1) for c in candidates):
            if name in free_constants(t):
                continue
            for holds in (part, z3.Not(part)):  # the first keys are those where it holds, or not
                if exactly(holds == (var < t)) and (splits is None or splits(t)):
                    return t
    return None
