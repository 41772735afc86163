"""Match2 mod p: corrected construction proved, the published one refuted, differences listed."""

from __future__ import annotations

import itertools
import random

import pytest

from usim.constructions.match2 import (
    match2_construction,
    match2_program,
    published_match2_program,
    run_match2,
)
from usim.encodings.runners import run_exact
from usim.engine.claim import Status
from usim.proofs import get
from usim.engine.runner import check_obligation
from usim.errors import InputError
from usim.proofs.match2 import classify, published_differences


def task(x, p, distinct):
    """The definition, in plain Python (independent of usim.proofs.match2)."""
    return [int(any((a + x[j]) % p == 0 for j in range(len(x)) if not (distinct and i == j)))
            for i, a in enumerate(x)]


@pytest.mark.parametrize("via", ["width", "mean"])
@pytest.mark.parametrize("distinct", [False, True])
def test_corrected_match2_on_every_residue_sequence_and_random_integers(distinct, via):
    for p in (2, 3, 4):
        program = match2_program(p, distinct, via)
        for n in range(1, 5):
            for x in itertools.product(range(p), repeat=n):
                assert run_exact(program, list(x))["match2"] == task(x, p, distinct), (p, x)
    rng = random.Random(3)
    for _ in range(100):
        p = rng.randint(2, 7)
        x = [rng.randint(-20, 20) for _ in range(rng.randint(1, 8))]
        assert run_exact(match2_program(p, distinct, via), x)["match2"] == task(x, p, distinct)


def test_published_match2_differs_in_the_three_documented_ways():
    published = lambda p, x: run_exact(published_match2_program(p), x)["match2"]  # noqa: E731
    assert published(2, [0, 0]) == [0, 0] and task([0, 0], 2, False) == [1, 1]   # residue 0
    assert published(2, [1]) == [1] and task([1], 2, True) == [0]                 # j = i
    assert published(2, [1, -1]) == [0, 0] and task([1, -1], 2, True) == [1, 1]   # average 0


def test_every_difference_of_the_published_match2_has_a_documented_cause():
    for p, n, values in [(2, 3, range(-2, 3)), (3, 3, range(-3, 4)), (4, 3, range(4)), (2, 4, range(-2, 3))]:
        for distinct, (differing, total, causes) in published_differences(p, n, values).items():
            assert "other" not in causes and differing > 0
            assert set(causes) <= {"residue-0", "self-match", "average-0"}
    # averaging to 0 needs values beyond the residues; on residues it never happens
    on_residues = published_differences(2, 3, range(2))
    assert all("average-0" not in c for _, _, c in on_residues.values())
    assert classify([1, -1], 2, True, [0, 0])["average-0"] == 2


def test_a_modulus_below_two_is_a_clear_error():
    for bad in (1, 0, -3, 2.0, True):
        with pytest.raises(InputError, match="modulus"):
            match2_program(bad)
    with pytest.raises(InputError, match="at least 2"):
        match2_construction(1, 3)
    with pytest.raises(InputError, match="at least 2"):
        run_match2([1, 2], 1)


def test_run_match2_checks_its_input():
    assert run_match2([3, 4, 5], 7, distinct=True) == [1, 1, 0]  # 3 + 4 = 7
    assert run_match2([0], 7) == [1] and run_match2([0], 7, distinct=True) == [0]
    for bad in ([1, 0.5], [1, "x"], []):
        with pytest.raises(InputError):
            run_match2(bad, 3)


def test_match2_costs_one_head():
    cost = match2_construction(3, 4, distinct=True).cost
    assert (cost.layers, cost.heads_per_layer) == (1, (1,))


@pytest.mark.parametrize("shape", [(2, 3, 0, 0), (3, 3, 1, 0), (3, 3, 0, 1), (2, 3, 1, 1)])
def test_corrected_match2_is_proved(shape):
    result = check_obligation(get("match2").obligation(shape), timeout=60,
                              claim_engines=get("match2").engines)
    assert result.status is Status.PROVED
    expected = {"z3", "exhaustive"} if shape[3] == 0 else {"z3"}
    assert {r.engine for r in result.results if r.status is Status.PROVED} == expected


@pytest.mark.parametrize("shape, engine", [
    ((2, 2, 0, 0), "exhaustive"), ((3, 2, 1, 0), "exhaustive"),
    ((2, 2, 0, 1), "z3"), ((3, 3, 1, 1), "z3"),
])
def test_published_match2_is_refuted(shape, engine):
    result = check_obligation(get("match2_published").obligation(shape), (engine,), timeout=60)
    assert result.status is Status.REFUTED
    cx = result.counterexample
    assert cx.replay == "exact" and cx.expected != cx.got


@pytest.mark.parametrize("mutant", ["no-wrap", "mean-of-values", "other-variant", "off-by-one"])
@pytest.mark.parametrize("engine, shape", [("exhaustive", (3, 2, 0, 0)), ("z3", (2, 3, 1, 1))])
def test_broken_match2s_are_refuted(mutant, engine, shape):
    result = check_obligation(get("match2").mutants[mutant](shape), (engine,), timeout=60)
    assert result.status is Status.REFUTED, result.results[0].detail


def test_the_mean_form_needs_the_rasp_empty_row_rule_and_the_width_form_does_not():
    from usim.rasp.expr import Aggregate, Semantics
    from usim.rasp.rewrite import substitute

    x = [1, 1, 0]  # p = 3, j != i: no position has a match
    for via in ("width", "mean"):
        assert run_exact(match2_program(3, True, via), x)["match2"] == [0, 0, 0]
    mean_ahat = substitute(match2_program(3, True, "mean"), {"match2": lambda node: Aggregate(
        node.selector, node.values, node.default, Semantics.AHAT).named("match2")})
    # average-hard attention averages the constant 1 over every position on an empty row
    assert run_exact(mean_ahat, x)["match2"] == [1, 1, 1]
