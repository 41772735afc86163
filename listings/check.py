"""A RASP listing checked against a spec, shape by shape: the library behind ``usim check``.

For each shape of the plan (:mod:`usim.listings.plan`):

1. the obligation (:mod:`usim.listings.obligation`) is proved or refuted by the
   engines, with its definedness check and witness, as any claim's: each in a
   child process under the runner's deadline, killed past it (UNKNOWN), as
   ``usim prove`` runs them; its statement (the spec's target and
   preconditions on the input's symbols) is built first in a child under the
   same deadline (past it the shape is UNKNOWN, and the check goes on);
2. the program is interpreted under every interpretation at one random rational
   input, and they are compared (:mod:`usim.listings.crosscheck`), in a child
   under the deadline too;
3. powers are flagged, and for a spec that asks for exp the deviation is
   measured on random inputs (never proof), in a child under the deadline.

The file's examples are replayed against the spec each in a child under the
deadline as well (:mod:`usim.listings.examples`).

:func:`check` takes one :class:`CheckRequest` and returns a
:class:`~usim.listings.report.CheckReport`; a :class:`CheckObserver` hears of
each step as it is done (the command line prints as it goes).
"""

from __future__ import annotations

import time
from fractions import Fraction
from dataclasses import dataclass
from typing import Any, Mapping, Protocol, Sequence

from usim.engine.claim import NOT_RUN, EngineResult, Obligation, Shape, Status
from usim.errors import DeadlineError, ShapeError, UsimError
from usim.listings.crosscheck import input_power_bases, interpretations, power_findings, relative_deviation
from usim.listings.examples import run_examples
from usim.listings.obligation import PADDING_MODES, mutant_obligation, obligation_for
from usim.listings.plan import ShapePlan, call_arguments, plan_shapes
from usim.listings.report import CheckReport, ListingCost, ShapeReport, Unchecked
from usim.listings.spec import ListingSpec
from usim.repl import RaspFile, load_file, load_text


@dataclass(frozen=True)
class CheckRequest:
    """What to check: a listing's function against a spec, and how.

    ``path`` names the listing (it is read from there unless ``text`` gives its
    source). ``shapes`` are the shapes asked for, else every shape it is meant
    for with the free dimensions up to ``max_n`` (None: the spec's default).
    ``engines`` None: the spec's. ``timeout`` is per shape and engine;
    ``seed`` and ``samples`` are the random inputs' of the cross-check and the
    measured deviation. ``padding``: ``zero`` or ``any``. ``mutants``: also the
    spec's broken variants. For a spec of symbols the input ranges over
    ``alphabet`` (None: the symbols of the file's examples). ``every_engine``:
    run every engine at each shape (they must all agree, as ``usim prove``
    runs them); by default they are tried cheapest first, ordered by their
    times on the previous shape, and the first that proves or refutes a shape
    decides it (the others are not run there, and say so). ``files``: the text
    of files the listing loads, by path, where they are not to be read from
    disk (``check`` inside ``usim repl``: what the session loaded).
    """

    path: str
    function: str
    spec: ListingSpec
    shapes: Sequence[Shape] | None = None
    max_n: int | None = None
    engines: Sequence[str] | None = None
    timeout: float = 60.0
    seed: int = 0
    samples: int = 500
    padding: str = "zero"
    mutants: bool = False
    text: str | None = None
    alphabet: Sequence[str] | None = None
    every_engine: bool = False
    files: Mapping[str, str] | None = None


class CheckObserver(Protocol):
    """What :func:`check` says as it goes (the command line prints it)."""

    def planned(self, plan: ShapePlan) -> None:
        """The shapes are chosen (before anything is built)."""

    def ready(self, alphabet: Any) -> None:
        """The examples are run and the symbols' codes are fixed: every
        obligation is built over ``alphabet`` (None for a spec of numbers)."""

    def checked(self, shape: ShapeReport) -> None:
        """One shape, or one broken variant at a shape, is checked."""


class SilentObserver:
    """A :class:`CheckObserver` that hears nothing (the default)."""

    def planned(self, plan: ShapePlan) -> None:
        pass

    def ready(self, alphabet: Any) -> None:
        pass

    def checked(self, shape: ShapeReport) -> None:
        pass


