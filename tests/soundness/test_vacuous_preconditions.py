"""Hole 1: unsatisfiable preconditions made any statement PROVED.

With ``M[0,0] > M[0,0]`` as precondition, "the broken transpose equals M^T"
holds of no input at all: z3 and cvc5 proved it (the negation is unsat) and the
exhaustive engine checked zero inputs. No obligation is PROVED now unless an
input meeting the preconditions is exhibited; without one it is VACUOUS.
"""

from __future__ import annotations

import dataclasses

import sympy
from soundness_statements import assert_never_proved, vector_obligation

from usim.engine.claim import Status
from usim.engine.solvers.exhaustive import check_exhaustive
from usim.proofs import get
from usim.engine.runner import check_obligation
from usim.rasp.expr import tokens


def test_a_wrong_transpose_under_contradictory_preconditions_is_vacuous_not_proved():
    broken = get("lemma3").mutants["off-by-one"]((2, 2))
    ob = dataclasses.replace(broken, preconditions=lambda m: [m["M"][0, 0] > m["M"][0, 0]])
    found = assert_never_proved(ob, {Status.VACUOUS})
    assert "unsatisfiable" in found["all"].witness.detail


def test_a_true_statement_under_contradictory_preconditions_is_still_vacuous():
    ob = vector_obligation(tokens + 0, lambda x: x, 2,
                           preconditions=lambda x: [x[0, 0] > 1, x[0, 0] < 0])
    assert check_obligation(ob, ["sympy", "z3"]).status is Status.VACUOUS


def test_the_exhaustive_engine_with_no_admissible_input_is_vacuous():
    ob = dataclasses.replace(vector_obligation(tokens * 2, lambda x: x, 2,
                                               preconditions=lambda x: [x[0, 0] > 5]),
                             values=(0, 1))
    assert check_exhaustive(ob, 10).status is Status.VACUOUS
    assert check_obligation(ob).status is Status.VACUOUS


def test_satisfiable_preconditions_give_a_witness_that_meets_them():
    ob = vector_obligation(tokens + 0, lambda x: x, 2,
                           preconditions=lambda x: [sympy.Eq(x[0, 0], 12345), x[0, 1] > x[0, 0]])
    result = check_obligation(ob, ["sympy"])
    assert result.status is Status.PROVED
    witness = result.witness.witness
    assert witness.found_by == "z3 model" and witness.inputs["X"][0][0] == "12345"
    assert sympy.Rational(witness.inputs["X"][0][1]) > 12345
