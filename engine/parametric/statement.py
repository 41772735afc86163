"""A claim stated for every size: the family, its layouts, its target, its side conditions.

A :class:`FamilyClaim` lifts a bounded claim (:class:`usim.engine.claim.Claim`)
to all sizes. It gives:

* ``construction``: the :class:`~usim.constructions.base.SizedConstruction`
  (the builder, whose call with symbolic dimensions is the family, and the
  layouts as functions of the dimensions ``dims``, in the order of the claim's
  shapes: ``inputs``, the blocks from position 0, and ``outputs``, padded to
  the input's length);
* ``target``: the claim's own target function, written with
  :mod:`usim.encodings.sized` so that it means the same at every size (or
  ``target_for``, the target at given dimensions, where it depends on a size
  that no input block's shape gives);
* ``side_condition``: what the shapes must satisfy beyond every dimension
  being at least 1 (Lemma 5's ``r*c <= k*(r + c)``; a :class:`Condition` from
  the same function the bounded claim's shapes use);
* ``mutants``: broken variants of the family, each made by replacing named
  nodes (``{"row_sum": lambda node: ...}``, names as :func:`readable` shows
  them, ``row_mean{b}`` for a head's node), given the symbolic dimensions;
* ``preconditions``: the bounded claim's own preconditions (the same
  function: the tie checks it), input matrices -> relations; the parametric
  engine uses those of the form ``x > 0`` (``>= 0``) for one input entry x at
  fixed indices (a layer norm's eps) and is outside its fragment on others;
* ``replay_positions``: the longest input on which a counterexample is
  replayed (default :data:`usim.engine.parametric.allsizes.REPLAY_POSITIONS`;
  larger for a family whose replay is cheap, as one routing head's, so that a
  variant wrong only past N = 16 is refuted where it fails).

**One definition.** When the bounded claim builds its constructions from the
same ``construction`` (``claim(..., construction=transpose_construction)``),
its program at every shape IS the family's instance there
(:attr:`FamilyClaim.one_definition`): the verdict for every size is the
claim's. Otherwise the claim keeps a separate builder, and the verdict for
every size is about the family alone, never shown as the claim's.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from usim.constructions.base import Blocks, SizedConstruction
from usim.engine.claim import Claim, Status
from usim.errors import UsimError
from usim.rasp.family import Condition, SymbolicInt, dimension, readable
from usim.rasp.program import Program
from usim.rasp.rewrite import Replacements, substitute

ALL_SIZES_BUDGET = "timeout_seconds"
"""The field of a certificate's ``all_sizes`` section giving each family's budget for
its proof for every size (``usim prove --all-sizes-timeout``); where absent (a
certificate before 2026-12-05), the certificate's own timeout was that budget."""

ABOUT_CLAIM = "the claim's program"
"""A verdict for every size about the program the claim runs (one definition)."""
ABOUT_FAMILY = "the family alone"
"""A verdict for every size about the family only: the claim builds its program separately."""


def claim_all_sizes_status(family: Status, bounded: Status, about: str) -> Status:
    """The claim's verdict for every size from the family's, the bounded
    cross-check's and what the family is (one rule for reports and certificates).

    Args:
        family: the family's verdict for every size.
        bounded: the bounded cross-check's verdict.
        about: :data:`ABOUT_CLAIM` or the family alone.

    Returns:
        ERROR where the cross-check refutes what was proved; UNKNOWN where the
        family is proved but is not the claim's program; else the family's.
    """
    if family is Status.PROVED and bounded is Status.REFUTED:
        return Status.ERROR
    if family is Status.PROVED and about != ABOUT_CLAIM:
        return Status.UNKNOWN
    return family