def check(request: CheckRequest, observer: CheckObserver | None = None) -> CheckReport:
    """Everything ``usim check`` does, as data (the command prints it).

    Args:
        request: the listing, its function, the spec and how to check.
        observer: told of the plan, the alphabet and each shape as they come.

    Returns:
        The report. Bad input (a spec of numbers given an alphabet, a padding
        mode that is none, broken variants the spec has none of) is a UsimError.

    A listing of the transpose that takes the number of rows ``r`` (the shape
    fixes it), checked at 2x3, and its variant off by one (it reads the next
    position):

    >>> from usim.listings.specs import spec
    >>> text = '''def transpose_rows(r) {
    ...     cols = length / r;
    ...     src = (indices % r) * cols + (indices - indices % r) / r;
    ...     return aggregate(select(indices, src, ==), tokens_float);
    ... }
    ... '''
    >>> report = check(CheckRequest("transpose.rasp", "transpose_rows", spec("transpose"),
    ...                             shapes=[(2, 3)], text=text))
    >>> report.ok, [(s.label, s.status.name) for s in report.shapes]
    (True, [('2x3', 'PROVED')])
    >>> off_by_one = text.replace("select(indices, src, ==)", "select(indices, src + 1, ==)")
    >>> report = check(CheckRequest("transpose.rasp", "transpose_rows", spec("transpose"),
    ...                             shapes=[(2, 3)], text=off_by_one))
    >>> report.ok, [(s.label, s.status.name) for s in report.shapes]
    (False, [('2x3', 'REFUTED')])
    """
    from usim.engine.runner import check_obligation  # each engine in a child, the target built in one first

    observer = observer if observer is not None else SilentObserver()
    spec, function, padding, engines, timeout = (request.spec, request.function, request.padding,
                                                  request.engines, request.timeout)
    if padding not in PADDING_MODES:
        raise UsimError(f"padding must be one of {', '.join(PADDING_MODES)}, not {padding!r}")
    symbols = spec.reads == "symbol"
    if request.alphabet is not None and not symbols:
        raise UsimError(f"the {spec.name} spec reads numbers: --alphabet applies to a spec of symbols")
    text = request.text
    if text is None:
        rasp = load_file(request.path, symbols, request.alphabet)
        text = rasp.source
    else:
        files = dict(request.files) if request.files is not None else None
        rasp = load_text(text, request.path, symbols, request.alphabet, files=files)
    rasp.get(function)
    plan = plan_shapes(rasp, function, spec, request.shapes, request.max_n)
    observer.planned(plan)
    if symbols:
        _settle_alphabet(rasp, function, spec, plan)
    examples = run_examples(rasp, function, spec, plan, padding, timeout)
    alphabet = rasp.alphabet
    observer.ready(alphabet)
    if request.mutants and not spec.mutants:
        raise UsimError(f"the {spec.name} spec gives no broken variants of a listing (a spec file may "
                        "declare them: mutants={...})")
    shapes: list[ShapeReport] = []
    broken_variants: list[ShapeReport] = []
    deviation: tuple[float, str, str] | None = None
    unmeasured: list[str] = []  # shapes whose deviation has no right number (its line says why)
    bases: set[Fraction] = set()  # the constants raised to input-dependent powers, at every shape
    costs: dict[str, float] = {}  # each engine's seconds on the last shape it ran: cheapest first
    for shape in plan.shapes:
        start = time.perf_counter()
        try:
            ob = obligation_for(rasp, function, spec, shape, plan.parameters, padding)
            if rasp.alphabet is not alphabet:  # codes of one alphabet in every obligation
                raise UsimError(f"{function} made new strings at {spec.label(shape)} after the alphabet "
                                "was settled (usim's fault: please report it)")
            # the statement itself may be refused here (a float in the target, ...)
            # each engine in a child under the runner's deadline and hard kill, as usim prove runs it
            result = check_obligation(ob, engines=engines, timeout=timeout, claim_engines=spec.engines, jobs=1,
                                      until_decided=not request.every_engine, costs=costs)
            costs.update(_costs(result.results, costs))
        except (UsimError, ShapeError) as error:
            shape_report = ShapeReport(_unchecked(shape, error), seconds=time.perf_counter() - start)
            shapes.append(shape_report)
            observer.checked(shape_report)
            continue
        program = ob.construction.program
        bases |= set(input_power_bases(program))
        findings = tuple(power_findings(program, spec, ob.construction.input_layout.length))
        interp = _cross_checked(ob, request.seed, timeout)
        cost = ListingCost.of(program)
        seconds = time.perf_counter() - start
        measured = None
        if spec.wants_exp and any("not exp" in f for f in findings):
            measured = _measured(ob, request.samples, request.seed, timeout)
            value, where = measured
            if value is None and plan.fits(spec, shape):
                unmeasured.append(spec.label(shape))
            elif plan.fits(spec, shape) and (deviation is None or value > deviation[0]):
                deviation = (value, where, spec.label(shape))
        shape_report = ShapeReport(result, seconds, interp, cost, findings, measured)
        shapes.append(shape_report)
        observer.checked(shape_report)
        if request.mutants:
            for name, replacements in spec.mutants.items():
                start = time.perf_counter()
                try:
                    broken = mutant_obligation(rasp, ob, name, replacements)
                    outcome = check_obligation(broken, engines=engines, timeout=timeout,
                                               claim_engines=spec.engines, jobs=1,
                                               until_decided=not request.every_engine, costs=costs)
                except UsimError as error:
                    outcome = _unchecked(shape, error, name)
                mutant_report = ShapeReport(outcome, seconds=time.perf_counter() - start)
                broken_variants.append(mutant_report)
                observer.checked(mutant_report)
    if unmeasured and deviation is not None:  # the largest of those measured, and which were not
        value, where, label = deviation
        deviation = (value, f"{where}; not measured at {', '.join(unmeasured)}", label)
    return CheckReport(request.path, function, spec, plan, frozenset(rasp.uses), tuple(examples),
                       tuple(shapes), deviation, padding, tuple(broken_variants), text,
                       dict(plan.parameters), alphabet, tuple(sorted(bases)))


