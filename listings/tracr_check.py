"""A tracr program checked against a spec, length by length: ``usim check --tracr``.

The program is read (:mod:`usim.tracr_reader`) for a vocabulary and a longest
input. At each length n it is the construction of one obligation, with the
spec's statement at shape (n,): the input is the n tokens (the spec's one input
block, 1 x n), the output the program's n values (the spec's one output block).
Each token ranges over the vocabulary (symbols as their codes), so the domain
is finite and the exhaustive engine can decide it. The obligation is proved or
refuted as any claim's is (:func:`usim.engine.runner.check_obligation`): the
engines, the definedness check (tracr's None is undefined: an output that is
None somewhere is refuted there, replayed) and the witness. Before, the reading
is run on every input of the length beside tracr's own evaluator
(:meth:`~usim.tracr_reader.convert.TracrReading.differs_from_tracr`): where they
differ, nothing is proved (ERROR), so that PROVED is about tracr's program.

A broken variant is another tracr program read for the same vocabulary: it must
come out REFUTED at some length.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from usim.constructions.base import Construction
from usim.engine.claim import Obligation, Status
from usim.errors import InputError, UsimError
from usim.listings.report import ShapeReport, Unchecked
from usim.listings.spec import ListingSpec
from usim.rasp import expr as E
from usim.rasp.expr import Semantics
from usim.rasp.program import Program
from usim.tracr_reader.convert import TracrReading
from usim.tracr_reader.value_sets import ATOM

if TYPE_CHECKING:  # pragma: no cover
    from usim.engine.claim import Claim


@dataclass(frozen=True)
class TracrCheckReport:
    """What checking a tracr program found.

    Attributes:
        reference: where the program came from.
        spec: the spec.
        reading: the program, read.
        shapes: one report per length.
        broken: one report per broken variant and length.
    """

    reference: str
    spec: ListingSpec
    reading: TracrReading
    shapes: tuple[ShapeReport, ...]
    broken: tuple[ShapeReport, ...] = ()

    @property
    def ok(self) -> bool:
        """Every length PROVED, and every broken variant REFUTED at some length."""
        variants = {s.mutant for s in self.broken}
        refuted = {s.mutant for s in self.broken if s.status is Status.REFUTED}
        return bool(self.shapes) and all(s.status is Status.PROVED for s in self.shapes) and variants <= refuted


def fits(reading: TracrReading, spec: ListingSpec) -> None:
    """Refuse a spec that cannot be the program's: not of one dimension, or reading or writing
    symbols where the program holds numbers (or the other way).

    Raises:
        InputError: naming what does not fit.
    """
    if len(spec.dims) != 1:
        raise InputError(f"the {spec.name} spec has the dimensions {spec.dims_text}: a tracr program is checked "
                         "against a spec of one dimension, its length")
    for what, kind, side in (("reads", reading.input_kind, spec.reads), ("writes", reading.kind, spec.writes)):
        if (kind == ATOM) != (side == "symbol"):
            held = "symbols" if kind == ATOM else "numbers"
            raise InputError(f"the program {what} {held}, but the "
                             f"{spec.name} spec {what} {'symbols' if side == 'symbol' else 'numbers'}")


def tracr_obligation(reading: TracrReading, spec: ListingSpec, n: int, label: str,
                     mutant: str | None = None) -> Obligation:
    """The spec's obligation at length ``n`` with the tracr program as construction.

    Args:
        reading: the program, read.
        spec: a spec of one dimension whose input and output are each one 1 x n block.
        n: the length.
        label: the program's name in the construction.
        mutant: the broken variant's name, if it is one.

    Returns:
        The obligation; each token ranges over the vocabulary.

    Raises:
        InputError: the spec's shape, or what it reads or writes, does not fit the program.
        UsimError: the program gives a value at a position where the spec says None (the
            obligation compares the other positions; these are checked on every input here).
    """
    fits(reading, spec)
    statement = spec.statement((n,))
    for what, layout in (("input", statement.input_layout), ("output", statement.output_layout)):
        if len(layout.blocks) != 1 or layout.length != n or layout.blocks[0].shape.size != n:
            raise InputError(f"the {spec.name} spec's {what} at length {n} is not one block of n entries: a "
                             "tracr program reads and writes one sequence")
    if n > reading.max_len:
        raise InputError(f"length {n} is past the reading's longest input, {reading.max_len}")
    values = tuple(reading.encode([token])[0] for token in reading.vocab)  # what each token ranges over
    domain = "integer" if all(int(v) == v for v in values) else "real"
    sop, target = reading.sop, statement.target
    if statement.undefined:  # compared elsewhere only; undefined there, checked here on every input
        gives = none_where_stated(reading, spec, n)
        if gives is not None:
            raise UsimError(f"the program does not meet the spec: {gives}")
        at = None
        for p in statement.undefined:
            at = (E.indices == p) if at is None else (at | (E.indices == p))
        sop = E.where(at, 0, sop)
        target = _masked(statement.target, statement.undefined)
    program = Program.of(label, {label: sop}, f"{label}, read from tracr")
    construction = Construction(f"{label} (tracr) n={n}", program, statement.input_layout,
                                statement.output_layout, Semantics.RASP, notes="read from tracr")
    ob = Obligation(spec.id, (n,), construction, target, preconditions=statement.preconditions,
                    domain=domain, values=values)
    return replace(ob, mutant=mutant) if mutant else ob


def _masked(target: Callable, positions: tuple[int, ...]) -> Callable:
    """``target`` with its one output block's entries at ``positions`` (row-major) set to 0."""
    def masked(m: Mapping[str, Any]) -> dict[str, Any]:
        out = {}
        for name, matrix in target(m).items():
            matrix = matrix.copy()
            for p in positions:
                matrix[p // matrix.cols, p % matrix.cols] = 0
            out[name] = matrix
        return out
    return masked


def none_where_stated(reading: TracrReading, spec: ListingSpec, n: int) -> str | None:
    """Where the program gives a value at a position the spec says it gives None (every input of
    length ``n``), in words; None where it never does."""
    import itertools

    undefined = spec.statement((n,)).undefined
    if not undefined:
        return None
    for tokens in itertools.product(reading.vocab, repeat=n):
        got = reading.run(list(tokens))
        for p in undefined:
            if got[p] is not None:
                return f"on {list(tokens)!r} the program gives {got[p]!r} at position {p}, where the spec says None"
    return None


def check_tracr(reading: TracrReading, spec: ListingSpec, reference: str, max_n: int | None = None,
                engines: Sequence[str] | None = None, timeout: float = 60.0, every_engine: bool = False,
                broken: Mapping[str, TracrReading] | None = None) -> TracrCheckReport:
    """The program against the spec at every length from 1 to ``max_n``.

    Args:
        reading: the program, read.
        spec: the spec (one dimension, the length).
        reference: where the program came from (named in the construction).
        max_n: the longest length checked (None: the spec's default, at most the reading's).
        engines: the engines (None: the spec's).
        timeout: per length and engine.
        every_engine: run every engine at each length (they must agree).
        broken: broken variants, by name: each is checked at every length and must be REFUTED at some.

    Returns:
        The report.
    """
    from usim.engine.runner import check_obligation

    bound = min(max_n if max_n is not None else spec.default_max_n, reading.max_len)
    if bound < 1:
        raise UsimError(f"the longest length must be at least 1, got {bound}")
    label = reference.rpartition(":")[2] or "tracr_program"
    costs: dict[str, float] = {}

    def run(r: TracrReading, n: int, mutant: str | None) -> ShapeReport:
        start = time.perf_counter()
        try:
            differs = r.differs_from_tracr(n)
            if differs is not None:  # a proof about the reading is one about tracr's program only where they agree
                raise UsimError(f"usim's reading of the program differs from tracr's evaluator ({differs}): "
                                "usim's fault, please report it; nothing is proved about it")
            ob = tracr_obligation(r, spec, n, label if mutant is None else f"{label}_{mutant}", mutant)
            result = check_obligation(ob, engines=engines, timeout=timeout, claim_engines=spec.engines, jobs=1,
                                      until_decided=not every_engine, costs=costs)
        except UsimError as error:
            return ShapeReport(Unchecked((n,), str(error), mutant), seconds=time.perf_counter() - start)
        return ShapeReport(result, seconds=time.perf_counter() - start)

    fits(reading, spec)  # before any length: a spec that is not the program's is the command's mistake
    shapes = tuple(run(reading, n, None) for n in range(1, bound + 1))
    variants = []
    for name, variant in (broken or {}).items():
        variants += [run(variant, n, name) for n in range(1, bound + 1)]  # every length, as the certificate records
    return TracrCheckReport(reference, spec, reading, shapes, tuple(variants))


TRACR = "tracr"
"""The ``source`` kind of a certificate of ``usim check --tracr``."""


def tracr_claim_of(spec: ListingSpec, reference: str) -> "Claim":
    """The claim a certificate of ``usim check --tracr`` states: the spec's statement with the
    tracr program as construction (its obligations are built again from the certificate's source).

    Args:
        spec: the spec.
        reference: the program's reference.

    Returns:
        The claim.
    """
    from usim.engine.claim import Claim

    def obligation(shape: tuple) -> Obligation:
        raise UsimError("a checked tracr program's obligations are rebuilt from its certificate's source")

    return Claim(id=spec.id, paper="(a tracr program)", title=f"{reference} (tracr) against the {spec.name} spec",
                 statement=spec.title, shapes=lambda n: [], obligation=obligation, engines=spec.engines,
                 notes=spec.notes)


def tracr_certificate(report: TracrCheckReport, timeout: float, seconds: float, program: Mapping[str, str],
                      broken: Sequence[Mapping[str, str]]) -> dict:
    """A certificate of ``usim check --tracr``: what was proved, and where the program, its broken
    variants and the spec came from, so that ``usim verify`` can build every obligation again.

    Args:
        report: the check's report.
        timeout: per length and engine.
        seconds: how long the check took.
        program: the program's code record (``reference``, ``file``, ``sha256``).
        broken: each broken variant's code record, with its ``name``.

    Returns:
        The certificate, as the JSON object written.

    Raises:
        InputError: a vocabulary a certificate cannot hold (tokens that are not strings or integers).
    """
    from importlib.metadata import PackageNotFoundError, version

    from usim.engine.certificate import certificate
    from usim.engine.runner import ClaimReport

    vocab = list(report.reading.vocab)
    if not all(isinstance(t, str) or (isinstance(t, int) and not isinstance(t, bool)) for t in vocab):
        raise InputError("a certificate records a vocabulary of strings or integers only")
    done = [s.result for s in report.shapes if s.checked]
    variants = [s.result for s in report.broken if s.checked]
    engines: list[str] = []
    for result in done:
        for r in result.results:
            if r.engine not in engines:
                engines.append(r.engine)
    try:
        tracr_version = version("tracr-pypi")
    except PackageNotFoundError:  # pragma: no cover - tracr installed some other way
        tracr_version = "unknown"
    claim_report = ClaimReport(tracr_claim_of(report.spec, report.reference), max((r.shape[0] for r in done),
                                                                                  default=1),
                               done, variants, {}, {}, [], seconds, engines)
    source = {"kind": TRACR, "program": dict(program), "broken": [dict(b) for b in broken], "vocab": vocab,
              "max_len": report.reading.max_len, "spec": report.spec.name, "spec_source": dict(report.spec.source),
              "tracr": tracr_version}
    return certificate(claim_report, timeout, source)


def tracr_source(source: Mapping[str, Any], spec: ListingSpec, load: Callable[[Mapping[str, Any]], Any]):
    """How ``usim verify`` builds a checked tracr program's obligations again.

    Args:
        source: the certificate's ``source`` record (kind :data:`TRACR`).
        spec: the spec, built from its source.
        load: loads a program from its code record (the caller checks the file is unchanged).

    Returns:
        The builder of an obligation (shape, broken variant or None) and the spec's engines.
    """
    from usim.tracr_reader.convert import program_of, read_tracr

    vocab, max_len = source.get("vocab"), source.get("max_len")
    if not isinstance(vocab, list) or not isinstance(max_len, int) or not isinstance(source.get("program"), dict):
        raise UsimError("the certificate's tracr source is malformed (its program, vocabulary or length)")
    records = {None: source["program"], **{b.get("name"): b for b in source.get("broken") or []}}
    readings: dict[str | None, TracrReading] = {}

    def build(shape: tuple, mutant: str | None) -> Obligation:
        if mutant not in records:
            raise UsimError(f"the certificate names no broken variant {mutant!r}")
        if mutant not in readings:
            record = records[mutant]
            readings[mutant] = read_tracr(program_of(load(record), str(record.get("reference"))), vocab, max_len)
        label = str(records[None].get("reference", "")).rpartition(":")[2] or "tracr_program"
        differs = readings[mutant].differs_from_tracr(shape[0])
        if differs is not None:  # as when it was checked: a proof about the reading is one about tracr's program
            raise UsimError(f"usim's reading of the program differs from tracr's evaluator ({differs})")
        return tracr_obligation(readings[mutant], spec, shape[0], label if mutant is None else f"{label}_{mutant}",
                                mutant)

    return build, spec.engines
