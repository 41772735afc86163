"""A claim stated for every size: the family, its layouts, its target, its side conditions.

A :class:`FamilyClaim` lifts a bounded claim (:class:`usim.engine.claim.Claim`)
to all sizes. It names the claim's dimensions in the order of its shapes and
gives, as functions of them (called with symbolic integers for the proof and
with integers for the checks that tie it to the bounded claim):

* ``program``: the builder the construction uses (``transpose_program(r)``):
  called with symbolic dimensions it is the family
  (:mod:`usim.rasp.family`);
* ``inputs`` and ``outputs``: the blocks of the input layout, one after
  another from position 0, and of the output layout (padding after it, up to
  the input's length);
* ``target``: the claim's own target function, written with
  :mod:`usim.engine.parametric.target` so that it means the same at every size;
* ``side_condition``: what the shapes must satisfy beyond every dimension
  being at least 1 (Lemma 5's ``r*c <= k*(r + c)``; a :class:`Condition` from
  the same function the bounded claim's shapes use);
* ``mutants``: broken variants of the family, each made by replacing named
  nodes (``{"row_sum": lambda node: ...}``, names as :func:`readable` shows
  them, ``row_mean{b}`` for a head's node), given the symbolic dimensions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from usim.engine.claim import Claim
from usim.errors import UsimError
from usim.rasp.expr import Expr
from usim.rasp.family import Condition, SymbolicInt, dimension, readable
from usim.rasp.program import Program
from usim.rasp.rewrite import substitute

Blocks = Sequence[tuple[str, tuple[Any, Any]]]
Replacements = Mapping[str, Callable[[Expr], Expr]]


@dataclass(frozen=True)
class FamilyClaim:
    claim: Claim
    dims: tuple[str, ...]
    program: Callable[..., Program]
    inputs: Callable[..., Blocks]
    outputs: Callable[..., Blocks]
    target: Callable[[Mapping[str, Any]], Mapping[str, Any]]
    side_condition: Callable[..., Condition | bool] | None = None
    mutants: Mapping[str, Callable[..., Replacements]] = field(default_factory=dict)
    notes: str = ""

    @property
    def id(self) -> str:
        return self.claim.id

    def symbols(self) -> tuple[SymbolicInt, ...]:
        return tuple(dimension(d) for d in self.dims)

    def family(self, mutant: str | None = None) -> Program:
        """The program over symbolic dimensions (a broken variant's, if named)."""
        symbols = self.symbols()
        program = self.program(*symbols)
        if mutant is None:
            return program
        if mutant not in self.mutants:
            raise UsimError(f"claim {self.id} has no all-sizes variant {mutant!r}")
        by_readable = {readable(node.name): node.name for node in program.nodes() if node.has_name}
        wanted = self.mutants[mutant](*symbols)
        missing = [name for name in wanted if name not in by_readable]
        if missing:
            raise UsimError(f"the family of {self.id} has no node named {missing[0]!r}")
        return substitute(program, {by_readable[name]: replace for name, replace in wanted.items()},
                          name=f"{program.name}_{mutant}")

    def conditions(self) -> list[Condition]:
        """The side conditions over the symbolic dimensions (besides each >= 1)."""
        if self.side_condition is None:
            return []
        found = self.side_condition(*self.symbols())
        return [found] if isinstance(found, Condition) else []

    def describe_conditions(self) -> str:
        text = ", ".join(f"{d} >= 1" for d in self.dims)
        extra = self.conditions()
        return text + "".join(f", {c}" for c in extra)

    def holds_at(self, shape: Sequence[int]) -> bool:
        """Whether the side conditions hold at a concrete shape."""
        if self.side_condition is None:
            return True
        found = self.side_condition(*shape)
        return bool(found)