def _costs(results: Sequence[EngineResult], before: Mapping[str, float]) -> dict[str, float]:
    """What each engine cost on this shape, to order them on the next
    (:func:`usim.engine.runner.cheapest_first`): its seconds where it ran; one
    not run counts as at least as slow as the one that decided the shape, so
    that one stays ahead (a measurement from a smaller shape would put a
    slower engine first)."""
    ran = {r.engine: r.seconds for r in results if not r.detail.startswith(NOT_RUN)}
    decided = max(ran.values(), default=0.0)
    return {**ran, **{r.engine: max(before.get(r.engine, 0.0), decided) + 1e-6
                      for r in results if r.detail.startswith(NOT_RUN)}}


def _unchecked(shape: Shape, error: UsimError, mutant: str | None = None) -> Unchecked:
    """Why a shape (or a broken variant) was not decided: UNKNOWN where its
    statement took longer to build than the deadline, else ERROR."""
    status = Status.UNKNOWN if isinstance(error, DeadlineError) else Status.ERROR
    return Unchecked(shape, str(error), mutant, status)


def _cross_checked(ob: Obligation, seed: int, timeout: float) -> dict[str, str]:
    """:func:`interpretations` in a child under the engines' deadline (the
    symbolic interpretation of a program may grow without bound): past it,
    nothing is compared, and that is said."""
    from usim.engine.children import under_deadline

    try:
        return under_deadline(CROSS_CHECK, lambda: interpretations(ob, seed), timeout)
    except DeadlineError as error:
        return {"none": f"compared: {error}"}


def _measured(ob: Obligation, samples: int, seed: int, timeout: float) -> tuple[float | None, str]:
    """:func:`relative_deviation` in a child under the engines' deadline (it
    evaluates the target): past it, not measured, and that is said."""
    from usim.engine.children import under_deadline

    try:
        return under_deadline(MEASURING, lambda: relative_deviation(ob, samples, seed), timeout)
    except DeadlineError as error:
        return None, f"not measured: {error}"


CROSS_CHECK = "running the program under every interpretation"
MEASURING = "measuring the deviation from the spec"


def _settle_alphabet(rasp: RaspFile, function: str, spec: ListingSpec, plan: ShapePlan) -> None:
    """Build the function at every shape once before anything is proved: a ``+``
    of symbols may make strings the alphabet has no code for yet, and the file
    is then read again with a wider alphabet (:meth:`RaspFile.build`), which
    renumbers every symbol. After this, every shape's obligation, the examples'
    runs and the report use one alphabet."""
    for shape in plan.shapes:
        try:
            rasp.build(function, call_arguments(plan.parameters, spec, shape))
        except (UsimError, ShapeError):
            pass  # reported with its shape when the shape is checked
