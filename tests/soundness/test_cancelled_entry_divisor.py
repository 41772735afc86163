"""A target dividing by an input entry that sympy cancels (x * e / e).

Found in the thirteenth session (2026-12-06), fixed in the fourteenth. A target
written as M[j, i] * M[0, 0] / M[0, 0] is undefined wherever M[0, 0] = 0, so
"the transpose equals it for every real M" is not true there; but sympy
simplifies the entry to M[j, i] as the target is built on symbolic inputs,
before any check can see the division, and both the bounded proof and the
proof for every size said PROVED. (A size used as a value is the same bug:
tests/soundness/test_cancelled_size_divisor.py.) Now every division and root
is recorded as it is written (usim.encodings.written.written_powers) and
must be defined where the preconditions hold: the bounded proof refutes it with
an input where M[0, 0] = 0, replayed; the proof for every size does not prove it.
"""

from __future__ import annotations

import dataclasses

import sympy

from usim.encodings.sized import matrix_of
from usim.engine.claim import Status
from usim.engine.parametric.prove import prove_family
from usim.engine.runner import check_obligation
from usim.proofs import families, get


def _cancelled(m):
    M = m["M"]
    return {"MT": matrix_of(M.cols, M.rows, lambda i, j: M[j, i] * M[0, 0] / M[0, 0])}


def _cancelled_sum(m):
    M = m["M"]  # 1 / M[0, 0] written and taken away again: 0 * (1 / M[0, 0]) is sympy's 0
    return {"MT": matrix_of(M.cols, M.rows, lambda i, j: M[j, i] + 1 / M[0, 0] - 1 / M[0, 0])}


def test_the_target_is_undefined_where_the_entry_is_0():
    got = _cancelled({"M": sympy.Matrix([[0, 1], [2, 3]])})["MT"]
    assert all(entry is sympy.nan for entry in got)


def test_the_bounded_proof_refutes_it_at_an_input_where_the_entry_is_0():
    obligation = dataclasses.replace(get("lemma3").obligation((2, 2)), target=_cancelled)
    result = check_obligation(obligation)
    assert result.status is Status.REFUTED
    assert result.counterexample is not None and result.counterexample.inputs["M"][0][0] == "0"


def test_the_bounded_proof_refutes_a_division_taken_away_again():
    obligation = dataclasses.replace(get("lemma3").obligation((2, 2)), target=_cancelled_sum)
    assert check_obligation(obligation).status is Status.REFUTED


def test_the_proof_for_every_size_does_not_call_it_proved():
    verdict = prove_family(dataclasses.replace(families()["lemma3"], target=_cancelled))
    assert verdict.status is not Status.PROVED
    assert "as written" in verdict.reason


def test_the_proof_for_every_size_does_not_prove_a_division_taken_away_again():
    verdict = prove_family(dataclasses.replace(families()["lemma3"], target=_cancelled_sum))
    assert verdict.status is not Status.PROVED


def test_a_division_by_an_entry_the_preconditions_make_positive_is_still_proved():
    obligation = get("lemma3").obligation((2, 2))

    def target(m):
        M = m["M"]
        return {"MT": matrix_of(M.cols, M.rows, lambda i, j: M[j, i] * (M[0, 0] ** 2 + 1) / (M[0, 0] ** 2 + 1))}
    assert check_obligation(dataclasses.replace(obligation, target=target)).status is Status.PROVED
    verdict = prove_family(dataclasses.replace(families()["lemma3"], target=target))
    assert verdict.status is Status.PROVED, verdict.reason
