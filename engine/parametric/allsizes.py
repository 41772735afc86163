"""A claim for every size: the parametric proof, what ties it to the bounded claim,
and counterexamples replayed at a concrete size.

:func:`prove_all_sizes` gives one family (or one broken variant of it) its
verdict for every size:

* PROVED when the parametric engine proved every step
  (:func:`usim.engine.parametric.prove.prove_family`), the bounded engines'
  witness check found an input at the witness sizes, and the family is tied to
  the bounded claim (:func:`tie`): at every shape up to the tie bound, the
  family instantiated is the claim's own program node for node (names
  included), its layouts are the claim's, its side conditions select exactly
  the claim's shapes, and its target is the claim's own function and, over
  symbolic matrices of those sizes, means the claim's target entry by entry;
* REFUTED only with a concrete size and input: the sizes come from z3's model
  of a step that failed (or, failing that, from a search over small sizes), the
  family is instantiated there and the bounded engines
  (:func:`usim.engine.runner.check_obligation`) refute it with a replayed
  counterexample;
* VACUOUS when no sizes meet the side conditions; UNKNOWN otherwise (a step
  not proved and no counterexample found, a construct outside the engine's
  fragment, a timeout); ERROR when the family is not the builder's (a broken
  tie) or when the bounded cross-check refutes what was proved for all sizes.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from dataclasses import dataclass
from typing import Callable, Sequence

import sympy
import z3

from usim.constructions.base import Construction
from usim.engine.claim import EngineResult, Obligation, ObligationResult, Status, shape_label
from usim.engine.parametric.evaluate import DECISIONS
from usim.engine.parametric.prove import ParametricVerdict, prove_family
from usim.engine.canonical import Verdict, compare
from usim.engine.parametric.statement import FamilyClaim
from usim.engine.parametric.target import SymbolicMatrix, TargetContext, active
from usim.engine.parametric.terms import Atoms, Entry
from usim.engine.replay import expected_sequence, replay_undefined, search_witness, symbol_matrices
from usim.engine.cache import VerdictCache
from usim.engine.runner import ClaimReport, Progress, check_obligation, prove_claim
from usim.engine.witness import find_witness
from usim.errors import ShapeError, UsimError
from usim.rasp.family import FamilyError, instantiate
from usim.rasp.fingerprint import canonical_text, fingerprint

SEARCH_SECONDS = 30.0
"""How long the search over small sizes may take when no failed step named sizes."""


@dataclass(frozen=True)
class Tie:
    """The family checked against the bounded claim at every shape up to ``bound``."""

    bound: int
    shapes: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems and self.shapes > 0

    def as_dict(self) -> dict:
        return {"bound": self.bound, "shapes": self.shapes, "problems": list(self.problems)}


def _layout(blocks) -> list[tuple[str, tuple[int, int]]]:
    return [(name, (int(r), int(c))) for name, (r, c) in blocks]


def tie(fc: FamilyClaim, bound: int) -> Tie:
    """Is the family the bounded claim's construction at every shape up to ``bound``?"""
    claim = fc.claim
    wanted = set(claim.shapes(bound))
    family = fc.family()
    problems: list[str] = []
    count = 0
    for shape in itertools.product(range(1, bound + 1), repeat=len(fc.dims)):
        label = shape_label(shape)
        if fc.holds_at(shape) != (shape in wanted):
            problems.append(f"{label}: the side conditions {'hold' if fc.holds_at(shape) else 'fail'} but the "
                            f"claim {'does not have' if shape not in wanted else 'has'} this shape")
            continue
        if shape not in wanted:
            continue
        count += 1
        ob = claim.obligation(shape)
        try:
            instance = instantiate(family, dict(zip(fc.dims, shape)))
        except (UsimError, ArithmeticError) as error:
            problems.append(f"{label}: the family cannot be instantiated: {error}")
            continue
        if canonical_text(instance, names=True) != canonical_text(ob.construction.program, names=True):
            problems.append(f"{label}: the family instantiated is not the builder's program")
        layout = ob.construction.input_layout
        if _layout(fc.inputs(*shape)) != [(b.name, (b.shape.rows, b.shape.cols)) for b in layout.blocks] \
                or sum(r * c for _, (r, c) in fc.inputs(*shape)) != layout.length:
            problems.append(f"{label}: the family's input layout is not the claim's")
        out = ob.construction.output_layout
        if _layout(fc.outputs(*shape)) != [(b.name, (b.shape.rows, b.shape.cols)) for b in out.blocks]:
            problems.append(f"{label}: the family's output layout is not the claim's")
        if ob.target is not fc.target:
            problems.append(f"{label}: the family's target is not the claim's own target function")
        elif not _same_target(fc, shape, ob):
            problems.append(f"{label}: the target written for every size is not the claim's target here")
        if ob.output_name != family.outputs[0][0]:
            problems.append(f"{label}: the claim is about the output {ob.output_name}, the family's is "
                            f"{family.outputs[0][0]}")
        if ob.preconditions is not None or ob.padding != 0:
            problems.append(f"{label}: the claim has preconditions or padding the family does not state")
    return Tie(bound, count, tuple(problems))


