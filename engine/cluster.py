"""Running a claim's tasks on a Dask distributed cluster.

Obligations are independent, so the tasks that :func:`usim.engine.runner.prove_claim`
runs in local children can run on the workers of a Dask cluster instead
(``dask scheduler`` on one machine, ``dask worker ADDRESS`` on each of the
others), with the same guarantees as the local pool:

* **A task is sent as a description**, not as a closure (:class:`RemoteTask`):
  the claim's id, the obligation's shape and broken variant, the engine, the
  timeout, and the fingerprint this machine computed for the obligation. The
  worker rebuilds the obligation from its own usim with ``rebuild`` (for a
  registered claim, :func:`usim.proofs.registered_obligation`); a claim that
  is not registered (no ``rebuild``) is sent by value instead, the obligation
  pickled by cloudpickle. A worker builds each obligation once for all its
  engines (it keeps the last few it built).
* **The same deadline and hard kill**: the worker runs the engine in a forked
  child through :func:`usim.engine.children.run_tasks`, exactly as the local
  pool does, so a child past its deadline is killed, its result is UNKNOWN,
  and the worker lives on to serve the next task. The child dies with its
  worker (Linux), so a worker killed mid-run leaves no solver running; the
  scheduler then runs the task again on another worker.
* **A verdict is data, checked on arrival** (:func:`accept`): it counts only if
  it answers the task that was sent, the obligation the worker built has the
  fingerprint computed here (the same statement: program, layouts, target,
  preconditions), and the worker runs the same usim (:func:`usim.engine.identity.identity`: the
  digest of every one of its source files) with the same solvers and Python
  (:func:`usim.engine.certificate.versions`) as this machine. So the
  certificate, which records this machine's versions, is what a local run
  writes, apart from the times. Anything else is ERROR, never a verdict.

Dask is an optional dependency (``pip install "usim[dask]"``): nothing here
imports it until a cluster is used.
"""

from __future__ import annotations

import functools
import os
import signal
import threading
import time
import uuid
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

from usim.encodings.notation import shape_label
from usim.engine import identity as this_usim
from usim.engine.claim import EngineResult, Obligation, Status
from usim.engine.identity import Identity, identity_difference
from usim.engine.children import Task, run_tasks
from usim.engine.runner import _run_engine
from usim.engine.statement import fingerprint
from usim.errors import UsimError

if TYPE_CHECKING:  # pragma: no cover
    from distributed import Client, Future

Rebuild = Callable[[str, tuple, "str | None"], Obligation]
"""``(claim id, shape, broken variant or None) -> Obligation``, importable by
name on the workers (it is pickled by reference)."""

INSTALL_HINT = 'pip install "usim[dask]"'


class ClusterError(UsimError):
    """A cluster that cannot be used: not reachable, no workers, or workers
    that run another usim."""


# -- what travels ----------------------------------------------------------------

@dataclass(frozen=True)
class RemoteTask:
    """One task as a worker receives it: which obligation (rebuilt with
    ``rebuild``, or ``by_value``, the cloudpickled obligation), which engine or
    check, the timeout, and the fingerprint the client computed."""

    claim_id: str
    key: tuple  # (shape, mutant)
    engine: str
    timeout: float
    fingerprint: str
    rebuild: Rebuild | None = None
    by_value: bytes | None = None

    @property
    def label(self) -> str:
        shape, mutant = self.key
        return shape_label(shape, mutant)


@dataclass(frozen=True)
class RemoteResult:
    """A worker's answer: the engine's result on the obligation it built, that
    obligation's fingerprint (None if it could not build it), who answered and
    its identity."""

    key: tuple
    engine: str
    worker: str
    identity: Identity
    fingerprint: str | None
    result: EngineResult


# -- on the worker ---------------------------------------------------------------

_BUILDING = threading.Lock()  # one build at a time per worker: sympy's state is not for threads


@functools.lru_cache(maxsize=4)
def _built(claim_id: str, key: tuple, rebuild: Rebuild | None, by_value: bytes | None) -> tuple[Obligation, str]:
    if rebuild is not None:
        ob = rebuild(claim_id, key[0], key[1])
    else:
        import cloudpickle

        ob = cloudpickle.loads(by_value)
    if not isinstance(ob, Obligation):
        raise UsimError(f"rebuilt a {type(ob).__name__}, not an obligation")
    return ob, fingerprint(ob)


