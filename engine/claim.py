"""Claims, obligations and their results.

A :class:`Claim` is one result of the paper stated precisely: for every shape up
to a bound N, a construction (a RASP program and its layouts) and an
independent target written from the mathematics. One shape of a claim is an
:class:`Obligation`: for all inputs in the claim's domain that satisfy its
preconditions, the construction's output sequence equals the target sequence
(the target's blocks, and the padding value past them).

An obligation is discharged by engines (:mod:`usim.engine.engines`), each giving
PROVED, REFUTED (with a counterexample, replayed) or UNKNOWN (never proved).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

import sympy

from usim.constructions.base import Construction
from usim.rasp.cost import Cost, cost
from usim.rasp.program import Program

Shape = tuple[int, ...]
Matrices = Mapping[str, sympy.Matrix]


class Status(enum.Enum):
    PROVED = "PROVED"
    REFUTED = "REFUTED"
    UNKNOWN = "UNKNOWN"
    ERROR = "ERROR"  # the engines disagree, or an engine failed: a bug to report


@dataclass(frozen=True)
class Obligation:
    """One shape of a claim.

    ``target`` maps the input matrices (sympy matrices of symbols named like
    ``A[1,2]``, one per input block) to the expected output blocks, by the names
    of ``construction.output_layout``; positions past the blocks must equal
    ``padding`` (the aggregate default, 0).

    ``preconditions`` maps the same inputs to sympy relations assumed to hold
    (``det != 0``); ``domain`` is ``"real"`` or ``"integer"``; ``values``, when
    given, is the finite set each input entry ranges over (0/1 for a parity
    input, residues for Match2), which makes exhaustive checking possible.
    ``reference`` is a construction known to be right whose named nodes can be
    compared with this one's to say where a wrong one first diverges.
    """

    claim_id: str
    shape: Shape
    construction: Construction
    target: Callable[[Matrices], Mapping[str, Any]]
    output: str | None = None
    preconditions: Callable[[Matrices], list[Any]] | None = None
    domain: str = "real"
    values: tuple[Any, ...] | None = None
    padding: Any = 0
    reference: Construction | None = None
    mutant: str | None = None
    cost_of: Program | None = None  # the program whose cost the claim is about, if not this one

    @property
    def claimed_cost(self) -> Cost:
        """The cost reported for this shape: of ``cost_of`` when the obligation
        checks a part (a stage of U), else of its own construction."""
        return cost(self.cost_of) if self.cost_of is not None else self.construction.cost

    @property
    def label(self) -> str:
        return "x".join(str(d) for d in self.shape)

    @property
    def output_name(self) -> str:
        if self.output is not None:
            return self.output
        return self.construction.program.outputs[0][0]


@dataclass(frozen=True)
class Claim:
    """A result of the paper, stated so that each shape is a checkable obligation.

    ``shapes(N)`` lists the shapes covered for bound N (every dimension <= N,
    and whatever side conditions the statement has); ``obligation(shape)``
    builds one. ``mutants`` are deliberately broken variants (name -> builder of
    the broken obligation) that every engine must refute. ``engines`` are the
    engines that apply by default. ``measure``, when given, returns extra
    findings for the certificate and report (e.g. the largest deviation of an
    approximate variant), which are never counted as proof.
    """

    id: str
    paper: str
    title: str
    statement: str
    shapes: Callable[[int], Iterable[Shape]]
    obligation: Callable[[Shape], Obligation]
    engines: tuple[str, ...] = ("sympy", "z3")
    default_max_n: int = 4
    ci_max_n: int = 3
    mutants: Mapping[str, Callable[[Shape], Obligation]] = field(default_factory=dict)
    measure: Callable[[int], list[str]] | None = None
    semantics: str = "rasp"
    notes: str = ""
    expected: "Status" = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        # A claim that states a construction *as published* and is wrong is
        # registered with expected=Status.REFUTED: it is an erratum, and being
        # refuted (with a replayed counterexample) is its correct outcome.
        if self.expected is None:
            object.__setattr__(self, "expected", Status.PROVED)
        if self.expected not in (Status.PROVED, Status.REFUTED):
            raise ValueError(f"claim {self.id}: expected must be PROVED or REFUTED")

    @property
    def is_erratum(self) -> bool:
        return self.expected is Status.REFUTED


@dataclass(frozen=True)
class Counterexample:
    """A concrete input on which construction and target differ, replayed."""

    inputs: Mapping[str, list[list[str]]]
    position: int
    entry: str
    expected: str
    got: str
    replay: str  # "exact" or "numeric (50 digits)"
    divergence: str | None = None

    def describe(self) -> str:
        rows = []
        for name, matrix in self.inputs.items():
            rows.append(f"{name} = [" + "; ".join(", ".join(r) for r in matrix) + "]")
        text = (
            f"input {' '.join(rows)}; at position {self.position} ({self.entry}) "
            f"expected {self.expected}, got {self.got} (replayed: {self.replay})"
        )
        if self.divergence:
            text += f"; first diverges at {self.divergence}"
        return text

    def as_dict(self) -> dict:
        return {
            "inputs": {k: v for k, v in self.inputs.items()},
            "position": self.position,
            "entry": self.entry,
            "expected": self.expected,
            "got": self.got,
            "replay": self.replay,
            "divergence": self.divergence,
        }


@dataclass(frozen=True)
class EngineResult:
    engine: str
    status: Status
    seconds: float
    detail: str = ""
    counterexample: Counterexample | None = None

    def as_dict(self) -> dict:
        return {
            "engine": self.engine,
            "status": self.status.value,
            "seconds": round(self.seconds, 4),
            "detail": self.detail,
            "counterexample": self.counterexample.as_dict() if self.counterexample else None,
        }


@dataclass(frozen=True)
class ObligationResult:
    claim_id: str
    shape: Shape
    results: tuple[EngineResult, ...]
    mutant: str | None = None

    @property
    def label(self) -> str:
        return "x".join(str(d) for d in self.shape)

    @property
    def status(self) -> Status:
        """PROVED if some engine proved it and none refuted it; REFUTED if some
        engine refuted it (with a confirmed counterexample) and none proved it;
        ERROR if engines disagree or failed; UNKNOWN otherwise."""
        statuses = {r.status for r in self.results}
        if Status.ERROR in statuses or {Status.PROVED, Status.REFUTED} <= statuses:
            return Status.ERROR
        if Status.REFUTED in statuses:
            return Status.REFUTED
        if Status.PROVED in statuses:
            return Status.PROVED
        return Status.UNKNOWN

    @property
    def counterexample(self) -> Counterexample | None:
        for r in self.results:
            if r.counterexample is not None:
                return r.counterexample
        return None

    def as_dict(self) -> dict:
        return {
            "claim": self.claim_id,
            "shape": list(self.shape),
            "mutant": self.mutant,
            "status": self.status.value,
            "engines": [r.as_dict() for r in self.results],
        }
