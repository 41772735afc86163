"""A target's sum split where its cases change, never where a split leaves it as it was."""

from __future__ import annotations

import z3

from usim.engine.parametric.target import TargetContext
from usim.engine.parametric.terms import ParametricAtoms


def _proves(hypotheses, goal) -> bool:
    solver = z3.Solver()
    solver.add(*hypotheses, z3.Not(goal))
    return solver.check() == z3.unsat


def test_a_targets_sum_is_not_split_at_a_boundary_its_keys_have_passed():
    """The second part of a sum, keys s + l with s = d: the first head's boundary
    s + l < d holds at no key, so it holds exactly when l < 0, a split that gives the
    same sum again (three heads' C W_O split at it until the splits ran out). The
    next boundary, s + l < 2d, is where this part splits: l < d."""
    l, d, s, size = z3.Ints("l d s size")
    context = TargetContext(atoms=ParametricAtoms(), dims={}, fresh=z3.Int, positive=lambda term: False,
                            proves=_proves)
    context.facts.extend([d >= 1, s == d, size == 2 * d, l >= 0, l < size])
    found = context._threshold([s + l < d, s + l < 2 * d], l, size)
    assert found is not None and _proves(context.facts, found == d)
    assert context._threshold([s + l < d], l, size) is None