def _same_target(fc: FamilyClaim, shape: tuple[int, ...], ob: Obligation) -> bool:
    """The target over symbolic matrices (:class:`SymbolicMatrix`, with the
    sizes given) means, entry by entry, what the claim's target means over
    sympy matrices: the helpers of :mod:`usim.engine.parametric.target`
    (``.T``, ``*``, :func:`matrix_of`, :func:`total`) are checked here."""
    atoms = Atoms()
    context = TargetContext(atoms, {}, lambda name: z3.Int(name), lambda term: False, lambda facts, goal: False)
    matrices = {name: SymbolicMatrix.input(name, rows, cols) for name, (rows, cols) in fc.inputs(*shape)}
    with active(context):
        blocks = fc.target(matrices)
        written = {name: [[sympy.sympify(blocks[name][i, j]) for j in range(cols)] for i in range(rows)]
                   for name, (rows, cols) in fc.outputs(*shape)}
    names = {}
    for symbol, atom in atoms.info.items():
        if not isinstance(atom, Entry):
            return False  # at fixed sizes every sum is expanded: no atom but entries
        names[symbol] = sympy.Symbol(f"{atom.block}[{z3.simplify(atom.row)},{z3.simplify(atom.col)}]", real=True)
    expected = expected_sequence(ob, symbol_matrices(ob.construction.input_layout, ob.domain))
    mine = ob.construction.output_layout.encode({k: sympy.Matrix(v).xreplace(names) for k, v in written.items()},
                                                fill=sympy.Integer(0))
    return all(compare(a, b) is Verdict.EQUAL for a, b in zip(mine, expected))


def instance_obligation(fc: FamilyClaim, shape: Sequence[int], mutant: str | None = None) -> Obligation:
    """The bounded obligation of the family (or a broken variant) at one shape:
    the claim's statement there, with the family's instance as the program."""
    right = fc.claim.obligation(tuple(shape))
    program = instantiate(fc.family(mutant), dict(zip(fc.dims, shape)))
    label = f" [{mutant}]" if mutant else ""
    built: Construction = dataclasses.replace(right.construction, name=right.construction.name + label,
                                              program=program)
    return dataclasses.replace(right, construction=built, mutant=mutant, reference=right.construction)


@dataclass(frozen=True)
class AllSizesResult:
    """The verdict for every size of one family or broken variant."""

    claim_id: str
    mutant: str | None
    status: Status
    verdict: ParametricVerdict
    conditions: str
    tie: Tie | None = None
    shape: tuple[int, ...] | None = None
    counterexample: ObligationResult | None = None
    found_by: str = ""
    witness: EngineResult | None = None
    note: str = ""
    seconds: float = 0.0

    @property
    def label(self) -> str:
        return shape_label(self.shape) if self.shape else ""

    def as_dict(self) -> dict:
        v = self.verdict
        return {
            "claim": self.claim_id,
            "mutant": self.mutant,
            "status": self.status.value,
            "scope": "all sizes",
            "conditions": self.conditions,
            "engine": {"status": v.status.value, "reason": v.reason, "cases": v.cases,
                       "witness_sizes": dict(v.witness) if v.witness else None,
                       "steps": [s.as_dict() for s in v.steps], "seconds": round(v.seconds, 4)},
            "tie": self.tie.as_dict() if self.tie else None,
            "shape": list(self.shape) if self.shape else None,
            "counterexample": self.counterexample.as_dict() if self.counterexample else None,
            "found_by": self.found_by,
            "witness": self.witness.as_dict() if self.witness else None,
            "note": self.note,
            "seconds": round(self.seconds, 3),
        }


