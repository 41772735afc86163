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
a loaded machine as on an idle one. Only the proof's whole time budget is
time: a proof that outlives it is UNKNOWN, never PROVED. A child that crashes gives ERROR; one
that outlives :func:`child_deadline` is killed and gives UNKNOWN.

:func:`prove_fresh_each` runs several such children at once (a thread waiting on
each): the parts of a claim proved in parts and its broken variants, ``--jobs`` at
a time. Since no step depends on the clock or on another child, that changes when
each proof ends, not what it proves.
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import subprocess
import sys
import tempfile
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
                tie_bound: int | None = None, engines: Sequence[str] | None = None) -> "AllSizesResult":
    """:func:`~usim.engine.parametric.allsizes.prove_all_sizes` of ``fc`` (or of its
    broken variant ``mutant``) in a fresh interpreter (see the module docstring).

    Args:
        locate: finds ``fc`` by its id in the child; importable by name.
        fc: the family, as the caller holds it (its fingerprint is sent).
        mutant: one of ``fc.mutants``, or None.
        timeout: the parametric engine's budget, in seconds.
        tie_bound: the bound up to which the family is tied to the builder.
        engines: the bounded engines that replay a counterexample.

    Returns:
        The child's result; ERROR if it crashed or found another statement
        under the id, UNKNOWN if it ran past :func:`child_deadline`.

    Raises:
        UsimError: what the child raised as one (an unknown broken variant).
    """
    return _in_child(fc, mutant, timeout, _request(locate, fc, mutant, timeout, tie_bound, engines))


def prove_fresh_each(locate: Locate, tasks: Sequence[tuple["FamilyClaim", str | None]], timeout: float = 60.0,
                     tie_bound: int | None = None, engines: Sequence[str] | None = None, jobs: int = 1,
                     done: Callable[[int, "AllSizesResult"], None] | None = None) -> list["AllSizesResult"]:
    """:func:`prove_fresh` of each (family, broken variant or None) of ``tasks``,
    ``jobs`` interpreters at a time. Each proof runs in an interpreter of its own
    as :func:`prove_fresh`'s does, so running several at once changes no step of
    any (each query is limited by z3's work, not by the clock), only when each ends.

    Args:
        locate: finds each family by its id in the children; importable by name.
        tasks: (family, broken variant or None) pairs.
        timeout: each proof's budget, in seconds.
        tie_bound: the bound up to which each family is tied to the builder.
        engines: the bounded engines that replay a counterexample.
        jobs: how many interpreters run at once (at least one).
        done: told (index in ``tasks``, result) as each proof ends, in the order they end.

    Returns:
        The results, in the order of ``tasks``.

    Raises:
        UsimError: what a child raised as one (an unknown broken variant).
    """
    requests = [_request(locate, fc, mutant, timeout, tie_bound, engines) for fc, mutant in tasks]  # here: one thread builds
    results: list["AllSizesResult | None"] = [None] * len(tasks)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:  # each thread waits on its child process
        running = {pool.submit(_in_child, fc, mutant, timeout, request): index
                   for index, ((fc, mutant), request) in enumerate(zip(tasks, requests))}
        try:
            for future in as_completed(running):
                index = running[future]
                results[index] = future.result()
                if done:
                    done(index, results[index])
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise
    return results  # type: ignore[return-value]


def _request(locate: Locate, fc: "FamilyClaim", mutant: str | None, timeout: float, tie_bound: int | None,
             engines: Sequence[str] | None) -> tuple:
    """What the child is sent: this usim, where to find the statement, its id and fingerprint, the options."""
    return (identity(), locate, fc.id, fingerprint(fc.family()), mutant, timeout, tie_bound,
            tuple(engines) if engines is not None else None)


def _in_child(fc: "FamilyClaim", mutant: str | None, timeout: float, request: tuple) -> "AllSizesResult":
    """Run ``request`` in a new interpreter and read its answer (:func:`prove_fresh`)."""
    env = {**os.environ, "PYTHONHASHSEED": HASH_SEED}
    with tempfile.TemporaryDirectory(prefix="usim-fresh-") as folder:
        answer = Path(folder) / "result.pickle"
        try:
            child = subprocess.run([sys.executable, "-P", "-m", __name__, str(answer)], cwd=folder, env=env,
                                   input=pickle.dumps(list(sys.path)) + pickle.dumps(request),
                                   capture_output=True,
                                   timeout=child_deadline(timeout))
        except subprocess.TimeoutExpired:
            return _failed(fc.id, mutant, Status.UNKNOWN,
                           f"timeout: the proof's interpreter ran past {child_deadline(timeout):g} s")
        if child.returncode != 0 or not answer.exists():
            last = (child.stderr.decode(errors="replace").strip().splitlines() or ["no output"])[-1]
            return _failed(fc.id, mutant, Status.ERROR,
                           f"the proof's interpreter failed (exit {child.returncode}): {last}")
        kind, value = pickle.loads(answer.read_bytes())
    if kind == "error":
        raise UsimError(value)
    if not value.conditions:  # a child's ERROR names the conditions of the statement it was sent
        value = dataclasses.replace(value, conditions=fc.describe_conditions())
    return value


def _child(answer: Path) -> None:
    """The child's side: read the request, prove, write the answer."""
    from usim.engine.parametric.allsizes import prove_all_sizes
    from usim.engine.parametric.statement import FamilyClaim

    sys.path[:] = pickle.load(sys.stdin.buffer)  # the caller's: where ``locate`` is found
    theirs, locate, claim_id, expected, mutant, timeout, tie_bound, engines = pickle.load(sys.stdin.buffer)
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
            out = ("result", prove_all_sizes(fc, mutant, timeout, tie_bound, engines))
    except UsimError as error:
        out = ("error", str(error))
    answer.write_bytes(pickle.dumps(out))


if __name__ == "__main__":
    _child(Path(sys.argv[1]))
