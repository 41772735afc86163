"""Claims declared as the paper states them: a construction, a target, shapes.

A proof script says what is claimed and nothing else::

    CLAIM = claim(
        "lemma3", paper="Lemma 3", title=..., statement=...,
        construction=transpose_construction,          # called with the shape: (r, c)
        target=lambda m: {"MT": m["M"].T},            # the mathematics, in sympy
        shapes=every_shape(2),                         # (r, c) for r, c <= N
        mutants={"off-by-one": lambda shape: {"transpose_src": lambda node: node + 1}},
        default_max_n=8, ci_max_n=4)

:func:`claim` builds the :class:`~usim.engine.claim.Claim`: each shape's
obligation (the construction, the target, the preconditions, the right
construction as the reference for divergence), and each broken variant from
the named nodes it replaces (:func:`usim.rasp.rewrite.substitute`).
:func:`erratum` states a construction *as published* against a correct claim's
very statement, expected REFUTED. The claim id is written once.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Callable, Iterable, Mapping

from usim.constructions.base import Construction
from usim.engine.claim import Claim, Matrices, Obligation, Shape, Status
from usim.rasp.expr import Expr
from usim.rasp.program import Program
from usim.rasp.rewrite import substitute

Target = Callable[[Matrices], Mapping[str, Any]]
Replacements = Mapping[str, Callable[[Expr], Expr]]
"""Named node -> its replacement, given the node (a broken variant)."""


def every_shape(dimensions: int, least: int = 1) -> Callable[[int], list[Shape]]:
    """Shapes with every one of ``dimensions`` dimensions from ``least`` to N."""
    def shapes(n: int) -> list[Shape]:
        return list(itertools.product(range(least, n + 1), repeat=dimensions))
    return shapes


def claim(
    id: str,
    *,
    paper: str,
    title: str,
    statement: str,
    construction: Callable[..., Construction],
    shapes: Callable[[int], Iterable[Shape]],
    target: Target | None = None,
    target_for: Callable[[Shape], Target] | None = None,
    output: str | None = None,
    preconditions: Callable[[Matrices], list[Any]] | None = None,
    domain: str = "real",
    values: tuple[Any, ...] | Callable[[Shape], tuple[Any, ...] | None] | None = None,
    mutants: Mapping[str, Callable[[Shape], Replacements]] | None = None,
    variants: Mapping[str, Callable[..., Construction]] | None = None,
    cost_of: Callable[[Shape], Program] | None = None,
    **settings: Any,
) -> Claim:
    """The claim "for every shape, ``construction(*shape)`` outputs ``target``".

    ``target_for(shape)`` gives the target where it depends on the shape, and
    ``values`` may be a function of the shape (a finite domain per shape).
    ``mutants`` are broken variants made by replacing named nodes;
    ``variants`` are other whole constructions checked against the same
    statement (each must be refuted). ``settings`` are the Claim's own fields
    (engines, default_max_n, ci_max_n, measure, semantics, notes, expected).
    """

    if (target is None) == (target_for is None):
        raise TypeError(f"claim {id}: give target or target_for, not both")

    def obligation(shape: Shape, built: Construction | None = None, mutant: str | None = None) -> Obligation:
        right = construction(*shape)
        return Obligation(id, shape, built or right, target or target_for(shape), output=output,
                          preconditions=preconditions, domain=domain,
                          values=values(shape) if callable(values) else values, reference=right,
                          mutant=mutant, cost_of=cost_of(shape) if cost_of else None)

    def broken(name: str, replace: Callable[[Shape], Replacements]) -> Callable[[Shape], Obligation]:
        def build(shape: Shape) -> Obligation:
            right = construction(*shape)
            program = substitute(right.program, replace(shape), name=f"{right.program.name}_{name}")
            return obligation(shape, dataclasses.replace(right, name=f"{right.name} [{name}]", program=program),
                              name)
        return build

    def other(name: str, build: Callable[..., Construction]) -> Callable[[Shape], Obligation]:
        return lambda shape: obligation(shape, build(*shape), name)

    broken_variants = {name: broken(name, replace) for name, replace in (mutants or {}).items()}
    broken_variants.update({name: other(name, build) for name, build in (variants or {}).items()})
    return Claim(id=id, paper=paper, title=title, statement=statement, shapes=shapes,
                 obligation=obligation, mutants=broken_variants, construction_of=construction, **settings)


def erratum(of: Claim, id: str, *, paper: str, title: str, statement: str,
            construction: Callable[..., Construction], shapes: Callable[[int], Iterable[Shape]] | None = None,
            **settings: Any) -> Claim:
    """A construction as published, stated against ``of``'s very statement (its
    target, layouts and preconditions) and expected REFUTED: refuted with a
    replayed counterexample is this claim's right outcome. The divergence of a
    counterexample is located against ``of``'s construction."""

    def obligation(shape: Shape) -> Obligation:
        right = of.obligation(shape)
        return dataclasses.replace(right, claim_id=id, construction=construction(*shape), mutant=None,
                                   reference=right.construction)

    settings.setdefault("engines", of.engines)
    settings.setdefault("semantics", of.semantics)
    return Claim(id=id, paper=paper, title=title, statement=statement, shapes=shapes or of.shapes,
                 obligation=obligation, expected=Status.REFUTED, construction_of=construction, **settings)
