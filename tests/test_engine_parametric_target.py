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


def _head_by_head(left_column, right_column=None):
    """An equation over N, h, d <= N: T's W (h d x d) placed head by head into U's
    (h N x N, rows g N .. g N + d - 1 of head g), C (1 x h N) times it, against
    sum_{k < h d} C[0, (k // d) N + k mod d] W[k, j]."""
    from usim.encodings.sized import both, matrix_of, total, when
    from usim.engine.parametric.statement import Equation

    def placed(N, h, d, m):
        W = m["W"]
        return matrix_of(h * N, N, lambda k, j: when(both(k % N < d, j < d),
                                                      lambda: W[(k // N) * d + k % N, j], lambda: 0))

    def left(N, h, d, m):
        U, C = placed(N, h, d, m), m["C"]
        return {"Y": matrix_of(1, d, lambda i, j: total(h * N, lambda k: C[0, k] * U[k, left_column(j)]))}

    def right(N, h, d, m):
        W, C = m["W"], m["C"]
        return {"Y": matrix_of(1, d, lambda i, j: total(h * d, lambda k: C[0, (k // d) * N + k % d]
                                                        * W[k, (right_column or left_column)(j)]))}

    return Equation("head by head", ("N", "h", "d"), lambda N, h, d: [("W", (h * d, d)), ("C", (1, h * N))],
                    lambda N, h, d: [("Y", (1, d))], lambda *s: lambda m: left(*s, m),
                    lambda *s: lambda m: right(*s, m), lambda N, h, d: d <= N)


def test_a_sum_over_h_blocks_read_head_by_head_is_summed_block_by_block():
    """sum_{k < h N} is sum_{g < h} sum_{t < N} at k = g N + t; k mod N < d is then t < d,
    a threshold of the inner sum: the left side's keys past each head's d drop out."""
    from usim.engine.claim import Status
    from usim.engine.parametric.prove import prove_equation

    assert prove_equation(_head_by_head(lambda j: j)).status is Status.PROVED


def test_a_sum_over_blocks_reading_another_column_is_not_proved():
    from usim.engine.claim import Status
    from usim.engine.parametric.prove import prove_equation

    verdict = prove_equation(_head_by_head(lambda j: j, lambda j: 0))
    assert verdict.status is not Status.PROVED
