"""Running engines over a claim's obligations: deadlines, parallelism, reports.

Each obligation is first validated and fingerprinted (:mod:`usim.engine.statement`);
then three kinds of task run for it: its equality engines, the
well-definedness check (:mod:`usim.engine.definedness`) and the witness search
(:mod:`usim.engine.witness`). Every task of :func:`prove_claim` runs in a
forked child process with a hard deadline: a child that overruns it is killed
and its result is UNKNOWN (timeout); a child that crashes gives ERROR. Up to
``jobs`` children run at once. :func:`check_obligation` runs the same tasks of
one obligation, in the same children (``jobs``: what ``usim check`` does) or in
this process (engines watch the clock themselves, and an alarm stops one that
overruns it: :func:`usim.engine.children.run_here`).

The combined status of an obligation (see :class:`ObligationResult`) is PROVED
only if an engine proved equality and none refuted it, definedness is proved,
and a witness was exhibited; engines that disagree give ERROR. UNKNOWN never
counts as proved.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Protocol, Sequence, TypeVar


from usim.encodings.notation import shape_label
from usim.engine.cache import CacheUse, VerdictCache
from usim.engine.choice import choose
from usim.engine.children import Task, run_here, run_tasks, under_deadline
from usim.engine.claim import (NOT_RUN, TABULATED, Claim, Counterexample, EngineResult, Obligation, ObligationResult,
                              Status, claim_status)
from usim.engine.definedness import ENGINE as DEFINEDNESS
from usim.engine.definedness import check_definedness, decided_statement
from usim.engine.engines import ENGINES
from usim.engine.measure import numeric_crosscheck
from usim.engine.options import DEFAULT_TIMEOUT
from usim.engine.replay import domain_size, tabulate, untabulate
from usim.engine.solvers.exhaustive import EXHAUSTIVE_LIMIT, defined_everywhere
from usim.engine.statement import fingerprint, table_fingerprint
from usim.engine.witness import ENGINE as WITNESS
from usim.engine.witness import find_witness
from usim.errors import UndefinedError, UsimError

T = TypeVar("T")



def _engines_for(claim_engines: Sequence[str], ob: Obligation,
                 requested: Sequence[str] | None) -> tuple[list[str], str | None]:
    """The engines that answer ``ob`` and the note on why, if they were chosen
    by its kind: those requested, else the choice for its kind, else the
    claim's (:mod:`usim.engine.choice`); exhaustive added for a finite domain."""
    names, note = (list(requested), None) if requested else choose(ob.kind, claim_engines)
    if not requested and ob.values is not None and "exhaustive" not in names:
        names.append("exhaustive")
    unknown = [n for n in names if n not in ENGINES]
    if unknown:
        raise UsimError(f"no engine {unknown[0]!r}; engines: {', '.join(ENGINES)}")
    return names, note


CHECKS = {DEFINEDNESS: check_definedness, WITNESS: find_witness}
"""The checks every obligation gets besides its engines."""


def _decided(built: tuple[Obligation, str], name: str) -> str:
    """The statement the task ``name`` decides, under which the verdict cache keeps its
    answer: the fingerprint; for the definedness check, with the divisions the target writes."""
    ob, print_ = built
    return decided_statement(ob, print_) if name == DEFINEDNESS else print_


def _run_engine(name: str, ob: Obligation, timeout: float) -> EngineResult:
    start = time.perf_counter()
    try:
        return (ENGINES.get(name) or CHECKS[name])(ob, timeout)
    except UndefinedError as error:  # undefined at every input (an index divides by 0): definedness refutes it
        return EngineResult(name, Status.UNKNOWN, time.perf_counter() - start,
                            f"the program cannot be compared where it is undefined: {error}")
    except UsimError as error:
        return EngineResult(name, Status.ERROR, time.perf_counter() - start, f"{type(error).__name__}: {error}")
    except RecursionError:
        return EngineResult(name, Status.UNKNOWN, time.perf_counter() - start, "expression too deep for this engine")
    except Exception as error:  # an engine bug must surface, never pass as a result
        inside = raised_inside_a_solver(error)
        if inside is not None:  # the solver's own code failed: this engine cannot decide, another may
            return EngineResult(name, Status.UNKNOWN, time.perf_counter() - start,
                                f"{inside} failed in its own code: {type(error).__name__}: {error}")
        return EngineResult(name, Status.ERROR, time.perf_counter() - start,
                            f"internal error: {type(error).__name__}: {error}")


