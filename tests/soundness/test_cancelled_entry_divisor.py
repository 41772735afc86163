"""Open: a target dividing by an input entry that sympy cancels (x * e / e).

Found in the thirteenth session (2026-12-06), not fixed. A target written as
M[j, i] * M[0, 0] / M[0, 0] is undefined wherever M[0, 0] = 0, so "the transpose
equals it for every real M" is not true there; but sympy simplifies the entry to
M[j, i] as the target is built on symbolic inputs, before any check can see the
division, and both the bounded proof and the proof for every size say PROVED.
(A size used as a value is handled: tests/soundness/test_cancelled_size_divisor.py.)
A fix needs divisions that survive the target's construction (an unevaluated
quotient, or a record of each divisor as it is written); this test turns into a
failure (strict xfail) once the engines stop calling it PROVED.
"""

from __future__ import annotations

import dataclasses

import pytest
import sympy

from usim.encodings.sized import matrix_of
from usim.engine.claim import Status
from usim.engine.parametric.prove import prove_family
from usim.engine.runner import check_obligation
from usim.proofs import families, get


def _cancelled(m):
    M = m["M"]
    return {"MT": matrix_of(M.cols, M.rows, lambda i, j: M[j, i] * M[0, 0] / M[0, 0])}


def test_the_target_is_undefined_where_the_entry_is_0():
    got = _cancelled({"M": sympy.Matrix([[0, 1], [2, 3]])})["MT"]
    assert all(entry is sympy.nan for entry in got)


@pytest.mark.xfail(strict=True, reason="open: sympy cancels an input entry divided by itself (see the docstring)")
def test_the_bounded_proof_does_not_call_it_proved():
    obligation = dataclasses.replace(get("lemma3").obligation((2, 2)), target=_cancelled)
    assert check_obligation(obligation).status is not Status.PROVED


@pytest.mark.xfail(strict=True, reason="open: sympy cancels an input entry divided by itself (see the docstring)")
def test_the_proof_for_every_size_does_not_call_it_proved():
    assert prove_family(dataclasses.replace(families()["lemma3"], target=_cancelled)).status is not Status.PROVED
