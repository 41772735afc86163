"""Deliberately broken variants of a construction, as obligations.

Every checker must be shown to fail: a claim lists mutants, each the claim's own
construction with some named nodes replaced (:func:`usim.rasp.rewrite.substitute`),
checked against the same target. :func:`mutant_builder` is the one way to make
them.
"""

from __future__ import annotations

from typing import Callable, Mapping

from usim.constructions.base import Construction
from usim.engine.claim import Obligation, Shape
from usim.rasp.expr import Expr
from usim.rasp.rewrite import substitute


def mutant_builder(
    name: str,
    construction_for: Callable[[Shape], Construction],
    obligation_for: Callable[[Shape, Construction | None, str | None], Obligation],
    replace: Callable[[Shape], Mapping[str, Callable[[Expr], Expr]]],
) -> Callable[[Shape], Obligation]:
    """The obligation of ``shape`` for the construction with ``replace(shape)`` applied."""

    def build(shape: Shape) -> Obligation:
        right = construction_for(shape)
        program = substitute(right.program, replace(shape), name=f"{right.program.name}_{name}")
        broken = Construction(right.name + f" [{name}]", program, right.input_layout,
                              right.output_layout, right.semantics, right.notes)
        return obligation_for(shape, broken, name)

    return build
