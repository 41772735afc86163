"""A claim for every size proved in parts: each part a family, and what composes them.

Some claims are too large for one parametric proof but are a composition:
U_N = stage_m o ... o stage_1, each stage a function of one sequence. A
:class:`ComposedClaim` states such a claim for every size by

* its parts, each a :class:`~usim.engine.parametric.statement.FamilyClaim`
  under the claim's conditions (a part may be stated over fewer of its sizes,
  under some of its side conditions: what holds for every value of those holds
  in particular under the claim's), proved for every size by
  :func:`~usim.engine.parametric.allsizes.prove_all_sizes` (with its own tie to
  the builder, witness and, for a broken variant, its own counterexample
  replayed at a concrete size: "replay the failing part alone");
* its chain, the checks that make the parts compose to the claim
  (:class:`Chain`: each part is the program's stage at its sizes, each part's
  output layout is the next part's input layout, the wiring is the claim's
  formula, as terms or as an equation the parametric engine proves), derived
  again by whoever reads the record. Each chain must tie every part's sizes to
  the claim's: names alone are what this class compares.

The verdict for every size: PROVED when every part is PROVED and the chain
has no problem; REFUTED when a part is (a broken variant of the claim is a
broken variant of one part); ERROR when a part is, or when the chain fails;
UNKNOWN otherwise (a check of the chain undecided, say; VACUOUS when every part is). The bounded cross-check is the
claim's own bounded proof, as for one family.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import z3

from usim.engine.cache import VerdictCache
from usim.engine.claim import Claim, Status
from usim.engine.parametric.allsizes import AllSizesReport, AllSizesResult, prove_all_sizes, verdict_record
from usim.engine.parametric.statement import ABOUT_CLAIM, ABOUT_FAMILY, Equation, FamilyClaim, composed_status
from usim.engine.parametric.translation import condition_formula, translate
from usim.engine.parametric.fresh import Locate, prove_fresh_each
from usim.engine.runner import Progress, prove_claim
from usim.errors import UsimError
from usim.rasp.family import Condition
from usim.rasp.program import Program


@dataclass(frozen=True)
class Chain:
    """What makes the parts compose to the claim: the checks made, every problem
    found, and every check left undecided (a proof inside the chain that ended
    UNKNOWN, a timeout: the claim is then UNKNOWN, not an ERROR)."""

    checks: tuple[str, ...]
    problems: tuple[str, ...] = ()
    undecided: tuple[str, ...] = ()

    @property
    def ok(self) -> bool | None:
        """True: every check holds; False: a problem; None: no problem, but a check undecided."""
        if self.problems or not self.checks:
            return False
        return None if self.undecided else True

    def as_dict(self) -> dict:
        found = {"checks": list(self.checks), "problems": list(self.problems)}
        if self.undecided:  # absent when empty: the record of a chain without one is as before
            found["undecided"] = list(self.undecided)
        return found


@dataclass(frozen=True)
class ComposedClaim:
    """A claim stated for every size as parts that compose (see the module docstring).

    ``parts``: the parts' statements, in order; ``chain``: the structural
    checks, run when the claim is proved and when its record is read;
    ``program``: the claim's whole program at symbolic sizes (its fingerprint
    is recorded); ``mutants``: broken variant name -> (part index, the part's
    broken variant); ``layers``: for a claim about U, the layers it is about,
    each a function of the sizes (n, d) giving T's specification there (one per
    program U_{N,H}; U_N is the function at (N, N)), or of (n, d) and keywords named
    as LayerSpec's fields (U's own head count over stacked heads; T's placed d_v, with
    U's as default: :func:`usim.proofs.about_layer`), so that a command can tell
    whether the program it runs is one this claim proves; empty for other claims.
    ``over``: the claim's sizes and conditions when they are not one part's: an
    equation of its chain ranging also over a size no part reads (T's width d placed
    into U's input), or parts over different sizes (per-head programs over N, n, d and
    one over stacked heads over N, h, n); each part must hold under them. None: the
    widest part's.
    """

    claim: Claim
    parts: tuple[FamilyClaim, ...]
    chain: Callable[[], Chain]
    program: Callable[[], Program]
    mutants: Mapping[str, tuple[int, str]] = field(default_factory=dict)
    layers: tuple[Callable[..., Any], ...] = ()
    over: Equation | None = None

    def __post_init__(self) -> None:
        if not self.parts:
            raise UsimError(f"{self.claim.id}: a composed claim needs at least one part")
        widest = self.widest
        if self.over is not None:  # the claim's sizes and conditions are stated: each part holds under them
            for p in self.parts:
                if not set(p.dims) <= set(self.over.dims) or \
                        not implies(self.over.dims, self.over.conditions(), p.conditions()):
                    raise UsimError(f"{self.claim.id}: its sizes ({self.over.describe_conditions()}) do not meet "
                                    f"the conditions of its part {p.id} ({p.describe_conditions()})")
        for p in () if self.over is not None else self.parts:
            # a part stated over fewer sizes holds, in particular, under the widest's conditions
            # (those over as many sizes: under the same conditions)
            if not set(p.dims) <= set(widest.dims) or \
                    not implies(widest.dims, widest.conditions(), p.conditions()) or \
                    (len(p.dims) == len(widest.dims) and not implies(p.dims, p.conditions(), widest.conditions())):
                raise UsimError(f"{self.claim.id}: its parts are stated under different conditions "
                                f"({p.describe_conditions()}; {widest.describe_conditions()})")
        for name, (index, broken) in self.mutants.items():
            if not 0 <= index < len(self.parts) or broken not in self.parts[index].mutants:
                raise UsimError(f"{self.claim.id}: the broken variant {name} names no broken variant of a part")

    @property
    def id(self) -> str:
        return self.claim.id

    @property
    def widest(self) -> FamilyClaim:
        """The part stated over the most sizes: without ``over``, the claim's sizes and
        conditions are its (every other part's are among them)."""
        return max(self.parts, key=lambda p: len(p.dims))

    @property
    def dims(self) -> tuple[str, ...]:
        return self.widest.dims if self.over is None else self.over.dims

    @property
    def one_definition(self) -> bool:
        return all(p.one_definition for p in self.parts)

    @property
    def about(self) -> str:
        return ABOUT_CLAIM if self.one_definition else ABOUT_FAMILY

    def describe_conditions(self) -> str:
        return (self.widest if self.over is None else self.over).describe_conditions()

    def family(self) -> Program:
        """The whole program at symbolic sizes (what the certificate's fingerprint is of)."""
        return self.program()


@dataclass(frozen=True)
class ComposedResult:
    """The verdict for every size of a composed claim or one of its broken variants."""

    claim_id: str
    mutant: str | None
    status: Status
    conditions: str
    parts: tuple[AllSizesResult, ...]
    chain: Chain | None
    seconds: float = 0.0

    @property
    def shape(self) -> tuple[int, ...] | None:
        refuted = [p for p in self.parts if p.status is Status.REFUTED]
        return refuted[0].shape if refuted else None

    @property
    def label(self) -> str:
        refuted = [p for p in self.parts if p.status is Status.REFUTED]
        return f"{refuted[0].label} (part {refuted[0].claim_id})" if refuted else ""

    @property
    def reason(self) -> str:
        """Why the verdict is what it is: the chain's problems, else the first part not proved."""
        return self.note

    @property
    def note(self) -> str:
        if self.chain is not None and self.chain.problems:
            return "the parts do not compose: " + "; ".join(self.chain.problems[:3])
        if self.chain is not None and self.chain.undecided:
            return "a check of the chain is undecided: " + "; ".join(self.chain.undecided[:3])
        failed = [p for p in self.parts if p.status is not Status.PROVED]
        if failed:
            p = failed[0]
            return f"{p.claim_id}: {p.status.value} ({p.reason})"
        return ""

    def as_dict(self) -> dict:
        return {
            **verdict_record(self.claim_id, self.mutant, self.status, self.conditions),
            "shape": list(self.shape) if self.shape else None,
            "parts": [p.as_dict() for p in self.parts],
            "chain": self.chain.as_dict() if self.chain is not None else None,
            "seconds": round(self.seconds, 3),
        }


def implies(dims: Sequence[str], conditions: Sequence[Condition], others: Sequence[Condition]) -> bool:
    """Whether ``conditions`` imply ``others`` for every value of ``dims`` >= 1 (z3;
    no division in them: a size condition compares polynomials)."""
    terms = {d: z3.Int(d) for d in dims}

    def formula(c: Condition) -> z3.BoolRef:
        return condition_formula(c, lambda v: translate(v, {}, terms, lambda t: False).term)
    solver = z3.Solver()
    solver.set("timeout", 5000)
    solver.add(*(t >= 1 for t in terms.values()), *(formula(c) for c in conditions))
    solver.add(z3.Not(z3.And(True, *(formula(c) for c in others))))
    return solver.check() == z3.unsat


def prove_composed(cc: ComposedClaim, mutant: str | None = None, timeout: float = 60.0,
                   tie_bound: int | None = None, engines: Sequence[str] | None = None,
                   say: Callable[[str], None] | None = None, locate: Locate | None = None,
                   jobs: int = 1) -> ComposedResult:
    """The verdict for every size of ``cc`` (or of its broken variant ``mutant``:
    that part alone, with its broken variant).

    Args:
        cc: the composed claim.
        mutant: one of ``cc.mutants``, or None.
        timeout: each part's time budget, in seconds.
        tie_bound: the bound up to which each part is tied to the builder.
        engines: the bounded engines that replay a counterexample.
        say: told each part's verdict and the claim's (or the broken variant's), in words.
        locate: finds a part by its id; given, each part is proved in an
            interpreter of its own (:func:`~usim.engine.parametric.fresh.prove_fresh`).
        jobs: with ``locate``, how many parts are proved at once.

    Returns:
        The parts' verdicts, the chain, and the composed verdict.
    """
    (found,) = prove_verdicts(cc, [mutant], timeout, tie_bound, engines, say, locate, jobs)
    return found  # type: ignore[return-value]


@dataclass
class ComposedReport(AllSizesReport):
    """A composed claim's verdict for every size, its bounded cross-check and
    broken variants: the same statuses and the same certificate record as one
    family's (:class:`~usim.engine.parametric.allsizes.AllSizesReport`), the
    result's record holding the parts and the chain."""

    family: ComposedClaim  # type: ignore[assignment]
    result: ComposedResult  # type: ignore[assignment]
    mutants: list[ComposedResult]  # type: ignore[assignment]


Task = tuple[FamilyClaim, "str | None"]
"""A family to prove for every size, and the name of its broken variant (None: the family as stated)."""


def _tasks(statement: FamilyClaim | ComposedClaim, mutant: str | None) -> list[Task]:
    """The families whose proofs give the verdict on ``statement`` (or on its broken
    variant ``mutant``): a claim in parts, each part (a broken variant, its part alone)."""
    if mutant is not None and mutant not in statement.mutants:
        raise UsimError(f"claim {statement.id} has no broken variant {mutant!r}; it has "
                        f"{', '.join(statement.mutants)}")
    if not isinstance(statement, ComposedClaim):
        return [(statement, mutant)]
    if mutant is None:
        return [(part, None) for part in statement.parts]
    index, broken = statement.mutants[mutant]
    return [(statement.parts[index], broken)]


def _verdict(statement: FamilyClaim | ComposedClaim, mutant: str | None, found: Sequence[AllSizesResult],
             start: float) -> AllSizesResult | ComposedResult:
    """The verdict on ``statement`` (or its broken variant) from its families' results
    (:func:`_tasks`): a claim in parts is PROVED when every part is and its chain
    holds (its seconds from ``start`` until its chain is checked)."""
    if not isinstance(statement, ComposedClaim):
        return found[0]
    if mutant is not None:
        return ComposedResult(statement.id, mutant, composed_status([found[0].status], None),
                              statement.describe_conditions(), tuple(found), None, found[0].seconds)
    chain = statement.chain()
    return ComposedResult(statement.id, None, composed_status([r.status for r in found], chain.ok),
                          statement.describe_conditions(), tuple(found), chain, time.perf_counter() - start)


def prove_verdicts(statement: FamilyClaim | ComposedClaim, mutants: Sequence[str | None], timeout: float = 60.0,
                   tie_bound: int | None = None, engines: Sequence[str] | None = None,
                   say: Callable[[str], None] | None = None, locate: Locate | None = None,
                   jobs: int = 1, check_timeout: float | None = None) -> list[AllSizesResult | ComposedResult]:
    """The verdict for every size on ``statement`` (None in ``mutants``) and on each
    of its broken variants named in ``mutants``: every family each rests on
    (:func:`_tasks`) proved, ``jobs`` at a time when each runs in an interpreter of
    its own (``locate`` given; :func:`~usim.engine.parametric.fresh.prove_fresh_each`),
    else one after another here. Proving families at once changes no step of any
    (they do not depend on the clock, but for the first tries their ledgers count
    as stopped by a time guard, :mod:`usim.engine.parametric.integers`), only when each ends (and, the budget being
    time, a proof near it may reach it sooner on a loaded machine: UNKNOWN, never PROVED).

    Args:
        statement: a family or a claim in parts.
        mutants: None (the statement as stated) and names of its broken variants, in
            the order wanted.
        timeout: each family's time budget, in seconds.
        tie_bound: the bound up to which each family is tied to the builder.
        engines: the bounded engines that replay a counterexample.
        say: told, in words, each part's verdict and each verdict as it is reached.
        locate: finds a family by its id (see :mod:`usim.engine.parametric.fresh`).
        jobs: with ``locate``, how many families are proved at once.
        check_timeout: each engine's seconds on a witness and on a replayed
            counterexample, bounded obligations (default ``timeout``).

    Returns:
        One verdict per entry of ``mutants``, in their order (a
        :class:`ComposedResult` for a claim in parts; its seconds, for the claim as
        stated, from the start until its chain was checked after its last part;
        a broken variant's, its part's own).

    Raises:
        UsimError: a name that is none of the statement's broken variants.
    """
    start = time.perf_counter()
    groups = [_tasks(statement, name) for name in mutants]
    tasks = [task for group in groups for task in group]
    owner = [k for k, group in enumerate(groups) for _ in group]
    first = [sum(len(group) for group in groups[:k]) for k in range(len(groups))]
    left = [len(group) for group in groups]
    found: list[AllSizesResult | None] = [None] * len(tasks)
    verdicts: list[AllSizesResult | ComposedResult | None] = [None] * len(groups)
    in_parts = isinstance(statement, ComposedClaim)

    def done(index: int, result: AllSizesResult) -> None:
        found[index] = result
        k = owner[index]
        if say and in_parts and mutants[k] is None:
            say(f"  {result.claim_id}: all sizes {result.status.value} ({result.seconds:.2f} s)")
        left[k] -= 1
        if not left[k]:
            mine = found[first[k]:first[k] + len(groups[k])]
            verdicts[k] = _verdict(statement, mutants[k], mine, start)  # type: ignore[arg-type]
            if say:
                say(_said(statement, mutants[k], verdicts[k]))  # type: ignore[arg-type]

    if locate is None:
        for index, (fc, name) in enumerate(tasks):
            done(index, prove_all_sizes(fc, name, timeout, tie_bound, engines, check_timeout=check_timeout))
    else:
        prove_fresh_each(locate, tasks, timeout, tie_bound, engines, jobs, done, check_timeout=check_timeout)
    return verdicts  # type: ignore[return-value]


def _said(statement: FamilyClaim | ComposedClaim, mutant: str | None, found: AllSizesResult | ComposedResult) -> str:
    """A verdict in one line, as :func:`prove_verdicts` says it."""
    if mutant is None:
        alone = "" if statement.one_definition else " (the family alone)"
        return f"{statement.id}: all sizes{alone} {found.status.value} ({found.seconds:.2f} s)"
    where = f" at {found.label}" if found.shape else ""
    return f"{statement.id} [{mutant}]: all sizes {found.status.value}{where} ({found.seconds:.2f} s)"


def prove_claim_all_sizes(statement: FamilyClaim | ComposedClaim, max_n: int,
                          engines: Sequence[str] | None = None, timeout: float = 60.0, jobs: int = 1,
                          mutants: bool = False, progress: Callable[[Progress], None] | None = None,
                          say: Callable[[str], None] | None = None,
                          cache: VerdictCache | None = None, locate: Locate | None = None,
                          family_timeout: float | None = None) -> AllSizesReport:
    """The bounded proof up to ``max_n`` (a cross-check, and the tie's bound),
    the proof for every size (one family's, or a composed claim's part by part
    with its chain), and with ``mutants`` each broken variant for every size.

    Args:
        statement: the claim's statement for every size.
        max_n: the bound of the bounded cross-check and of the tie.
        engines: the bounded engines (default: the claim's).
        timeout: each bounded obligation's budget per engine, in seconds.
        jobs: worker processes of the bounded proof, and with ``locate`` how many
            families are proved for every size at once (the parts, then the broken variants).
        mutants: also each broken variant, bounded and for every size.
        progress: follows the bounded proof (as :func:`prove_claim`'s).
        say: told each step of the proof for every size, in words.
        cache: the bounded proof's verdict cache.
        locate: finds a statement by its id; given, each proof for every size
            runs in an interpreter of its own (:mod:`usim.engine.parametric.fresh`).
        family_timeout: each family's parametric proof for every size, in seconds
            (each part, each broken variant; recorded in the report); None:
            ``timeout``. Its witness and a broken variant's replays are bounded
            obligations: ``timeout`` each, per engine.

    Returns:
        An :class:`AllSizesReport` (a :class:`ComposedReport` for a claim in parts).
    """
    bounded = prove_claim(statement.claim, max_n, engines, timeout, jobs, mutants=mutants, progress=progress,
                          cache=cache)
    composed = isinstance(statement, ComposedClaim)
    if say:
        how = ", part by part" if composed else ""
        say(f"{statement.id}: proving for every size ({statement.describe_conditions()}){how}")
    budget = timeout if family_timeout is None else family_timeout
    result, *broken = prove_verdicts(statement, [None, *(statement.mutants if mutants else {})], budget, max_n,
                                     engines, say, locate, jobs, check_timeout=timeout)
    return (ComposedReport if composed else AllSizesReport)(statement, bounded, result, broken, budget)
