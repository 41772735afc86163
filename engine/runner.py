"""Running engines over a claim's obligations: deadlines, parallelism, reports.

Every (shape, engine) task of :func:`prove_claim` runs in a forked child
process with a hard deadline: a child that overruns it is killed and its result
is UNKNOWN (timeout); a child that crashes gives ERROR. Up to ``jobs`` children
run at once. :func:`check_obligation` runs the engines of one obligation in
this process (engines watch the clock themselves; z3 has its own timeout).

The combined status of an obligation (see :class:`ObligationResult`) is PROVED
only if an engine proved it and none refuted it; engines that disagree give
ERROR. UNKNOWN never counts as proved.
"""

from __future__ import annotations

import argparse
import os
import pickle
import select
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import numpy as np
import sympy

from usim.engine.claim import Claim, EngineResult, Obligation, ObligationResult, Status
from usim.engine.engines import ENGINES
from usim.errors import UsimError

DEFAULT_TIMEOUT = 60.0


def _engines_for(claim_engines: Sequence[str], ob: Obligation, requested: Sequence[str] | None) -> list[str]:
    names = list(requested) if requested else list(claim_engines)
    if not requested and ob.values is not None and "exhaustive" not in names:
        names.append("exhaustive")
    unknown = [n for n in names if n not in ENGINES]
    if unknown:
        raise UsimError(f"no engine {unknown[0]!r}; engines: {', '.join(ENGINES)}")
    return names


def _run_engine(name: str, ob: Obligation, timeout: float) -> EngineResult:
    start = time.perf_counter()
    try:
        return ENGINES[name](ob, timeout)
    except UsimError as error:
        return EngineResult(name, Status.ERROR, time.perf_counter() - start, f"{type(error).__name__}: {error}")
    except RecursionError:
        return EngineResult(name, Status.UNKNOWN, time.perf_counter() - start, "expression too deep for this engine")
    except Exception as error:  # an engine bug must surface, never pass as a result
        return EngineResult(name, Status.ERROR, time.perf_counter() - start,
                            f"internal error: {type(error).__name__}: {error}")


def check_obligation(
    ob: Obligation, engines: Sequence[str] | None = None, timeout: float = DEFAULT_TIMEOUT,
    claim_engines: Sequence[str] = ("sympy", "z3"),
) -> ObligationResult:
    """Run the engines on one obligation in this process."""
    names = _engines_for(claim_engines, ob, engines)
    results = tuple(_run_engine(name, ob, timeout) for name in names)
    return ObligationResult(ob.claim_id, ob.shape, results, ob.mutant)


# -- children with deadlines ---------------------------------------------------

@dataclass
class _Child:
    pid: int
    fd: int
    deadline: float
    key: tuple
    engine: str
    started: float
    chunks: list = field(default_factory=list)


def _spawn(task: Callable[[], EngineResult], key: tuple, engine: str, timeout: float) -> _Child:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read)
        try:
            result = task()
        except BaseException as error:  # noqa: BLE001 - report, never hang
            result = EngineResult(engine, Status.ERROR, 0.0, f"internal error: {type(error).__name__}: {error}")
        data = pickle.dumps(result)
        with os.fdopen(write, "wb") as out:
            out.write(data)
        os._exit(0)
    os.close(write)
    now = time.perf_counter()
    # the engine's own timeout plus a grace period for building terms and replay
    return _Child(pid, read, now + timeout * 1.5 + 5.0, key, engine, now)