def composed_status(parts: Sequence[Status], chain_ok: bool | None) -> Status:
    """The composed verdict from its parts' and the chain's (one rule for reports
    and certificates; ``chain_ok`` None for a broken variant, which is one part's,
    and for a chain with a check left undecided).

    Args:
        parts: the parts' verdicts for every size, in order.
        chain_ok: whether the chain has no problem (None: not checked, or a check undecided).

    Returns:
        REFUTED if a part is; ERROR if a part is or the chain fails; PROVED if
        every part is (and the chain holds); VACUOUS if every part is; else UNKNOWN.
    """
    if not parts:
        return Status.ERROR
    if any(p is Status.REFUTED for p in parts):
        return Status.REFUTED
    if any(p is Status.ERROR for p in parts) or chain_ok is False:
        return Status.ERROR
    if all(p is Status.PROVED for p in parts) and chain_ok is not None:
        return Status.PROVED
    if all(p is Status.VACUOUS for p in parts):
        return Status.VACUOUS
    return Status.UNKNOWN


def symbols_of(dims: Sequence[str]) -> tuple[SymbolicInt, ...]:
    """The symbolic dimensions named ``dims``, in order."""
    return tuple(dimension(d) for d in dims)


def side_conditions(side_condition: Callable[..., Condition | bool] | None, dims: Sequence[str]) -> list[Condition]:
    """A statement's side conditions over its symbolic dimensions (besides each >= 1).

    Args:
        side_condition: the dimensions -> a condition (or True), or None.
        dims: the dimensions' names.

    Returns:
        The condition at the symbolic dimensions, or none.
    """
    found = side_condition(*symbols_of(dims)) if side_condition is not None else None
    return [found] if isinstance(found, Condition) else []


def described(dims: Sequence[str], conditions: Sequence[Condition]) -> str:
    """Each dimension >= 1 and the side conditions, in words (``N >= 1, n >= 1, n <= N``)."""
    return ", ".join(f"{d} >= 1" for d in dims) + "".join(f", {c}" for c in conditions)


def shape_key(*sizes: Any) -> tuple:
    """A shape as a key of a dict: integers as they are, a symbolic size by its
    text (two builds of the same expression are one shape)."""
    return tuple(("symbol", str(s)) if isinstance(s, SymbolicInt) else s for s in sizes)


def one_per_shape(make: Callable[..., Any]) -> Callable[..., Any]:
    """``make`` called once per shape, its result given again each time that shape
    is asked (a symbolic size keyed by its text): what ``target_for`` must be, one
    function per shape, since the tie checks that the claim's obligation there
    holds that very function; also a cache of what is costly to build per shape.

    Args:
        make: sizes -> the value at those sizes.

    Returns:
        The same function of the sizes, each shape's value made once.

    >>> made = one_per_shape(lambda n, h: object())
    >>> made(2, 3) is made(2, 3), made(2, 3) is made(3, 2)
    (True, False)
    """
    found: dict[tuple, Any] = {}

    @functools.wraps(make)
    def at(*sizes: Any) -> Any:
        key = shape_key(*sizes)
        if key not in found:
            found[key] = make(*sizes)
        return found[key]
    return at


