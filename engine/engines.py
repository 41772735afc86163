"""The engines that discharge an obligation: sympy, z3, exhaustive.

Each engine answers PROVED, REFUTED or UNKNOWN for "for every input in the
domain satisfying the preconditions, the construction's output sequence equals
the target sequence", and never PROVED without a proof:

``sympy``
    Interprets the construction symbolically (inputs are symbols named after
    their entries) and compares each position with the target by canonical
    forms (:mod:`usim.engine.canonical`). Equal forms: PROVED. Otherwise random
    points are searched for a witness, which is replayed; a replayed witness is
    REFUTED; no witness, or a form it cannot decide (Max, Piecewise...), is
    UNKNOWN.
``z3``
    Interprets the construction in z3 (exp uninterpreted and positive) and asks
    whether some position can differ under the preconditions. unsat: PROVED.
    sat: the model is replayed; if it does not replay (it may rely on exp being
    uninterpreted), random points are searched; none found: UNKNOWN. unknown or
    timeout: UNKNOWN.
``exhaustive``
    For a finite domain (``Obligation.values``): every input is run exactly and
    compared with the target evaluated exactly. All agree: PROVED (for that
    domain only, which the claim states).

A timeout is UNKNOWN. Engines check the clock between positions; the runner
also kills an engine that overruns its deadline.
"""

from __future__ import annotations

import itertools
import time
from fractions import Fraction
from typing import Callable

import sympy
import z3

from usim.encodings.evaluate import EXACT
from usim.encodings.smt import SmtInterpretation, real
from usim.encodings.symbolic import SymbolicInterpretation
from usim.engine.canonical import Atoms, Verdict, compare
from usim.engine.claim import EngineResult, Obligation, Status
from usim.engine.replay import (
    entry_names,
    expected_sequence,
    output_of,
    preconditions_hold,
    replay,
    search_witness,
    symbol_matrices,
)
from usim.engine.translate import TranslationError, to_z3
from usim.errors import EvaluationError, NotExactError

EXHAUSTIVE_LIMIT = 20_000


class _Clock:
    def __init__(self, timeout: float) -> None:
        self.start = time.perf_counter()
        self.timeout = timeout

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    @property
    def expired(self) -> bool:
        return self.elapsed > self.timeout


def _refuted_or_unknown(engine: str, ob: Obligation, clock: _Clock, reason: str) -> EngineResult:
    witness = search_witness(ob)
    if witness is not None:
        return EngineResult(engine, Status.REFUTED, clock.elapsed, reason, witness)
    return EngineResult(engine, Status.UNKNOWN, clock.elapsed,
                        reason + "; no counterexample found at 200 random points")


def check_sympy(ob: Obligation, timeout: float) -> EngineResult:
    clock = _Clock(timeout)
    layout = ob.construction.input_layout
    matrices = symbol_matrices(layout, ob.domain)
    got = output_of(ob, SymbolicInterpretation(), layout.encode(matrices))
    expected = expected_sequence(ob, matrices)
    names = entry_names(ob.construction.output_layout)
    atoms = Atoms()
    undecided = []
    for p, (g, e) in enumerate(zip(got, expected)):
        if clock.expired:
            return EngineResult("sympy", Status.UNKNOWN, clock.elapsed,
                                f"timeout after {timeout:g} s at position {p} of {len(got)}")
        verdict = compare(g, e, atoms)
        if verdict is Verdict.UNEQUAL:
            return _refuted_or_unknown(
                "sympy", ob, clock, f"canonical forms differ at {names[p]}")
        if verdict is Verdict.UNDECIDED:
            undecided.append(names[p])
    if undecided:
        return _refuted_or_unknown(
            "sympy", ob, clock,
            f"canonical forms cannot decide {len(undecided)} position(s) (e.g. {undecided[0]}: "
            "Max/Min/Piecewise/floor are not rational functions)")
    return EngineResult("sympy", Status.PROVED, clock.elapsed,
                        f"{len(got)} positions equal as canonical forms")


def _model_point(ob: Obligation, model: z3.ModelRef, consts: dict[str, z3.ExprRef]) -> dict[str, Fraction]:
    point = {}
    for name, c in consts.items():
        v = model.eval(c, model_completion=True)
        if isinstance(v, z3.IntNumRef):
            point[name] = Fraction(v.as_long())
        elif isinstance(v, z3.RatNumRef):
            point[name] = v.as_fraction()
        else:  # an algebraic number: a close rational (replay decides)
            point[name] = Fraction(v.approx(30).as_fraction())
    return point


