"""The padding lemma of an encoder's U was stated without its eps > 0.

Found in the fourteenth session (2026-12-06) by the check of the divisions a
target writes (usim.encodings.written). The padding lemma's obligation (shape
k = 0 of corollary6_1 and corollary9_1: every step's masked meaning on padded
arguments minus its padded meaning) had no preconditions, though the claim says
eps1, eps2 > 0. Its target divides by sqrt(var + eps); at d = 1 the row's
variance is 0 and its centred entry 0, so sympy wrote each layer norm as 0 and
the division was never checked: PROVED, for every eps, a difference that is
undefined (nan) at eps = 0. Now the obligation carries eps > 0, like each stage's,
and without it the division as written is refused.
"""

from __future__ import annotations

import dataclasses

from usim.engine.claim import Status
from usim.engine.runner import check_obligation
from usim.proofs import get

PADDING_AT_1x1 = (2, 1, 1, 0)  # N = 2, the padding lemma (k = 0) at n = d = 1


def test_the_padding_lemma_is_stated_under_eps_positive_and_proved():
    obligation = get("corollary6_1").obligation(PADDING_AT_1x1)
    assert obligation.preconditions is not None
    assert check_obligation(obligation).status is Status.PROVED


def test_without_eps_positive_the_padding_lemma_is_not_proved():
    obligation = dataclasses.replace(get("corollary6_1").obligation(PADDING_AT_1x1), preconditions=None)
    result = check_obligation(obligation)
    assert result.status is not Status.PROVED
    assert result.definedness.status is not Status.PROVED
