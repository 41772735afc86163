"""The z3 engine: can some position differ under the preconditions?

The obligation is stated in z3 (:mod:`usim.engine.solvers.z3_problem`: exp
uninterpreted and positive), and z3 is asked, one query per position that
does not simplify away, whether that position can differ. unsat at every
one: PROVED. sat: the model is replayed; if it does not replay (it may rely
on exp being uninterpreted), random points are searched; none found:
UNKNOWN. unknown or timeout: random points are searched too; none found:
UNKNOWN. Each query is asked in a z3 context of its own
(:meth:`~usim.engine.solvers.z3_problem.Z3Problem.ask`), so its answer does not
depend on what the process built before.
"""

from __future__ import annotations

import z3

from usim.engine.claim import EngineResult, Obligation, Status
from usim.engine.replay import replay
from usim.engine.solvers.base import Clock, Engine
from usim.engine.solvers.counterexamples import refuted_or_unknown
from usim.engine.solvers.z3_problem import z3_problem
from usim.engine.translate import TranslationError


class Z3Engine(Engine):
    """z3 on "this position differs" (see the module's docstring)."""

    name = "z3"

    def check(self, ob: Obligation, timeout: float) -> EngineResult:
        clock = Clock(timeout)
        try:
            problem = z3_problem(ob, clock)
        except TranslationError as error:
            return EngineResult(self.name, Status.UNKNOWN, clock.elapsed, f"cannot state the target in z3: {error}")
        except TimeoutError as error:
            return EngineResult(self.name, Status.UNKNOWN, clock.elapsed, str(error))
        differences = problem.differences
        if not differences:
            return EngineResult(self.name, Status.PROVED, clock.elapsed, "every position simplifies to the target")
        # One query per position that does not simplify away: many small queries are
        # far easier for z3 than one disjunction over every position.
        for index, (_, difference) in enumerate(differences):
            remaining = timeout - clock.elapsed
            if remaining <= 0:
                return EngineResult(self.name, Status.UNKNOWN, clock.elapsed,
                                    f"timeout after {timeout:g} s ({index} of {len(differences)} positions proved)")
            answer = problem.ask(difference, remaining)
            if answer.result == z3.unsat:
                continue
            if answer.result == z3.unknown:
                reason = answer.reason
                if "timeout" in reason or "canceled" in reason or clock.expired:
                    reason = f"timeout after {timeout:g} s ({reason})"
                # Not proved, but perhaps false: look for a replayed counterexample before
                # answering UNKNOWN, as after a model that does not replay.
                return refuted_or_unknown(self.name, ob, clock, f"z3 answered unknown at position {index}: {reason}",
                                          use_z3=False)
            witness = replay(ob, answer.point)
            if witness is not None:
                return EngineResult(self.name, Status.REFUTED, clock.elapsed, "z3 model replayed", witness)
            return refuted_or_unknown(self.name, ob, clock,
                                      "z3's model did not replay (it may use exp as an arbitrary function, "
                                      "or the construction is undefined there)", use_z3=False)
        return EngineResult(self.name, Status.PROVED, clock.elapsed,
                            f"no input makes any of {len(differences)} position(s) differ (unsat each)")


check_z3 = Z3Engine().check
"""The z3 engine's answer on an obligation: ``check_z3(ob, timeout)``."""