SOLVER_PACKAGES = ("sympy", "z3", "cvc5", "flint", "mpmath", "symengine")
"""The libraries whose own failures (an internal assert of sympy's piecewise_fold)
mean "this engine cannot decide": UNKNOWN, never ERROR, which stays for usim's
own faults and for engines that disagree."""


def raised_inside_a_solver(error: BaseException) -> str | None:
    """The solver library in whose own code ``error`` was raised (the innermost
    frame of its traceback), or None when usim's code raised it.

    Args:
        error: an exception an engine raised.

    Returns:
        The library's top-level package name (``"sympy"``), or None.
    """
    frame = error.__traceback__
    if frame is None:
        return None
    while frame.tb_next is not None:
        frame = frame.tb_next
    package = str(frame.tb_frame.f_globals.get("__name__", "")).split(".")[0]
    return package if package in SOLVER_PACKAGES else None


def _assemble(ob: Obligation, results: Sequence[EngineResult], print_: str | None,
              mutant: str | None, choice: str | None = None) -> ObligationResult:
    """One ObligationResult from the results of its tasks (engines and checks)."""
    engines = tuple(r for r in results if r.engine not in CHECKS)
    by_check = {r.engine: r for r in results if r.engine in CHECKS}
    return ObligationResult(ob.claim_id, ob.shape, engines, mutant, by_check.get(DEFINEDNESS),
                            by_check.get(WITNESS), print_, choice)


def check_obligation(
    ob: Obligation, engines: Sequence[str] | None = None, timeout: float = DEFAULT_TIMEOUT,
    claim_engines: Sequence[str] = ("sympy", "z3"), jobs: int | None = None,
    until_decided: bool = False, costs: Mapping[str, float] | None = None, tabulate: bool = False,
) -> ObligationResult:
    """Validate one obligation and run its engines and checks.

    Args:
        ob: the obligation.
        engines: the engines asked for, or None for the choice for its kind.
        timeout: seconds per engine and check.
        claim_engines: the claim's own engines (see :func:`_engines_for`).
        jobs: None: every task in this process, one after another (engines
            watch the clock themselves, and an alarm stops one that overruns
            ``timeout`` by :data:`~usim.engine.children.GRACE` s); a count: each task in a forked child under
            :func:`run_tasks`' deadline and hard kill (UNKNOWN past it), up to
            ``jobs`` at once, as :func:`prove_claim` runs them.
        until_decided: run the equality engines one at a time, cheapest first
            (:func:`cheapest_first`), and stop at the first that proves or
            refutes: the others are not run, each recorded UNKNOWN with why
            (``usim check``: one slow engine no longer holds up a length
            another decides). The checks (definedness, witness) still run.
        costs: the seconds each engine took before (on the previous shape),
            which orders them with ``until_decided``. With ``until_decided``,
            a finite domain within the exhaustive limit (the exhaustive engine
            among the engines) is decided by its table: the target is never
            built as one expression (sympy folds indicators into each other,
            exponentially in the length: a shuffle-Dyck spec took minutes at
            length 3), the exhaustive engine calls the spec at each input, the
            definedness check runs each input exactly
            (:func:`defined_everywhere`), the fingerprint is the table's
            (:func:`table_fingerprint`), the other engines are not run, and
            the result's ``engine_choice`` says :data:`TABULATED`. Where the
            exhaustive engine does not decide (past its deadline), the other
            engines then run on the target built whole, as without a table.
        tabulate: decide by the table from the start (``usim verify`` of a
            result whose ``engine_choice`` says :data:`TABULATED`).

    Returns:
        The obligation's result, its engines in the order they were chosen
        (with ``until_decided``, in the order they ran).
    """
    names, choice = _engines_for(claim_engines, ob, engines)
    earlier: list[EngineResult] = []  # the exhaustive engine's answer on the table, where it did not decide
    if tabulate or (until_decided and "exhaustive" in names and ob.values is not None
                    and domain_size(ob) <= EXHAUSTIVE_LIMIT):
        print_ = _tabulated(ob, timeout, jobs)  # a finite domain the exhaustive engine decides alone
        by_table = _by_table(ob, names, timeout, jobs)
        if tabulate or by_table[0].status in (Status.PROVED, Status.REFUTED):
            return _assemble(ob, by_table, print_, ob.mutant, TABULATED)
        untabulate(ob)  # it did not decide (past its deadline): the other engines, on the target built whole
        names = [name for name in names if name != "exhaustive"]
        earlier = by_table[:1]
    print_ = fingerprint(ob) if jobs is None else _fingerprint_under_deadline(ob, timeout)
    if until_decided:
        names = cheapest_first(names, costs or {})
        results = earlier + _until_decided(ob, names, timeout, jobs)
        results += _run_in_order(ob, [(name, _engine_task(name, ob, timeout)) for name in CHECKS], timeout, jobs)
        return _assemble(ob, results, print_, ob.mutant, choice)
    tasks = [(name, _engine_task(name, ob, timeout)) for name in names + list(CHECKS)]
    return _assemble(ob, _run_in_order(ob, tasks, timeout, jobs), print_, ob.mutant, choice)


