"""Digit facts: the coordinates that a row-major equation determines, and the candidates
for the one active head of a head family (:func:`head_candidates`).

A head of a product or a routing head selects the key whose coordinates (i, j)
in a block of width c satisfy ``c * i + j == P``, with 0 <= i and 0 <= j < c
(the variables' ranges). Where the case's facts put P = c * q + r with
0 <= r < c, Euclid's division makes i = q and j = r: the pair is determined.
z3 proves that at once, but left as the equation, every later query that needs
it must rediscover it through the non-linear term c * i, and on Corollary 9.1's
stage 4 at two heads z3 spent its whole effort (150 million steps, 20 to 235 s a
query) failing to: the queries inside the product's sums, with the digit facts
i = a, j = b - N beside the equation, are answered in milliseconds
(``docs/all_sizes.md``, 2026-12-04).

So where a case split adds such an equation, :func:`digit_facts` offers the
candidates of :func:`~usim.engine.parametric.polynomials.block_coordinates` (q and r
and their neighbours) and keeps each pair i = q, j = r that z3 proves from the
facts and the equation. Only proved consequences are added: the case's models
are the same, with or without them.
"""

from __future__ import annotations

import itertools
from typing import Iterable, Iterator, Sequence

import z3

from usim.engine.parametric.integers import Formula, Prover, Term
from usim.engine.parametric.polynomials import block_coordinates, free_constants

DIGIT_EFFORT = 2_000_000
"""z3's work for one candidate pair: a true pair is proved within a few thousand
steps on the stages of U; a pair that z3 cannot settle here is not added."""


def equations(condition: Formula) -> Iterator[Formula]:
    """The integer equations among ``condition``'s conjuncts (nested ands flattened)."""
    if z3.is_and(condition):
        for part in condition.children():
            yield from equations(part)
    elif z3.is_eq(condition) and z3.is_int(condition.arg(0)):
        yield condition


def digit_facts(prover: Prover, facts: Iterable[Formula], condition: Formula, step: str,
                variables: Iterable[str]) -> tuple[Formula, ...]:
    """The coordinates that ``condition``'s equations determine under ``facts``.

    Args:
        prover: asks z3, within :data:`DIGIT_EFFORT` a pair.
        facts: the case's hypotheses (the variables' ranges among them).
        condition: the formula the case adds; its equations ``c * x + y == P``
            in two of ``variables`` are the candidates.
        step: the ledger's step for the queries.
        variables: the names of the index variables (each with its range in ``facts``).

    Returns:
        For each equation, the first ``And(x == q, y == r)`` (pairs of variables
        in name order) proved from ``facts`` and ``condition``; one is enough, as
        with the equation it makes every other pair linear too.
    """
    hypotheses = tuple(facts) + (condition,)
    names = set(variables)
    out: list[Formula] = []
    for equation in equations(condition):
        present = sorted(free_constants(equation) & names)
        for pair in itertools.combinations(present, 2):
            found = _determined(prover, hypotheses, equation, pair, step)
            if found is not None:
                out.append(found)
                break
    return tuple(out)


def _determined(prover: Prover, hypotheses: tuple[Formula, ...], equation: Formula, names: tuple[str, str],
                step: str) -> Formula | None:
    """``And(x == q, y == r)`` for the first candidate pair that z3 proves, or None."""
    pair = [z3.Int(name) for name in names]
    coordinates = block_coordinates(equation, pair)
    if len(coordinates) != 2:
        return None
    for first, second in zip(coordinates[0], coordinates[1]):
        digits = z3.And(pair[0] == first, pair[1] == second)
        if prover.proves(hypotheses, digits, step, effort=DIGIT_EFFORT).holds is True:
            return digits
    return None


def head_candidates(heads: Sequence[Term], conditions: Iterable[Formula],
                    known: Iterable[Term]) -> list[tuple[Term, ...]]:
    """Terms that could be the one active head of a head family (only candidates:
    the evaluator proves the one it uses): what the heads' ``conditions`` equate
    each index with, and the ``known`` terms (the position's coordinates, the
    position). For a family of two indices, the pairs that a row-major equation
    gives in step (:func:`block_coordinates`, every shift of
    :data:`~usim.engine.parametric.polynomials.BLOCK_SHIFTS`) come first; then every
    combination of the candidates (of those pairs, the quotient and its neighbours
    only), up to 64.

    Args:
        heads: the family's index variables.
        conditions: the formulas the family's selections hold under.
        known: terms offered for every index.

    Returns:
        Candidate tuples, one term per index, without repeats.
    """
    names = {h.decl().name() for h in heads}
    per_head: list[list[Term]] = [[] for _ in heads]
    paired: list[tuple[Term, ...]] = []

    def add(slot: int, term: Term) -> None:
        if not names & free_constants(term) and all(not term.eq(t) for t in per_head[slot]):
            per_head[slot].append(term)

    def scan(f: z3.ExprRef) -> None:
        if z3.is_eq(f):
            a, b = f.children()
            for m, h in enumerate(heads):
                if a.eq(h):
                    add(m, b)
                elif b.eq(h):
                    add(m, a)
            found = block_coordinates(f, heads)
            for m, terms in found.items():
                for term in terms[:3]:  # the quotient and its neighbours; further shifts as pairs only
                    add(m, term)
            if len(found) == len(heads):
                paired.extend(together for together in zip(*(found[m] for m in range(len(heads))))
                              if not any(names & free_constants(t) for t in together))
        for child in f.children():
            if z3.is_bool(child):
                scan(child)

    for f in conditions:
        scan(f)
    known = list(known)
    for m in range(len(heads)):
        for t in known:
            add(m, t)
    out, seen = [], set()
    for chosen in itertools.chain(paired, itertools.islice(itertools.product(*per_head), 64)):
        key = tuple(str(t) for t in chosen)
        if key not in seen:
            seen.add(key)
            out.append(chosen)
    return out
