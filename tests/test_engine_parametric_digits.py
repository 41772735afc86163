"""Digit facts: a row-major equation's coordinates, added only where the facts determine them."""

from __future__ import annotations

import z3

from usim.engine.parametric.digits import digit_facts, equations
from usim.engine.parametric.integers import Ledger, Prover

N, a, b, i, j = z3.Ints("N a b i j")
INDICES = ("a", "b", "i", "j")
CELL = [z3.And(i >= 0, i < N), z3.And(j >= 0, j < N)]
SECOND_HALF = [N >= 1, a >= 0, a < N, b >= N, b < 2 * N] + CELL
READS = z3.And(z3.BoolVal(True), i * N + j == N * a + b - N)  # as a routing head's selection states it


def facts_of(hypotheses, condition=READS):
    return digit_facts(Prover(("N",), 60, Ledger()), hypotheses, condition, "step", INDICES)


def equivalent(formula: z3.BoolRef, expected: z3.BoolRef) -> bool:
    solver = z3.Solver()
    solver.add(z3.Not(formula == expected))
    return solver.check() == z3.unsat


def test_the_coordinates_a_row_major_equation_determines_are_added():
    """Position N a + b - N of a block N wide, with N <= b < 2N: row a, column b - N."""
    found = facts_of(SECOND_HALF)
    assert len(found) == 1
    assert equivalent(z3.And(found[0], READS), z3.And(i == a, j == b - N))


def test_no_coordinates_where_the_facts_leave_the_row_open():
    """With 0 <= b < 2N the cell is (a - 1, b) or (a, b - N): neither is a fact."""
    assert facts_of([N >= 1, a >= 0, a < N, b >= 0, b < 2 * N] + CELL) == ()


def test_no_coordinates_where_the_column_may_leave_the_block():
    """Without 0 <= j < N, i N + j == P does not determine i (Euclid needs the range)."""
    assert facts_of([N >= 1, a >= 0, a < N, b >= N, b < 2 * N, i >= 0, i < N, j >= 0]) == ()


def test_only_the_equations_of_the_condition_are_read():
    nested = z3.And(a < N, z3.And(READS, b >= N))
    assert [str(e) for e in equations(nested)] == [str(i * N + j == N * a + b - N)]
    assert len(facts_of(SECOND_HALF, nested)) == 1
    assert facts_of(SECOND_HALF, z3.Or(READS, a == 0)) == ()


def test_a_case_split_adds_the_coordinates_on_the_side_where_the_equation_holds_only():
    """SymbolicSizeEvaluator.decide: the digit facts join the side where the
    condition holds (proved there from it), never the side where it fails."""
    from usim.engine.parametric.symbolic_sizes import Context, InputBlock, SymbolicSizeEvaluator
    from usim.engine.parametric.terms import ParametricAtoms

    prover = Prover(("N",), 60, Ledger())
    size = prover.dims["N"]
    evaluator = SymbolicSizeEvaluator([InputBlock("M", size, size, z3.IntVal(0))], size * size, prover,
                                      ParametricAtoms(), [size >= 1], prover.dims)
    row, col = evaluator.variable("a", z3.IntVal(0), size), evaluator.variable("b", size, 2 * size)
    cell_row, cell_col = evaluator.variable("i", z3.IntVal(0), size), evaluator.variable("j", z3.IntVal(0), size)
    ctx = Context((size >= 1, row >= 0, row < size, col >= size, col < 2 * size, cell_row >= 0, cell_row < size,
                   cell_col >= 0, cell_col < size))
    reads = cell_row * size + cell_col == size * row + col - size
    (holds, taken), (fails, not_taken) = evaluator.decide(ctx, reads, "the cell read")
    assert taken and not not_taken
    assert len(holds.facts) == len(ctx.facts) + 2 and len(fails.facts) == len(ctx.facts) + 1
    assert equivalent(z3.And(holds.facts[-1], reads), z3.And(cell_row == row, cell_col == col - size))