def _engine_task(name: str, ob: Obligation, timeout: float) -> Callable[[], EngineResult]:
    return lambda: _run_engine(name, ob, timeout)


def _run_in_order(ob: Obligation, tasks: Sequence[tuple[str, Callable[[], EngineResult]]], timeout: float,
                  jobs: int | None) -> list[EngineResult]:
    """Each (name, task) of ``ob``: here, one after another (``jobs`` None), or in
    forked children under :func:`run_tasks`' deadline, ``jobs`` at once; the
    results in the order of ``tasks``."""
    if jobs is None:
        return [run_here(name, work, timeout) for name, work in tasks]
    key = (ob.shape, ob.mutant)
    ran = run_tasks([(key, name, work) for name, work in tasks], timeout, jobs)
    order = {name: index for index, (name, _) in enumerate(tasks)}
    return sorted(ran.get(key, ()), key=lambda r: order.get(r.engine, len(order)))


def cheapest_first(names: Sequence[str], costs: Mapping[str, float]) -> list[str]:
    """The engines in the order :func:`check_obligation` tries them until one decides:
    the exhaustive engine first (it decides a finite domain outright), then by the
    seconds each took before (``costs``; one not measured yet keeps its place
    among those not measured, ahead of those measured), ties in the given order.

    Args:
        names: the engines, in the order chosen for the obligation.
        costs: the seconds each took on an earlier obligation (the previous shape).

    Returns:
        The same engines, reordered.
    """
    place = {name: index for index, name in enumerate(names)}
    return sorted(names, key=lambda name: (name != "exhaustive", name in costs, costs.get(name, 0.0), place[name]))


def _until_decided(ob: Obligation, names: Sequence[str], timeout: float, jobs: int | None) -> list[EngineResult]:
    """Each engine in turn until one proves or refutes; the rest recorded as not run."""
    results: list[EngineResult] = []
    for index, name in enumerate(names):
        result = _run_in_order(ob, [(name, _engine_task(name, ob, timeout))], timeout, 1 if jobs else None)[0]
        results.append(result)
        if result.status in (Status.PROVED, Status.REFUTED):
            why = f"{NOT_RUN}: {name} decided the shape first ({result.status.value} in {result.seconds:.2f} s)"
            results += [EngineResult(other, Status.UNKNOWN, 0.0, why) for other in names[index + 1:]]
            break
    return results


TABULATING = "evaluating the target at each input of the domain"
"""What :func:`check_obligation` does under the deadline for a target decided by its table."""


def _tabulated(ob: Obligation, timeout: float, jobs: int | None) -> str:
    """Mark ``ob`` as decided by its table and give the table's fingerprint
    (under the deadline when ``jobs``; past it a DeadlineError)."""
    tabulate(ob)
    return table_fingerprint(ob) if jobs is None else under_deadline(TABULATING, lambda: table_fingerprint(ob),
                                                                     timeout)


def _by_table(ob: Obligation, names: Sequence[str], timeout: float, jobs: int | None) -> list[EngineResult]:
    """The exhaustive engine, the definedness check input by input and the
    witness check, for an obligation decided by its table; the other engines
    not run, saying why."""
    tasks: list[tuple[str, Callable[[], EngineResult]]] = [
        ("exhaustive", _engine_task("exhaustive", ob, timeout)),
        (DEFINEDNESS, lambda: defined_everywhere(ob, timeout)),
        (WITNESS, _engine_task(WITNESS, ob, timeout))]
    results = _run_in_order(ob, tasks, timeout, jobs)
    why = f"{NOT_RUN}: the exhaustive engine decides this finite domain, the target evaluated at each input"
    return results[:1] + [EngineResult(name, Status.UNKNOWN, 0.0, why) for name in names
                          if name != "exhaustive"] + results[1:]


