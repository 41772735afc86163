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
``cvc5`` (optional: ``pip install cvc5``)
    The construction's and the target's sympy terms written as SMT-LIB, exp as
    cvc5's *real* exponential (so exp(a)exp(b) = exp(a+b) is known, unlike
    the other engines' atoms), one ``(check-sat)`` per position of "this
    position differs" under the preconditions. cvc5 runs in a child process
    that is killed at the deadline (it can ignore its own time limit). unsat
    at every position: PROVED, and nothing else ever is. Otherwise (sat,
    unknown, a timeout, a term it cannot state) random points are searched for
    a witness, which is replayed: REFUTED if one replays, else UNKNOWN. It pays on
    exp-heavy identities (softmax at r = c = 16 in 0.6 s where z3 times out at
    60 s; see docs/engines.md), not on refutations.
``exhaustive``
    For a finite domain (``Obligation.values``): every input is run exactly and
    compared with the target evaluated exactly. All agree: PROVED (for that
    domain only, which the claim states).

A timeout is UNKNOWN. Engines check the clock between positions; the runner
also kills an engine that overruns its deadline.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Mapping, Sequence

import sympy
import z3

from usim.encodings.evaluate import EXACT
from usim.encodings.smt import SmtInterpretation, real
from usim.encodings.symbolic import IsInteger, SymbolicInterpretation
from usim.engine.canonical import Atoms, Verdict, compare
from usim.engine.claim import Counterexample, EngineResult, Obligation, Status
from usim.engine.replay import (
    entry_names,
    output_of,
    preconditions_hold,
    replay,
    search_witness,
    symbolic_target,
)
from usim.engine.options import ENGINE_NAMES
from usim.engine.translate import TranslationError, model_point, to_z3
from usim.encodings.domain import Undefined
from usim.errors import EvaluationError, NotExactError, UndefinedError

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


Z3_SEARCH_SECONDS = 10.0


def _refuted_or_unknown(engine: str, ob: Obligation, clock: _Clock, reason: str,
                        use_z3: bool = True) -> EngineResult:
    """After "not proved": a replayed counterexample from random inputs (up to 200,
    at least one, no more once the engine's time is out) or from a z3 model
    (within the time left, at most Z3_SEARCH_SECONDS), else UNKNOWN."""
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


def check_sympy(ob: Obligation, timeout: float) -> EngineResult:
    clock = _Clock(timeout)
    layout = ob.construction.input_layout
    matrices, expected = symbolic_target(ob)
    got = output_of(ob, SymbolicInterpretation(), layout.encode(matrices))
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


@dataclass
class _Z3Problem:
    """An obligation in z3: one "this position differs" per position that does
    not simplify away, and the assumptions (facts, preconditions, finite domain)."""

    consts: dict[str, z3.ExprRef]
    differences: list[tuple[int, z3.BoolRef]]
    base: list[z3.BoolRef]


def _z3_problem(ob: Obligation, clock: _Clock | None = None) -> _Z3Problem:
    """Raises TranslationError when the target cannot be stated, TimeoutError on the clock."""
    layout = ob.construction.input_layout
    make = z3.Int if ob.domain == "integer" else z3.Real
    consts = {name: make(name) for name in entry_names(layout) if not name.startswith("padding")}
    z3_matrices = layout.symbols(lambda name: consts[name])
    interp = SmtInterpretation()
    got = output_of(ob, interp, layout.encode(z3_matrices, fill=z3.IntVal(0)))
    sym_matrices, sym_expected = symbolic_target(ob)
    expected = [to_z3(e, consts, interp) for e in sym_expected]
    preconditions = [to_z3(r, consts, interp) for r in
                     (ob.preconditions({k: sympy.Matrix(v) for k, v in sym_matrices.items()})
                      if ob.preconditions else [])]
    differences = []
    for p, (g, e) in enumerate(zip(got, expected, strict=True)):
        if clock is not None and clock.expired:
            raise TimeoutError(f"timeout after {clock.timeout:g} s while simplifying position {p}")
        if isinstance(g, z3.BoolRef) or isinstance(e, z3.BoolRef):
            differences.append((p, g != e))
            continue
        if z3.is_arith(g) and z3.is_arith(e):
            d = z3.simplify(real(g) - real(e))
            if z3.is_rational_value(d) and d.as_fraction() == 0:
                continue
        differences.append((p, real(g) != real(e) if z3.is_arith(g) and z3.is_arith(e) else g != e))
    base = list(interp.facts) + preconditions
    if ob.values is not None:
        base += [z3.Or([c == v for v in ob.values]) for c in consts.values()]
    return _Z3Problem(consts, differences, base)


