"""What a construction is, and the one routing primitive every block uses.

A :class:`Construction` is a RASP program together with the layout of its input
and of its output: the claim it serves says what the output block must equal.

A :class:`SizedConstruction` is a construction given at every size by ONE
family (:mod:`usim.rasp.family`): its builder called with symbolic dimensions
is the family, and the construction at a shape is the family's instance there,
built from it (never the builder called again with integers). A block proved
for every size (``usim prove lemma3 --all-sizes``) is proved about exactly the
program that the bounded engines, ``usim run`` and ``usim show`` execute.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from usim.encodings.layout import SequenceLayout
from usim.errors import ShapeError
from usim.rasp.cost import Cost, cost
from usim.rasp.expr import Predicate, SOp, Semantics, aggregate, indices, select, where
from usim.rasp.family import dimension, fresh, instantiate, is_symbolic, symbolic_text
from usim.rasp.program import Program

__all__ = ["Construction", "SizedConstruction", "fresh", "gather", "guarded", "inside", "pair"]


@dataclass(frozen=True, eq=False)
class Construction:
    """A program, the layout it reads and the layout it writes.

    ``output_layout`` has the same length as ``input_layout``; its first block is
    the result and the positions past it are padding (the aggregate default).
    ``semantics`` says which empty-row rule the program relies on (a string is
    read as its :class:`~usim.rasp.expr.Semantics`, as an aggregate's is).
    """

    name: str
    program: Program
    input_layout: SequenceLayout
    output_layout: SequenceLayout
    semantics: Semantics = Semantics.RASP
    notes: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "semantics", Semantics(self.semantics))
        if self.output_layout.length != self.input_layout.length:
            raise ShapeError(
                f"{self.name}: the output layout ({self.output_layout.describe()}) needs "
                f"{self.output_layout.length} positions, but the program's sequence has "
                f"{self.input_layout.length} ({self.input_layout.describe()}): every output "
                "entry must sit at a position of the sequence")

    @property
    def cost(self) -> Cost:
        return cost(self.program)


Blocks = Sequence[tuple[str, tuple[Any, Any]]]
"""Named blocks (name, (rows, cols)), laid out one after another from position 0."""


@dataclass(frozen=True, eq=False)
class SizedConstruction:
    """A construction at every size, defined once by a family.

    ``program(*dims, **options)`` is the builder: called with the symbolic
    dimensions :func:`usim.rasp.family.dimension` (``dims``, in the order of
    the claim's shapes) it emits the family. ``inputs`` and ``outputs`` give
    the blocks of the input and output layouts from the dimensions (the output
    padded to the input's length); ``refuse``, when given, says why a shape
    cannot be built (Lemma 5's product that does not fit), or None.

    Called with a shape (and the builder's options, such as a softmax's base),
    it gives the :class:`Construction` whose program is the family's instance
    at that shape (:func:`usim.rasp.family.instantiate`). The family is built
    once per set of options, so its instances, its proof for every size and
    its fingerprint are about one graph.
    """

    name: Callable[..., str]
    dims: tuple[str, ...]
    program: Callable[..., Program]
    inputs: Callable[..., Blocks]
    outputs: Callable[..., Blocks]
    refuse: Callable[..., str | None] | None = None
    _families: dict = field(default_factory=dict, init=False, repr=False)

    def family(self, **options: Any) -> Program:
        """The program over symbolic dimensions (built once per set of options).

        Args:
            options: the builder's keyword options (none for most blocks).

        Returns:
            The family: one graph for every size.
        """
        key = tuple(sorted(options.items()))
        if key not in self._families:
            self._families[key] = self.program(*(dimension(d) for d in self.dims), **options)
        return self._families[key]

    def __call__(self, *shape: int, **options: Any) -> Construction:
        """The construction at ``shape``: the family's instance and its layouts.

        Raises:
            ShapeError: the shape has the wrong number of dimensions, or the
                construction refuses it (``refuse``).
        """
        if len(shape) != len(self.dims):
            raise ShapeError(f"{self.name(*self.dims, **options)} takes {len(self.dims)} dimensions "
                             f"({', '.join(self.dims)}), not {len(shape)}")
        why = self.refuse(*shape) if self.refuse is not None else None
        if why:
            raise ShapeError(why)
        program = instantiate(self.family(**options), dict(zip(self.dims, shape)))
        inputs = SequenceLayout.of(*self.inputs(*shape))
        return Construction(name=self.name(*shape, **options), program=program, input_layout=inputs,
                            output_layout=SequenceLayout.of(*self.outputs(*shape), length=inputs.length))


def pair(i: int, j: int, rows: int, cols: int) -> str:
    """The suffix naming head (i, j): "01" while indices are single digits, "0_11" after.
    With symbolic sizes, a placeholder filled in at instantiation (usim.rasp.family).

    Args:
        i: the row index of the head.
        j: the column index of the head.
        rows: how many rows of heads (decides whether the digits are joined).
        cols: how many columns of heads.

    Returns:
        The suffix, such as ``prod01`` takes.

    >>> pair(0, 1, 2, 2), pair(0, 11, 12, 12)
    ('01', '0_11')
    """
    if is_symbolic(i, j, rows, cols):
        return symbolic_text(pair, i, j, rows, cols, shown="{" + str(i) + "}{" + str(j) + "}")
    return f"{i}{j}" if max(rows, cols) <= 10 else f"{i}_{j}"


def gather(values: SOp, source: SOp | int) -> SOp:
    """One head: at each position p, the value at position ``source[p]``.

    select(indices, source, ==) selects, at query p, the single key whose index is
    source[p]; the mean over one key is its value. A source outside 0..n-1 (use
    -1) selects nothing and gives the default 0.

    Args:
        values: the sequence read.
        source: the position read at each position (a sequence or a constant).

    Returns:
        The head's output: values[source[p]] at p, 0 where source[p] is not a
        position.

    >>> from usim.encodings import run_exact
    >>> from usim.rasp.expr import indices, tokens
    >>> from usim.rasp.program import Program
    >>> run_exact(Program.of("shift", {"shifted": gather(tokens, indices + 1)}), [5, 6, 7])
    {'shifted': [6, 7, 0]}
    """
    return aggregate(select(indices, source, Predicate.EQ), values)


def inside(start: int | SOp, stop: int | SOp) -> SOp:
    """The boolean sequence start <= p < stop.

    Args:
        start: the first position inside.
        stop: the first position past it.

    Returns:
        An element-wise map of ``indices``: True at p in [start, stop).
    """
    return (indices >= start) & (indices < stop)


def guarded(position: SOp, start: int | SOp, stop: int | SOp) -> SOp:
    """``position`` at p in [start, stop), else -1 (a source that selects nothing).

    Args:
        position: the source position (for :func:`gather`).
        start: the first position p where it is kept.
        stop: the first position past them.

    Returns:
        ``position`` on [start, stop), -1 elsewhere.
    """
    return where(inside(start, stop), position, -1)
