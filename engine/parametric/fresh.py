"""Each proof for every size in an interpreter of its own, started the same way every time.

Why. The parametric engine reads the shape of z3's terms (a sum's summands,
an offset's quotient and remainder), and z3 orders the arguments of what it
builds and simplifies by its terms' ids, which depend on every term the
process made before. So a proof could come out PROVED alone and UNKNOWN in a
process that had done other work first: padded stage 1 of U after the
hierarchy's bounded cross-check (``usim verify``), or after the rest of the
test suite. sympy and z3 also iterate over sets of names, whose order
follows the hash seed. Neither makes a verdict false (every step is still
proved), but a certificate must come out the same when someone re-runs it.

How. :func:`prove_fresh` runs
:func:`~usim.engine.parametric.allsizes.prove_all_sizes` in a new Python
interpreter (``sys.executable``) with ``PYTHONHASHSEED`` fixed to
:data:`HASH_SEED`. The child is sent a description, not the statement: a
function that finds the statement by its id, importable by name on the child
(pickled by reference, as the cluster's ``rebuild``), the id, and the
statement's fingerprint (:func:`usim.rasp.fingerprint.fingerprint` of the
family's program at symbolic sizes) computed here; the child looks for
modules where the caller does (its ``sys.path``). The child proves only the
statement whose fingerprint is that one, with the same usim (the same
source files, solvers and Python: :func:`usim.engine.identity.identity`),
else it answers ERROR; so the verdict is about the very statement the caller
holds, proved by the engine the caller runs (a source file edited while a
run goes on is another usim). The result comes back
pickled, through a file, not through the child's output.

What it guarantees: the same usim, the same solvers and the same statement
give the same steps in the same order, whatever ran before in the caller's
process, and, each query being limited by z3's count of its own work rather
than by the clock (:data:`usim.engine.parametric.integers.QUERY_EFFORT`), on
a loaded machine as on an idle one, wherever no query's first, cheap try ran
into its time guard (:data:`~usim.engine.parametric.integers.FIRST_SECONDS`,
for a z3 that does not stop at its work limit; the ledger counts each such try,
:data:`~usim.engine.parametric.integers.FIRST_TRY_STOPPED`). Only the proof's whole time budget is
time: a proof that outlives it is UNKNOWN, never PROVED. A child that crashes gives ERROR; one
that outlives :func:`child_deadline` is killed and gives UNKNOWN.

:func:`prove_fresh_each` runs several such children at once (a thread waiting on
each): the parts of a claim proved in parts and its broken variants, ``--jobs`` at
a time. No step depends on another child, nor on the clock but for the
guard above, so that changes when each proof ends, not its steps (only a proof near its budget, which is time, may reach it
sooner on a loaded machine: UNKNOWN, never PROVED). An interrupted caller kills them.
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from usim.engine.claim import Status
from usim.engine.identity import identity, identity_difference
from usim.engine.parametric.prove import ParametricVerdict
from usim.errors import UsimError
from usim.rasp.fingerprint import fingerprint

if TYPE_CHECKING:  # pragma: no cover
    from usim.engine.parametric.allsizes import AllSizesResult
    from usim.engine.parametric.composed import ComposedClaim
    from usim.engine.parametric.statement import FamilyClaim

Locate = Callable[[str], "FamilyClaim | ComposedClaim"]
"""``claim id -> its statement for every size`` (for the registry,
:func:`usim.proofs.family`), importable by name in the child."""

HASH_SEED = "0"
"""The child's ``PYTHONHASHSEED``: the order of every set of names it iterates over."""


def child_deadline(timeout: float) -> float:
    """How long a child may run, in seconds: the parametric engine's own budget
    is ``timeout``; the tie, the witness check and a counterexample's replay
    each have theirs, and the interpreter takes a second or two to start."""
    return 10 * timeout + 300


def _failed(claim_id: str, mutant: str | None, status: Status, reason: str) -> "AllSizesResult":
    from usim.engine.parametric.allsizes import AllSizesResult

    verdict = ParametricVerdict(Status.UNKNOWN, reason, ())
    return AllSizesResult(claim_id, mutant, status, verdict, conditions="")