def z3_counterexample(ob: Obligation, budget: float) -> Counterexample | None:
    """A z3 model of "some position differs", replayed; None if there is none
    within ``budget`` seconds (or it does not replay). Reaches differences that
    random inputs miss (a value of exactly 12345)."""
    deadline = time.perf_counter() + budget
    try:
        problem = _z3_problem(ob)
    except (TranslationError, TimeoutError):
        return None
    for _, difference in problem.differences:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return None
        solver = z3.Solver()
        solver.set("timeout", max(1, int(remaining * 1000)))
        solver.add(*problem.base, difference)
        if solver.check() == z3.sat:
            found = replay(ob, model_point(solver.model(), problem.consts))
            if found is not None:
                return found
    return None


def check_z3(ob: Obligation, timeout: float) -> EngineResult:
    clock = _Clock(timeout)
    try:
        problem = _z3_problem(ob, clock)
    except TranslationError as error:
        return EngineResult("z3", Status.UNKNOWN, clock.elapsed, f"cannot state the target in z3: {error}")
    except TimeoutError as error:
        return EngineResult("z3", Status.UNKNOWN, clock.elapsed, str(error))
    differences = problem.differences
    if not differences:
        return EngineResult("z3", Status.PROVED, clock.elapsed, "every position simplifies to the target")
    # One query per position that does not simplify away: many small queries are
    # far easier for z3 than one disjunction over every position.
    for index, (_, difference) in enumerate(differences):
        remaining = timeout - clock.elapsed
        if remaining <= 0:
            return EngineResult("z3", Status.UNKNOWN, clock.elapsed,
                                f"timeout after {timeout:g} s ({index} of {len(differences)} positions proved)")
        solver = z3.Solver()
        solver.set("timeout", max(1, int(remaining * 1000)))
        solver.add(*problem.base)
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
        point = model_point(solver.model(), problem.consts)
        witness = replay(ob, point)
        if witness is not None:
            return EngineResult("z3", Status.REFUTED, clock.elapsed, "z3 model replayed", witness)
        return _refuted_or_unknown("z3", ob, clock,
                                   "z3's model did not replay (it may use exp as an arbitrary function, "
                                   "or the construction is undefined there)", use_z3=False)
    return EngineResult("z3", Status.PROVED, clock.elapsed,
                        f"no input makes any of {len(differences)} position(s) differ (unsat each)")


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
    sym, expected_exprs = symbolic_target(ob)
    symbols = [s for row in (r for m in sym.values() for r in m) for s in row]
    checked = undefined = 0
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
        except UndefinedError:  # a selector over an undefined value: the definedness check's business
            undefined += 1
            checked += 1
            continue
        except (NotExactError, EvaluationError):
            return EngineResult("exhaustive", Status.UNKNOWN, clock.elapsed,
                                "the construction has no exact value on this domain")
        expected = values_at(expected_exprs, dict(zip(symbols, (sympy.Rational(v.numerator, v.denominator)
                                                               for v in point.values()))))
        checked += 1
        differs = False
        for g, e in zip(got, expected, strict=True):
            e = sympy.sympify(e)
            if isinstance(g, Undefined) or not e.is_Rational:
                undefined += 1  # equality is claimed only where both sides are defined
                continue
            differs = differs or Fraction(g) != Fraction(int(e.p), int(e.q))
        if differs:
            witness = replay(ob, point)
            if witness is None:  # pragma: no cover - replay recomputes the same values
                return EngineResult("exhaustive", Status.ERROR, clock.elapsed,
                                    "a difference did not replay: internal error")
            return EngineResult("exhaustive", Status.REFUTED, clock.elapsed,
                                f"input {checked} of {total} differs", witness)
    if checked == 0:
        return EngineResult("exhaustive", Status.VACUOUS, clock.elapsed,
                            f"none of the {total} inputs over {sorted(ob.values)} meets the preconditions")
    note = f" ({undefined} undefined position(s) left to the definedness check)" if undefined else ""
    return EngineResult("exhaustive", Status.PROVED, clock.elapsed,
                        f"all {checked} inputs over {sorted(ob.values)} agree{note}")