def run_tasks(
    tasks: list[tuple[tuple, str, Callable[[], EngineResult]]],
    timeout: float,
    jobs: int = 1,
    on_done: Callable[[tuple, EngineResult], None] | None = None,
) -> dict[tuple, list[EngineResult]]:
    """Run (key, engine, thunk) tasks in forked children, ``jobs`` at a time."""
    pending = list(tasks)
    running: dict[int, _Child] = {}
    results: dict[tuple, list[EngineResult]] = {}

    def finish(child: _Child, result: EngineResult) -> None:
        results.setdefault(child.key, []).append(result)
        if on_done:
            on_done(child.key, result)

    while pending or running:
        while pending and len(running) < max(1, jobs):
            key, engine, thunk = pending.pop(0)
            child = _spawn(thunk, key, engine, timeout)
            running[child.fd] = child
        now = time.perf_counter()
        wait = max(0.0, min(c.deadline for c in running.values()) - now)
        ready, _, _ = select.select(list(running), [], [], min(wait, 0.5))
        for fd in ready:
            child = running[fd]
            chunk = os.read(fd, 1 << 16)
            if chunk:
                child.chunks.append(chunk)
                continue
            os.close(fd)
            os.waitpid(child.pid, 0)
            del running[fd]
            try:
                result = pickle.loads(b"".join(child.chunks))
            except Exception:  # the child died without a result
                result = EngineResult(child.engine, Status.ERROR, time.perf_counter() - child.started,
                                      "the engine process died without a result (out of memory?)")
            finish(child, result)
        now = time.perf_counter()
        for fd, child in list(running.items()):
            if now > child.deadline:
                os.kill(child.pid, signal.SIGKILL)
                os.waitpid(child.pid, 0)
                os.close(fd)
                del running[fd]
                finish(child, EngineResult(child.engine, Status.UNKNOWN, now - child.started,
                                           f"timeout: killed after {now - child.started:.1f} s"))
    return results


# -- claims --------------------------------------------------------------------

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

    def count(self, status: Status, mutants: bool = False) -> int:
        rows = self.mutant_results if mutants else self.results
        return sum(r.status is status for r in rows)

    @property
    def status(self) -> Status:
        statuses = [r.status for r in self.results]
        if not statuses:
            return Status.UNKNOWN
        if Status.ERROR in statuses:
            return Status.ERROR
        if Status.REFUTED in statuses:
            return Status.REFUTED
        if all(s is Status.PROVED for s in statuses):
            return Status.PROVED
        return Status.UNKNOWN

    @property
    def mutants_refuted(self) -> bool:
        """Every mutant is refuted at some shape, and nowhere UNKNOWN or ERROR
        (at a shape where a mutant happens to be right, e.g. transposing a
        column vector with rows and columns swapped, it is rightly PROVED)."""
        by_mutant: dict[str, list[Status]] = {}
        for r in self.mutant_results:
            by_mutant.setdefault(r.mutant or "?", []).append(r.status)
        return all(Status.REFUTED in s and set(s) <= {Status.REFUTED, Status.PROVED}
                   for s in by_mutant.values())


def numeric_deviation(ob: Obligation, seed: int = 0, batch: int = 8, scale: float = 1.0,
                      relative: bool = False) -> float:
    """Largest |construction - target| (or that over |target| with ``relative``) on
    random float64 inputs that meet the preconditions: cross-validation and
    measurement only, never proof. Real inputs are drawn from N(0, scale^2)."""
    from usim.encodings.numeric import NumericInterpretation
    from usim.engine.replay import expected_sequence, output_of, symbol_matrices

    layout = ob.construction.input_layout
    rng = np.random.default_rng(seed)
    if ob.values is not None:
        pool = np.asarray([float(v) for v in ob.values])
        draw = lambda shape: rng.choice(pool, size=shape)  # noqa: E731
    elif ob.domain == "integer":
        draw = lambda shape: rng.integers(-9, 10, size=shape).astype(float)  # noqa: E731
    else:
        draw = lambda shape: rng.normal(scale=scale, size=shape)  # noqa: E731
    arrays = {b.name: draw((batch, b.shape.rows, b.shape.cols)) for b in layout.blocks}
    tokens = layout.encode_numeric(arrays)
    sym = symbol_matrices(layout, ob.domain)
    symbols = [s for m in sym.values() for row in m for s in row]
    f = sympy.lambdify(symbols, expected_sequence(ob, sym), modules="numpy")
    columns = [arrays[b.name][:, i, j] for b in layout.blocks
               for i in range(b.shape.rows) for j in range(b.shape.cols)]
    with np.errstate(all="ignore"):
        got = np.broadcast_to(np.asarray(output_of(ob, NumericInterpretation(), tokens), dtype=float),
                              tokens.shape)
        expected = np.stack([np.broadcast_to(np.asarray(v, dtype=float), (batch,)) for v in f(*columns)],
                            axis=1)
        valid = np.ones(batch, dtype=bool)
        if ob.preconditions is not None:  # only inputs the claim is about (e.g. eps > 0)
            relations = ob.preconditions({k: sympy.Matrix(v) for k, v in sym.items()})
            for relation in relations:
                holds = sympy.lambdify(symbols, relation, modules="numpy")(*columns)
                valid &= np.broadcast_to(np.asarray(holds, dtype=bool), (batch,))
        if not valid.any() or not got.size:
            return 0.0
        error = np.abs(got[valid] - expected[valid])
        if relative:
            target = np.abs(expected[valid])
            error = np.where(target == 0, error, error / np.maximum(target, 1e-300))
        return float(np.nanmax(error))


