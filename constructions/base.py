"""What a construction is, and the one routing primitive every block uses.

A :class:`Construction` is a RASP program together with the layout of its input
and of its output: the claim it serves says what the output block must equal.
"""

from __future__ import annotations

from dataclasses import dataclass

from usim.encodings.layout import SequenceLayout
from usim.errors import ShapeError
from usim.rasp.cost import Cost, cost
from usim.rasp.expr import Predicate, SOp, aggregate, indices, select, where
from usim.rasp.family import fresh, is_symbolic, symbolic_text
from usim.rasp.program import Program

__all__ = ["Construction", "fresh", "gather", "guarded", "inside", "pair"]


@dataclass(frozen=True, eq=False)
class Construction:
    """A program, the layout it reads and the layout it writes.

    ``output_layout`` has the same length as ``input_layout``; its first block is
    the result and the positions past it are padding (the aggregate default).
    ``semantics`` says which empty-row rule the program relies on.
    """

    name: str
    program: Program
    input_layout: SequenceLayout
    output_layout: SequenceLayout
    semantics: str = "rasp"
    notes: str = ""

    def __post_init__(self) -> None:
        if self.output_layout.length != self.input_layout.length:
            raise ShapeError(
                f"{self.name}: the output layout ({self.output_layout.describe()}) needs "
                f"{self.output_layout.length} positions, but the program's sequence has "
                f"{self.input_layout.length} ({self.input_layout.describe()}): every output "
                "entry must sit at a position of the sequence")

    @property
    def cost(self) -> Cost:
        return cost(self.program)


def pair(i: int, j: int, rows: int, cols: int) -> str:
    """The suffix naming head (i, j): "01" while indices are single digits, "0_11" after.
    With symbolic sizes, a placeholder filled in at instantiation (usim.rasp.family)."""
    if is_symbolic(i, j, rows, cols):
        return symbolic_text(pair, i, j, rows, cols, shown="{" + str(i) + "}{" + str(j) + "}")
    return f"{i}{j}" if max(rows, cols) <= 10 else f"{i}_{j}"


def gather(values: SOp, source: SOp | int) -> SOp:
    """One head: at each position p, the value at position ``source[p]``.

    select(indices, source, ==) selects, at query p, the single key whose index is
    source[p]; the mean over one key is its value. A source outside 0..n-1 (use
    -1) selects nothing and gives the default 0.
    """
    return aggregate(select(indices, source, Predicate.EQ), values)


def inside(start: int | SOp, stop: int | SOp) -> SOp:
    """The boolean sequence start <= p < stop."""
    return (indices >= start) & (indices < stop)


def guarded(position: SOp, start: int | SOp, stop: int | SOp) -> SOp:
    """``position`` at p in [start, stop), else -1 (a source that selects nothing)."""
    return where(inside(start, stop), position, -1)