@dataclass(frozen=True)
class FamilyClaim:
    claim: Claim
    construction: SizedConstruction
    target: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None
    side_condition: Callable[..., Condition | bool] | None = None
    mutants: Mapping[str, Callable[..., Replacements]] = field(default_factory=dict)
    notes: str = ""
    target_for: Callable[..., Callable[[Mapping[str, Any]], Mapping[str, Any]]] | None = None
    replay_positions: int | None = None
    preconditions: Callable[[Mapping[str, Any]], Sequence[Any]] | None = None

    def target_at(self, *dims: Any) -> Callable[[Mapping[str, Any]], Mapping[str, Any]]:
        """The target at these dimensions (symbolic or integers): ``target_for(*dims)``
        where the target depends on a size no input block's shape gives (a
        stage of U reads the header's n, which the stage's program sets), else
        ``target``. ``target_for`` must give one function per shape (the tie
        checks that the claim's obligation there holds that very function)."""
        return self.target if self.target_for is None else self.target_for(*dims)

    @property
    def id(self) -> str:
        return self.claim.id

    @property
    def dims(self) -> tuple[str, ...]:
        return self.construction.dims

    @property
    def program(self) -> Callable[..., Program]:
        """The builder (called with integers: what a caller of the builder gets)."""
        return self.construction.program

    @property
    def inputs(self) -> Callable[..., Blocks]:
        return self.construction.inputs

    @property
    def outputs(self) -> Callable[..., Blocks]:
        return self.construction.outputs

    @property
    def one_definition(self) -> bool:
        """Whether the bounded claim's program at every shape is this family's
        instance (the claim builds its constructions from ``construction``)."""
        return self.claim.construction_of is self.construction

    @property
    def about(self) -> str:
        """What the verdict for every size is about, in words."""
        return ABOUT_CLAIM if self.one_definition else ABOUT_FAMILY

    def symbols(self) -> tuple[SymbolicInt, ...]:
        return symbols_of(self.dims)

    def family(self, mutant: str | None = None) -> Program:
        """The program over symbolic dimensions (a broken variant's, if named)."""
        symbols = self.symbols()
        program = self.construction.family()
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
        return side_conditions(self.side_condition, self.dims)

    def describe_conditions(self) -> str:
        return described(self.dims, self.conditions())

    def holds_at(self, shape: Sequence[int]) -> bool:
        """Whether the side conditions hold at a concrete shape."""
        if self.side_condition is None:
            return True
        found = self.side_condition(*shape)
        return bool(found)


@dataclass(frozen=True)
class Equation:
    """left = right for every size: two functions of the same input matrices, block
    by block and entry by entry, each written with :mod:`usim.encodings.sized` so
    that it means the same at every size (no program: the identity that ties a
    composition of stages' meanings to a theorem's formula).

    ``name``: what the equation is, in words; ``dims``: its dimensions;
    ``inputs`` and ``outputs``: the blocks each side reads and gives, as functions
    of the dimensions; ``left`` and ``right``: the dimensions -> (input matrices ->
    output blocks); ``side_condition``: beyond every dimension being at least 1,
    as a :class:`FamilyClaim`'s; ``splits``: the dimensions -> (an output entry's
    row and column index -> conditions on them), each splitting the entries in two
    (where it holds and where it does not), every region proved on its own with
    its conditions among the facts (a side that is 0 on rows a >= n and a
    product elsewhere: the split a < n decides the cases inside its sums);
    ``preconditions``: input matrices -> relations the inputs meet (a layer
    norm's eps > 0), as a :class:`FamilyClaim`'s. ``left_defined``: the left side
    is a composition of functions each shown, elsewhere, to give real numbers on
    every input meeting the preconditions (U's stages' meanings, each stage's proof
    checking its divisions): a product's term whose right factor is 0 is then 0
    without its left factor being evaluated (T's weights placed into U's are 0 past
    their corner, and the rows they meet there cost a whole layer norm each). It is
    the caller's statement, not checked here: a verdict that used it says so in its
    reason, and the one caller (``proofs/_stage_equation.py``) is a composed claim's
    chain, PROVED only with every stage's proof, the ones that show it.
    """

    name: str
    dims: tuple[str, ...]
    inputs: Callable[..., Blocks]
    outputs: Callable[..., Blocks]
    left: Callable[..., Callable[[Mapping[str, Any]], Mapping[str, Any]]]
    right: Callable[..., Callable[[Mapping[str, Any]], Mapping[str, Any]]]
    side_condition: Callable[..., Condition | bool] | None = None
    splits: Callable[..., Callable[[Any, Any], Sequence[Condition]]] | None = None
    preconditions: Callable[[Mapping[str, Any]], Sequence[Any]] | None = None
    left_defined: bool = False

    def symbols(self) -> tuple[SymbolicInt, ...]:
        return symbols_of(self.dims)

    def conditions(self) -> list[Condition]:
        """The side conditions over the symbolic dimensions (besides each >= 1)."""
        return side_conditions(self.side_condition, self.dims)

    def describe_conditions(self) -> str:
        return described(self.dims, self.conditions())