def numeric_crosscheck(ob: Obligation, seed: int = 0, batch: int = 8) -> float:
    """Largest |construction - target| on random float inputs (cross-validation only)."""
    return numeric_deviation(ob, seed, batch)


def prove_claim(
    claim: Claim,
    max_n: int,
    engines: Sequence[str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    jobs: int = 1,
    mutants: bool = False,
    progress: Callable[[str], None] | None = None,
    shapes: Iterable[tuple] | None = None,
) -> ClaimReport:
    """Every obligation of ``claim`` up to ``max_n`` (and its mutants) by every engine."""
    start = time.perf_counter()
    shapes = list(shapes if shapes is not None else claim.shapes(max_n))
    if not shapes:
        raise UsimError(f"claim {claim.id} has no shape with dimensions <= {max_n}")
    tasks = []
    costs: dict[str, dict] = {}
    crosscheck: dict[str, float] = {}
    used: list[str] = []
    for shape in shapes:
        ob = claim.obligation(shape)
        costs[ob.label] = ob.claimed_cost.as_dict()
        try:
            crosscheck[ob.label] = numeric_crosscheck(ob)
        except UsimError:
            pass
        for name in _engines_for(claim.engines, ob, engines):
            used.append(name) if name not in used else None
            tasks.append(((shape, None), name,
                          lambda ob=ob, name=name: _run_engine(name, ob, timeout)))
        if mutants:
            for mutant_name, build in claim.mutants.items():
                mob = build(shape)
                for name in _engines_for(claim.engines, mob, engines):
                    tasks.append(((shape, mutant_name), name,
                                  lambda ob=mob, name=name: _run_engine(name, ob, timeout)))
    done = [0]

    def on_done(key: tuple, result: EngineResult) -> None:
        done[0] += 1
        if progress:
            shape, mutant = key
            label = "x".join(map(str, shape)) + (f" [{mutant}]" if mutant else "")
            progress(f"[{done[0]}/{len(tasks)}] {claim.id} {label}: {result.engine} "
                     f"{result.status.value} ({result.seconds:.2f} s)")

    raw = run_tasks(tasks, timeout, jobs, on_done)
    results, mutant_results = [], []
    for shape in shapes:
        results.append(ObligationResult(claim.id, shape, tuple(raw.get((shape, None), ()))))
        if mutants:
            for mutant_name in claim.mutants:
                mutant_results.append(ObligationResult(
                    claim.id, shape, tuple(raw.get((shape, mutant_name), ())), mutant_name))
    measures = claim.measure(max_n) if claim.measure else []
    return ClaimReport(claim, max_n, results, mutant_results, costs, crosscheck, measures,
                       time.perf_counter() - start, used)


# -- `python -m usim.proofs.X` ---------------------------------------------------

def add_prove_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-n", type=int, default=None,
                        help="bound N: every dimension up to N (default: the claim's own)")
    parser.add_argument("--engine", default="all",
                        help=f"one or more of {', '.join(ENGINES)} (comma-separated), or all: "
                        "the claim's own engines (default)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help="seconds per obligation and engine; over it: UNKNOWN (default 60)")
    parser.add_argument("--jobs", "-j", type=int, default=max(1, (os.cpu_count() or 1)),
                        help="engine processes in parallel (default: the number of cores)")
    parser.add_argument("--json", metavar="FILE", help="write a certificate (JSON) to FILE")
    parser.add_argument("--mutants", action="store_true",
                        help="also run the deliberately broken variants (they must be REFUTED)")
    parser.add_argument("--quick", action="store_true",
                        help="each claim at its representative small bound (the one CI runs) "
                        "instead of its default bound; --max-n overrides both")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines")


def main_for(claim: Claim, argv: list[str] | None = None) -> int:
    """Entry point of a proof script: the same options as ``usim prove``."""
    from usim.engine.report import run_and_report

    parser = argparse.ArgumentParser(prog=f"python -m usim.proofs ({claim.id})",
                                     description=f"{claim.paper}: {claim.title}")
    add_prove_options(parser)
    args = parser.parse_args(argv)
    try:
        return run_and_report([claim], args)
    except UsimError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
