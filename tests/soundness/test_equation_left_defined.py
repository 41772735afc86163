"""Found in the seventeenth session's re-read: an equation's ``left_defined`` (its left
side's factors taken as defined, so that a product's term whose right factor is 0 is 0
without evaluating its left factor) was the caller's word, and a verdict that used it
read "every step proved" like one that did not. The verdict now names it; without the
flag, the undefined quotient is read and its divisor checked."""

from __future__ import annotations

from usim.encodings.sized import matrix_of
from usim.engine.claim import Status
from usim.engine.parametric.prove import prove_equation
from usim.engine.parametric.statement import Equation


def _zero_weight_times_a_quotient(left_defined: bool) -> Equation:
    """Y = Q W with Q[i, l] = 1 / S[i, l] and W = 0: 0 on the right, and on the left a
    sum of terms 0 * (1 / S[i, l]), undefined where an entry of S is 0."""
    def left(N, S):
        Q = matrix_of(N, N, lambda i, j: 1 / S[i, j])
        return Q * matrix_of(N, N, lambda i, j: 0)

    return Equation("test", ("N",), lambda N: [("S", (N, N))], lambda N: [("Y", (N, N))],
                    lambda N: lambda m: {"Y": left(N, m["S"])},
                    lambda N: lambda m: {"Y": matrix_of(N, N, lambda i, j: 0)}, left_defined=left_defined)


def test_a_left_factor_is_skipped_only_where_the_equation_says_its_left_side_is_defined():
    """A term whose right factor is 0 is 0 without its left factor only where the left
    side is known defined (U's stages' meanings, each stage's proof checking its
    divisions); elsewhere the quotient 1 / S[i, l] is read and its divisor checked."""
    assert prove_equation(_zero_weight_times_a_quotient(False)).status is not Status.PROVED
    given = prove_equation(_zero_weight_times_a_quotient(True))
    assert given.status is Status.PROVED  # on the caller's word that the left side is defined, which the verdict names
    assert "given that the left side is defined (left_defined)" in given.reason, given.reason
