"""The cvc5 engine (optional: ``pip install cvc5``): SMT-LIB with the real exponential.

The construction's and the target's sympy terms are written as SMT-LIB
(:mod:`usim.engine.solvers.smtlib`), exp as cvc5's *real* exponential (so
exp(a)exp(b) = exp(a+b) is known, unlike the other engines' atoms), one
``(check-sat)`` per position of "this position differs" under the
preconditions. cvc5 runs in a child process (:mod:`usim.engine.solvers.cvc5_child`)
that is killed at the deadline (it can ignore its own time limit). unsat at
every position: PROVED, and nothing else ever is. Otherwise (sat, unknown, a
timeout, a term it cannot state) random points are searched for a witness,
which is replayed: REFUTED if one replays, else UNKNOWN. It pays on exp-heavy
identities (softmax at r = c = 16 in 0.6 s where z3 times out at 60 s; see
docs/engines.md), not on refutations.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import sympy

from usim.encodings.symbolic import SymbolicInterpretation
from usim.engine.claim import EngineResult, Obligation, Status
from usim.engine.replay import entry_names, output_of, replay, symbolic_target
from usim.engine.solvers import cvc5_child
from usim.engine.solvers.base import Clock, Engine
from usim.engine.solvers.counterexamples import refuted_or_unknown
from usim.engine.solvers.smtlib import SmtLib, SmtLibError

CVC5_CHILD = Path(cvc5_child.__file__).read_text(encoding="utf-8")
"""The source the child process runs (``python -c``): :mod:`usim.engine.solvers.cvc5_child`."""


def cvc5_available() -> bool:
    """Whether cvc5 is installed (the engine answers UNKNOWN when it is not).

    Returns:
        True if the module ``cvc5`` can be imported.
    """
    return importlib.util.find_spec("cvc5") is not None


def run_cvc5_script(script: str, timeout: float) -> tuple[list[str], str | None]:
    """The answers of a cvc5 child process to ``script``; killed at ``timeout``.

    Args:
        script: an SMT-LIB 2 script.
        timeout: seconds before the child is killed.

    Returns:
        (answers so far, None) or (answers so far, why it stopped early); an
        answer is one line: "unsat", "unknown", or "sat" and the model as JSON.
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


class Cvc5Engine(Engine):
    """cvc5 on SMT-LIB with the real exponential (see the module's docstring)."""

    name = "cvc5"

    def available(self) -> bool:
        return cvc5_available()

    def check(self, ob: Obligation, timeout: float) -> EngineResult:
        clock = Clock(timeout)
        if not cvc5_available():
            return EngineResult(self.name, Status.UNKNOWN, 0.0, "cvc5 is not installed (pip install cvc5)")
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
            return refuted_or_unknown(self.name, ob, clock, f"cannot state the obligation in SMT-LIB: {error}")
        if clock.expired:
            return EngineResult(self.name, Status.UNKNOWN, clock.elapsed,
                                f"timeout after {timeout:g} s (writing SMT-LIB)")
        answers, stopped = run_cvc5_script(smt.script(checks), timeout - clock.elapsed)
        names = entry_names(ob.construction.output_layout)
        for p, answer in enumerate(answers):
            if answer.startswith("sat"):
                model = json.loads(answer[3:] or "{}")
                point = {name: Fraction(value) for name, value in model.items()}
                if set(point) >= {n for n in entry_names(layout) if not n.startswith("padding")}:
                    witness = replay(ob, point)
                    if witness is not None:
                        return EngineResult(self.name, Status.REFUTED, clock.elapsed,
                                            f"cvc5 answered sat at {names[p]}; its model replayed", witness)
                return refuted_or_unknown(self.name, ob, clock,
                                          f"cvc5 answered sat at {names[p]} (its model did not replay)")
            if answer != "unsat":
                return refuted_or_unknown(self.name, ob, clock, f"cvc5 answered {answer} at {names[p]}")
        if stopped is not None or len(answers) != len(checks):
            # cvc5 rarely answers sat with exp: a random witness, replayed, may still refute
            return refuted_or_unknown(
                self.name, ob, clock,
                f"{stopped or 'cvc5 stopped early'} ({len(answers)} of {len(checks)} positions proved)")
        return EngineResult(self.name, Status.PROVED, clock.elapsed,
                            f"no input makes any of {len(checks)} position(s) differ (cvc5: unsat each, real exp)")


check_cvc5 = Cvc5Engine().check
"""The cvc5 engine's answer on an obligation: ``check_cvc5(ob, timeout)``."""
