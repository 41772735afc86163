"""Claims, obligations and their results.

A :class:`Claim` is one result of the paper stated precisely: for every shape up
to a bound N, a construction (a RASP program and its layouts) and an
independent target written from the mathematics. One shape of a claim is an
:class:`Obligation`: for all inputs in the claim's domain that satisfy its
preconditions, the construction's output sequence equals the target sequence
(the target's blocks, and the padding value past them).

An obligation is discharged by engines (:mod:`usim.engine.engines`), each giving
PROVED, REFUTED (with a counterexample, replayed) or UNKNOWN (never proved).
Two further checks belong to every obligation:

* *well-definedness* (:mod:`usim.engine.definedness`): wherever the
  preconditions hold, every division, root and power of the construction and of
  the target is defined. The engines prove equality wherever both sides are
  defined; the two together are the statement.
* *a witness* (:mod:`usim.engine.witness`): an input that meets every
  precondition, exhibited and evaluated. Without one the statement may be
  vacuous (its preconditions unsatisfiable), and it is reported VACUOUS, never
  PROVED.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping

import sympy

from usim.constructions.base import Construction
from usim.encodings.notation import shape_label
from usim.errors import InputError, ShapeError, UsimError
from usim.rasp.cost import Cost, cost
from usim.rasp.expr import Semantics
from usim.rasp.program import Program

Shape = tuple[int, ...]
Matrices = Mapping[str, sympy.Matrix]
Target = Callable[[Matrices], Mapping[str, Any]]
"""A target: the input blocks (sympy matrices by name) -> the output blocks."""
Preconditions = Callable[[Matrices], list[Any]]
"""Preconditions: the input blocks -> the conditions (sympy) an input must meet."""


class Status(enum.Enum):
    """A verdict: PROVED (every engine that answered agrees, the statement is
    defined where its preconditions hold, and an input meets them), REFUTED (a
    counterexample, replayed), UNKNOWN (a timeout, or no engine decided),
    VACUOUS (no input meets the preconditions) or ERROR (the engines disagree,
    or one failed: a bug to report)."""

    PROVED = "PROVED"
    REFUTED = "REFUTED"
    UNKNOWN = "UNKNOWN"
    VACUOUS = "VACUOUS"  # no input meets the preconditions (none found, or shown unsatisfiable)
    ERROR = "ERROR"  # the engines disagree, or an engine failed: a bug to report


def combine(statuses: Iterable[Status]) -> Status:
    """The verdict of several engines on one question.

    ERROR if any failed or two disagree (PROVED and REFUTED); REFUTED if one
    refuted (with a replayed counterexample); PROVED if one proved and none
    refuted; UNKNOWN otherwise (no answers, timeouts, "unknown").
    """
    found = set(statuses)
    if Status.ERROR in found or {Status.PROVED, Status.REFUTED} <= found:
        return Status.ERROR
    if Status.REFUTED in found:
        return Status.REFUTED
    if Status.VACUOUS in found:
        return Status.VACUOUS
    if Status.PROVED in found:
        return Status.PROVED
    return Status.UNKNOWN


def claim_status(statuses: Iterable[Status]) -> Status:
    """A claim's verdict from its obligations': ERROR, REFUTED or VACUOUS if any
    obligation is (in that order), PROVED if all are, UNKNOWN otherwise (and for
    a claim with no obligation)."""
    statuses = list(statuses)
    if not statuses:
        return Status.UNKNOWN
    for worst in (Status.ERROR, Status.REFUTED, Status.VACUOUS):
        if worst in statuses:
            return worst
    if all(s is Status.PROVED for s in statuses):
        return Status.PROVED
    return Status.UNKNOWN


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
    ``kind`` says what kind of statement it is, for the choice of the engines
    that answer it (:data:`usim.engine.choice.CHOICES`; None: the claim's).
    """

    claim_id: str
    shape: Shape
    construction: Construction
    target: Target
    output: str | None = None
    preconditions: Preconditions | None = None
    domain: str = "real"
    values: tuple[Any, ...] | None = None
    padding: Any = 0
    reference: Construction | None = None
    mutant: str | None = None
    cost_of: Program | None = None  # the program whose cost the claim is about, if not this one
    kind: str | None = None

    def __post_init__(self) -> None:
        construction = self.construction
        names = [name for name, _ in construction.program.outputs]
        if self.output is not None and self.output not in names:
            raise ShapeError(f"{self.claim_id} {self.label}: the program {construction.program.name} has no "
                             f"output {self.output!r} (outputs: {', '.join(names)})")
        if self.domain not in ("real", "integer"):
            raise UsimError(f"{self.claim_id}: the domain must be 'real' or 'integer', not {self.domain!r}")
        if self.values is not None:
            for v in self.values:
                if isinstance(v, float) or not isinstance(v, (int, Fraction)):
                    raise InputError(f"{self.claim_id}: the finite domain holds {v!r}; give exact "
                                     "numbers (int or Fraction)")

    @property
    def claimed_cost(self) -> Cost:
        """The cost reported for this shape: of ``cost_of`` when the obligation
        checks a part (a stage of U), else of its own construction."""
        return cost(self.cost_of) if self.cost_of is not None else self.construction.cost

    @property
    def label(self) -> str:
        return shape_label(self.shape)

    @property
    def output_name(self) -> str:
        if self.output is not None:
            return self.output
        return self.construction.program.outputs[0][0]