REPLAY_POSITIONS = 256
"""The longest sequence a counterexample is replayed on (the bounded engines'
time grows quickly with it; the sizes a failed step names are minimised first)."""


def _positions(fc: FamilyClaim, shape: tuple[int, ...]) -> int:
    return sum(r * c for _, (r, c) in fc.inputs(*shape))


def _candidate_shapes(fc: FamilyClaim, verdict: ParametricVerdict) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    for hint in verdict.hints:
        if not all(d in hint for d in fc.dims):
            continue
        shape = tuple(int(hint[d]) for d in fc.dims)
        if min(shape) >= 1 and _positions(fc, shape) <= REPLAY_POSITIONS and shape not in out \
                and fc.holds_at(shape):
            out.append(shape)
    return out[:8]


def _search_shapes(fc: FamilyClaim, limit: int = 24) -> list[tuple[int, ...]]:
    shapes = [s for s in itertools.product(range(1, limit + 1), repeat=len(fc.dims)) if sum(s) <= limit]
    return sorted((s for s in shapes if fc.holds_at(s)), key=lambda s: (sum(s), s))


def _refute(fc: FamilyClaim, mutant: str | None, shape: tuple[int, ...], engines: Sequence[str] | None,
            timeout: float) -> ObligationResult | None:
    try:
        ob = instance_obligation(fc, shape, mutant)
    except (UsimError, ArithmeticError, FamilyError):
        return None
    row = check_obligation(ob, engines, timeout, fc.claim.engines)
    return row if row.status is Status.REFUTED else None


def prove_all_sizes(fc: FamilyClaim, mutant: str | None = None, timeout: float = 60.0,
                    tie_bound: int | None = None, engines: Sequence[str] | None = None,
                    search_seconds: float = SEARCH_SECONDS) -> AllSizesResult:
    """The verdict for every size (see the module docstring). The tie is checked
    up to ``tie_bound`` (default: the claim's CI bound); a broken variant is
    not a builder, and has no tie."""
    if tie_bound is None:
        tie_bound = fc.claim.ci_max_n
    if tie_bound < 1:
        raise UsimError(f"the tie bound must be at least 1, not {tie_bound}")
    start = time.perf_counter()
    verdict = prove_family(fc, mutant, timeout)
    made = lambda **kw: AllSizesResult(fc.id, mutant, verdict=verdict,  # noqa: E731
                                       conditions=fc.describe_conditions(),
                                       seconds=time.perf_counter() - start, **kw)
    if verdict.status is Status.VACUOUS:
        return made(status=Status.VACUOUS)
    if verdict.status is Status.PROVED:
        shape = tuple(verdict.witness[d] for d in fc.dims)
        try:
            witness = find_witness(instance_obligation(fc, shape, mutant), timeout)
        except (UsimError, ArithmeticError) as error:
            return made(status=Status.ERROR, note=f"the witness sizes {shape} cannot be instantiated: {error}")
        ties = tie(fc, tie_bound) if mutant is None else None
        if ties is not None and not ties.ok:
            return made(status=Status.ERROR, tie=ties, witness=witness,
                        note="the family is not the builder's program: " + "; ".join(ties.problems[:3]))
        status = Status.PROVED if witness.status is Status.PROVED else witness.status
        return made(status=status, tie=ties, witness=witness)
    for shape in _candidate_shapes(fc, verdict):
        row = _refute(fc, mutant, shape, engines, timeout)
        if row is not None:
            return made(status=Status.REFUTED, shape=shape, counterexample=row,
                        found_by="z3's model of the step that failed, replayed by the bounded engines")
    deadline = time.perf_counter() + search_seconds
    for shape in _search_shapes(fc):
        if time.perf_counter() > deadline:
            break
        try:
            ob = instance_obligation(fc, shape, mutant)
        except (UsimError, ArithmeticError, FamilyError, ShapeError):
            continue
        if search_witness(ob, tries=6) is None and search_witness(ob, tries=3, confirm=replay_undefined) is None:
            continue
        row = check_obligation(ob, engines, timeout, fc.claim.engines)
        if row.status is Status.REFUTED:
            return made(status=Status.REFUTED, shape=shape, counterexample=row,
                        found_by="a search over small sizes (no failed step named sizes), replayed by the "
                                 "bounded engines")
    return made(status=Status.UNKNOWN, note="no counterexample found at the sizes the failed step named "
                                            "or in the search over small sizes")


