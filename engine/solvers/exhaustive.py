"""The exhaustive engine: every input of a finite domain, run exactly.

For a finite domain (``Obligation.values``) every input meeting the
preconditions is run exactly and compared with the target evaluated exactly
at it (:func:`values_at` on the target built once as an expression; or, for a
target too slow to build that way, :func:`usim.engine.replay.tabulated`, the
spec called at each input). All agree: PROVED (for that domain only, which the
claim states); none meets the preconditions: VACUOUS; more inputs than
:data:`EXHAUSTIVE_LIMIT`: UNKNOWN.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping, Sequence

import sympy

from usim.encodings.domain import Undefined
from usim.encodings.exact import EXACT
from usim.engine.claim import EngineResult, Obligation, Status
from usim.engine.replay import (domain_inputs, domain_size, output_of, preconditions_hold, replay,
                                replay_undefined, symbolic_target, tabulated, target_at)
from usim.engine.solvers.base import Clock, Engine
from usim.errors import EvaluationError, NotExactError, UndefinedError

EXHAUSTIVE_LIMIT = 20_000
"""The most inputs the exhaustive engine runs; a larger domain is UNKNOWN."""


def values_at(exprs: Sequence[sympy.Basic], point: Mapping[sympy.Symbol, sympy.Basic]) -> list[sympy.Basic]:
    """``exprs`` at ``point``, each node rebuilt by its own sympy constructor
    from its arguments' values (what ``xreplace`` means), bottom-up over the
    shared terms, without recursion and without writing the terms as Python
    source: lambdify printed a target as one expression, and one nested deeper
    than Python's parser allows ("too many nested parentheses") made the one
    engine that could decide it answer ERROR.

    Args:
        exprs: sympy terms over the symbols of ``point``.
        point: a value for each symbol.

    Returns:
        The value of each term (a number, or what sympy leaves of it).
    """
    done: dict[sympy.Basic, sympy.Basic] = dict(point)
    for expr in exprs:
        stack = [(sympy.sympify(expr), False)]
        while stack:
            node, ready = stack.pop()
            if node in done:
                continue
            if not node.args:
                done[node] = node
            elif ready:
                args = [done[a] for a in node.args]
                done[node] = node if all(a is b for a, b in zip(args, node.args)) else node.func(*args)
            else:
                stack.append((node, True))
                stack.extend((a, False) for a in node.args if a not in done)
    return [done[sympy.sympify(e)] for e in exprs]


def defined_everywhere(ob: Obligation, timeout: float) -> EngineResult:
    """The definedness check of a finite domain whose target is evaluated at each
    input (:func:`usim.engine.replay.tabulated`): construction and target are
    defined at every input meeting the preconditions (each run exactly), or
    REFUTED with the first input where one is not, replayed.

    Args:
        ob: an obligation over a finite domain.
        timeout: seconds; past them UNKNOWN.

    Returns:
        The result, named like the definedness check it stands for.
    """
    from usim.engine.definedness import ENGINE as DEFINEDNESS

    clock = Clock(timeout)
    total = domain_size(ob)
    if ob.values is None or total > EXHAUSTIVE_LIMIT:
        return EngineResult(DEFINEDNESS, Status.UNKNOWN, 0.0, "not a finite domain within the exhaustive limit")
    checked = 0
    for point in domain_inputs(ob):
        if clock.expired:
            return EngineResult(DEFINEDNESS, Status.UNKNOWN, clock.elapsed, f"timeout after {checked} of {total} inputs")
        witness = replay_undefined(ob, point)
        if witness is not None:
            return EngineResult(DEFINEDNESS, Status.REFUTED, clock.elapsed, "undefined at an input of the domain",
                                witness)
        checked += 1
    return EngineResult(DEFINEDNESS, Status.PROVED, clock.elapsed,
                        f"construction and target defined at each of the {total} inputs over {sorted(ob.values)} "
                        "(run exactly; the target evaluated at each)")


class ExhaustiveEngine(Engine):
    """Every input of a finite domain (see the module's docstring)."""

    name = "exhaustive"

    def check(self, ob: Obligation, timeout: float) -> EngineResult:
        clock = Clock(timeout)
        if ob.values is None:
            return EngineResult(self.name, Status.UNKNOWN, 0.0, "the domain is not finite")
        layout = ob.construction.input_layout
        total = domain_size(ob)
        if total > EXHAUSTIVE_LIMIT:
            return EngineResult(self.name, Status.UNKNOWN, 0.0,
                                f"{total} inputs exceed the exhaustive limit {EXHAUSTIVE_LIMIT}")
        by_input = tabulated(ob)  # the target at each input, never built as one expression
        if not by_input:
            sym, expected_exprs = symbolic_target(ob)
            symbols = [s for row in (r for m in sym.values() for r in m) for s in row]
        checked = undefined = 0
        for point in domain_inputs(ob):
            if clock.expired:
                return EngineResult(self.name, Status.UNKNOWN, clock.elapsed,
                                    f"timeout after {checked} of {total} inputs")
            if not preconditions_hold(ob, point):
                continue
            tokens = layout.encode({b.name: [[point[f"{b.name}[{i},{j}]"] for j in range(b.shape.cols)]
                                             for i in range(b.shape.rows)] for b in layout.blocks})
            try:
                got = output_of(ob, EXACT, tokens)
            except UndefinedError:  # a selector over an undefined value: the definedness check's business
                undefined += 1
                checked += 1
                continue
            except (NotExactError, EvaluationError):
                return EngineResult(self.name, Status.UNKNOWN, clock.elapsed,
                                    "the construction has no exact value on this domain")
            expected = target_at(ob, point) if by_input else values_at(
                expected_exprs, dict(zip(symbols, (sympy.Rational(v.numerator, v.denominator)
                                                   for v in point.values()))))
            checked += 1
            differs = False
            for g, e in zip(got, expected, strict=True):
                e = e if isinstance(e, Undefined) else sympy.sympify(e)
                if isinstance(g, Undefined) or isinstance(e, Undefined) or not e.is_Rational:
                    undefined += 1  # equality is claimed only where both sides are defined
                    continue
                differs = differs or Fraction(g) != Fraction(int(e.p), int(e.q))
            if differs:
                witness = replay(ob, point)
                if witness is None:  # pragma: no cover - replay recomputes the same values
                    return EngineResult(self.name, Status.ERROR, clock.elapsed,
                                        "a difference did not replay: internal error")
                return EngineResult(self.name, Status.REFUTED, clock.elapsed,
                                    f"input {checked} of {total} differs", witness)
        if checked == 0:
            return EngineResult(self.name, Status.VACUOUS, clock.elapsed,
                                f"none of the {total} inputs over {sorted(ob.values)} meets the preconditions")
        note = f" ({undefined} undefined position(s) left to the definedness check)" if undefined else ""
        return EngineResult(self.name, Status.PROVED, clock.elapsed,
                            f"all {checked} inputs over {sorted(ob.values)} agree{note}")


check_exhaustive = ExhaustiveEngine().check
"""The exhaustive engine's answer on an obligation: ``check_exhaustive(ob, timeout)``."""