CATEGORIES: Mapping[str, str] = {
    "as stated": "the paper's claim, proved as the paper states it",
    "after correction": "the construction as published is refuted (an erratum); a corrected one is proved",
    "refuted": "a construction as published, refuted with a replayed counterexample (an erratum)",
    "approximate": "an approximation: what it computes is proved exactly, its distance measured",
    "our statement": "the paper claims it without a precise statement or listing; usim states and proves its own",
}
"""What a claim is, relative to the paper: the status words of paper_map.md and the site."""


@dataclass(frozen=True)
class Claim:
    """A result of the paper, stated so that each shape is a checkable obligation.

    ``shapes(N)`` lists the shapes covered for bound N (every dimension <= N,
    and whatever side conditions the statement has); ``obligation(shape)``
    builds one. ``mutants`` are deliberately broken variants (name -> builder of
    the broken obligation, or None at a shape where the variant breaks nothing)
    that every engine must refute. ``engines`` are the
    engines that apply by default. ``measure``, when given, returns extra
    findings for the certificate and report (e.g. the largest deviation of an
    approximate variant), which are never counted as proof. ``category`` says
    what the claim is relative to the paper (:data:`CATEGORIES`). ``semantics``
    is the empty-row rule its programs rely on (a string, as a certificate
    writes it, is read as its :class:`~usim.rasp.expr.Semantics`).
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
    mutants: Mapping[str, Callable[[Shape], Obligation | None]] = field(default_factory=dict)
    measure: Callable[[int], list[str]] | None = None
    semantics: Semantics = Semantics.RASP
    notes: str = ""
    expected: "Status" = None  # type: ignore[assignment]
    category: str = "as stated"
    construction_of: Callable[..., Construction] | None = None
    """The function each obligation builds its construction from (called with the
    shape): a :class:`~usim.constructions.base.SizedConstruction` where the
    claim's program at every shape is one family's instance."""
    declaration: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    """The arguments :func:`usim.engine.declare.claim` made this claim from (None:
    made otherwise), so that :func:`usim.engine.declare.redeclare` can make it
    again with some of them changed (a negative test's wrong target)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "semantics", Semantics(self.semantics))
        # A claim that states a construction *as published* and is wrong is
        # registered with expected=Status.REFUTED: it is an erratum, and being
        # refuted (with a replayed counterexample) is its correct outcome.
        if self.expected is None:
            object.__setattr__(self, "expected", Status.PROVED)
        if self.expected not in (Status.PROVED, Status.REFUTED):
            raise ValueError(f"claim {self.id}: expected must be PROVED or REFUTED")
        if self.expected is Status.REFUTED:
            object.__setattr__(self, "category", "refuted")
        if self.category not in CATEGORIES:
            raise ValueError(f"claim {self.id}: category {self.category!r} is not one of {', '.join(CATEGORIES)}")
        if (self.category == "refuted") != self.is_erratum:
            raise ValueError(f"claim {self.id}: only an erratum (expected REFUTED) is in the category 'refuted'")

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

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Counterexample":
        """The inverse of :meth:`as_dict` (ValueError, KeyError or TypeError if malformed)."""
        return cls(_matrices(data["inputs"]), int(data["position"]), str(data["entry"]), str(data["expected"]),
                   str(data["got"]), str(data["replay"]),
                   None if data.get("divergence") is None else str(data["divergence"]))


@dataclass(frozen=True)
class Witness:
    """An input that meets every precondition, and what the construction gives there."""

    inputs: Mapping[str, list[list[str]]]
    found_by: str  # "random search" or "z3 model"
    evaluation: str  # "exact", "numeric (50 digits)", or why it is undefined there

    def describe(self) -> str:
        rows = [f"{name} = [" + "; ".join(", ".join(r) for r in m) + "]" for name, m in self.inputs.items()]
        return f"{' '.join(rows)} (found by {self.found_by}; evaluated: {self.evaluation})"

    def as_dict(self) -> dict:
        return {"inputs": dict(self.inputs), "found_by": self.found_by, "evaluation": self.evaluation}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Witness":
        """The inverse of :meth:`as_dict` (ValueError, KeyError or TypeError if malformed)."""
        return cls(_matrices(data["inputs"]), str(data["found_by"]), str(data["evaluation"]))


def _matrices(data: Any) -> dict[str, list[list[str]]]:
    if not isinstance(data, dict):
        raise TypeError("inputs are not a mapping")
    out = {}
    for name, rows in data.items():
        if not (isinstance(rows, list) and all(isinstance(r, list) and all(isinstance(x, str) for x in r)
                                               for r in rows)):
            raise TypeError(f"input {name!r} is not a matrix of strings")
        out[str(name)] = [list(r) for r in rows]
    return out


NOT_RUN = "not run"
"""How the detail of an engine begins that was left out because another had
already decided the obligation (``check_obligation(..., until_decided=True)``)."""

TABULATED = ("tabulated: on this finite domain the target is evaluated at each input, by the exhaustive "
             "engine alone, never built as one expression")
"""The ``engine_choice`` of a result decided by its table (:func:`usim.engine.runner.check_obligation`)."""


@dataclass(frozen=True)
class EngineResult:
    engine: str
    status: Status
    seconds: float
    detail: str = ""
    counterexample: Counterexample | None = None
    witness: Witness | None = None
    cached: bool = False
    """Read from the verdict cache (:mod:`usim.engine.cache`): ``seconds`` is
    the time of the run that computed it."""

    def as_dict(self) -> dict:
        out = {
            "engine": self.engine,
            "status": self.status.value,
            "seconds": round(self.seconds, 4),
            "detail": self.detail,
            "counterexample": self.counterexample.as_dict() if self.counterexample else None,
        }
        if self.witness is not None:
            out["witness"] = self.witness.as_dict()
        if self.cached:
            out["cached"] = True
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "EngineResult":
        """The inverse of :meth:`as_dict` (ValueError, KeyError or TypeError if malformed)."""
        seconds = data["seconds"]
        if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
            raise TypeError("the time is not a number")
        counterexample, witness = data.get("counterexample"), data.get("witness")
        return cls(str(data["engine"]), Status(data["status"]), float(seconds), str(data.get("detail", "")),
                   None if counterexample is None else Counterexample.from_dict(counterexample),
                   None if witness is None else Witness.from_dict(witness), bool(data.get("cached", False)))


@dataclass(frozen=True)
class ObligationResult:
    """Every verdict on one obligation: the engines' on equality, the
    well-definedness check's, and the witness search's.

    ``definedness`` and ``witness`` are None only where they were not run; the
    obligation is then never PROVED.
    """

    claim_id: str
    shape: Shape
    results: tuple[EngineResult, ...]
    mutant: str | None = None
    definedness: EngineResult | None = None
    witness: EngineResult | None = None
    fingerprint: str | None = None
    engine_choice: str | None = None
    """Why these engines (:mod:`usim.engine.choice`); None: the claim's own."""

    @property
    def label(self) -> str:
        return shape_label(self.shape)

    @property
    def equality_status(self) -> Status:
        """The engines' verdict on "equal wherever both sides are defined"."""
        return combine(r.status for r in self.results)

    @property
    def definedness_status(self) -> Status:
        return self.definedness.status if self.definedness is not None else Status.UNKNOWN

    @property
    def witness_status(self) -> Status:
        return self.witness.status if self.witness is not None else Status.UNKNOWN

    @property
    def status(self) -> Status:
        """The verdict on the whole statement.

        ERROR if an engine failed or two disagree; REFUTED if equality or
        definedness is refuted (a replayed counterexample); VACUOUS if no input
        meets the preconditions; PROVED only if equality and definedness are
        both proved and a witness was exhibited; UNKNOWN otherwise.
        """
        equality, definedness = self.equality_status, self.definedness_status
        if Status.ERROR in (equality, definedness, self.witness_status):
            return Status.ERROR
        if Status.REFUTED in (equality, definedness):
            return Status.REFUTED
        if self.witness_status is Status.VACUOUS:
            return Status.VACUOUS
        if equality is Status.PROVED and definedness is Status.PROVED and self.witness_status is Status.PROVED:
            return Status.PROVED
        return Status.UNKNOWN

    @property
    def counterexample(self) -> Counterexample | None:
        checks = list(self.results) + ([self.definedness] if self.definedness is not None else [])
        for r in checks:
            if r.counterexample is not None:
                return r.counterexample
        return None

    def as_dict(self) -> dict:
        out = {
            "claim": self.claim_id,
            "shape": list(self.shape),
            "mutant": self.mutant,
            "fingerprint": self.fingerprint,
            "status": self.status.value,
            "equality": self.equality_status.value,
            "engines": [r.as_dict() for r in self.results],
            "definedness": self.definedness.as_dict() if self.definedness is not None else None,
            "witness": self.witness.as_dict() if self.witness is not None else None,
        }
        if self.engine_choice is not None:
            out["engine_choice"] = self.engine_choice
        return out