def check_z3(ob: Obligation, timeout: float) -> EngineResult:
    clock = _Clock(timeout)
    layout = ob.construction.input_layout
    make = z3.Int if ob.domain == "integer" else z3.Real
    consts = {name: make(name) for name in entry_names(layout) if not name.startswith("padding")}
    z3_matrices = layout.symbols(lambda name: consts[name])
    interp = SmtInterpretation()
    got = output_of(ob, interp, layout.encode(z3_matrices, fill=z3.IntVal(0)))
    sym_matrices = symbol_matrices(layout, ob.domain)
    expected_sym = expected_sequence(ob, sym_matrices)
    try:
        expected = [to_z3(e, consts, interp) for e in expected_sym]
        preconditions = [to_z3(r, consts, interp) for r in
                         (ob.preconditions(
                             {k: sympy.Matrix(v) for k, v in sym_matrices.items()})
                          if ob.preconditions else [])]
    except TranslationError as error:
        return EngineResult("z3", Status.UNKNOWN, clock.elapsed, f"cannot state the target in z3: {error}")
    differences = []
    for p, (g, e) in enumerate(zip(got, expected)):
        if clock.expired:
            return EngineResult("z3", Status.UNKNOWN, clock.elapsed,
                                f"timeout after {timeout:g} s while simplifying position {p}")
        if isinstance(g, z3.BoolRef) or isinstance(e, z3.BoolRef):
            differences.append(g != e)
            continue
        if z3.is_arith(g) and z3.is_arith(e):
            d = z3.simplify(real(g) - real(e))
            if z3.is_rational_value(d) and d.as_fraction() == 0:
                continue
        differences.append(real(g) != real(e) if z3.is_arith(g) and z3.is_arith(e) else g != e)
    if not differences:
        return EngineResult("z3", Status.PROVED, clock.elapsed, "every position simplifies to the target")
    # One query per position that does not simplify away: many small queries are
    # far easier for z3 than one disjunction over every position.
    base = list(interp.facts) + preconditions
    if ob.values is not None:
        base += [z3.Or([c == v for v in ob.values]) for c in consts.values()]
    for index, difference in enumerate(differences):
        remaining = timeout - clock.elapsed
        if remaining <= 0:
            return EngineResult("z3", Status.UNKNOWN, clock.elapsed,
                                f"timeout after {timeout:g} s ({index} of {len(differences)} positions proved)")
        solver = z3.Solver()
        solver.set("timeout", max(1, int(remaining * 1000)))
        solver.add(*base)
        solver.add(difference)
        answer = solver.check()
        if answer == z3.unsat:
            continue
        if answer == z3.unknown:
            reason = solver.reason_unknown()
            if "timeout" in reason or "canceled" in reason or clock.expired:
                reason = f"timeout after {timeout:g} s ({reason})"
            return EngineResult("z3", Status.UNKNOWN, clock.elapsed,
                                f"z3 answered unknown at position {index}: {reason}")
        point = _model_point(ob, solver.model(), consts)
        witness = replay(ob, point)
        if witness is not None:
            return EngineResult("z3", Status.REFUTED, clock.elapsed, "z3 model replayed", witness)
        return _refuted_or_unknown("z3", ob, clock,
                                   "z3's model did not replay (it may use exp as an arbitrary function)")
    return EngineResult("z3", Status.PROVED, clock.elapsed,
                        f"no input makes any of {len(differences)} position(s) differ (unsat each)")


def check_exhaustive(ob: Obligation, timeout: float) -> EngineResult:
    clock = _Clock(timeout)
    if ob.values is None:
        return EngineResult("exhaustive", Status.UNKNOWN, 0.0, "the domain is not finite")
    layout = ob.construction.input_layout
    names = [n for n in entry_names(layout) if not n.startswith("padding")]
    total = len(ob.values) ** len(names)
    if total > EXHAUSTIVE_LIMIT:
        return EngineResult("exhaustive", Status.UNKNOWN, 0.0,
                            f"{total} inputs exceed the exhaustive limit {EXHAUSTIVE_LIMIT}")
    sym = symbol_matrices(layout, ob.domain)
    expected_exprs = expected_sequence(ob, sym)
    symbols = [s for row in (r for m in sym.values() for r in m) for s in row]
    evaluate_expected: Callable = sympy.lambdify(symbols, expected_exprs, modules=[{}, "sympy"])
    checked = 0
    for values in itertools.product(ob.values, repeat=len(names)):
        if clock.expired:
            return EngineResult("exhaustive", Status.UNKNOWN, clock.elapsed,
                                f"timeout after {checked} of {total} inputs")
        point = dict(zip(names, (Fraction(v) for v in values)))
        if not preconditions_hold(ob, point):
            continue
        tokens = layout.encode({b.name: [[point[f"{b.name}[{i},{j}]"] for j in range(b.shape.cols)]
                                         for i in range(b.shape.rows)] for b in layout.blocks})
        try:
            got = output_of(ob, EXACT, tokens)
        except (NotExactError, EvaluationError):
            return EngineResult("exhaustive", Status.UNKNOWN, clock.elapsed,
                                "the construction has no exact value on this domain")
        expected = evaluate_expected(*[sympy.Rational(v.numerator, v.denominator) for v in point.values()])
        checked += 1
        if any(Fraction(g) != Fraction(int(sympy.Rational(e).p), int(sympy.Rational(e).q))
               for g, e in zip(got, expected)):
            witness = replay(ob, point)
            if witness is None:  # pragma: no cover - replay recomputes the same values
                return EngineResult("exhaustive", Status.ERROR, clock.elapsed,
                                    "a difference did not replay: internal error")
            return EngineResult("exhaustive", Status.REFUTED, clock.elapsed,
                                f"input {checked} of {total} differs", witness)
    return EngineResult("exhaustive", Status.PROVED, clock.elapsed,
                        f"all {checked} inputs over {sorted(ob.values)} agree")


ENGINES: dict[str, Callable[[Obligation, float], EngineResult]] = {
    "sympy": check_sympy,
    "z3": check_z3,
    "exhaustive": check_exhaustive,
}