# -- cvc5: SMT-LIB with the real exponential, in a child process ----------------

class SmtLibError(Exception):
    """A term the SMT-LIB writer cannot state."""


class SmtLib:
    """Sympy terms as an SMT-LIB 2 script: every distinct compound sub-term once,
    as a ``define-fun`` (so shared sub-terms stay shared), numbers exactly.

    Symbols are declared Real (Int for the integer domain); ``exp`` is cvc5's
    real exponential; Piecewise, Max, Min and Abs are ``ite``; floor is
    ``to_int`` and Mod(a, b) is a - b floor(a/b); relations and connectives are
    Booleans. Anything else raises :class:`SmtLibError`, never approximated.

    A definition is written where it is read: the global scope (:attr:`lines`)
    holds the declarations and the assertions made there (:meth:`assertion`),
    with the definitions they read, and each check (:meth:`check_differs`)
    states the definitions it reads inside its own ``push``/``pop``. cvc5
    spends time on every global definition at every ``check-sat``: one of U's
    stages at n = d = 32 (67 000 definitions, 3 075 checks) ran past 60 s
    with them global, and takes about a second so.
    """

    def __init__(self, sort: str = "Real") -> None:
        self.sort = sort
        self.lines = ["(set-logic ALL)"]
        self.names: dict[sympy.Basic, str] = {}
        self.declared: dict[str, str] = {}
        self.definitions: dict[str, tuple[str, tuple[str, ...]]] = {}  # name -> (define-fun, names it reads)
        self.global_names: set[str] = set()  # definitions written in the global scope
        self._reading: list[list[str]] = []  # the definitions each compound being written reads

    def declare(self, name: str) -> str:
        if name not in self.declared:
            quoted = "|" + name.replace("|", "_").replace("\\", "_") + "|"
            self.declared[name] = quoted
            self.lines.append(f"(declare-const {quoted} {self.sort})")
        return self.declared[name]

    @staticmethod
    def number(q: Fraction) -> str:
        text = f"{abs(q.numerator)}.0" if q.denominator == 1 else f"(/ {abs(q.numerator)}.0 {q.denominator}.0)"
        return f"(- {text})" if q < 0 else text

    def term(self, e: object) -> str:
        """The term's text: a number, a constant, or the name of its definition."""
        e = sympy.sympify(e)
        name = self.names.get(e)
        if name is None:
            if e is sympy.true:
                return "true"
            if e is sympy.false:
                return "false"
            if isinstance(e, sympy.Symbol):
                return self.declare(e.name)
            if isinstance(e, sympy.Rational):
                return self.number(Fraction(int(e.p), int(e.q)))
            if isinstance(e, sympy.Float):  # not an exact number: never rounded into a proof
                raise SmtLibError(f"the floating-point number {e} is not exact")
            self._reading.append([])
            try:
                body = self._compound(e)
            finally:
                reads = tuple(dict.fromkeys(self._reading.pop()))
            name = f"t{len(self.names)}"
            kind = "Bool" if isinstance(e, sympy.logic.boolalg.Boolean) else "Real"
            self.definitions[name] = (f"(define-fun {name} () {kind} {body})", reads)
            self.names[e] = name
        if self._reading:
            self._reading[-1].append(name)
        return name

    def definitions_for(self, *texts: str) -> list[str]:
        """The definitions the terms ``texts`` read, directly or through others,
        that the global scope lacks, each before those that read it."""
        needed: set[str] = set()
        stack = [t for t in texts if t in self.definitions]
        while stack:
            name = stack.pop()
            if name in needed or name in self.global_names:
                continue
            needed.add(name)
            stack.extend(self.definitions[name][1])
        return [self.definitions[name][0] for name in sorted(needed, key=lambda t: int(t[1:]))]

    def assertion(self, relation: object) -> None:
        """``relation`` asserted in the global scope (a precondition)."""
        text = self.term(relation)
        for line in self.definitions_for(text):
            self.lines.append(line)
            self.global_names.add(line.split()[1])
        self.lines.append(f"(assert {text})")

    def check_differs(self, got: object, expected: object) -> str:
        """A check in its own scope: can ``got`` differ from ``expected``?"""
        g, e = self.term(got), self.term(expected)
        return f"(push 1){''.join(self.definitions_for(g, e))}(assert (not (= {g} {e})))(check-sat)(pop 1)"

    def script(self, checks: list[str]) -> str:
        """The whole script: the global scope, then the checks."""
        return "\n".join(self.lines + checks) + "\n"

    def _compound(self, e: sympy.Basic) -> str:
        go = self.term
        relations = {sympy.Eq: "=", sympy.Lt: "<", sympy.Le: "<=", sympy.Gt: ">", sympy.Ge: ">="}
        if isinstance(e, sympy.Add):
            return "(+ " + " ".join(go(a) for a in e.args) + ")"
        if isinstance(e, sympy.Mul):
            return "(* " + " ".join(go(a) for a in e.args) + ")"
        if isinstance(e, sympy.Pow) and e.exp.is_Integer:
            k, base = int(e.exp), go(e.base)
            power = base if abs(k) == 1 else "(* " + " ".join([base] * abs(k)) + ")"
            return power if k > 0 else ("1.0" if k == 0 else f"(/ 1.0 {power})")
        if isinstance(e, sympy.exp):
            return f"(exp {go(e.args[0])})"
        if isinstance(e, sympy.Piecewise):
            *branches, (last, condition) = e.args
            if condition is not sympy.true:
                raise SmtLibError("a Piecewise with no otherwise-branch")
            out = go(last)
            for value, cond in reversed(branches):
                out = f"(ite {go(cond)} {go(value)} {out})"
            return out
        if isinstance(e, (sympy.Max, sympy.Min)):
            out, pick = go(e.args[0]), ">=" if isinstance(e, sympy.Max) else "<="
            for a in e.args[1:]:
                out = f"(ite ({pick} {out} {go(a)}) {out} {go(a)})"
            return out
        if isinstance(e, sympy.Abs):
            a = go(e.args[0])
            return f"(ite (>= {a} 0.0) {a} (- {a}))"
        if isinstance(e, sympy.floor):
            return f"(to_real (to_int {go(e.args[0])}))"
        if isinstance(e, sympy.Mod):
            a, b = go(e.args[0]), go(e.args[1])
            return f"(- {a} (* {b} (to_real (to_int (/ {a} {b})))))"
        if type(e) in relations:
            return f"({relations[type(e)]} {go(e.lhs)} {go(e.rhs)})"
        if isinstance(e, sympy.Ne):
            return f"(not (= {go(e.lhs)} {go(e.rhs)}))"
        if isinstance(e, (sympy.And, sympy.Or)):
            return f"({'and' if isinstance(e, sympy.And) else 'or'} " + " ".join(go(a) for a in e.args) + ")"
        if isinstance(e, sympy.Not):
            return f"(not {go(e.args[0])})"
        if isinstance(e, sympy.Implies):
            return f"(=> {go(e.args[0])} {go(e.args[1])})"
        if isinstance(e, IsInteger):
            return f"(is_int {go(e.args[0])})"
        raise SmtLibError(f"no SMT-LIB term for {type(e).__name__}")


