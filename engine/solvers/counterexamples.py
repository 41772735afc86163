"""The search every engine runs after "not proved": random inputs, then a z3 model.

An engine that cannot prove an obligation (forms differ, a form it cannot
decide, a model that does not replay, a term it cannot state) looks for a
counterexample before it answers: REFUTED only with one replayed
(:func:`usim.engine.replay.replay`), else UNKNOWN saying what was searched.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Mapping

import z3

from usim.engine.claim import Counterexample, EngineResult, Obligation, Status
from usim.engine.replay import replay, search_witness
from usim.engine.solvers.base import Clock
from usim.engine.solvers.z3_problem import z3_problem
from usim.engine.translate import TranslationError

Z3_SEARCH_SECONDS = 10.0
"""The most time the search gives z3 to find a model of "some position differs"."""


def refuted_or_unknown(engine: str, ob: Obligation, clock: Clock, reason: str,
                       use_z3: bool = True) -> EngineResult:
    """After "not proved": a replayed counterexample from random inputs (up to 200,
    at least one, no more once the engine's time is out) or from a z3 model
    (within the time left, at most Z3_SEARCH_SECONDS), else UNKNOWN.

    Args:
        engine: the name of the engine answering.
        ob: the obligation.
        clock: the engine's clock (the search stops when its time is out).
        reason: why the engine did not prove it, the start of the answer's reason.
        use_z3: whether to ask z3 for a model after the random inputs.

    Returns:
        REFUTED with the counterexample, or UNKNOWN saying what was searched.
    """
    tried = 0

    def counted(o: Obligation, point: Mapping[str, Fraction]) -> Counterexample | None:
        nonlocal tried
        tried += 1
        return replay(o, point)

    witness = search_witness(ob, confirm=counted, until=clock.start + clock.timeout)
    if witness is not None:
        return EngineResult(engine, Status.REFUTED, clock.elapsed, reason, witness)
    budget = min(Z3_SEARCH_SECONDS, clock.timeout - clock.elapsed)
    if use_z3 and budget > 0:
        witness = z3_counterexample(ob, budget)
        if witness is not None:
            return EngineResult(engine, Status.REFUTED, clock.elapsed, reason + " (z3 model replayed)", witness)
    searched = f"{tried} random point{'s' if tried != 1 else ''}" + (
        " and a z3 model" if use_z3 and budget > 0 else "")
    return EngineResult(engine, Status.UNKNOWN, clock.elapsed,
                        reason + f"; no counterexample found ({searched})")


def z3_counterexample(ob: Obligation, budget: float) -> Counterexample | None:
    """A z3 model of "some position differs", replayed; None if there is none
    within ``budget`` seconds (or it does not replay). Reaches differences that
    random inputs miss (a value of exactly 12345).

    Args:
        ob: the obligation.
        budget: seconds for z3, over every position.

    Returns:
        The replayed counterexample, or None.
    """
    deadline = time.perf_counter() + budget
    try:
        problem = z3_problem(ob)
    except (TranslationError, TimeoutError):
        return None
    for _, difference in problem.differences:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return None
        answer = problem.ask(difference, remaining)
        if answer.result == z3.sat:
            found = replay(ob, answer.point)
            if found is not None:
                return found
    return None
