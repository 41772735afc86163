"""Is the program's value the target's? Atoms identified by proof, then canonical forms.

Both sides are sympy expressions over atoms (:mod:`.terms`). Before their
canonical forms are compared, atoms that are provably the same value are
given one symbol:

* two entries of one block whose indices z3 proves equal in the context
  (``S[(a*c + l) // c, (a*c + l) % c]`` and ``S[a, l]`` where 0 <= l < c): the
  index bijection between the program's key positions and the target's
  indices, proved for every size;
* two sums whose extents z3 proves equal and whose bodies, over one common
  bound index v with 0 <= v < extent, are equal by this very procedure: a sum
  over the keys of a selection re-indexed onto the target's sum over an index
  box;
* an integer that is a polynomial in the dimensions and variables is that
  polynomial; another is replaced by a dimension or constant z3 proves it
  equal to (``(r*c) // r`` is c), or shares a symbol with integers z3 proves
  equal to it.

Then :func:`usim.engine.canonical.compare` decides the identity (exp atoms,
one denominator, expanded numerator). Each identification is a proof, and
atoms not identified stay independent symbols, so EQUAL here means equal at
every size in the context; UNEQUAL only means "not shown equal", and the
caller looks for a counterexample (the models of the identifications that
failed name sizes where indices differ).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Mapping

import sympy
import z3

from usim.engine.canonical import Verdict
from usim.engine.canonical import compare as canonical_compare
from usim.engine.parametric.integers import Formula, Outcome, Prover, Term
from usim.engine.parametric.polynomials import to_polynomial
from usim.engine.parametric.terms import ParametricAtoms, Entry, Total, Whole

ENTRIES = "entries of the program and the target identified (index bijections)"
SUMS = "sums re-indexed onto the target's sums"
INTEGERS = "integer terms identified"
ALGEBRA = "the remaining identity (canonical forms)"


@dataclass
class Decision:
    verdict: Verdict
    hints: list[Outcome] = field(default_factory=list)  # failed identifications: where indices differ


class Comparison:
    def __init__(self, atoms: ParametricAtoms, prover: Prover, dims: Mapping[str, Term]) -> None:
        self.atoms, self.prover = atoms, prover
        self.dims = dict(dims)
        self.symbols = {d: sympy.Symbol(d, integer=True, positive=True) for d in dims}

    # -- integers as polynomials --------------------------------------------------------
    def polynomial(self, term: z3.ExprRef) -> sympy.Expr | None:
        return to_polynomial(term, self.symbols)

    def integer(self, symbol: sympy.Symbol, facts: tuple[Formula, ...]) -> sympy.Expr:
        term = self.atoms.info[symbol].term
        found = self.polynomial(term)
        if found is not None:
            return found
        for candidate, form in [*((self.dims[d], s) for d, s in self.symbols.items()),
                                (z3.IntVal(0), sympy.Integer(0)), (z3.IntVal(1), sympy.Integer(1))]:
            if self.prover.proves(facts, term == candidate, INTEGERS).holds:
                return form
        return symbol

    # -- atoms ------------------------------------------------------------------------------
    def same(self, x: sympy.Symbol, y: sympy.Symbol, facts: tuple[Formula, ...]) -> tuple[bool, list[Outcome]]:
        a, b = self.atoms.info[x], self.atoms.info[y]
        if isinstance(a, Entry) and isinstance(b, Entry):
            if a.block != b.block:
                return False, []
            indices = z3.And(a.row == b.row, a.col == b.col)
            outcome = self.prover.proves(facts, indices, ENTRIES)
            if outcome.holds is None:  # the indices as the facts state them ((l + N*a) // N is a where l < N)
                simpler = self.prover.simplify(facts, indices, ENTRIES, small=True)
                if not simpler.eq(indices):
                    outcome = self.prover.proves(facts, simpler, ENTRIES)
            return outcome.holds is True, [outcome] if outcome.holds is False else []
        if isinstance(a, Whole) and isinstance(b, Whole):
            outcome = self.prover.proves(facts, a.term == b.term, INTEGERS)
            return outcome.holds is True, [outcome] if outcome.holds is False else []
        if isinstance(a, Total) and isinstance(b, Total):
            outcome = self.prover.proves(facts, a.extent == b.extent, SUMS)
            if outcome.holds is not True:
                return False, [outcome] if outcome.holds is False else []
            v = self.prover.fresh("v")
            body_a = self.atoms.substitute(a.body, [(a.var, v)])
            body_b = self.atoms.substitute(b.body, [(b.var, v)])
            inner = self.equal(body_a, body_b, facts + (v >= 0, v < a.extent))
            return inner.verdict is Verdict.EQUAL, inner.hints
        return False, []

    def equal(self, got: sympy.Expr, expected: sympy.Expr, facts: tuple[Formula, ...]) -> Decision:
        """Decide got == expected under ``facts`` (see the module docstring)."""
        got, expected = sympy.sympify(got), sympy.sympify(expected)
        ordered = self.atoms.atoms_of(expected) + [s for s in self.atoms.atoms_of(got)
                                                   if s not in set(self.atoms.atoms_of(expected))]
        classes: list[list[sympy.Symbol]] = []
        hints: list[Outcome] = []
        replace: dict[sympy.Symbol, sympy.Expr] = {}
        for s in ordered:
            if isinstance(self.atoms.info[s], Whole):
                form = self.polynomial(self.atoms.info[s].term)
                if form is not None:
                    replace[s] = form
                    continue
            for cls in classes:
                if type(self.atoms.info[cls[0]]) is not type(self.atoms.info[s]):
                    continue
                same, found = self.same(s, cls[0], facts)
                if same:
                    cls.append(s)
                    break
                hints.extend(found)
            else:
                classes.append([s])
        for cls in classes:
            head = cls[0]
            form = self.integer(head, facts) if isinstance(self.atoms.info[head], Whole) else head
            for s in cls:
                if s != form:
                    replace[s] = form
        start = time.perf_counter()
        verdict = canonical_compare(got.xreplace(replace), expected.xreplace(replace))
        self.prover.ledger.add(ALGEBRA, "canonical forms", verdict is Verdict.EQUAL
                               if verdict is not Verdict.UNDECIDED else None, time.perf_counter() - start)
        return Decision(verdict, hints)