def prove_fresh(locate: Locate, fc: "FamilyClaim", mutant: str | None = None, timeout: float = 60.0,
                tie_bound: int | None = None, engines: Sequence[str] | None = None,
                check_timeout: float | None = None) -> "AllSizesResult":
    """:func:`~usim.engine.parametric.allsizes.prove_all_sizes` of ``fc`` (or of its
    broken variant ``mutant``) in a fresh interpreter (see the module docstring).

    Args:
        locate: finds ``fc`` by its id in the child; importable by name.
        fc: the family, as the caller holds it (its fingerprint is sent).
        mutant: one of ``fc.mutants``, or None.
        timeout: the parametric engine's budget, in seconds.
        tie_bound: the bound up to which the family is tied to the builder.
        engines: the bounded engines that replay a counterexample.
        check_timeout: each engine's seconds on the witness and on a replay
            (default ``timeout``).

    Returns:
        The child's result; ERROR if it crashed or found another statement
        under the id, UNKNOWN if it ran past :func:`child_deadline`.

    Raises:
        UsimError: what the child raised as one (an unknown broken variant).
    """
    (found,) = prove_fresh_each(locate, [(fc, mutant)], timeout, tie_bound, engines, 1, check_timeout=check_timeout)
    return found


def prove_fresh_each(locate: Locate, tasks: Sequence[tuple["FamilyClaim", str | None]], timeout: float = 60.0,
                     tie_bound: int | None = None, engines: Sequence[str] | None = None, jobs: int = 1,
                     done: Callable[[int, "AllSizesResult"], None] | None = None,
                     check_timeout: float | None = None) -> list["AllSizesResult"]:
    """:func:`prove_fresh` of each (family, broken variant or None) of ``tasks``,
    ``jobs`` interpreters at a time. Each proof runs in an interpreter of its own
    as :func:`prove_fresh`'s does, so running several at once changes no step of
    any (each query is limited by z3's work, not by the clock, but for the first
    tries the ledger counts as stopped by their time guard); only when each
    ends, and, the budget being time, a proof near it on a loaded machine may
    reach it sooner (UNKNOWN, never PROVED). Everything of the caller's (the
    statements' fingerprints and conditions, ``done``) runs in the calling
    thread; the pool's threads only wait on their children. If the caller is
    interrupted (or ``done`` raises), every child still running is killed.

    Args:
        locate: finds each family by its id in the children; importable by name.
        tasks: (family, broken variant or None) pairs.
        timeout: each proof's budget, in seconds.
        tie_bound: the bound up to which each family is tied to the builder.
        engines: the bounded engines that replay a counterexample.
        jobs: how many interpreters run at once (at least one).
        done: told (index in ``tasks``, result) as each proof ends, in the order
            they end, in the calling thread.
        check_timeout: each engine's seconds on a witness and on a replay
            (default ``timeout``).

    Returns:
        The results, in the order of ``tasks``.

    Raises:
        UsimError: what a child raised as one (an unknown broken variant).
    """
    prints: dict[str, str] = {}  # a part's fingerprint, once however many of its broken variants are sent
    for fc, _ in tasks:
        if fc.id not in prints:
            prints[fc.id] = fingerprint(fc.family())
    conditions = {fc.id: fc.describe_conditions() for fc, _ in tasks}
    requests = [(identity(), locate, fc.id, prints[fc.id], mutant, timeout, tie_bound,
                 tuple(engines) if engines is not None else None, check_timeout) for fc, mutant in tasks]
    results: list["AllSizesResult | None"] = [None] * len(tasks)
    children = _Children()
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        running = {pool.submit(_in_child, fc.id, mutant, conditions[fc.id], timeout, request, children): index
                   for index, ((fc, mutant), request) in enumerate(zip(tasks, requests))}
        for future in as_completed(running):
            index = running[future]
            results[index] = future.result()
            if done:
                done(index, results[index])  # type: ignore[arg-type]
    except BaseException:
        children.kill_all()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return results  # type: ignore[return-value]


