"""The layer norm and the ReLU for every size: what the parametric engine needs of
them (square roots, eps > 0, sums of squares, keys given by cases, max) proves
only what holds.

Each test breaks one thing the proof of Corollary 6.1's stage 6 (N1 = LN1(Z1))
or stage 8 (R = max(F1 + [i < n] b1, 0)) rests on, and checks that the engine
then does not prove it.
"""

from __future__ import annotations

import dataclasses

import pytest

from usim.engine.claim import Status
from usim.engine.parametric.prove import prove_family
from usim.proofs import families
from usim.rasp.expr import Aggregate, maximum, where

TIMEOUT = 300


@pytest.fixture(scope="module")
def layer_norm():
    return families()["corollary6_1_padded_stage6"]


def _variant(fc, name, replacements):
    return dataclasses.replace(fc, mutants={**fc.mutants, name: lambda *sizes: replacements})


def test_the_layer_norm_stage_is_proved_for_every_size(layer_norm):
    verdict = prove_family(layer_norm, None, TIMEOUT)
    assert verdict.status is Status.PROVED, verdict.reason


def test_without_its_precondition_eps_gt_0_the_layer_norm_is_not_proved(layer_norm):
    verdict = prove_family(dataclasses.replace(layer_norm, preconditions=None), None, TIMEOUT)
    assert verdict.status is not Status.PROVED
    assert "is not evidently >= 0" in verdict.reason  # var + eps: eps's sign is what the precondition gave


def test_a_precondition_the_engine_cannot_state_is_outside_its_fragment(layer_norm):
    odd = lambda m: [m["eps1"][0, 0] > 1, m["eps2"][0, 0] > 0]  # noqa: E731 - true, but not "x > 0"
    verdict = prove_family(dataclasses.replace(layer_norm, preconditions=odd), None, TIMEOUT)
    assert verdict.status is Status.UNKNOWN
    assert "the precondition" in verdict.reason


def test_a_layer_norm_that_leaves_eps_out_is_not_proved(layer_norm):
    """sqrt(var) is >= 0 but 0 at a constant row, and it is not the target's sqrt(var + eps)."""
    fc = _variant(layer_norm, "no-eps", {"s6.N1.eps": lambda node: node * 0})
    verdict = prove_family(fc, "no-eps", TIMEOUT)
    assert verdict.status is not Status.PROVED
    assert "not shown equal" in verdict.reason


def test_a_sum_that_is_not_of_squares_is_not_assumed_non_negative(layer_norm):
    """The variance's terms (Z - mu) instead of (Z - mu)^2: their sum can be negative,
    and the square root of it plus eps is not shown defined."""
    def deviations(node):
        return Aggregate(node.selector, node.values.args[0], default=node.default)

    fc = _variant(layer_norm, "sum-of-deviations", {"s6.N1.row_var_c": deviations})
    verdict = prove_family(fc, "sum-of-deviations", TIMEOUT)
    assert verdict.status is not Status.PROVED
    assert "not evidently >= 0" in verdict.reason or "not shown equal" in verdict.reason


def test_a_row_key_that_puts_outside_positions_in_row_0_is_not_proved(layer_norm):
    """The key of each position's row given by cases: inside Z its row, outside -1 - p.
    With 0 outside, the queries of row 0 select keys outside Z too: the guess of
    either case is refused by its proof, never used."""
    fc = _variant(layer_norm, "outside-in-row-0",
                  {"s6.N1.ln_row": lambda node: where(node.args[0], node.args[1], 0)})
    verdict = prove_family(fc, "outside-in-row-0", TIMEOUT)
    assert verdict.status is not Status.PROVED


def test_a_relu_clipped_at_1_is_not_proved():
    relu = families()["corollary6_1_padded_stage8"]
    fc = _variant(relu, "max-with-1", {"s8.R.relu": lambda node: maximum(node.args[0], 1)})
    verdict = prove_family(fc, "max-with-1", TIMEOUT)
    assert verdict.status is not Status.PROVED


def test_a_sum_of_squares_is_non_negative_but_not_positive_so_its_root_is_no_divisor():
    import sympy
    import z3

    from usim.engine.parametric.terms import ParametricAtoms
    from usim.engine.signs import Sign, SignAnalysis

    atoms = ParametricAtoms()
    l, extent = z3.Int("l"), z3.Int("d")
    x = atoms.entry("Z", z3.IntVal(0), l)
    squares = atoms.total(l, extent, (x - 1) ** 2)
    plain = atoms.total(l, extent, x - 1)
    signs = SignAnalysis()
    assert signs.sign(squares) is Sign.NONNEGATIVE  # an empty sum, or every term 0: the sum is 0
    assert signs.sign(sympy.sqrt(squares)) is Sign.NONNEGATIVE  # not POSITIVE: 1 / sqrt(...) is not shown defined
    assert signs.sign(plain) is None
    assert signs.sign(sympy.sqrt(squares) + 1) is Sign.POSITIVE
