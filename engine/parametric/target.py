"""The parametric engine's side of targets written once for every size.

A claim's target (and each step kind's meaning) is written with the helpers of
:mod:`usim.encodings.sized` (:func:`matrix_of`, :func:`total`, :func:`when`,
``.T`` and ``*`` of :class:`SymbolicMatrix`, re-exported here): at a fixed
size they are sympy's matrices and sums, for all sizes they call the active
context. The engine (:mod:`usim.engine.parametric.prove`) evaluates a symbolic
target inside a :class:`TargetContext`, which turns index expressions into z3
terms, records for every entry the target reads that its indices lie inside
its matrix (proved like every other step: a target that reads outside its
input states nothing), and turns :func:`when` into two complementary cases.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import sympy
import z3

from usim.encodings.sized import Cases, CasesInArithmetic, SymbolicMatrix, active, both, matrix_of, total, when
from usim.engine.parametric.integers import Formula, Term, condition_formula, translate
from usim.engine.parametric.steps import Unsupported
from usim.engine.parametric.terms import ParametricAtoms
from usim.engine.signs import Sign, SignAnalysis
from usim.rasp.family import INDEX, Condition, SymbolicInt

__all__ = ["Cases", "CasesInArithmetic", "SymbolicMatrix", "TargetContext", "active", "both", "matrix_of", "total", "when"]

Index = SymbolicInt | int

CASES_INSIDE = "a target's entry given by cases inside a sum or a product (outside the target fragment)"
"""Why a target whose cases are not at an entry's top is UNKNOWN (the engine splits them only there)."""


@dataclass
class TargetContext:
    """What a symbolic target needs while it is evaluated: z3 terms for the
    dimensions and for the index symbols in scope, the atoms, and the
    obligations its reading entails."""

    atoms: ParametricAtoms
    dims: dict[str, Term]
    fresh: Callable[[str], Term]
    positive: Callable[[Term], bool]
    proves: Callable[[list[Formula], Formula], bool]
    env: dict[str, Term] = field(default_factory=dict)
    facts: list[Formula] = field(default_factory=list)
    obligations: list[tuple[list[Formula], Formula, str]] = field(default_factory=list)

    def term(self, value: Index, what: str) -> Term:
        t = translate(value, self.env, self.dims, self.positive)
        for condition in t.defined:
            self.obligations.append((list(self.facts), condition, f"{what}: a division by zero"))
        return t.term

    def entry(self, name: str, rows: Index, cols: Index, i: Index, j: Index) -> sympy.Expr:
        row, col = self.term(i, f"{name}[{i}, {j}]"), self.term(j, f"{name}[{i}, {j}]")
        inside = (row >= 0) & (row < self.term(rows, name)) & (col >= 0) & (col < self.term(cols, name))
        self.obligations.append((list(self.facts), inside, f"the target reads {name}[{i}, {j}] inside {name}"))
        return self.atoms.entry(name, row, col)

    def total(self, extent: Index, term: Callable[[SymbolicInt], Any]) -> sympy.Expr:
        var = self.fresh("l")
        index = SymbolicInt("sym", var.decl().name(), INDEX)
        size = self.term(extent, "a sum's extent")
        self.env[var.decl().name()] = var
        self.facts.extend([var >= 0, var < size])
        try:
            body = term(index)
            if isinstance(body, Cases):
                raise Unsupported(CASES_INSIDE)
            body = sympy.sympify(body)
            positive = SignAnalysis().sign(body) is Sign.POSITIVE
        finally:
            del self.facts[-2:]
            del self.env[var.decl().name()]
        at_least_one = self.proves(list(self.facts), size >= 1)
        return self.atoms.total(var, size, body, positive=positive and at_least_one,
                                nonnegative=at_least_one or self.proves(list(self.facts), size >= 0))

    def condition(self, condition: Condition) -> Formula:
        """A condition between index terms and sizes as a z3 formula (its divisions recorded)."""
        return condition_formula(condition, lambda value: self.term(value, f"the condition {condition}"))

    def choose(self, condition: Condition, then: Callable[[], Any], otherwise: Callable[[], Any]) -> Cases:
        """The two complementary cases of :func:`usim.encodings.sized.when`,
        each value computed with its condition among the facts (so what it
        reads is checked where it is read); nested cases are flattened."""
        formula = self.condition(condition)
        out: list[tuple[Formula, Any]] = []
        for holds, make in ((formula, then), (z3.Not(formula), otherwise)):
            self.facts.append(holds)
            try:
                value = make()
            finally:
                self.facts.pop()
            if isinstance(value, Cases):
                out.extend((z3.And(holds, inner), v) for inner, v in value.cases)
            else:
                out.append((holds, value))
        return Cases(tuple(out))

    def whole(self, value: SymbolicInt) -> sympy.Expr:
        """An integer term (a size) as a value: the atom the program's side gives it too."""
        term = self.term(value, f"the size {value}")
        return self.atoms.whole(term, positive=self.positive(term))
