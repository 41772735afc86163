"""Work in forked children under a hard deadline: a child past it is killed and
UNKNOWN, one that dies is an ERROR, never a proof; work under the deadline gives
its value, raises what it raised, or a DeadlineError; an engine run in this
process is stopped by an alarm past its deadline."""

from __future__ import annotations

import signal
import time

import pytest

from usim.engine.children import GRACE, run_here
from usim.engine.claim import EngineResult, Status


def test_a_worker_past_its_deadline_is_killed_and_unknown():
    import time

    from usim.engine.children import run_tasks

    def hang() -> EngineResult:
        time.sleep(60)
        return EngineResult("z3", Status.PROVED, 60.0)

    start = time.perf_counter()
    results = run_tasks([(("k",), "z3", hang)], timeout=0.01, jobs=1)
    (result,) = results[("k",)]
    assert result.status is Status.UNKNOWN and "timeout" in result.detail
    assert time.perf_counter() - start < 30


def test_a_worker_that_dies_is_an_error_not_a_proof():
    import os

    from usim.engine.children import run_tasks

    def die() -> EngineResult:
        os._exit(3)

    (result,) = run_tasks([(("k",), "sympy", die)], timeout=5)[("k",)]
    assert result.status is Status.ERROR


def test_work_under_the_deadline_gives_its_value_or_raises_what_it_raised_or_a_deadline_error():
    import os

    from usim.engine.children import under_deadline
    from usim.errors import DeadlineError, ShapeError, UsimError

    assert under_deadline("adding", lambda: {"pid": os.getpid(), "sum": 1 + 2}, 5)["sum"] == 3
    assert under_deadline("adding", lambda: os.getpid(), 5) != os.getpid()  # in a child

    def refuse() -> None:
        raise ShapeError("the target gives the blocks ['A'], the output layout has ['B']")

    with pytest.raises(ShapeError, match="the output layout has"):
        under_deadline("building the target", refuse, 5)
    with pytest.raises(UsimError, match="building the target: the engine process died"):
        under_deadline("building the target", lambda: os._exit(3), 5)
    with pytest.raises(DeadlineError, match="sleeping took longer than the 0.01 s timeout: killed after"):
        under_deadline("sleeping", lambda: __import__("time").sleep(60), 0.01)


def _spin() -> EngineResult:
    while True:  # an engine that never looks at its clock
        pass


def test_an_engine_run_here_that_ignores_its_clock_is_stopped_past_its_deadline():
    start = time.perf_counter()
    result = run_here("spin", _spin, 0.2)
    assert result.status is Status.UNKNOWN and "timeout" in result.detail
    assert time.perf_counter() - start < 0.2 + GRACE + 3


def test_an_engine_run_here_in_time_gives_its_result_and_leaves_no_alarm():
    done = EngineResult("quick", Status.PROVED, 0.0, "done")
    assert run_here("quick", lambda: done, 5) is done
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_timer_set_before_run_here_is_restored_less_the_time_used():
    previous = signal.signal(signal.SIGALRM, lambda *_: None)
    try:
        signal.setitimer(signal.ITIMER_REAL, 100)
        run_here("quick", lambda: EngineResult("quick", Status.PROVED, 0.0, "done"), 5)
        assert 90 < signal.getitimer(signal.ITIMER_REAL)[0] <= 100
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