def _die_with_parent(parent: int) -> None:
    """Ask Linux to kill this process when ``parent`` ends (PR_SET_PDEATHSIG);
    elsewhere nothing is asked."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the worker ended before the request was made
        os._exit(1)


def _engine_in_child(parent: int, engine: str, ob: Obligation, timeout: float) -> EngineResult:
    _die_with_parent(parent)
    return _run_engine(engine, ob, timeout)


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return f"process {os.getpid()}"


def run_remote(task: RemoteTask) -> RemoteResult:
    """Run one task on this worker: rebuild its obligation (once per obligation),
    compare the fingerprint, and run the engine in a forked child with the
    local pool's deadline and hard kill (:func:`usim.engine.children.run_tasks`)."""
    warnings.filterwarnings("ignore", message=r".*fork\(\) may lead to deadlocks", category=DeprecationWarning)
    worker, start = _worker_name(), time.perf_counter()

    def answer(print_: str | None, result: EngineResult) -> RemoteResult:
        return RemoteResult(task.key, task.engine, worker, this_usim.identity(), print_, result)

    try:
        with _BUILDING:
            ob, print_ = _built(task.claim_id, task.key, task.rebuild, task.by_value)
    except Exception as error:  # noqa: BLE001 - reported as the task's ERROR, never a verdict
        return answer(None, EngineResult(task.engine, Status.ERROR, time.perf_counter() - start,
                                         f"worker {worker} could not build {task.claim_id} {task.label}: "
                                         f"{type(error).__name__}: {error}"))
    if print_ != task.fingerprint:  # not the statement that was sent: do not run it at all
        return answer(print_, EngineResult(task.engine, Status.ERROR, 0.0, "fingerprint differs"))
    thunk = functools.partial(_engine_in_child, os.getpid(), task.engine, ob, task.timeout)
    (result,) = run_tasks([(task.key, task.engine, thunk)], task.timeout, jobs=1)[task.key]
    return answer(print_, result)


# -- on the client ---------------------------------------------------------------

def _error(engine: str, detail: str) -> EngineResult:
    return EngineResult(engine, Status.ERROR, 0.0, detail)


def accept(task: RemoteTask, answer: Any, ours: tuple[tuple[str, str], ...]) -> EngineResult:
    """The verdict a worker's ``answer`` to ``task`` contributes: its result if
    it is a well-formed answer to this task, from a worker with identity
    ``ours``, on an obligation with the fingerprint computed here; else ERROR
    saying why (never a verdict)."""
    if not isinstance(answer, RemoteResult) or answer.key != task.key or answer.engine != task.engine:
        return _error(task.engine, f"the cluster answered {type(answer).__name__} for another task")
    result = answer.result
    if not isinstance(result, EngineResult) or result.engine != task.engine or not isinstance(result.status, Status):
        return _error(task.engine, f"worker {answer.worker} returned a malformed result")
    difference = identity_difference(answer.identity, ours)
    if difference:
        return _error(task.engine, f"worker {answer.worker} runs another usim or other solvers ({difference}): "
                      "its verdict is not used")
    if answer.fingerprint is None:  # the worker could not build the obligation: its ERROR says why
        return result if result.status is Status.ERROR else _error(task.engine, "no obligation was built")
    if answer.fingerprint != task.fingerprint:
        return _error(task.engine, f"worker {answer.worker} built another statement for {task.claim_id} "
                      f"{task.label} (fingerprint {answer.fingerprint[:12]}, here {task.fingerprint[:12]}): "
                      "its verdict is not used")
    return result


def connect(address: str, timeout: float = 10.0, wait: float = 30.0) -> "Client":
    """A client of the Dask scheduler at ``address`` (reached within ``timeout``
    seconds), once it has a worker (within ``wait`` seconds) and every worker
    runs this usim (:func:`check_workers`); one line if not."""
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError(f"--cluster needs Dask's distributed scheduler: {INSTALL_HINT}") from None
    try:
        client = Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError, TypeError) as error:
        raise ClusterError(f"cannot reach a Dask scheduler at {address}: {error}") from None
    try:
        check_workers(client, wait)
    except BaseException:
        client.close()
        raise
    return client