CVC5_CHILD = r"""
import json, sys
try:  # die with the engine process that started us (Linux), even if it is killed
    import ctypes, signal
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
except Exception:
    pass
import cvc5
tm = cvc5.TermManager()
solver = cvc5.Solver(tm)
solver.setOption("produce-models", "true")
symbols = cvc5.SymbolManager(tm)
parser = cvc5.InputParser(solver, symbols)
parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, sys.stdin.read(), "obligation")
while True:
    command = parser.nextCommand()
    if command.isNull():
        break
    answer = command.invoke(solver, symbols).strip()
    if answer == "sat":  # the model, as exact rationals where cvc5 has them
        model = {}
        for term in symbols.getDeclaredTerms():
            value = solver.getValue(term)
            if value.isRealValue():
                model[str(term).strip("|")] = str(value.getRealValue())
        print("sat " + json.dumps(model), flush=True)
    elif answer:
        print(answer, flush=True)
"""


def cvc5_available() -> bool:
    return importlib.util.find_spec("cvc5") is not None


def run_cvc5_script(script: str, timeout: float) -> tuple[list[str], str | None]:
    """The answers of a cvc5 child process to ``script``; killed at ``timeout``.

    Returns (answers so far, None) or (answers so far, why it stopped early);
    an answer is one line: "unsat", "unknown", or "sat" and the model as JSON.
    """
    child = subprocess.Popen([sys.executable, "-c", CVC5_CHILD], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = child.communicate(script, timeout=max(0.05, timeout))
    except subprocess.TimeoutExpired:
        child.kill()  # the child we started, by its handle
        out, _ = child.communicate()
        return out.splitlines(), f"timeout after {timeout:g} s (cvc5 killed)"
    if child.returncode != 0:
        last = err.strip().splitlines()[-1] if err.strip() else f"exit status {child.returncode}"
        return out.splitlines(), f"cvc5 failed: {last}"
    return out.splitlines(), None


def check_cvc5(ob: Obligation, timeout: float) -> EngineResult:
    clock = _Clock(timeout)
    if not cvc5_available():
        return EngineResult("cvc5", Status.UNKNOWN, 0.0, "cvc5 is not installed (pip install cvc5)")
    layout = ob.construction.input_layout
    matrices, expected = symbolic_target(ob)
    got = output_of(ob, SymbolicInterpretation(), layout.encode(matrices))
    smt = SmtLib("Int" if ob.domain == "integer" else "Real")
    try:
        for name in entry_names(layout):
            if not name.startswith("padding"):
                constant = smt.declare(name)
                if ob.values is not None:
                    options = " ".join(f"(= {constant} {smt.number(Fraction(v))})" for v in ob.values)
                    smt.lines.append(f"(assert (or {options}))")
        if ob.preconditions:
            for relation in ob.preconditions({k: sympy.Matrix(v) for k, v in matrices.items()}):
                smt.assertion(relation)
        checks = [smt.check_differs(g, e) for g, e in zip(got, expected)]
    except SmtLibError as error:
        return _refuted_or_unknown("cvc5", ob, clock, f"cannot state the obligation in SMT-LIB: {error}")
    if clock.expired:
        return EngineResult("cvc5", Status.UNKNOWN, clock.elapsed, f"timeout after {timeout:g} s (writing SMT-LIB)")
    answers, stopped = run_cvc5_script(smt.script(checks), timeout - clock.elapsed)
    names = entry_names(ob.construction.output_layout)
    for p, answer in enumerate(answers):
        if answer.startswith("sat"):
            model = json.loads(answer[3:] or "{}")
            point = {name: Fraction(value) for name, value in model.items()}
            if set(point) >= {n for n in entry_names(layout) if not n.startswith("padding")}:
                witness = replay(ob, point)
                if witness is not None:
                    return EngineResult("cvc5", Status.REFUTED, clock.elapsed,
                                        f"cvc5 answered sat at {names[p]}; its model replayed", witness)
            return _refuted_or_unknown("cvc5", ob, clock,
                                       f"cvc5 answered sat at {names[p]} (its model did not replay)")
        if answer != "unsat":
            return _refuted_or_unknown("cvc5", ob, clock, f"cvc5 answered {answer} at {names[p]}")
    if stopped is not None or len(answers) != len(checks):
        # cvc5 rarely answers sat with exp: a random witness, replayed, may still refute
        return _refuted_or_unknown(
            "cvc5", ob, clock,
            f"{stopped or 'cvc5 stopped early'} ({len(answers)} of {len(checks)} positions proved)")
    return EngineResult("cvc5", Status.PROVED, clock.elapsed,
                        f"no input makes any of {len(checks)} position(s) differ (cvc5: unsat each, real exp)")


ENGINES: dict[str, Callable[[Obligation, float], EngineResult]] = dict(zip(
    ENGINE_NAMES, (check_sympy, check_z3, check_exhaustive, check_cvc5), strict=True))