BUILDING = "building the target and preconditions"
"""What :func:`check_obligation` does under the deadline before its engines run
(the message of its :class:`DeadlineError` names it)."""


def _fingerprint_under_deadline(ob: Obligation, timeout: float) -> str:
    """``fingerprint(ob)`` (the statement validated: the spec's target and
    preconditions built on the input's symbols), first in a child under the
    deadline (:func:`under_deadline`: past it a DeadlineError, and what it
    raised, raised here), then, the child having shown that it ends in time,
    here: so the statement is built by the same code in the process the
    engines' children are forked from, as without a deadline, and they read
    it from there (:func:`usim.engine.replay.symbolic_target`)."""
    under_deadline(BUILDING, lambda: fingerprint(ob), timeout)
    return fingerprint(ob)


class Dispatch(Protocol):
    """Somewhere else to run a claim's tasks (e.g. :class:`usim.engine.cluster.ClusterDispatch`).

    It receives the claim's id, the tasks that still need running, each key's
    obligation and the fingerprint this process computed for it, the
    per-obligation timeout, and ``on_done`` to call as each task ends; it
    returns the results by key, as :func:`run_tasks` does.
    """

    def __call__(self, claim_id: str, tasks: list[Task], built: Mapping[tuple, tuple[Obligation, str]],
                 timeout: float, on_done: Callable[[tuple, EngineResult], None]) -> dict[tuple, list[EngineResult]]:
        ...  # pragma: no cover


@dataclass(frozen=True)
class Progress:
    """What :func:`prove_claim` is doing: ``building`` obligation ``label``
    (``done`` of ``total`` shapes built), ``running`` its ``total`` tasks, or
    a task ``done`` (``engine``'s ``status`` on ``label`` in ``seconds``;
    ``done`` of ``total`` tasks ended; ``cached``: reused from the verdict
    cache, not run))."""

    claim_id: str
    kind: str
    label: str
    engine: str = ""
    status: Status | None = None
    seconds: float = 0.0
    done: int = 0
    total: int = 0
    cached: bool = False


@dataclass
class ClaimReport:
    claim: Claim
    max_n: int
    results: list[ObligationResult]
    mutant_results: list[ObligationResult]
    costs: dict[str, dict]
    crosscheck: dict[str, float]
    measures: list[str]
    seconds: float
    engines: list[str]
    unbroken: dict[str, list[str]] = field(default_factory=dict)
    """Broken variant -> the shapes where it breaks nothing (its builder gave
    None: the right obligation there, not a variant, never counted as refuted)."""
    cache_use: CacheUse = CacheUse()
    """Whether the verdict cache was read, and the entries it held that were ignored."""

    def count(self, status: Status, mutants: bool = False) -> int:
        rows = self.mutant_results if mutants else self.results
        return sum(r.status is status for r in rows)

    @property
    def status(self) -> Status:
        return claim_status(r.status for r in self.results)

    def answers(self) -> list[EngineResult]:
        """Every task's answer: the engines' and the checks', mutants included."""
        return [a for row in self.results + self.mutant_results
                for a in (*row.results, row.definedness, row.witness) if a is not None]

    @property
    def cached(self) -> int:
        """How many answers were reused from the verdict cache."""
        return sum(a.cached for a in self.answers())

    @property
    def counterexample(self) -> Counterexample | None:
        """The first replayed counterexample of the claim's own obligations (None: none refuted)."""
        return next((r.counterexample for r in self.results if r.counterexample is not None), None)

    @property
    def mutants_refuted(self) -> bool:
        """Every mutant is refuted at some shape, and nowhere UNKNOWN or ERROR
        (at a shape where a mutant happens to be right, e.g. transposing a
        column vector with rows and columns swapped, it is rightly PROVED)."""
        by_mutant: dict[str, list[Status]] = {name: [] for name in self.unbroken}
        for r in self.mutant_results:
            by_mutant.setdefault(r.mutant or "?", []).append(r.status)
        return all(Status.REFUTED in s and set(s) <= {Status.REFUTED, Status.PROVED}
                   for s in by_mutant.values())


