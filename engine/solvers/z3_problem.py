"""An obligation stated in z3: one "this position differs" per position.

The construction is interpreted in z3 (:class:`usim.encodings.smt.SmtInterpretation`:
exp uninterpreted and positive), the target and the preconditions translated
from sympy (:func:`usim.engine.translate.to_z3`). Both the z3 engine and the
counterexample search (:mod:`usim.engine.solvers.counterexamples`) ask z3
about it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy
import z3

from usim.encodings.smt import SmtInterpretation, real
from usim.engine.claim import Obligation
from usim.engine.replay import entry_names, output_of, symbolic_target
from usim.engine.solvers.base import Clock
from usim.engine.translate import model_point, to_z3


@dataclass(frozen=True)
class Z3Answer:
    """z3's answer on one position: sat, unsat or unknown, why it is unknown, the
    model's input by name where sat, and z3's count of its own work (rlimit)."""

    result: z3.CheckSatResult
    reason: str
    point: dict[str, Fraction] | None
    effort: int


@dataclass
class Z3Problem:
    """An obligation in z3: one "this position differs" per position that does
    not simplify away, and the assumptions (facts, preconditions, finite domain)."""

    consts: dict[str, z3.ExprRef]
    differences: list[tuple[int, z3.BoolRef]]
    base: list[z3.BoolRef]

    def ask(self, difference: z3.BoolRef, seconds: float) -> Z3Answer:
        """Can ``difference`` hold under the assumptions? Asked in a z3 context of its
        own, the query's terms copied into it, so that z3's answer is the same in every
        process: in the process's one context z3 orders variables and terms by their
        ids, which depend on every term built before (the performer claim's query at
        2 x 2 x 1 took 1 s alone and ran past 30 s late in a full test run).

        Args:
            difference: one of :attr:`differences`' formulas.
            seconds: z3's time limit.

        Returns:
            z3's answer, with the model's input where it is sat.
        """
        context = z3.Context()
        solver = z3.Solver(ctx=context)
        solver.set("timeout", max(1, int(seconds * 1000)))
        solver.add(*(f.translate(context) for f in self.base), difference.translate(context))
        result = solver.check()
        point = None
        if result == z3.sat:
            point = model_point(solver.model(), {k: c.translate(context) for k, c in self.consts.items()})
        effort = next((int(value) for key, value in solver.statistics() if key == "rlimit count"), 0)
        return Z3Answer(result, solver.reason_unknown() if result == z3.unknown else "", point, effort)


def z3_problem(ob: Obligation, clock: Clock | None = None) -> Z3Problem:
    """``ob`` in z3.

    Args:
        ob: the obligation.
        clock: the engine's clock, looked at between positions (None: never).

    Returns:
        The constants by entry name, the differences, the assumptions.

    Raises TranslationError when the target cannot be stated, TimeoutError on the clock.
    """
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
    return Z3Problem(consts, differences, base)
