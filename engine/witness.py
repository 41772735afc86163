"""A witness for an obligation's preconditions: the statement is not vacuous.

"For every input meeting the preconditions, ..." is true of no input at all
when the preconditions cannot hold together (``M[0,0] > M[0,0]``), and every
engine would prove it. So no obligation is PROVED until an input meeting every
precondition has been exhibited and evaluated exactly: this module looks for
one, by random search (the same inputs as the counterexample search) and then
by a z3 model of the preconditions, each checked exactly
(:func:`usim.engine.replay.evaluate_at`). It answers

* PROVED (a witness was found; it is recorded with the construction's value
  there: exact, 50 digits, or why it is undefined),
* VACUOUS when z3 shows the preconditions unsatisfiable, or when no witness is
  found: the obligation is then VACUOUS, never PROVED.
"""

from __future__ import annotations

import random
import time
import zlib
from fractions import Fraction
from typing import Any, Mapping

import sympy
import z3

from usim.encodings.smt import SmtInterpretation
from usim.engine.claim import EngineResult, Obligation, Status, Witness
from usim.engine.replay import (
    _show,
    entry_names,
    evaluate_at,
    preconditions_hold,
    random_point,
    symbol_matrices,
)
from usim.engine.translate import TranslationError, model_point, to_z3
from usim.errors import EvaluationError

ENGINE = "witness"
TRIES = 200


def _witness(ob: Obligation, point: Mapping[str, Fraction], found_by: str) -> Witness | None:
    """The point as a witness if the preconditions hold there (exactly)."""
    try:
        evaluation = evaluate_at(ob, point)
    except (EvaluationError, ZeroDivisionError) as error:
        return Witness(_inputs(ob, point), found_by, f"failed: {error}") if preconditions_hold(ob, point) else None
    if evaluation is None:
        return None
    undefined = evaluation.undefined()
    if undefined is not None:
        p, side, value = undefined
        text = f"{evaluation.mode}; the {side} is {value} at position {p}"
    else:
        text = evaluation.mode
    return Witness({k: [[_show(x) for x in row] for row in v] for k, v in evaluation.matrices.items()},
                   found_by, text)


def _inputs(ob: Obligation, point: Mapping[str, Fraction]) -> dict[str, list[list[str]]]:
    layout = ob.construction.input_layout
    return {b.name: [[str(point[f"{b.name}[{i},{j}]"]) for j in range(b.shape.cols)]
                     for i in range(b.shape.rows)] for b in layout.blocks}


def find_witness(ob: Obligation, timeout: float) -> EngineResult:
    start = time.perf_counter()
    elapsed = lambda: time.perf_counter() - start  # noqa: E731
    rng = random.Random(zlib.crc32(repr((ob.claim_id, ob.shape, "witness")).encode()))
    tries = 1 if ob.preconditions is None else TRIES
    for attempt in range(tries):
        if attempt and elapsed() > timeout:
            return EngineResult(ENGINE, Status.UNKNOWN, elapsed(),
                                f"timeout after {timeout:g} s ({attempt} random inputs tried)")
        found = _witness(ob, random_point(ob, rng), "random search")
        if found is not None:
            return EngineResult(ENGINE, Status.PROVED, elapsed(), f"input {found.describe()}",
                                witness=found)
    if ob.preconditions is None:  # pragma: no cover - every input meets no precondition
        return EngineResult(ENGINE, Status.ERROR, elapsed(), "an input without preconditions failed")
    return _by_z3(ob, max(0.5, timeout - elapsed()), start)


def _by_z3(ob: Obligation, budget: float, start: float) -> EngineResult:
    elapsed = lambda: time.perf_counter() - start  # noqa: E731
    layout = ob.construction.input_layout
    make = z3.Int if ob.domain == "integer" else z3.Real
    consts = {name: make(name) for name in entry_names(layout) if not name.startswith("padding")}
    matrices = symbol_matrices(layout, ob.domain)
    interp = SmtInterpretation()
    try:
        relations: list[Any] = [to_z3(r, consts, interp) for r in
                                ob.preconditions({k: sympy.Matrix(v) for k, v in matrices.items()})]
    except TranslationError as error:
        return EngineResult(ENGINE, Status.VACUOUS, elapsed(),
                            f"no input meeting the preconditions found at {TRIES} random points, and "
                            f"z3 cannot state them ({error})")
    solver = z3.Solver()
    solver.set("timeout", max(1, int(budget * 1000)))
    solver.add(*interp.facts, *relations)
    if ob.values is not None:
        solver.add(*[z3.Or([c == v for v in ob.values]) for c in consts.values()])
    answer = solver.check()
    if answer == z3.unsat:
        return EngineResult(ENGINE, Status.VACUOUS, elapsed(),
                            "the preconditions are unsatisfiable (z3: unsat): the statement is vacuous")
    if answer == z3.sat:
        found = _witness(ob, model_point(solver.model(), consts), "z3 model")
        if found is not None:
            return EngineResult(ENGINE, Status.PROVED, elapsed(), f"input {found.describe()}",
                                witness=found)
        reason = "z3's model does not meet them exactly (it may use exp as an arbitrary function)"
    else:
        reason = f"z3 answered unknown ({solver.reason_unknown()})"
    return EngineResult(ENGINE, Status.VACUOUS, elapsed(),
                        f"no input meeting the preconditions found ({TRIES} random points; {reason})")