@dataclass
class AllSizesReport:
    """A claim's all-sizes verdict with its bounded cross-check and broken variants."""

    family: FamilyClaim
    bounded: ClaimReport
    result: AllSizesResult
    mutants: list[AllSizesResult]

    @property
    def status(self) -> Status:
        """The all-sizes verdict, an ERROR where the bounded proof disagrees."""
        if self.result.status is Status.PROVED and self.bounded.status is Status.REFUTED:
            return Status.ERROR
        return self.result.status

    @property
    def mutants_refuted(self) -> bool:
        return all(m.status is Status.REFUTED for m in self.mutants)

    def as_dict(self) -> dict:
        """The certificate's record of the verdict for every size and what it rests on."""
        result = self.result
        return {
            "scope": "all sizes",
            "status": self.status.value,
            "conditions": result.conditions,
            "family": fingerprint(self.family.family()),
            "rests_on": rests_on(self),
            "result": result.as_dict(),
            "mutants": [m.as_dict() for m in self.mutants],
        }


def rests_on(report: AllSizesReport) -> list[str]:
    """What the verdict for every size rests on, step by step, with the solver of each."""
    result = report.result
    lines = []
    for s in result.verdict.steps:
        counts = [f"{s.proved} proved"]
        if s.failed:
            counts.append(f"{s.failed} answered no (the cases split there)" if s.step in DECISIONS
                          else f"{s.failed} refuted")
        if s.unknown:
            counts.append(f"{s.unknown} unknown")
        lines.append(f"{s.step}: {s.solver}, {', '.join(counts)} ({s.seconds:.3f} s)")
    if result.tie is not None:
        lines.append(f"the family instantiated is the claim's program, node for node with names, and its "
                     f"layouts, side conditions and target (entry by entry) are the claim's, at every shape "
                     f"up to N={result.tie.bound} ({result.tie.shapes} shapes): structural comparison, "
                     f"canonical forms")
    if result.witness is not None:
        lines.append(f"an input at the witness sizes {dict(result.verdict.witness or {})}: "
                     f"{result.witness.status.value} ({result.witness.engine})")
    lines.append(f"bounded cross-check up to N={report.bounded.max_n}: {report.bounded.status.value} "
                 f"({'+'.join(report.bounded.engines)})")
    return lines


def prove_claim_all_sizes(fc: FamilyClaim, max_n: int, engines: Sequence[str] | None = None,
                          timeout: float = 60.0, jobs: int = 1, mutants: bool = False,
                          progress: Callable[[Progress], None] | None = None,
                          say: Callable[[str], None] | None = None,
                          cache: VerdictCache | None = None) -> AllSizesReport:
    """The bounded proof up to ``max_n`` (a cross-check, and the tie's bound),
    the proof for every size, and with ``mutants`` each all-sizes broken variant.
    ``progress`` follows the bounded proof (as :func:`prove_claim`'s), ``say``
    is told each step of the proof for every size, in words."""
    bounded = prove_claim(fc.claim, max_n, engines, timeout, jobs, mutants=mutants, progress=progress,
                          cache=cache)
    if say:
        say(f"{fc.id}: proving for every size ({fc.describe_conditions()})")
    result = prove_all_sizes(fc, None, timeout, max_n, engines)
    if say:
        say(f"{fc.id}: all sizes {result.status.value} ({result.seconds:.2f} s)")
    broken = []
    for name in (fc.mutants if mutants else {}):
        found = prove_all_sizes(fc, name, timeout, max_n, engines)
        if say:
            where = f" at {found.label}" if found.shape else ""
            say(f"{fc.id} [{name}]: all sizes {found.status.value}{where} ({found.seconds:.2f} s)")
        broken.append(found)
    return AllSizesReport(fc, bounded, result, broken)
