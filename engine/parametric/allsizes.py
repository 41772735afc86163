"""A claim for every size: the parametric proof, what ties it to the bounded claim,
and counterexamples replayed at a concrete size.

:func:`prove_all_sizes` gives one family (or one broken variant of it) its
verdict for every size (with the bounded cross-check and the broken variants:
:func:`usim.engine.parametric.composed.prove_claim_all_sizes`, which also
takes a claim proved in parts):

* PROVED when the parametric engine proved every step
  (:func:`usim.engine.parametric.prove.prove_family`), the bounded engines'
  witness check found an input at the witness sizes, and the family is tied to
  the bounded claim (:func:`tie`): at every shape up to the tie bound, the
  family instantiated is the claim's own program node for node (names
  included), its layouts are the claim's, its side conditions select exactly
  the claim's shapes, and its target is the claim's own function and, over
  symbolic matrices of those sizes, means the claim's target entry by entry;
  and the claim's program is the family's instance by definition
  (:attr:`FamilyClaim.one_definition`; otherwise the verdict is about the family
  alone and the claim's is UNKNOWN);
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
from typing import Any, Mapping, Sequence

import sympy
import z3

from usim.constructions.base import Construction
from usim.encodings.notation import shape_label
from usim.engine.canonical import Verdict, compare
from usim.engine.claim import EngineResult, Obligation, ObligationResult, Status
from usim.engine.parametric.prove import ParametricVerdict, prove_family
from usim.engine.parametric.statement import ALL_SIZES_BUDGET, ABOUT_CLAIM, FamilyClaim, claim_all_sizes_status
from usim.engine.parametric.steps import DECISIONS
from usim.engine.parametric.target import SymbolicMatrix, TargetContext, active
from usim.engine.parametric.terms import ParametricAtoms, Entry
from usim.engine.replay import expected_sequence, replay_undefined, search_witness, symbol_matrices
from usim.engine.runner import ClaimReport, check_obligation
from usim.engine.witness import find_witness
from usim.errors import DeadlineError, ShapeError, UsimError
from usim.rasp.family import FamilyError, instantiate
from usim.rasp.fingerprint import canonical_text, fingerprint

SEARCH_SECONDS = 30.0
"""How long the search over small sizes may take when no failed step named sizes."""


TIE_POSITIONS = 2048
"""The longest input sequence at which the tie is checked beyond the bound (the
check instantiates and compares programs node for node: linear in their size)."""

SIDE_CONDITION_SHAPES = 3
"""How many shapes with every dimension past the bound are drawn from the grid
of :func:`beyond_bound` (the first that meet the side conditions)."""


def large_sizes(bound: int) -> tuple[int, ...]:
    """The sizes beyond the bound at which every dimension is tied: 2N + 1,
    4N + 3 (one odd, one past every power of two up to 4N), 17 and 33 (past the
    constants 16 and 32 a builder might special-case), those above N."""
    return tuple(sorted(v for v in {2 * bound + 1, 4 * bound + 3, 17, 33} if v > bound))


@dataclass(frozen=True)
class Tie:
    """The family checked against the bounded claim: at every shape up to
    ``bound`` (``shapes`` of them) and at ``beyond``, shapes past it."""

    bound: int
    shapes: int
    problems: tuple[str, ...]
    beyond: tuple[tuple[int, ...], ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems and self.shapes > 0

    def as_dict(self) -> dict:
        return {"bound": self.bound, "shapes": self.shapes, "problems": list(self.problems),
                "beyond": [list(s) for s in self.beyond]}


def _layout(blocks) -> list[tuple[str, tuple[int, int]]]:
    return [(name, (int(r), int(c))) for name, (r, c) in blocks]


def beyond_bound(fc: FamilyClaim, bound: int) -> list[tuple[int, ...]]:
    """Shapes past ``bound`` at which the tie is checked: for every dimension and
    every size of :func:`large_sizes`, that dimension at the size and the others
    as small as the side conditions allow; every dimension at 2N + 1; and the
    first :data:`SIDE_CONDITION_SHAPES` shapes meeting the side conditions with
    every dimension past the bound, each one of N + 1, 2N + 1, 4N + 3 (in
    order of their sum: the same shapes on every run, so that a certificate's
    record of them can be derived again). Shapes with more than
    :data:`TIE_POSITIONS` input positions are left out.

    Args:
        fc: the claim stated for every size.
        bound: the bound of the bounded cross-check (N).

    Returns:
        The shapes, each meeting the side conditions, without repeats.
    """
    wanted: list[tuple[int, ...]] = []
    dims = len(fc.dims)
    for size in large_sizes(bound):
        for i in range(dims):
            rest = sorted(itertools.product(range(1, bound + 2), repeat=dims - 1), key=lambda s: (sum(s), s))
            for others in rest:
                shape = others[:i] + (size,) + others[i:]
                if fc.holds_at(shape):
                    wanted.append(shape)
                    break
    wanted.append((2 * bound + 1,) * dims)
    grid = sorted(itertools.product((bound + 1, 2 * bound + 1, 4 * bound + 3), repeat=dims),
                  key=lambda s: (sum(s), s))
    wanted += [s for s in grid if fc.holds_at(s) and s not in wanted][:SIDE_CONDITION_SHAPES]
    out: list[tuple[int, ...]] = []
    for shape in wanted:
        if shape not in out and fc.holds_at(shape) and _positions(fc, shape) <= TIE_POSITIONS:
            out.append(shape)
    return out


def tie(fc: FamilyClaim, bound: int) -> Tie:
    """Is the family the bounded claim's construction, and the builder's program?

    At every shape up to ``bound`` and at the shapes :func:`beyond_bound`:
    the family instantiated there is, node for node with names, both the
    claim's own program and what the builder called with integers builds (a
    builder that takes another path for integers, or a claim whose
    construction is written separately, differs somewhere); its layouts are
    the claim's; its target is the claim's own function. Up to the bound also:
    its side conditions select exactly the claim's shapes, and the target
    written for every size means the claim's target entry by entry.

    Args:
        fc: the claim stated for every size.
        bound: the bound N of the bounded cross-check.

    Returns:
        The shapes checked and every problem found.
    """
    claim = fc.claim
    wanted = set(claim.shapes(bound))
    family = fc.family()
    problems: list[str] = []
    count = 0
    beyond = beyond_bound(fc, bound)
    small = list(itertools.product(range(1, bound + 1), repeat=len(fc.dims)))
    for shape in small + beyond:
        label = shape_label(shape)
        within = max(shape) <= bound
        if within and fc.holds_at(shape) != (shape in wanted):
            problems.append(f"{label}: the side conditions {'hold' if fc.holds_at(shape) else 'fail'} but the "
                            f"claim {'does not have' if shape not in wanted else 'has'} this shape")
            continue
        if within and shape not in wanted:
            continue
        count += within
        try:
            ob = claim.obligation(shape)
        except (UsimError, ArithmeticError) as error:
            problems.append(f"{label}: the claim has no obligation at this shape: {error}")
            continue
        try:
            instance = instantiate(family, dict(zip(fc.dims, shape)))
        except (UsimError, ArithmeticError) as error:
            problems.append(f"{label}: the family cannot be instantiated: {error}")
            continue
        text = canonical_text(instance, names=True)
        if text != canonical_text(ob.construction.program, names=True):
            problems.append(f"{label}: the family instantiated is not the claim's program")
        try:
            built = fc.program(*shape)
        except (UsimError, ArithmeticError, TypeError) as error:
            problems.append(f"{label}: the builder refuses integer sizes: {error}")
        else:
            if canonical_text(built, names=True) != text:
                problems.append(f"{label}: the family instantiated is not the builder's program at these sizes")
        layout = ob.construction.input_layout
        if _layout(fc.inputs(*shape)) != [(b.name, (b.shape.rows, b.shape.cols)) for b in layout.blocks] \
                or sum(r * c for _, (r, c) in fc.inputs(*shape)) != layout.length:
            problems.append(f"{label}: the family's input layout is not the claim's")
        out = ob.construction.output_layout
        if _layout(fc.outputs(*shape)) != [(b.name, (b.shape.rows, b.shape.cols)) for b in out.blocks]:
            problems.append(f"{label}: the family's output layout is not the claim's")
        if ob.target is not fc.target_at(*shape):
            problems.append(f"{label}: the family's target is not the claim's own target function")
        elif within and not _same_target(fc, shape, ob):
            problems.append(f"{label}: the target written for every size is not the claim's target here")
        if ob.output_name != family.outputs[0][0]:
            problems.append(f"{label}: the claim is about the output {ob.output_name}, the family's is "
                            f"{family.outputs[0][0]}")
        if ob.preconditions is not fc.preconditions or ob.padding != 0:
            problems.append(f"{label}: the claim has preconditions or padding the family does not state")
    return Tie(bound, count, tuple(problems), tuple(beyond))


def _same_target(fc: FamilyClaim, shape: tuple[int, ...], ob: Obligation) -> bool:
    """The target over symbolic matrices (:class:`SymbolicMatrix`, with the
    sizes given) means, entry by entry, what the claim's target means over
    sympy matrices: the helpers of :mod:`usim.engine.parametric.target`
    (``.T``, ``*``, :func:`matrix_of`, :func:`total`) are checked here."""
    atoms = ParametricAtoms()
    context = TargetContext(atoms, {}, lambda name: z3.Int(name), lambda term: False, lambda facts, goal: False)
    matrices = {name: SymbolicMatrix.input(name, rows, cols) for name, (rows, cols) in fc.inputs(*shape)}
    with active(context):
        blocks = fc.target_at(*shape)(matrices)
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


def verdict_record(claim_id: str, mutant: str | None, status: Status, conditions: str) -> dict:
    """The fields every recorded verdict for every size begins with (one family's or a claim's in parts)."""
    return {"claim": claim_id, "mutant": mutant, "status": status.value, "scope": "all sizes",
            "conditions": conditions}


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

    @property
    def reason(self) -> str:
        """Why the verdict is what it is, in one line (the note, else the engine's reason)."""
        if self.note and self.verdict.reason and self.verdict.status is not Status.PROVED:
            return f"{self.verdict.reason}; {self.note}"
        return self.note or self.verdict.reason

    def as_dict(self) -> dict:
        v = self.verdict
        return {
            **verdict_record(self.claim_id, self.mutant, self.status, self.conditions),
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
time grows quickly with it; the sizes a failed step names are minimised first),
unless the family says otherwise (:attr:`FamilyClaim.replay_positions`)."""


def _positions(fc: FamilyClaim, shape: tuple[int, ...]) -> int:
    return sum(r * c for _, (r, c) in fc.inputs(*shape))


def _candidate_shapes(fc: FamilyClaim, verdict: ParametricVerdict) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    longest = fc.replay_positions or REPLAY_POSITIONS
    for hint in verdict.hints:
        if not all(d in hint for d in fc.dims):
            continue
        shape = tuple(int(hint[d]) for d in fc.dims)
        if min(shape) >= 1 and _positions(fc, shape) <= longest and shape not in out \
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
    try:
        row = check_obligation(ob, engines, timeout, fc.claim.engines, jobs=1)
    except DeadlineError:  # its statement did not build in time: nothing refuted
        return None
    return row if row.status is Status.REFUTED else None


def prove_all_sizes(fc: FamilyClaim, mutant: str | None = None, timeout: float = 60.0,
                    tie_bound: int | None = None, engines: Sequence[str] | None = None,
                    search_seconds: float = SEARCH_SECONDS, check_timeout: float | None = None) -> AllSizesResult:
    """The verdict for every size (see the module docstring). The tie is checked
    up to ``tie_bound`` (default: the claim's CI bound); a broken variant is
    not a builder, and has no tie.

    Args:
        fc: the family.
        mutant: one of its broken variants, or None.
        timeout: the parametric proof's budget, in seconds.
        tie_bound: the bound up to which the family is tied to the builder.
        engines: the bounded engines that replay a counterexample.
        search_seconds: how long sizes are searched for a counterexample where no
            failed step names sizes.
        check_timeout: each engine's seconds on the witness's obligation and on each
            replayed counterexample (bounded obligations; default ``timeout``).

    Returns:
        The verdict, with what it rests on.
    """
    checks = timeout if check_timeout is None else check_timeout
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
            witness = find_witness(instance_obligation(fc, shape, mutant), checks)
        except (UsimError, ArithmeticError) as error:
            return made(status=Status.ERROR, note=f"the witness sizes {shape} cannot be instantiated: {error}")
        ties = tie(fc, tie_bound) if mutant is None else None
        if ties is not None and not ties.ok:
            return made(status=Status.ERROR, tie=ties, witness=witness,
                        note="the family is not the builder's program: " + "; ".join(ties.problems[:3]))
        status = Status.PROVED if witness.status is Status.PROVED else witness.status
        return made(status=status, tie=ties, witness=witness)
    for shape in _candidate_shapes(fc, verdict):
        row = _refute(fc, mutant, shape, engines, checks)
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
        try:
            row = check_obligation(ob, engines, checks, fc.claim.engines, jobs=1)
        except DeadlineError:  # its statement did not build in time: nothing refuted at this size
            continue
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
    timeout: float | None = None
    """Each family's budget for its proof for every size, in seconds (None: the bounded proof's)."""

    @property
    def status(self) -> Status:
        """The claim's verdict for every size: the family's, except an ERROR
        where the bounded proof refutes what was proved, and never PROVED for
        a claim whose program is built apart from the family (the verdict is
        then about the family alone: UNKNOWN for the claim)."""
        return claim_all_sizes_status(self.result.status, self.bounded.status, self.family.about)

    @property
    def about(self) -> str:
        """What the verdict is about: the claim's program, or the family alone."""
        return self.family.about

    @property
    def mutants_refuted(self) -> bool:
        return all(m.status is Status.REFUTED for m in self.mutants)

    def as_dict(self) -> dict:
        """The certificate's record of the verdict for every size and what it rests on."""
        result = self.result
        return {
            "scope": "all sizes",
            "status": self.status.value,
            "about": self.about,
            "family_status": result.status.value,
            "cross_check": {"max_n": self.bounded.max_n, "status": self.bounded.status.value},
            "conditions": result.conditions,
            "family": fingerprint(self.family.family()),
            "rests_on": rests_on(self),
            "result": result.as_dict(),
            "mutants": [m.as_dict() for m in self.mutants],
            **({ALL_SIZES_BUDGET: self.timeout} if self.timeout is not None else {}),
        }


def rests_on(report: AllSizesReport) -> list[str]:
    """What the verdict for every size rests on, step by step, with the solver of each."""
    bounded = report.bounded
    return rests_on_record(report.result.as_dict(), report.about, bounded.max_n, bounded.status.value,
                           bounded.engines)


def rests_on_record(result: Mapping[str, Any], about: str, bound: int, bounded_status: str,
                    engines: Sequence[str]) -> list[str]:
    """The lines of :func:`rests_on`, from a verdict as a certificate records it
    (:meth:`AllSizesResult.as_dict`), what it is about and the bounded
    cross-check's bound, status and engines: written here, and derived again
    from a certificate's own record when it is read
    (:mod:`usim.engine.statement_check`).

    Args:
        result: the recorded verdict (its parametric steps, tie and witness).
        about: :data:`ABOUT_CLAIM` or :data:`ABOUT_FAMILY`.
        bound: the bound of the bounded cross-check.
        bounded_status: the bounded cross-check's status.
        engines: the bounded cross-check's engines.

    Returns:
        One line per step, then what the verdict is about, the tie, the
        witness and the bounded cross-check.
    """
    if "parts" in result:
        return _composed_rests_on(result, about, bound, bounded_status, engines)
    engine = result["engine"]
    lines = []
    for s in engine["steps"]:
        counts = [f"{s['proved']} proved"]
        if s["failed"]:
            counts.append(f"{s['failed']} answered no (the cases split there)" if s["step"] in DECISIONS
                          else f"{s['failed']} refuted")
        if s["unknown"]:
            counts.append(f"{s['unknown']} unknown")
        lines.append(f"{s['step']}: {s['solver']}, {', '.join(counts)} ({s['seconds']:.3f} s)")
    if about == ABOUT_CLAIM:
        lines.append("one definition: the claim's program at every shape is the family's instance there "
                     "(its construction is the family's SizedConstruction)")
    else:
        lines.append("the claim builds its program apart from the family: this verdict is about the family "
                     "alone, and the claim's program is tied to it only at the shapes below")
    tie = result.get("tie")
    if tie is not None:
        lines.append(f"the family instantiated is the claim's program and the builder's, node for node with "
                     f"names, and its layouts, side conditions and target (entry by entry) are the claim's, at "
                     f"every shape up to N={tie['bound']} ({tie['shapes']} shapes): structural "
                     f"comparison, canonical forms")
        beyond = tie.get("beyond") or []
        if beyond:
            lines.append(f"the same structural comparison (program, builder, layouts, target function) at "
                         f"{len(beyond)} shapes past N: {', '.join(shape_label(s) for s in beyond)}")
    witness = result.get("witness")
    if witness is not None:
        lines.append(f"an input at the witness sizes {dict(engine.get('witness_sizes') or {})}: "
                     f"{witness['status']} ({witness['engine']})")
    lines.append(f"bounded cross-check up to N={bound}: {bounded_status} ({'+'.join(engines)})")
    return lines


def _part_line(part: Mapping[str, Any]) -> str:
    """One part of a composed verdict, from its record, in one line."""
    engine = part["engine"]
    queries = sum(s["proved"] + s["failed"] + s["unknown"] for s in engine["steps"])
    solvers = sorted({s["solver"] for s in engine["steps"]})
    text = (f"{part['claim']} for every size ({part['conditions']}): {part['status']}; the parametric engine "
            f"{engine['status']} ({len(engine['steps'])} steps, {queries} queries: {', '.join(solvers)})")
    tie = part.get("tie")
    if tie is not None:
        text += (f"; tied to the builder node for node at {tie['shapes']} shapes up to N={tie['bound']} and "
                 f"{len(tie.get('beyond') or [])} past it")
    witness = part.get("witness")
    if witness is not None:
        text += f"; a witness input {witness['status']}"
    if part.get("shape"):
        text += f"; refuted at {shape_label(part['shape'])}, replayed by the bounded engines"
    return text


def _composed_rests_on(result: Mapping[str, Any], about: str, bound: int, bounded_status: str,
                       engines: Sequence[str]) -> list[str]:
    lines = [_part_line(p) for p in result["parts"]]
    chain = result.get("chain")
    if chain is not None:
        lines += [f"composition: {c}" for c in chain["checks"]]
        lines += [f"composition problem: {p}" for p in chain["problems"]]
    if about != ABOUT_CLAIM:
        lines.append("a part builds its program apart from its family: this verdict is about the families alone")
    lines.append(f"bounded cross-check up to N={bound}: {bounded_status} ({'+'.join(engines)})")
    return lines
