"""The parametric engine on an equation (two targets, no program): proved for every size
where the two sides are equal, and never PROVED where they differ at some size, read
outside their inputs or divide by a size that can be 0."""

from __future__ import annotations

import sympy

from usim.encodings.sized import matrix_of, size_value, total, when
from usim.engine.claim import Status
from usim.engine.parametric.prove import prove_equation
from usim.engine.parametric.statement import Equation


def _equation(left, right, side_condition=None, cols=lambda N: N, splits=None) -> Equation:
    """An equation over N: S (N x N) in, one N x cols(N) block out."""
    return Equation("test", ("N",), lambda N: [("S", (N, N))], lambda N: [("Y", (N, cols(N)))],
                    lambda N: lambda m: {"Y": left(N, m["S"])}, lambda N: lambda m: {"Y": right(N, m["S"])},
                    side_condition, splits)


def _transpose_twice(N, S):
    T = matrix_of(N, N, lambda i, j: S[j, i])
    return matrix_of(N, N, lambda i, j: T[j, i])


def _itself(N, S):
    return matrix_of(N, N, lambda i, j: S[i, j])


def _row_softmax(N, S):
    return matrix_of(N, N, lambda i, j: sympy.exp(S[i, j]) / total(N, lambda l: sympy.exp(S[i, l])))


def _masked_at_n(N, S):  # the mask i < n, j < n at n = N: a case the facts decide
    return matrix_of(N, N, lambda i, j: when(j < N, lambda: sympy.exp(S[i, j]) / total(
        N, lambda l: sympy.exp(S[i, l])), lambda: 0))


def test_an_identity_between_two_targets_is_proved_for_every_size():
    assert prove_equation(_equation(_transpose_twice, _itself)).status is Status.PROVED


def test_a_mask_the_sizes_decide_is_pruned_even_inside_arithmetic():
    def weighted(N, P):
        return matrix_of(N, N, lambda i, j: total(N, lambda l: P[i, l] * S_of[0][l, j]))
    S_of = []

    def left(N, S):
        S_of[:] = [S]
        return weighted(N, _masked_at_n(N, S))

    def right(N, S):
        return weighted(N, _row_softmax(N, S))
    assert prove_equation(_equation(left, right)).status is Status.PROVED


def test_two_sides_that_differ_at_some_size_are_not_proved_and_the_sizes_are_named():
    def transposed(N, S):
        return matrix_of(N, N, lambda i, j: S[j, i])

    verdict = prove_equation(_equation(transposed, _itself))
    assert verdict.status is Status.UNKNOWN
    assert verdict.hints and all(h["N"] >= 2 for h in verdict.hints)  # at N = 1 the transpose is the identity


def test_a_side_reading_outside_its_input_is_not_proved():
    def shifted(N, S):
        return matrix_of(N, N, lambda i, j: S[i, j + 1] - S[i, j + 1] + S[i, j])

    verdict = prove_equation(_equation(shifted, _itself))
    assert verdict.status is Status.UNKNOWN
    assert "reads" in verdict.reason


def test_a_division_by_a_size_that_can_be_0_is_not_proved():
    def divided(N, S):  # equal sides, undefined at N = 1
        return matrix_of(N, N, lambda i, j: S[i, j] / size_value(N - 1))

    verdict = prove_equation(_equation(divided, divided))
    assert verdict.status is Status.UNKNOWN
    assert "non-zero" in verdict.reason or "divisor" in verdict.reason


def test_sides_of_another_shape_are_not_proved():
    verdict = prove_equation(_equation(_itself, _itself, cols=lambda N: N + 1))
    assert verdict.status is Status.UNKNOWN
    assert "is not" in verdict.reason


def test_no_sizes_meeting_the_side_condition_is_vacuous():
    from usim.rasp.family import dimension

    verdict = prove_equation(_equation(_transpose_twice, _itself, side_condition=lambda N: N < dimension("N")))
    assert verdict.status is Status.VACUOUS


def _first_row_summed(N, S):  # row 0: the sum of S's column j; below: 0 (a case inside the sum)
    P = matrix_of(N, N, lambda i, l: when(i < 1, lambda: 1, lambda: 0))
    return matrix_of(N, N, lambda i, j: total(N, lambda l: P[i, l] * S[l, j]))


def _column_sums_on_row_0(N, S):
    return matrix_of(N, N, lambda i, j: when(i < 1, lambda: total(N, lambda l: S[l, j]), lambda: 0))


def test_rows_split_where_the_cases_inside_a_sum_are_decided_are_proved():
    assert prove_equation(_equation(_first_row_summed, _column_sums_on_row_0)).status is Status.UNKNOWN
    split = prove_equation(_equation(_first_row_summed, _column_sums_on_row_0, splits=lambda N: lambda a, b: [a < 1]))
    assert split.status is Status.PROVED, split.reason


def test_a_split_does_not_make_a_wrong_row_equal():
    def on_every_row(N, S):
        return matrix_of(N, N, lambda i, j: total(N, lambda l: S[l, j]))

    verdict = prove_equation(_equation(_first_row_summed, on_every_row, splits=lambda N: lambda a, b: [a < 1]))
    assert verdict.status is Status.UNKNOWN
    assert all(h["N"] >= 2 for h in verdict.hints)  # only rows a >= 1 differ
