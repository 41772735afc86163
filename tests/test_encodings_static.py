"""The static pass's arrays give exactly the exact interpretation's values.

Index-only programs (built from indices, length and constants, the kind U's
routing is made of) are evaluated by the static pass (int64 arrays where it can,
the exact interpretation position by position where it cannot) and by the exact
interpretation on lists: the values, undefined positions included, are the same,
near int64's limits too.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from usim.encodings.domain import Undefined
from usim.encodings.evaluate import evaluate_sops, plan_for
from usim.encodings.exact import EXACT
from usim.encodings.static import STATIC, as_array
from usim.errors import UndefinedError
from usim.rasp.expr import (
    Op,
    Predicate,
    aggregate,
    indices,
    length,
    maximum,
    tokens,
    minimum,
    select,
    where,
)

BINARY = [Op.ADD, Op.SUB, Op.MUL, Op.TRUEDIV, Op.FLOORDIV, Op.MOD, Op.MAXIMUM, Op.MINIMUM]
# powers only with small exponents: a huge one makes both sides build a huge integer, slowly


def _exact_reference(sop, n):
    """The exact interpretation's values, node by node on lists (no static pass)."""
    from usim.encodings.evaluate import _meaning, Plan
    from usim.rasp.program import topological_order

    plan = Plan(n, topological_order([sop]))
    env: dict = {}
    for node in plan.order:
        env[node.id] = _meaning(node, EXACT, plan, env, n)
    return env[sop.id]


def _same(static, exact) -> bool:
    static = static.tolist() if isinstance(static, np.ndarray) else list(static)
    if len(static) != len(exact):
        return False
    for a, b in zip(static, exact):
        if isinstance(a, Undefined) or isinstance(b, Undefined):
            if not (isinstance(a, Undefined) and isinstance(b, Undefined) and a.reason == b.reason):
                return False
        elif a != b or type(a is True) is not type(b is True):
            return False
    return True


leaves = st.sampled_from([indices, length, indices - 3, length - indices, indices % 3, indices * indices])
numbers = st.one_of(st.integers(-7, 7), st.fractions(min_value=-5, max_value=5, max_denominator=4),
                    st.sampled_from([2**40, -2**40, 2**61, 2**62 + 1]))


@st.composite
def index_programs(draw, depth: int = 3):
    if depth == 0:
        return draw(leaves)
    kind = draw(st.sampled_from(["leaf", "binary", "number", "power", "where", "gather"]))
    if kind == "leaf":
        return draw(leaves)
    a = draw(index_programs(depth - 1))
    if kind == "number":
        from usim.rasp.expr import Map

        op = draw(st.sampled_from(BINARY))
        return Map(op, a, draw(numbers)) if draw(st.booleans()) else Map(op, draw(numbers), a)
    if kind == "power":
        from usim.rasp.expr import Map

        return Map(Op.POW, a, draw(st.sampled_from([0, 1, 2, 3, -1, -2, Fraction(1, 2)])))
    if kind == "where":
        return where(a > draw(st.integers(-3, 3)), a, draw(index_programs(depth - 1)))
    if kind == "gather":
        return aggregate(select(indices, a, Predicate.EQ), draw(index_programs(depth - 1)))
    from usim.rasp.expr import Map

    return Map(draw(st.sampled_from(BINARY)), a, draw(index_programs(depth - 1)))


@settings(max_examples=200, deadline=None)
@given(sop=index_programs(), n=st.integers(1, 7))
def test_the_static_pass_gives_the_exact_interpretations_values(sop, n):
    try:
        plan = plan_for((sop,), n)
    except UndefinedError:  # a selector over an undefined value: refused by both, the same way
        with pytest.raises(UndefinedError):
            _exact_reference(sop, n)
        return
    if not plan.is_static(sop):  # no exact value (an irrational root): left to the interpretations
        return
    assert _same(plan.static[sop.id], _exact_reference(sop, n))


@pytest.mark.parametrize("sop", [
    indices * 2**61 * 4,                      # beyond int64: computed exactly, as Python integers
    (indices + 2**62) - 2**62,                # a bound crossed and back
    indices / 2,                              # remainders: Fractions
    1 / (indices - 2),                        # a division by zero at one position: undefined there
    where(indices != 2, 1 / (indices - 2), 0),  # ... and harmless where it is not taken
    indices ** -1,                            # 0 to a negative power
    maximum(indices, 3) - minimum(indices, 3),
])
def test_edge_cases_agree(sop):
    for n in (1, 3, 6):
        plan = plan_for((sop,), n)
        assert _same(plan.static[sop.id], _exact_reference(sop, n))


def test_integers_stay_int64_and_everything_else_becomes_exact_objects():
    assert as_array([1, 2, 3]).dtype == np.int64
    assert as_array([True, False]).dtype == bool
    assert as_array([Fraction(1, 2), 1]).dtype == object
    assert as_array([2**70]).dtype == object
    assert STATIC.map(Op.MUL, [np.array([2**30]), np.array([2**31])]).dtype == np.int64
    assert STATIC.map(Op.MUL, [np.array([2**40]), np.array([2**40])]).tolist() == [2**80]


def test_outputs_read_from_the_static_pass_are_python_numbers():
    (out,) = evaluate_sops((indices * 2,), EXACT, [Fraction(0)] * 3)
    assert out == [0, 2, 4] and all(type(v) is int for v in out)


def test_selects_over_equal_constants_are_decided_once_and_mean_the_same():
    # the product block builds one `select(indices, k, <)` per head, each with its own constant node
    first, second, other = (select(indices, k, Predicate.LT) for k in (3, 3, 2))
    outs = [aggregate(s, tokens).named(f"out{i}") for i, s in enumerate((first, second, other))]
    plan = plan_for(tuple(outs), 5)
    assert plan.static[first.id] is plan.static[second.id]
    assert plan.static[other.id] is not plan.static[first.id]
    values = evaluate_sops(tuple(outs), EXACT, [1, 2, 3, 4, 5])
    assert values[0] == values[1] == [2] * 5 and values[2] == [Fraction(3, 2)] * 5
