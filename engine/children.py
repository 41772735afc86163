"""Work in forked children under a hard deadline: the engines' tasks, and what
must end in time before they run (building a statement).

:func:`run_tasks` runs (key, engine, thunk) tasks in forked children, ``jobs``
at a time; a child past its deadline is killed and its result is UNKNOWN
(timeout), one that dies without a value is an ERROR. :func:`under_deadline`
runs one thunk the same way and gives its value (or raises what it raised, or
a :class:`~usim.errors.DeadlineError`). :func:`run_here` runs an engine in this
process instead, stopped by an alarm past its deadline. The runner (:mod:`usim.engine.runner`)
and the cluster's workers (:mod:`usim.engine.cluster`) run their engines
through these.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

from usim.engine.claim import EngineResult, Status
from usim.errors import DeadlineError, UsimError

T = TypeVar("T")


def under_deadline(what: str, work: Callable[[], T], timeout: float) -> T:
    """``work()`` run in a forked child under :func:`run_tasks`' deadline and
    hard kill, as an engine is: its value, or what it raised, raised here.

    Args:
        what: the work, named in the message past the deadline ("building the target").
        work: a thunk; its value (or what it raises) must pickle.
        timeout: the seconds an engine gets (the deadline is an engine's).

    Returns:
        What ``work()`` returned in the child.

    Raises:
        DeadlineError: the child was killed past the deadline (nothing decided).
        UsimError: the child died without a result, or its value does not pickle.
        Exception: whatever ``work()`` raised, raised again.
    """
    def child() -> bytes:
        try:
            outcome: tuple[bool, Any] = (True, work())
        except Exception as error:  # noqa: BLE001 - raised again in the parent
            outcome = (False, error)
        try:
            return pickle.dumps(outcome)
        except Exception as error:  # noqa: BLE001 - said in the parent
            return pickle.dumps((False, UsimError(f"{what}: its result cannot be carried back from "
                                                  f"the child process: {type(error).__name__}: {error}")))

    ran = run_tasks([((), what, child)], timeout)[()][0]
    if isinstance(ran, bytes):
        try:
            ok, value = pickle.loads(ran)
        except Exception as error:  # noqa: BLE001 - e.g. an exception whose arguments do not rebuild it
            raise UsimError(f"{what}: its result cannot be read back from the child process: "
                            f"{type(error).__name__}: {error}") from None
        if ok:
            return value
        raise value
    if ran.status is Status.UNKNOWN:  # killed past the deadline
        raise DeadlineError(f"{what} took longer than the {timeout:g} s timeout: killed after {ran.seconds:.1f} s")
    raise UsimError(f"{what}: {ran.detail}")


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
    """Run (key, engine, thunk) tasks in forked children, ``jobs`` at a time.

    A thunk's value is pickled back as it is (an EngineResult; the bytes of
    :func:`under_deadline`'s work); a child killed past its deadline gives an
    UNKNOWN EngineResult (timeout), one that died without a value an ERROR one."""
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

Task = tuple[tuple, str, Callable[[], EngineResult]]
"""One task of :func:`run_tasks`: its obligation's key ``(shape, mutant)``, the
engine (or check) to run, and the thunk that runs it in this process."""


GRACE = 2.0
"""Seconds past its timeout an engine run in this process gets before the alarm
stops it (an engine that watches its clock has answered by then)."""


class _PastDeadline(BaseException):
    """The alarm of :func:`run_here` (a BaseException: no engine's ``except Exception`` swallows it)."""


def _alarm(signum: int, frame: Any) -> None:
    raise _PastDeadline()


def run_here(name: str, work: Callable[[], EngineResult], timeout: float) -> EngineResult:
    """An engine's ``work()`` run in this process, stopped past its deadline.

    An engine watches its own clock between steps, but one step (sympy's
    comparison of one long position) can run on far past it. In the main
    thread an alarm (SIGALRM) at ``timeout + GRACE`` stops it: the result is
    UNKNOWN (timeout), as a child killed past its deadline gives. The alarm
    interrupts Python code only: a solver's call into C is stopped when it
    returns (z3 has its own timeout; cvc5 runs in a child). A timer already set
    (a test runner's) is restored, less the time used. Off the main thread, or
    where there are no interval timers, ``work()`` runs as it is.

    Args:
        name: the engine, named in the result.
        work: the engine's run.
        timeout: its seconds.

    Returns:
        ``work()``'s result, or UNKNOWN past the deadline.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return work()
    start = time.perf_counter()
    previous = signal.signal(signal.SIGALRM, _alarm)
    earlier, _ = signal.setitimer(signal.ITIMER_REAL, timeout + GRACE)
    try:
        try:
            return work()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _PastDeadline:
        return EngineResult(name, Status.UNKNOWN, time.perf_counter() - start,
                            f"timeout: stopped {GRACE:g} s past its budget of {timeout:g} s")
    finally:
        signal.signal(signal.SIGALRM, previous)
        if earlier:
            signal.setitimer(signal.ITIMER_REAL, max(earlier - (time.perf_counter() - start), 0.001))
