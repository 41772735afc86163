"""Refutations that were missed: false statements that came out UNKNOWN.

* A 0/0 in a ``where`` branch that is not taken blocked every counterexample:
  the layer norm of Corollary 6.1 with eps removed was UNKNOWN on every engine.
  ``where`` is lazy in every interpretation, and the division by a zero
  standard deviation is refuted with the input.
* A wrong program that differs only on a narrow region (a value of exactly
  12345, scores above 100) was UNKNOWN on sympy and cvc5: random inputs never
  reach it. z3 and cvc5 models are replayed as counterexamples now, and the
  sympy engine asks z3 for one.
"""

from __future__ import annotations

import dataclasses

import pytest
import sympy
from soundness_statements import vector_obligation

from usim.constructions.base import Construction
from usim.engine.claim import Status
from usim.engine.solvers.cvc5_engine import check_cvc5, cvc5_available
from usim.engine.solvers.sympy_engine import check_sympy
from usim.proofs import get
from usim.engine.runner import check_obligation
from usim.rasp.expr import tokens, where
from usim.rasp.rewrite import substitute

LAYER_NORM = (2, 2, 2, 6)  # stage 6 of U_2 for Corollary 6.1 at n = d = 2: the first layer norm


def test_the_layer_norm_without_eps_is_refuted_where_a_row_is_constant():
    ob = get("corollary6_1").obligation(LAYER_NORM)
    program = substitute(ob.construction.program, {"s6.N1.eps": lambda node: node * 0}, name="no_eps")
    broken = dataclasses.replace(ob, construction=Construction(
        "layer norm without eps", program, ob.construction.input_layout, ob.construction.output_layout))
    result = check_obligation(broken, ["sympy", "z3"])
    assert result.status is Status.REFUTED
    cx = result.definedness.counterexample
    assert "division by zero" in cx.got and cx.replay == "exact"
    z = [[sympy.Rational(v) for v in row] for row in cx.inputs["Z1"]]
    assert any(len(set(row)) == 1 for row in z)  # a constant row: variance 0


def test_the_layer_norm_without_its_eps_precondition_is_refuted():
    ob = dataclasses.replace(get("corollary6_1").obligation(LAYER_NORM), preconditions=None)
    assert check_obligation(ob, ["z3"]).status is Status.REFUTED


NARROW = [
    ("a value of exactly 12345", where(tokens == 12345, 0, tokens)),
    ("scores above 100", where(tokens > 100, tokens - 1, tokens)),
]


@pytest.mark.parametrize("what, program", NARROW, ids=[w for w, _ in NARROW])
def test_sympy_finds_a_difference_random_inputs_never_reach(what, program):
    result = check_sympy(vector_obligation(program, lambda x: x), 30)
    assert result.status is Status.REFUTED, result.detail
    assert "z3 model replayed" in result.detail
    value = sympy.Rational(result.counterexample.inputs["X"][0][0])
    assert value == 12345 or value > 100


@pytest.mark.skipif(not cvc5_available(), reason="cvc5 is an optional extra (pip install usim[cvc5])")
@pytest.mark.parametrize("what, program", NARROW, ids=[w for w, _ in NARROW])
def test_a_cvc5_model_is_replayed_as_a_counterexample(what, program):
    result = check_cvc5(vector_obligation(program, lambda x: x), 30)
    assert result.status is Status.REFUTED, result.detail
    assert "model replayed" in result.detail
