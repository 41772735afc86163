"""Work in forked children under a hard deadline: a child past it is killed and
UNKNOWN, one that dies is an ERROR, never a proof; work under the deadline gives
its value, raises what it raised, or a DeadlineError."""

from __future__ import annotations

import pytest

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
