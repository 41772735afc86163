"""MaxMin (GroupSort-2): corrected construction proved, the published one refuted."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from usim.constructions.maxmin import maxmin_construction, maxmin_program, published_maxmin_program
from usim.encodings.runners import run_exact
from usim.engine.claim import Status
from usim.proofs import get
from usim.engine.runner import check_obligation


def group_sort_2(x):
    """The definition, in plain Python."""
    y = list(x)
    for t in range(0, len(x) - 1, 2):
        y[t], y[t + 1] = max(x[t], x[t + 1]), min(x[t], x[t + 1])
    return y


def test_corrected_maxmin_on_every_small_input_and_random_rationals():
    for n in range(1, 6):
        for x in itertools.product((-2, -1, 0, 1, 2), repeat=n):
            assert run_exact(maxmin_program(), list(x))["maxmin"] == group_sort_2(x)
    rng = random.Random(7)
    for _ in range(100):
        x = [Fraction(rng.randint(-30, 30), rng.randint(1, 5)) for _ in range(rng.randint(1, 11))]
        assert run_exact(maxmin_program(), x)["maxmin"] == group_sort_2(x)


def test_published_maxmin_follows_the_listing_on_hand_computed_inputs():
    """MaxMin.rasp's MaxMinSort by hand: the flag at p is (x_p - x_{p+1} < 0) at
    an even p, (x_p < 0) at an odd p (its MinSel selects nothing there), plus
    the flag of p - 1; the output is flag * partner + (1 - flag) * x_p."""
    published = published_maxmin_program()
    # a single negative element: flag 1, its missing partner is 0
    assert run_exact(published, [-1])["maxmin"] == [0]
    # (0, -1): the odd -1 < 0 takes its partner though the pair is in order
    assert run_exact(published, [0, -1])["maxmin"] == [0, 0]
    # (-2, -1): flag 2 at the odd position overshoots to 2 * (-2) - (-1)
    assert run_exact(published, [-2, -1])["maxmin"] == [-1, -3]
    # the flag of a negative odd element spills into the next pair
    assert run_exact(published, [1, -1, 5, 3])["maxmin"] == [1, 1, 3, 3]
    # the authors' own example, non-negative: right
    example = [14, 18, 3, 12, 6, 20, 7, 17, 13, 9]
    assert run_exact(published, example)["maxmin"] == group_sort_2(example)


def test_published_maxmin_is_right_on_every_small_non_negative_input():
    published = published_maxmin_program()
    for n in range(1, 6):
        for x in itertools.product((0, 1, 2), repeat=n):
            assert run_exact(published, list(x))["maxmin"] == group_sort_2(x)


def test_z3_proves_the_published_maxmin_for_non_negative_inputs():
    import dataclasses

    import sympy

    for n in (1, 2, 3, 4, 5):
        ob = dataclasses.replace(get("maxmin_published").obligation((n,)),
                                 preconditions=lambda m: [sympy.Ge(v, 0) for v in m["x"]])
        assert check_obligation(ob, ("z3",), timeout=60).status is Status.PROVED


def test_maxmin_costs_one_head():
    cost = maxmin_construction(5).cost
    assert (cost.layers, cost.heads_per_layer) == (1, (1,))


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_both_engines_prove_the_corrected_maxmin_odd_lengths_included(n):
    result = check_obligation(get("maxmin").obligation((n,)), ("sympy", "z3"), timeout=60)
    assert result.status is Status.PROVED
    assert any(r.engine == "z3" and r.status is Status.PROVED for r in result.results)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_z3_refutes_the_published_maxmin_at_every_length(n):
    result = check_obligation(get("maxmin_published").obligation((n,)), ("z3",), timeout=60)
    assert result.status is Status.REFUTED
    cx = result.counterexample
    assert cx.replay == "exact"
    x = [Fraction(v) for v in cx.inputs["x"][0]]
    assert min(x) < 0  # only a negative value can mislead it
    assert run_exact(published_maxmin_program(), x)["maxmin"] != group_sort_2(x)


@pytest.mark.parametrize("mutant, n", [
    ("order-swapped", 2), ("partner-next", 4), ("unguarded-tail", 3),
])
def test_broken_maxmins_are_refuted(mutant, n):
    result = check_obligation(get("maxmin").mutants[mutant]((n,)), ("z3",), timeout=60)
    assert result.status is Status.REFUTED
    assert result.counterexample.expected != result.counterexample.got


def test_an_unguarded_tail_is_harmless_at_even_lengths():
    # the guard matters only for odd n: the checker must not invent a failure
    result = check_obligation(get("maxmin").mutants["unguarded-tail"]((4,)), ("z3",), timeout=60)
    assert result.status is Status.PROVED


def test_the_corrected_maxmin_does_not_depend_on_the_empty_row_rule():
    # at an odd trailing position the partner head selects nothing; the guard
    # discards its value, so average-hard attention (mean over all) gives the same
    import dataclasses

    from usim.rasp.expr import Aggregate, Semantics
    from usim.rasp.rewrite import substitute

    ob = get("maxmin").obligation((5,))
    ahat = substitute(ob.construction.program, {"partner": lambda node: Aggregate(
        node.selector, node.values, node.default, Semantics.AHAT).named("partner")})
    ob = dataclasses.replace(ob, construction=dataclasses.replace(ob.construction, program=ahat))
    assert check_obligation(ob, ("z3",), timeout=60).status is Status.PROVED