class _Children:
    """The children started and not yet ended, so that an interrupted caller kills them all."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen] = set()
        self._stopped = False

    def start(self, args: list[str], **options: object) -> subprocess.Popen:
        """Start a child (none once :meth:`kill_all` was called: it raises instead)."""
        with self._lock:
            if self._stopped:
                raise UsimError("the proofs were stopped")
            child = subprocess.Popen(args, **options)  # type: ignore[call-overload]
            self._running.add(child)
            return child

    def ended(self, child: subprocess.Popen) -> None:
        with self._lock:
            self._running.discard(child)

    def kill_all(self) -> None:
        """Kill every child still running, and start no other."""
        with self._lock:
            self._stopped = True
            for child in self._running:
                child.kill()


def _in_child(claim_id: str, mutant: str | None, conditions: str, timeout: float, request: tuple,
              children: _Children) -> "AllSizesResult":
    """Run ``request`` in a new interpreter and read its answer: the result for
    ``claim_id`` (and ``mutant``) and no other, else an ERROR (:func:`prove_fresh`)."""
    env = {**os.environ, "PYTHONHASHSEED": HASH_SEED}
    with tempfile.TemporaryDirectory(prefix="usim-fresh-") as folder:
        answer = Path(folder) / "result.pickle"
        child = children.start([sys.executable, "-P", "-m", __name__, str(answer)], cwd=folder, env=env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            _, stderr = child.communicate(pickle.dumps(list(sys.path)) + pickle.dumps(request),
                                          timeout=child_deadline(timeout))
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            return _failed(claim_id, mutant, Status.UNKNOWN,
                           f"timeout: the proof's interpreter ran past {child_deadline(timeout):g} s")
        except BaseException:  # interrupted here: the child does not outlive the caller
            child.kill()
            raise
        finally:
            children.ended(child)
        if child.returncode != 0 or not answer.exists():
            last = (stderr.decode(errors="replace").strip().splitlines() or ["no output"])[-1]
            return _failed(claim_id, mutant, Status.ERROR,
                           f"the proof's interpreter failed (exit {child.returncode}): {last}")
        kind, value = pickle.loads(answer.read_bytes())
    if kind == "error":
        raise UsimError(value)
    if (value.claim_id, value.mutant) != (claim_id, mutant):
        return _failed(claim_id, mutant, Status.ERROR,
                       f"the proof's interpreter answered for {value.claim_id} [{value.mutant}], not the one sent")
    if not value.conditions:  # a child's ERROR names the conditions of the statement it was sent
        value = dataclasses.replace(value, conditions=conditions)
    return value


def _child(answer: Path) -> None:
    """The child's side: read the request, prove, write the answer."""
    from usim.engine.parametric.allsizes import prove_all_sizes
    from usim.engine.parametric.statement import FamilyClaim

    sys.path[:] = pickle.load(sys.stdin.buffer)  # the caller's: where ``locate`` is found
    theirs, locate, claim_id, expected, mutant, timeout, tie_bound, engines, checks = pickle.load(sys.stdin.buffer)
    try:
        fc = locate(claim_id)
        if theirs != identity():
            out = ("result", _failed(claim_id, mutant, Status.ERROR,
                                     "the proof's interpreter runs another usim than the caller: "
                                     + identity_difference(theirs, identity())))
        elif not isinstance(fc, FamilyClaim) or fingerprint(fc.family()) != expected:
            out = ("result", _failed(claim_id, mutant, Status.ERROR,
                                     f"{claim_id} found in the proof's interpreter is not the statement sent "
                                     "(another fingerprint)"))
        else:
            out = ("result", prove_all_sizes(fc, mutant, timeout, tie_bound, engines, check_timeout=checks))
    except UsimError as error:
        out = ("error", str(error))
    answer.write_bytes(pickle.dumps(out))


if __name__ == "__main__":
    _child(Path(sys.argv[1]))
