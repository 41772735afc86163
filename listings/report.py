"""What checking a listing found, as data: one :class:`ShapeReport` per shape (and broken variant), one :class:`CheckReport`.

The command line prints them (:mod:`usim.render_check`); a certificate records
them (:mod:`usim.listings.certificate`).
"""

from __future__ import annotations

from fractions import Fraction

from dataclasses import dataclass, field
from typing import Any, Mapping

from usim.encodings.notation import shape_label
from usim.engine.claim import Counterexample, ObligationResult, Shape, Status, claim_status
from usim.listings.examples import ExampleRun, shown_counterexample
from usim.listings.plan import ShapePlan
from usim.listings.spec import ListingSpec
from usim.rasp.cost import Cost, cost, repl_heads
from usim.rasp.program import Program


@dataclass(frozen=True)
class ListingCost:
    """A listing's cost: usim's (:func:`usim.rasp.cost.cost`) and the REPL's head count."""

    usim: Cost
    repl_heads: tuple[int, ...]
    """Distinct selectors per layer, as the REPL counts (the length layer included where it is used)."""

    @staticmethod
    def of(program: Program) -> "ListingCost":
        """The cost of ``program`` both ways.

        Args:
            program: the listing's program at one shape.

        Returns:
            Its cost.
        """
        c = cost(program)
        return ListingCost(c, tuple(repl_heads(program, with_length=c.uses_length)))


@dataclass(frozen=True)
class Unchecked:
    """A shape (or broken variant) whose obligation could not be built or decided: why.

    It stands where an :class:`~usim.engine.claim.ObligationResult` would, with
    no counterexample and the status ERROR, or UNKNOWN where building its
    statement ran past the deadline (nothing was decided either way).
    """

    shape: Shape
    error: str
    mutant: str | None = None
    status: Status = Status.ERROR

    UNDECIDED = (Status.ERROR, Status.UNKNOWN)
    """The only statuses a shape nothing decided can have."""

    def __post_init__(self) -> None:
        if self.status not in self.UNDECIDED:
            raise ValueError(f"an unchecked shape is ERROR or UNKNOWN, not {self.status.name}: nothing decided it")

    @property
    def label(self) -> str:
        return shape_label(self.shape)

    @property
    def counterexample(self) -> Counterexample | None:
        """Always None: nothing was refuted."""
        return None


@dataclass(frozen=True)
class ShapeReport:
    """One shape (or one broken variant at a shape) checked: the engines'
    :class:`~usim.engine.claim.ObligationResult` (or why there is none), and, for
    the listing itself, the cross-check of the interpretations, the cost, the
    powers found and the deviation measured from the spec (None where it was
    not measured; a value None: the text says why)."""

    result: ObligationResult | Unchecked
    seconds: float = 0.0
    interpretations: Mapping[str, str] = field(default_factory=dict)
    cost: ListingCost | None = None
    findings: tuple[str, ...] = ()
    deviation: tuple[float | None, str] | None = None

    @property
    def shape(self) -> Shape:
        return self.result.shape

    @property
    def mutant(self) -> str | None:
        return self.result.mutant

    @property
    def label(self) -> str:
        return self.result.label

    @property
    def status(self) -> Status:
        return self.result.status

    @property
    def error(self) -> str | None:
        """Why the shape was not checked (None: it was)."""
        return self.result.error if isinstance(self.result, Unchecked) else None

    @property
    def checked(self) -> bool:
        """Whether the engines decided it (its result is an ObligationResult)."""
        return isinstance(self.result, ObligationResult)


@dataclass(frozen=True)
class CheckReport:
    """Everything ``usim check`` found: the plan, the examples, every shape and broken variant.

    ``deviation`` is the largest deviation measured from the spec at a shape the
    listing is meant for: (value, where, shape). ``alphabet`` holds the
    symbols' codes, for a spec of symbols.
    """

    filename: str
    function: str
    spec: ListingSpec
    plan: ShapePlan
    uses: frozenset[str]
    examples: tuple[ExampleRun, ...]
    shapes: tuple[ShapeReport, ...] = ()
    deviation: tuple[float, str, str] | None = None
    padding: str = "zero"
    mutants: tuple[ShapeReport, ...] = ()
    source_text: str = ""
    parameters: Mapping[str, str] = field(default_factory=dict)
    alphabet: Any = None
    bases: tuple[Fraction, ...] = ()
    """The constants the listing raises to input-dependent powers (its stand-ins for e), at any shape."""

    def counterexample(self, shape: ShapeReport) -> Counterexample | None:
        """The shape's counterexample, symbols as themselves (not their codes)."""
        counter = shape.result.counterexample
        return None if counter is None else shown_counterexample(counter, self.alphabet, self.spec)

    @property
    def status(self) -> Status:
        """The verdict over every shape checked, as a claim's over its obligations
        (ERROR, REFUTED or VACUOUS if a shape is; PROVED if all are)."""
        return claim_status(s.status for s in self.shapes)

    @property
    def ok(self) -> bool:
        proved = bool(self.shapes) and all(s.status is Status.PROVED for s in self.shapes)
        return proved and self.mutants_refuted

    def count(self, status: Status, mutants: bool = False) -> int:
        return sum(s.status is status for s in (self.mutants if mutants else self.shapes))

    @property
    def mutants_refuted(self) -> bool:
        """Every broken variant is refuted at some shape and nowhere UNKNOWN or
        ERROR (where a variant happens to be right, it is rightly PROVED)."""
        by_mutant: dict[str, list[Status]] = {}
        for s in self.mutants:
            by_mutant.setdefault(s.mutant or "?", []).append(s.status)
        return all(Status.REFUTED in v and set(v) <= {Status.REFUTED, Status.PROVED}
                   for v in by_mutant.values())
