"""The well-definedness obligation of a claim's shape, and its checker.

The engines prove "construction = target wherever both are defined". This
module proves the other half: wherever the preconditions hold, both *are*
defined. Its conditions come from :mod:`usim.encodings.definedness` (one per
output position of the construction, computed on the operations before sympy
simplifies them; and from the target's and the preconditions' structure), split
into their conjuncts and deduplicated. Each distinct condition is then

1. accepted when it is evident from signs (:mod:`usim.engine.signs`): a sum of
   exponentials is not zero, ``var + eps >= 0`` when ``eps > 0`` is a
   precondition, ...;
2. otherwise handed to z3 with the preconditions (and the interpretation's
   facts such as ``exp(t) > 0``): unsat of its negation proves it; a model is a
   candidate input where something is undefined, replayed exactly
   (:func:`usim.engine.replay.replay_undefined`) before it is reported;
3. where z3 cannot answer, random inputs are searched for a replayed
   counterexample; none found: UNKNOWN.

PROVED needs every condition proved; REFUTED needs a replayed input where the
construction or the target is undefined.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

import sympy
import z3

from usim.encodings.definedness import expression_conditions, program_conditions
from usim.encodings.smt import SmtInterpretation
from usim.encodings.written import cancelled_powers, written_conditions
from usim.engine.claim import EngineResult, Obligation, Status
from usim.engine.replay import (
    entry_names,
    replay_undefined,
    search_witness,
    symbol_matrices,
    symbolic_target,
    written_target_powers,
)
from usim.engine.signs import known_signs
from usim.engine.translate import TranslationError, model_point, to_z3
from usim.errors import UndefinedError
from usim.transformer.forward import network_conditions
from usim.transformer.model import Network

ENGINE = "definedness"


def conditions(ob: Obligation) -> list[tuple[str, Any]]:
    """The distinct conditions (where, condition) under which construction and
    target are defined at every output position."""
    layout = ob.construction.input_layout
    matrices, expected = symbolic_target(ob)
    tokens = layout.encode(matrices)
    names = entry_names(ob.construction.output_layout)
    found: dict[Any, str] = {}

    def add(where: str, condition: Any) -> None:
        parts = condition.args if isinstance(condition, sympy.And) else (condition,)
        for part in parts:
            if part is not sympy.true and part not in found:
                found[part] = where

    program = ob.construction.program
    construction = (network_conditions(program, len(tokens)) if isinstance(program, Network)
                    else program_conditions(program, ob.output_name, tokens))
    for p, condition in enumerate(construction):
        add(f"the construction at {names[p]}", condition)
    for p, entry in enumerate(expected):
        for condition in expression_conditions(entry):
            add(f"the target at {names[p]}", condition)
    inputs = {s for rows in matrices.values() for row in rows for s in row}
    # a power over other symbols is the target's own algebra (a generic matrix's inverse, read at the
    # input by subs): on numbers it stays symbolic, so it cannot be undefined at an input
    written = {(b, e) for b, e in written_target_powers(ob) if b.free_symbols | e.free_symbols <= inputs}
    for condition in written_conditions(cancelled_powers(written, expected)):
        add("a division or root the target writes", condition)
    return [(where, condition) for condition, where in found.items()]


def decided_statement(ob: Obligation, fingerprint: str) -> str:
    """What this check decides, for the verdict cache: the statement's fingerprint
    and the divisions and roots the target writes. The fingerprint is made from
    the target's values, and M[j, i] * M[0, 0] / M[0, 0] has the values of M[j, i]:
    kept under the fingerprint alone, the transpose's answer would be reused for it.

    Args:
        ob: the obligation.
        fingerprint: its statement's fingerprint (:func:`usim.engine.statement.fingerprint`).

    Returns:
        The fingerprint, with a digest of the written powers when there are any.
    """
    written = sorted(sympy.srepr(sympy.Tuple(b, e)) for b, e in written_target_powers(ob))
    if not written:
        return fingerprint
    return f"{fingerprint} written {hashlib.sha256(chr(10).join(written).encode()).hexdigest()}"


def _preconditions(ob: Obligation) -> list[Any]:
    if ob.preconditions is None:
        return []
    matrices = symbol_matrices(ob.construction.input_layout, ob.domain)
    return [sympy.sympify(r) for r in ob.preconditions({k: sympy.Matrix(v) for k, v in matrices.items()})]


def check_definedness(ob: Obligation, timeout: float) -> EngineResult:
    start = time.perf_counter()
    elapsed = lambda: time.perf_counter() - start  # noqa: E731
    try:
        pending = conditions(ob)
    except UndefinedError as error:  # a selector over an undefined index: undefined at every input
        witness = search_witness(ob, tries=5, confirm=replay_undefined)
        if witness is not None:
            return EngineResult(ENGINE, Status.REFUTED, elapsed(), f"undefined at every input: {error}", witness)
        return EngineResult(ENGINE, Status.UNKNOWN, elapsed(), f"undefined ({error}), but not replayed")
    if not pending:
        return EngineResult(ENGINE, Status.PROVED, elapsed(),
                            "no division, root or power that could be undefined (none on input-dependent "
                            "values, or sympy decides each condition true)")
    preconditions = _preconditions(ob)
    signs = known_signs(preconditions)
    total = len(pending)
    pending = [(where, c) for where, c in pending if not signs.holds(c)]
    evident = total - len(pending)
    if not pending:
        return EngineResult(ENGINE, Status.PROVED, elapsed(),
                            f"{total} condition(s), every one evident from signs")
    by_z3, reason = _prove_by_z3(ob, pending, preconditions, timeout - elapsed())
    if isinstance(reason, EngineResult):  # a replayed counterexample
        return EngineResult(ENGINE, reason.status, elapsed(), reason.detail, reason.counterexample)
    if by_z3 == len(pending):
        return EngineResult(ENGINE, Status.PROVED, elapsed(),
                            f"{total} condition(s): {evident} evident from signs, {by_z3} by z3 (unsat)")
    witness = search_witness(ob, confirm=replay_undefined)
    if witness is not None:
        return EngineResult(ENGINE, Status.REFUTED, elapsed(),
                            f"undefined at a random input ({reason})", witness)
    return EngineResult(ENGINE, Status.UNKNOWN, elapsed(),
                        f"{evident + by_z3} of {total} condition(s) proved; {reason}; "
                        "no input where it is undefined found at 200 random points")


def _prove_by_z3(ob: Obligation, pending: list[tuple[str, Any]], preconditions: list[Any],
                 budget: float) -> tuple[int, Any]:
    """How many pending conditions z3 proves, and why it stopped (a string), or
    an EngineResult carrying a replayed counterexample."""
    layout = ob.construction.input_layout
    make = z3.Int if ob.domain == "integer" else z3.Real
    consts = {name: make(name) for name in entry_names(layout) if not name.startswith("padding")}
    interp = SmtInterpretation()
    try:
        goals = [(where, to_z3(c, consts, interp)) for where, c in pending]
        assumptions = [to_z3(r, consts, interp) for r in preconditions]
    except TranslationError as error:
        return 0, f"z3 cannot state a condition: {error}"
    base = list(interp.facts) + assumptions
    if ob.values is not None:
        base += [z3.Or([c == v for v in ob.values]) for c in consts.values()]
    deadline = time.perf_counter() + budget
    proved = 0
    for where, goal in goals:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return proved, f"timeout ({proved} of {len(goals)} left to z3 proved)"
        solver = z3.Solver()
        solver.set("timeout", max(1, int(remaining * 1000)))
        solver.add(*base)
        solver.add(z3.Not(goal))
        answer = solver.check()
        if answer == z3.unsat:
            proved += 1
            continue
        if answer == z3.sat:
            counter = replay_undefined(ob, model_point(solver.model(), consts))
            if counter is not None:
                return proved, EngineResult(ENGINE, Status.REFUTED, 0.0,
                                            f"undefined: z3's model of {where} not defined, replayed",
                                            counter)
            return proved, f"z3's model for {where} did not replay (it may use exp as an arbitrary function)"
        return proved, f"z3 answered unknown for {where} ({solver.reason_unknown()})"
    return proved, "all proved"
