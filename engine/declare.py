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
from usim.engine.claim import Claim, Obligation, Preconditions, Shape, Status, Target
from usim.rasp.program import Program
from usim.rasp.rewrite import Replacements, substitute


def every_shape(dimensions: int, least: int = 1) -> Callable[[int], list[Shape]]:
    """Shapes with every one of ``dimensions`` dimensions from ``least`` to N.

    Args:
        dimensions: how many dimensions a shape has ((r, c): 2).
        least: the smallest size of each dimension.

    Returns:
        The function N -> every shape in {least, ..., N}^dimensions, in
        lexicographic order (a claim's ``shapes``).

    >>> every_shape(2)(2)
    [(1, 1), (1, 2), (2, 1), (2, 2)]
    """
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
    preconditions: Preconditions | None = None,
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

    Args:
        id: the claim's id (``usim prove ID``), written once.
        paper: where the paper states it ("Lemma 3").
        title: one line: what is computed, at what cost.
        statement: the statement proved, in words.
        construction: the construction at a shape, called as
            ``construction(*shape)`` (a
            :class:`~usim.constructions.base.SizedConstruction` or a function).
        shapes: N -> the shapes covered for bound N (:func:`every_shape`).
        target: the input matrices (sympy matrices of symbols, by the input
            layout's block names) -> the expected output blocks, by the
            output layout's names. Give this or ``target_for``.
        target_for: shape -> the target at that shape, where it depends on it.
        output: which output of the program is compared (default: its first).
        preconditions: the input matrices -> sympy relations assumed to hold
            (``det != 0``).
        domain: ``"real"`` or ``"integer"``, what the input entries range over.
        values: the finite set each input entry ranges over (exact numbers),
            or a function of the shape giving it; None: the whole domain.
        mutants: broken variant name -> (shape -> named node -> its
            replacement, given the node).
        variants: broken variant name -> another whole construction, called
            with the shape.
        cost_of: shape -> the program whose cost the claim reports, when the
            construction checked is a part of it.
        **settings: the :class:`~usim.engine.claim.Claim`'s own fields.

    Returns:
        The claim: each shape's obligation (with the right construction as the
        reference where a broken one diverges), and each broken variant's.

    Raises:
        TypeError: both or neither of ``target`` and ``target_for`` given.

    Example: Lemma 3 declared again, one shape proved, a broken variant
    (each source position moved by one) refuted.

    >>> from usim.constructions.transpose import transpose_construction
    >>> from usim.engine.runner import check_obligation
    >>> lemma = claim("transpose", paper="Lemma 3", title="transpose: 1 layer, 1 head",
    ...               statement="the program outputs M^T",
    ...               construction=transpose_construction, target=lambda m: {"MT": m["M"].T},
    ...               shapes=every_shape(2),
    ...               mutants={"off-by-one": lambda shape: {"transpose_src": lambda node: node + 1}})
    >>> check_obligation(lemma.obligation((2, 3))).status
    <Status.PROVED: 'PROVED'>
    >>> check_obligation(lemma.mutants["off-by-one"]((2, 3))).status
    <Status.REFUTED: 'REFUTED'>
    """

    if (target is None) == (target_for is None):
        raise TypeError(f"claim {id}: give target or target_for, not both")
    declaration = dict(paper=paper, title=title, statement=statement, construction=construction, shapes=shapes,
                       target=target, target_for=target_for, output=output, preconditions=preconditions,
                       domain=domain, values=values, mutants=mutants, variants=variants, cost_of=cost_of,
                       **settings)

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
                 obligation=obligation, mutants=broken_variants, construction_of=construction,
                 declaration={"id": id, **declaration}, **settings)


def redeclare(of: Claim, **changes: Any) -> Claim:
    """``of`` made again by :func:`claim` with some of its arguments changed.

    The way to write a negative test: the same construction against a wrong
    target must be REFUTED (``redeclare(CLAIM, target=wrong)``). Changing the
    target alone leaves the target function's choice between ``target`` and
    ``target_for`` to the change (the other is dropped).

    Args:
        of: a claim made by :func:`claim`.
        **changes: :func:`claim`'s arguments to change (``target``,
            ``construction``, ``shapes``, ``preconditions``, ``id``, ...).

    Returns:
        The new claim.

    Raises:
        TypeError: ``of`` was not made by :func:`claim`, or an argument is not one of its.
    """
    if of.declaration is None:
        raise TypeError(f"claim {of.id} was not made by usim.claim: it cannot be declared again")
    arguments = dict(of.declaration)
    unknown = sorted(set(changes) - set(arguments) - {"target", "target_for"})
    if unknown:
        raise TypeError(f"claim {of.id}: usim.claim takes no argument {', '.join(unknown)}")
    if "target" in changes:
        arguments["target_for"] = None
    if "target_for" in changes:
        arguments["target"] = None
    arguments.update(changes)
    return claim(arguments.pop("id"), **arguments)


def erratum(of: Claim, id: str, *, paper: str, title: str, statement: str,
            construction: Callable[..., Construction], shapes: Callable[[int], Iterable[Shape]] | None = None,
            **settings: Any) -> Claim:
    """A construction as published, stated against ``of``'s very statement (its
    target, layouts and preconditions) and expected REFUTED: refuted with a
    replayed counterexample is this claim's right outcome. The divergence of a
    counterexample is located against ``of``'s construction.

    Args:
        of: the correct claim whose statement the published construction is
            held to.
        id: the erratum's id.
        paper: where the paper states it.
        title: one line: what was published.
        statement: what is refuted, in words.
        construction: the construction as published, called with the shape.
        shapes: N -> the shapes covered; None: ``of``'s.
        **settings: the :class:`~usim.engine.claim.Claim`'s own fields
            (engines and semantics default to ``of``'s).

    Returns:
        The claim, expected REFUTED (category "refuted").
    """

    def obligation(shape: Shape) -> Obligation:
        right = of.obligation(shape)
        return dataclasses.replace(right, claim_id=id, construction=construction(*shape), mutant=None,
                                   reference=right.construction)

    settings.setdefault("engines", of.engines)
    settings.setdefault("semantics", of.semantics)
    return Claim(id=id, paper=paper, title=title, statement=statement, shapes=shapes or of.shapes,
                 obligation=obligation, expected=Status.REFUTED, construction_of=construction, **settings)
