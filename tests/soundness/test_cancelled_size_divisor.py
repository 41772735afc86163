"""A size used as a value that sympy cancels before the divisor check sees it.

Found in the thirteenth session's review: sympy simplifies w / w to 1 and
0 * (1 / w) to 0 as the target is written, so a target that divides by a size
w that can be 0 (S * (N - 2) / (N - 2), or S + 0 / (N - 2)) reached the
divisor check without its division, and the parametric engine called PROVED an
equation, or a family's target, that is undefined at N = 2. A family's bounded
cross-check catches that at N = 2, but not a size that is 0 only past the bound
(N - 20), and an equation has no bounded check at all. The first fix
evaluated the target at the sizes where such a size is 0 (at most 8); now every
division is recorded as it is written (usim.encodings.written, the fix of
tests/soundness/test_cancelled_entry_divisor.py), so its divisor must be
non-zero at every size, and z3 names the size where it is 0, past 8 too.
"""

from __future__ import annotations

import dataclasses

from usim.encodings.sized import matrix_of, size_value
from usim.engine.claim import Status
from usim.engine.parametric.prove import prove_equation, prove_family
from usim.engine.parametric.statement import Equation
from usim.proofs import families


def _equation(left) -> Equation:
    return Equation("cancelled", ("N",), lambda N: [("S", (N, N))], lambda N: [("Y", (N, N))],
                    lambda N: lambda m: {"Y": left(N, m["S"])},
                    lambda N: lambda m: {"Y": matrix_of(N, N, lambda i, j: m["S"][i, j])})


def test_an_equation_dividing_a_size_by_itself_is_not_proved_where_it_is_0():
    verdict = prove_equation(_equation(lambda N, S: matrix_of(
        N, N, lambda i, j: S[i, j] * size_value(N - 2) / size_value(N - 2))))
    assert verdict.status is Status.UNKNOWN
    assert "(-2 + N) can be 0" in verdict.reason and {"N": 2}.items() <= verdict.hints[0].items()


def test_an_equation_adding_nothing_over_a_size_that_can_be_0_is_not_proved():
    verdict = prove_equation(_equation(lambda N, S: matrix_of(
        N, N, lambda i, j: S[i, j] + 0 * (1 / size_value(N - 2)))))
    assert verdict.status is Status.UNKNOWN


def test_a_family_whose_target_divides_by_a_size_0_only_past_its_bound_is_not_proved():
    lemma3 = families()["lemma3"]  # the transpose of an r x c matrix, bounded to 8

    def target(m):
        M = m["M"]
        w = size_value(M.rows - 20)
        return {"MT": matrix_of(M.cols, M.rows, lambda i, j: M[j, i] * w / w)}
    verdict = prove_family(dataclasses.replace(lemma3, target=target))
    assert verdict.status is Status.UNKNOWN
    assert "(-20 + r) can be 0" in verdict.reason and verdict.hints[0]["r"] == 20  # past the bound, named


def test_a_division_by_a_size_value_that_is_never_0_is_proved():
    lemma3 = families()["lemma3"]

    def target(m):
        M = m["M"]
        w = size_value(M.rows + 1)
        return {"MT": matrix_of(M.cols, M.rows, lambda i, j: M[j, i] * w / w)}
    assert prove_family(dataclasses.replace(lemma3, target=target)).status is Status.PROVED


def test_a_size_value_that_can_be_0_and_divides_nothing_is_proved():
    lemma3 = families()["lemma3"]

    def target(m):
        M = m["M"]
        return {"MT": matrix_of(M.cols, M.rows, lambda i, j: M[j, i] + size_value(M.rows - 2) * 0)}
    assert prove_family(dataclasses.replace(lemma3, target=target)).status is Status.PROVED
