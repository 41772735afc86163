"""k-PARITY: the construction, its claim over every 0/1 input, and clear input errors."""

from __future__ import annotations

import itertools

import pytest

from usim.constructions.parity import parity_construction, run_parity
from usim.engine.claim import Status
from usim.proofs import get
from usim.engine.runner import check_obligation
from usim.errors import InputError, ShapeError


@pytest.mark.parametrize("n", [1, 4, 6])
def test_parity_of_the_first_k_on_every_input(n):
    for k in range(1, n + 1):
        for bits in itertools.product((0, 1), repeat=n):
            assert run_parity(list(bits), k) == [sum(bits[:k]) % 2] * n


def test_parity_of_a_given_set_on_every_input():
    for chosen in [(2,), (0, 3), (1, 2, 4), (4, 0)]:
        for bits in itertools.product((0, 1), repeat=5):
            assert run_parity(list(bits), chosen) == [sum(bits[s] for s in chosen) % 2] * 5


def test_parity_is_one_layer_one_head_for_any_k():
    for n, chosen in [(3, (0,)), (9, tuple(range(9))), (9, (1, 4, 8))]:
        cost = parity_construction(n, chosen).cost
        assert (cost.layers, cost.heads_per_layer) == (1, (1,))


def test_non_binary_input_and_bad_positions_are_clear_errors():
    for bad in ([0, 2, 1], [1, -1], [0.5, 1], ["a"]):
        with pytest.raises(InputError, match="0/1"):
            run_parity(bad, 1)
    with pytest.raises(InputError, match="empty"):
        run_parity([], 1)
    with pytest.raises(ShapeError, match="outside"):
        run_parity([1, 0], 3)
    with pytest.raises(ShapeError, match="k >= 1"):
        run_parity([1, 0], 0)
    with pytest.raises(ShapeError, match="repeat"):
        run_parity([1, 0], (1, 1))


@pytest.mark.parametrize("shape", [(1, 0), (4, 0, 1, 2), (5, 1, 3), (6, 0, 1, 2, 3, 4, 5)])
def test_parity_is_proved_by_every_engine(shape):
    result = check_obligation(get("parity").obligation(shape), timeout=60)
    assert {r.engine: r.status for r in result.results} == {
        "sympy": Status.PROVED, "z3": Status.PROVED, "exhaustive": Status.PROVED}


@pytest.mark.parametrize("mutant", ["wrong-scale", "quotient", "missing-position"])
@pytest.mark.parametrize("shape", [(1, 0), (4, 1, 2)])
def test_broken_parities_are_refuted(mutant, shape):
    result = check_obligation(get("parity").mutants[mutant](shape), ("z3", "exhaustive"), timeout=60)
    assert [r.status for r in result.results] == [Status.REFUTED, Status.REFUTED]
