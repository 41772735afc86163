"""ReLU: the element-wise construction, its claim, and broken variants refuted."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from usim.constructions.relu import relu_construction, relu_program
from usim.encodings.runners import run_exact, run_numeric
from usim.engine.claim import Status
from usim.proofs import get
from usim.engine.runner import check_obligation


def test_exact_relu_on_random_rationals_matches_the_definition():
    rng = random.Random(5)
    for _ in range(200):
        x = [Fraction(rng.randint(-40, 40), rng.randint(1, 9)) for _ in range(rng.randint(1, 9))]
        assert run_exact(relu_program(), x)["relu"] == [v if v > 0 else 0 for v in x]


def test_numeric_relu_agrees_with_numpy():
    x = np.random.default_rng(1).normal(size=(4, 7))
    assert np.array_equal(run_numeric(relu_program(), x)["relu"], np.maximum(x, 0))


def test_relu_needs_no_attention():
    assert relu_construction(5).cost.layers == 0


@pytest.mark.parametrize("n", [1, 3])
def test_both_engines_prove_relu(n):
    result = check_obligation(get("relu").obligation((n,)), ("sympy", "z3"), timeout=60)
    assert [r.status for r in result.results] == [Status.PROVED, Status.PROVED]


@pytest.mark.parametrize("mutant", ["min", "leaky", "shifted"])
def test_broken_relus_are_refuted_with_a_replayed_counterexample(mutant):
    result = check_obligation(get("relu").mutants[mutant]((2,)), ("z3",), timeout=60)
    assert result.status is Status.REFUTED
    cx = result.counterexample
    assert cx.replay == "exact" and cx.expected != cx.got
