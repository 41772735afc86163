"""Hole 3: every power with a symbolic exponent was a positive atom.

So ``|x^y| = x^y`` and ``(x^y > 0) = 1`` were PROVED (with and without flint),
also from the command line through a listing. A power atom is now positive
only over an evidently positive base; (-2)^(-1) = -1/2 refutes both.
"""

from __future__ import annotations

import pytest
import sympy
from soundness_statements import assert_never_proved, vector_obligation

from usim.cli import main
from usim.engine.canonical import Atoms, Verdict, accelerated, compare
from usim.engine.claim import Status
from usim.rasp.expr import absolute, tokens


@pytest.mark.parametrize("fast", [False, True])
def test_the_absolute_value_of_a_symbolic_power_is_not_the_power(fast):
    with accelerated(fast):
        ob = vector_obligation(absolute(tokens ** (tokens + 1)), lambda x: x.applyfunc(lambda v: v ** (v + 1)))
        found = assert_never_proved(ob, {Status.REFUTED})
    assert found["all"].counterexample is not None


@pytest.mark.parametrize("fast", [False, True])
def test_a_symbolic_power_is_not_known_positive(fast):
    with accelerated(fast):
        ob = vector_obligation((tokens ** tokens > 0) * 1, lambda x: x.applyfunc(lambda v: sympy.Integer(1)))
        assert_never_proved(ob, {Status.REFUTED})


def test_a_power_of_a_positive_base_keeps_its_positive_atom():
    x = sympy.Symbol("x", real=True)
    assert compare(sympy.Abs(2 ** x), 2 ** x, Atoms()) is Verdict.EQUAL


TRANSPOSE_THROUGH_A_POWER = """
def transpose(r) {
    c = length / r;
    src = (indices % r) * c + (indices - indices % r) / r;
    p = tokens ^ tokens;
    v = aggregate(select(indices, src, ==), tokens if p > 0 else 0, 0);
    return v;
}
"""


def test_a_listing_that_routes_values_through_a_symbolic_power_is_refuted(tmp_path, capsys):
    """Before: PROVED by --engine sympy, exit 0 (the atom for p was positive)."""
    listing = tmp_path / "transpose_power.rasp"
    listing.write_text(TRANSPOSE_THROUGH_A_POWER)
    code = main(["check", str(listing), "--function", "transpose", "--spec", "transpose",
                 "--shape", "2x2", "--engine", "sympy"])
    out = capsys.readouterr().out
    assert code == 1
    assert "summary: 1 shape(s): 0 PROVED, 1 REFUTED" in out
