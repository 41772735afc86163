"""The sympy -> z3 translation means what sympy means, for every Boolean node
sympy makes from a program or a spec (issue 30, part 2: a Piecewise whose
condition compares Piecewise sums becomes ITE, which "cannot translate"ed, so
z3 was UNKNOWN at once on a count of the tokens occurring at most twice).

Each node is checked against sympy's own value on every assignment of its
Boolean arguments: a translation that swapped two branches or negated a
result fails here.
"""

from __future__ import annotations

import itertools

import pytest
import sympy
import z3

from usim.encodings.smt import SmtInterpretation
from usim.engine.translate import to_z3

p, q, r = sympy.symbols("p q r")
NAMES = {name: z3.Bool(name) for name in "pqr"}


@pytest.mark.parametrize("formula", [
    sympy.ITE(p, q, r),
    sympy.Xor(p, q, r),
    sympy.Xor(p, q),
    sympy.Equivalent(p, q, r),
    sympy.Equivalent(p, q),
    sympy.Nand(p, q, r),
    sympy.Nor(p, q),
    sympy.ITE(sympy.Xor(p, q), sympy.Equivalent(q, r), sympy.Nand(p, r)),
], ids=str)
def test_every_boolean_node_means_what_sympy_means_on_every_assignment(formula):
    translated = to_z3(formula, NAMES, SmtInterpretation())
    for values in itertools.product((True, False), repeat=3):
        assignment = dict(zip((p, q, r), values))
        expected = bool(formula.subs(assignment))
        got = z3.simplify(z3.substitute(translated, *[(NAMES[s.name], z3.BoolVal(v))
                                                      for s, v in assignment.items()]))
        assert z3.is_true(got) is expected, (formula, assignment)


def test_an_ite_over_comparisons_of_reals_is_the_case_split_it_stands_for():
    x, y = sympy.symbols("x y", real=True)
    names = {"x": z3.Real("x"), "y": z3.Real("y")}
    interp = SmtInterpretation()
    ite = to_z3(sympy.ITE(x > 0, y > 1, y < 0), names, interp)
    split = to_z3(sympy.Or(sympy.And(x > 0, y > 1), sympy.And(x <= 0, y < 0)), names, interp)
    solver = z3.Solver()
    solver.add(ite != split)
    assert solver.check() == z3.unsat
    wrong = to_z3(sympy.Or(sympy.And(x > 0, y < 0), sympy.And(x <= 0, y > 1)), names, interp)  # branches swapped
    solver = z3.Solver()
    solver.add(ite != wrong)
    assert solver.check() == z3.sat