def prove_claim(
    claim: Claim,
    max_n: int,
    engines: Sequence[str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    jobs: int = 1,
    mutants: bool = False,
    progress: Callable[["Progress"], None] | None = None,
    shapes: Iterable[tuple] | None = None,
    dispatch: Dispatch | None = None,
    cache: VerdictCache | None = None,
) -> ClaimReport:
    """Every obligation of ``claim`` up to ``max_n`` (and its mutants) by every engine.

    ``progress`` is told as obligations are built and as each task ends (see
    :class:`Progress`); a display is the caller's business. The tasks run in
    local children (:func:`run_tasks`, ``jobs`` at a time) unless ``dispatch``
    runs them elsewhere (a cluster); either way the obligations are built,
    validated and fingerprinted here first. With a ``cache``, a task whose
    definitive answer it holds for the same statement, in an entry that checks
    out (:meth:`VerdictCache.lookup`), is not run (the answer is reused, marked
    cached); an entry that does not is ignored, counted in the report's
    ``cache_use``, and its task run; every new definitive answer is stored.
    The engines of each obligation are reported in the claim's order, so a
    certificate does not depend on which process finished first.
    """
    start = time.perf_counter()
    shapes = list(shapes if shapes is not None else claim.shapes(max_n))
    if not shapes:
        raise UsimError(f"claim {claim.id} has no shape with dimensions <= {max_n}")
    tasks = []
    costs: dict[str, dict] = {}
    crosscheck: dict[str, float] = {}
    unbroken: dict[str, list[str]] = {}
    used: list[str] = []
    built: dict[tuple, tuple[Obligation, str]] = {}
    choices: dict[tuple, str | None] = {}

    def add(key: tuple, ob: Obligation) -> None:
        built[key] = (ob, fingerprint(ob))  # validates the statement before anything runs
        names, choices[key] = _engines_for(claim.engines, ob, engines)
        for name in names + list(CHECKS):
            if name not in CHECKS and name not in used:
                used.append(name)
            tasks.append((key, name, lambda ob=ob, name=name: _run_engine(name, ob, timeout)))

    for index, shape in enumerate(shapes):
        if progress:
            progress(Progress(claim.id, "building", shape_label(shape), done=index, total=len(shapes)))
        ob = claim.obligation(shape)
        costs[ob.label] = ob.claimed_cost.as_dict()
        try:
            crosscheck[ob.label] = numeric_crosscheck(ob)
        except UsimError:
            pass  # no float value (e.g. an undefined or irrational constant): not measured
        add((shape, None), ob)
        if mutants:
            for mutant_name, build in claim.mutants.items():
                broken = build(shape)
                if broken is None:  # the variant breaks nothing at this shape
                    unbroken.setdefault(mutant_name, []).append(shape_label(shape))
                else:
                    add((shape, mutant_name), broken)
    order = {(key, name): index for index, (key, name, _) in enumerate(tasks)}
    done = [0]
    total = len(tasks)
    if progress:
        progress(Progress(claim.id, "running", "", done=0, total=total))

    def on_done(key: tuple, result: EngineResult) -> None:
        done[0] += 1
        if progress:
            progress(Progress(claim.id, "done", shape_label(*key), result.engine, result.status, result.seconds,
                              done[0], total, cached=result.cached))

    raw: dict[tuple, list[EngineResult]] = {}
    ignored: list[str] = []
    if cache is not None:
        remaining = []
        for task in tasks:
            key, name, _ = task
            found = cache.lookup(built[key][0], _decided(built[key], name), name)
            if found.ignored is not None:
                ignored.append(found.ignored)
            if found.answer is None:
                remaining.append(task)
            else:
                raw.setdefault(key, []).append(found.answer)
                on_done(key, found.answer)
        tasks = remaining
    ran = dispatch(claim.id, tasks, built, timeout, on_done) if dispatch is not None \
        else run_tasks(tasks, timeout, jobs, on_done)
    for key, answers in ran.items():
        raw.setdefault(key, []).extend(answers)
        if cache is not None:
            for answer in answers:
                cache.put(_decided(built[key], answer.engine), answer.engine, answer)
    results, mutant_results = [], []
    for key, (ob, print_) in built.items():
        # the engines in the order the claim lists them, whatever order they ended in
        answers = sorted(raw.get(key, ()), key=lambda r: order.get((key, r.engine), len(order)))
        assembled = _assemble(ob, answers, print_, key[1], choices[key])
        (mutant_results if key[1] is not None else results).append(assembled)
    measures = claim.measure(max_n) if claim.measure else []
    return ClaimReport(claim, max_n, results, mutant_results, costs, crosscheck, measures,
                       time.perf_counter() - start, used, unbroken,
                       CacheUse(cache is not None and cache.problem is None, tuple(ignored)))