def check_workers(client: "Client", timeout: float = 30.0) -> None:
    """Refuse a cluster with no worker (after ``timeout`` seconds) or with a
    worker that cannot run usim or runs another usim (one line naming it). A
    worker that joins later is checked by :func:`accept` on each answer."""
    address = client.scheduler.address
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise ClusterError(f"the scheduler at {address} has no worker after {timeout:g} s: "
                           f"start `dask worker {address}` on each machine") from None
    answers = client.run(this_usim.identity, on_error="return")
    ours = this_usim.identity()
    for worker, theirs in sorted(answers.items()):
        if isinstance(theirs, BaseException):
            raise ClusterError(f"worker {worker} cannot run usim ({type(theirs).__name__}: {theirs}); "
                               "install the same usim on every worker")
        difference = identity_difference(theirs, ours)
        if difference:
            raise ClusterError(f"worker {worker} runs another usim or other solvers: {difference}")


class ClusterDispatch:
    """Runs a claim's tasks on the workers of ``client``'s cluster (a
    :class:`usim.engine.runner.Dispatch`).

    ``rebuild`` rebuilds a registered claim's obligations on the worker; without
    it each obligation is sent by value. The results come back as they end,
    each checked by :func:`accept`, and ``on_done`` hears of each, as from the
    local pool. A task whose workers all died (the scheduler gives up after a
    few) is ERROR, as a local child that dies is.
    """

    def __init__(self, client: "Client", rebuild: Rebuild | None = None) -> None:
        self.client, self.rebuild = client, rebuild
        self.identity = this_usim.identity()

    def __call__(self, claim_id: str, tasks: list[Task], built: Mapping[tuple, tuple[Obligation, str]],
                 timeout: float, on_done: Callable[[tuple, EngineResult], None]) -> dict[tuple, list[EngineResult]]:
        if not tasks:  # every verdict is known already: nothing to send
            return {}
        from distributed import as_completed

        sent: dict["Future", RemoteTask] = {}
        by_value: dict[tuple, bytes] = {}
        for key, engine, _thunk in tasks:
            ob, print_ = built[key]
            value = None
            if self.rebuild is None:
                if key not in by_value:
                    import cloudpickle

                    by_value[key] = cloudpickle.dumps(ob)
                value = by_value[key]
            task = RemoteTask(claim_id, key, engine, timeout, print_, self.rebuild, value)
            name = f"usim-{claim_id}-{task.label.replace(' ', '')}-{engine}-{uuid.uuid4().hex[:8]}"
            sent[self.client.submit(run_remote, task, key=name, pure=False)] = task
        order = {future: index for index, future in enumerate(sent)}
        arrived: dict[tuple, list[tuple[int, EngineResult]]] = {}
        try:
            for future in as_completed(sent):
                task = sent[future]
                result = self._receive(task, future)
                arrived.setdefault(task.key, []).append((order[future], result))
                on_done(task.key, result)
        finally:
            unfinished = [f for f in sent if not f.done()]
            if unfinished:
                self.client.cancel(unfinished)
        # each obligation's results in the order of its tasks, whatever order they arrived in
        return {key: [result for _, result in sorted(pairs, key=lambda pair: pair[0])]
                for key, pairs in arrived.items()}

    def _receive(self, task: RemoteTask, future: "Future") -> EngineResult:
        if future.status == "cancelled":
            raise ClusterError(f"the cluster cancelled {task.claim_id} {task.label} ({task.engine}): "
                               "was the scheduler restarted?")
        if future.status == "error":
            from distributed.scheduler import KilledWorker

            error = future.exception()
            if isinstance(error, KilledWorker):
                return _error(task.engine, "every worker that ran it died without a result (out of memory?)")
            return _error(task.engine, f"the worker could not run it: {type(error).__name__}: {error}")
        return accept(task, future.result(), self.identity)
