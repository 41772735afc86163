"""The sympy engine: the construction interpreted symbolically, compared by canonical forms.

The inputs are symbols named after their entries; each position of the
construction's output is compared with the target's by canonical forms
(:mod:`usim.engine.canonical`). Equal forms at every position: PROVED.
Otherwise random points (then a z3 model) are searched for a witness, which is
replayed (:mod:`usim.engine.solvers.counterexamples`): a replayed witness is
REFUTED; no witness, or a form it cannot decide (Max, Piecewise...), is
UNKNOWN.
"""

from __future__ import annotations

from usim.encodings.symbolic import SymbolicInterpretation
from usim.engine.canonical import Atoms, Verdict, compare
from usim.engine.claim import EngineResult, Obligation, Status
from usim.engine.replay import entry_names, output_of, symbolic_target
from usim.engine.solvers.base import Clock, Engine
from usim.engine.solvers.counterexamples import refuted_or_unknown


class SympyEngine(Engine):
    """Canonical forms of sympy terms (see the module's docstring)."""

    name = "sympy"

    def check(self, ob: Obligation, timeout: float) -> EngineResult:
        clock = Clock(timeout)
        layout = ob.construction.input_layout
        matrices, expected = symbolic_target(ob)
        got = output_of(ob, SymbolicInterpretation(), layout.encode(matrices))
        names = entry_names(ob.construction.output_layout)
        atoms = Atoms()
        undecided = []
        for p, (g, e) in enumerate(zip(got, expected)):
            if clock.expired:
                return EngineResult(self.name, Status.UNKNOWN, clock.elapsed,
                                    f"timeout after {timeout:g} s at position {p} of {len(got)}")
            verdict = compare(g, e, atoms)
            if verdict is Verdict.UNEQUAL:
                return refuted_or_unknown(
                    self.name, ob, clock, f"canonical forms differ at {names[p]}")
            if verdict is Verdict.UNDECIDED:
                undecided.append(names[p])
        if undecided:
            return refuted_or_unknown(
                self.name, ob, clock,
                f"canonical forms cannot decide {len(undecided)} position(s) (e.g. {undecided[0]}: "
                "Max/Min/Piecewise/floor are not rational functions)")
        return EngineResult(self.name, Status.PROVED, clock.elapsed,
                            f"{len(got)} positions equal as canonical forms")


check_sympy = SympyEngine().check
"""The sympy engine's answer on an obligation: ``check_sympy(ob, timeout)``."""
