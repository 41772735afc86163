"""Hole 4: programs undefined at some inputs were PROVED.

Canonical forms clear denominators, so ``x*x/x = x``, ``(x^2-1)/(x-1) = x+1``,
``x/(x+y)*(x+y) = x`` and ``sqrt(x)*sqrt(x) = x`` were PROVED with no
precondition, and so was the 3x3 inverse without ``det != 0``. Every division,
root and power now makes a well-definedness condition that must be proved where
the preconditions hold; an input where one fails refutes the statement.
"""

from __future__ import annotations

import dataclasses

import pytest
import sympy
from soundness_statements import assert_never_proved, vector_obligation

from usim.encodings.written import piecewise
from usim.engine.claim import Status
from usim.proofs import get
from usim.engine.runner import check_obligation
from usim.rasp.expr import Predicate, aggregate, indices, select, sqrt, tokens, where

first = lambda x: aggregate(select(indices, 0, Predicate.EQ), x)  # noqa: E731  x[0] at every position
second = lambda x: aggregate(select(indices, 1, Predicate.EQ), x)  # noqa: E731


@pytest.mark.parametrize("name, program, target, n", [
    ("x*x/x", lambda: tokens * tokens / tokens, lambda x: x, 1),
    ("(x^2-1)/(x-1)", lambda: (tokens ** 2 - 1) / (tokens - 1), lambda x: x.applyfunc(lambda v: v + 1), 1),
    ("x/(x+y)*(x+y)", lambda: first(tokens) / (first(tokens) + second(tokens)) * (first(tokens) + second(tokens)),
     lambda x: sympy.Matrix([[x[0, 0], x[0, 0]]]), 2),
    ("sqrt(x)*sqrt(x)", lambda: sqrt(tokens) * sqrt(tokens), lambda x: x, 1),
])
def test_an_identity_that_fails_where_the_program_is_undefined_is_refuted(name, program, target, n):
    found = assert_never_proved(vector_obligation(program(), target, n), {Status.REFUTED})
    result = found["all"]
    assert result.definedness.status is Status.REFUTED
    assert result.definedness.counterexample.got.startswith("undefined (")


def test_the_same_identities_are_proved_where_the_preconditions_keep_them_defined():
    ob = vector_obligation(tokens * tokens / tokens, lambda x: x, 1, preconditions=lambda x: [sympy.Ne(x[0, 0], 0)])
    result = check_obligation(ob, ["sympy", "z3"])
    assert result.status is Status.PROVED and "by z3" in result.definedness.detail
    ob = vector_obligation(sqrt(tokens) * sqrt(tokens), lambda x: x, 1, preconditions=lambda x: [x[0, 0] >= 0])
    assert check_obligation(ob, ["sympy", "z3"]).status is Status.PROVED


def test_the_inverse_without_its_determinant_precondition_is_refuted_at_a_singular_matrix():
    ob = dataclasses.replace(get("inverse3").obligation((3, 3)), preconditions=None)
    result = check_obligation(ob)
    assert result.status is Status.REFUTED
    cx = result.definedness.counterexample
    rows = [[sympy.Rational(v) for v in row] for row in cx.inputs["A"]]
    assert sympy.Matrix(rows).det() == 0


def test_the_inverse_with_its_precondition_carries_a_proved_definedness_obligation():
    result = check_obligation(get("inverse3").obligation((3, 3)))
    assert result.status is Status.PROVED
    assert result.definedness.status is Status.PROVED and "condition" in result.definedness.detail


def test_an_undefined_value_in_the_branch_not_taken_does_no_harm():
    """where is lazy: 1/x where x > 0, else 0, is defined everywhere (the
    target's division written in its branch, usim.encodings.written.piecewise)."""
    ob = vector_obligation(where(tokens > 0, 1 / tokens, 0), lambda x: x.applyfunc(
        lambda v: piecewise(v > 0, lambda: 1 / v, lambda: 0)), 2)
    result = check_obligation(ob, ["z3"])
    assert result.definedness.status is Status.PROVED
    assert result.status is Status.PROVED


def test_a_division_sympy_keeps_only_in_a_branch_is_required_everywhere():
    """sympy's own Piecewise is built after its branches: 1/x was written
    everywhere, and the same 1/x may be cancelled elsewhere (x * x / x), so
    it is required everywhere; here x = 0 is replayed: nan from x * x / x."""
    ob = vector_obligation(where(tokens > 0, 1 / tokens, 0) + tokens, lambda x: x.applyfunc(
        lambda v: sympy.Piecewise((1 / v, v > 0), (0, True)) + v * v / v), 1)
    result = check_obligation(ob, ["z3"])
    assert result.status is Status.REFUTED
    assert result.definedness.counterexample.inputs["X"] == [["0"]]


def test_a_target_undefined_somewhere_is_refuted_too():
    """The target is a sympy expression: what sympy keeps of it is checked
    ((x^2 - 1)/(x - 1) stays a quotient, undefined at 1)."""
    ob = vector_obligation(tokens + 1, lambda x: x.applyfunc(lambda v: (v ** 2 - 1) / (v - 1)), 1)
    result = check_obligation(ob, ["sympy", "z3"])
    assert result.status is Status.REFUTED
    cx = result.definedness.counterexample
    assert cx.inputs["X"] == [["1"]] and cx.expected.startswith("undefined")


def test_a_program_whose_index_divides_by_zero_is_refuted_not_an_error():
    """A selector over an undefined index (indices // 0) makes every row
    undefined at every input: the engines cannot compare anything (UNKNOWN),
    the definedness check refutes it with a replayed input. It was an ERROR."""
    ob = vector_obligation(aggregate(select(indices, indices // (indices - indices), Predicate.EQ), tokens),
                           lambda x: x, 2)
    result = check_obligation(ob, ["sympy", "z3"])
    assert result.status is Status.REFUTED
    assert result.definedness.counterexample.got.startswith("undefined (") and "division by zero" in \
        result.definedness.counterexample.got
    assert all(r.status is Status.UNKNOWN for r in result.results)
