"""The strict numeric interpretation names where a run left its range, and audits
in the run's own float type.

A fault's message says "at position p": p is the sequence position of the
query whose value failed (and "of input b" in a batch), whatever the aggregate
computed its means over (the selecting queries only, or one mean per run of
equal keys); a head family evaluated as arrays names the head instead. The
examples put the fault at a known query position past the first one.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from usim.constructions.matmul import matmul_block
from usim.constructions.softmax import softmax_block
from usim.encodings.runners import run_numeric
from usim.errors import RangeError
from usim.rasp.expr import Predicate, Semantics, aggregate, indices, select, tokens
from usim.rasp.family import head_sum, keeping_families
from usim.rasp.program import Program

BIG = 1e308  # two of them overflow float64's sum


def _fault(out, sequence, dtype=np.float64) -> str:
    with pytest.raises(RangeError) as caught:
        run_numeric(Program.of("p", {"out": out}, "p"), sequence, strict=True, dtype=dtype)
    return str(caught.value)


def test_a_mean_over_runs_of_equal_keys_names_the_queries_that_read_the_run():
    """indices // 2 against itself: runs {0, 1}, {2, 3}, {4, 5}; only the last
    run's mean overflows, and queries 4 and 5 read it (the run is the third)."""
    pairs = select(indices // 2, indices // 2, Predicate.EQ)
    message = _fault(aggregate(pairs, tokens), [1, 1, 1, 1, BIG, BIG])
    assert "overflows float64" in message
    assert "at 2 positions, the first at position 4 " in message


def test_a_mean_of_an_ordinary_select_names_the_query_and_not_its_place_among_the_selecting_ones():
    """key < query: query 0 selects nothing; the first mean to overflow is query
    5's (keys 0..4 hold BIG twice), the fifth of the selecting queries."""
    before = select(indices, indices, Predicate.LT)
    message = _fault(aggregate(before, tokens), [1, 1, 1, BIG, BIG, 1])
    assert "at position 5 " in message


def test_a_mean_over_the_same_keys_at_some_queries_names_those_queries():
    """2 < query: queries 3, 4, 5 select every key, whose sum overflows."""
    late = select(2, indices, Predicate.LT)
    message = _fault(aggregate(late, tokens), [BIG, BIG, 1, 1, 1, 1])
    assert "at 3 positions, the first at position 3 " in message


def test_the_average_an_empty_row_holds_under_ahat_names_the_empty_rows():
    """key <= 3 - query: queries 0..3 select keys whose sum is 4 at most; queries 4
    and 5 select none and hold (AHAT) the average of every value, which overflows."""
    shrinking = select(indices, 3 - indices, Predicate.LE)
    message = _fault(aggregate(shrinking, tokens, semantics=Semantics.AHAT), [1, 1, 1, 1, BIG, BIG])
    assert "at 2 positions, the first at position 4 " in message


@pytest.mark.parametrize("selector, bad, where", [
    (select(indices // 2, indices // 2, Predicate.EQ), [1, 1, 1, 1, BIG, BIG],
     "at 2 positions, the first at position 4"),
    (select(indices, indices, Predicate.LT), [1, 1, 1, BIG, BIG, 1], "at position 5"),
], ids=["runs", "rows"])
def test_a_fault_in_one_input_of_a_batch_names_that_input_and_its_position(selector, bad, where):
    message = _fault(aggregate(selector, tokens), [[1, 1, 1, 1, 1, 1], bad])
    assert f"{where} of input 1 " in message


def test_a_head_by_head_product_names_the_position_its_head_writes_and_the_family_names_the_head():
    """A B with A 2 x 3 at positions 0..5 and B 3 x 2 at 6..11: A's row 1 is BIG,
    so the heads (i=1, j=0) and (i=1, j=1) overflow; head (i, j) writes at
    position 2 i + j, so head by head the first fault is at position 2."""
    sequence = np.ones(12)
    sequence[3:6] = BIG
    expanded = matmul_block(tokens, 2, 3, 2)
    with keeping_families():
        family = matmul_block(tokens, 2, 3, 2)
    assert "mean10" in _fault(expanded, sequence) and "at position 2 " in _fault(expanded, sequence)
    assert "at 2 heads, the first at head (i=1, j=0) " in _fault(family, sequence)


def test_a_product_formed_inside_a_family_names_its_key_position_and_head():
    """A[1][1] * B[1][1] = 1e340 overflows: the family forms the products (the
    bounds cannot vouch for them), head (i=1, j=1) at key position 1 (m = 1)."""
    sequence = np.ones(12)
    sequence[[4, 9]] = 1e170
    with keeping_families():
        family = matmul_block(tokens, 2, 3, 2)
    assert "'*' overflows float64 (beyond 1.798e+308) at position 1 of head (i=1, j=1) " in _fault(family, sequence)


def test_a_row_head_of_a_softmax_family_is_named_by_its_row_and_head_by_head_by_its_positions():
    """Row 1 (positions 3..5) holds exps of 709.5, whose sum overflows."""
    sequence = np.zeros(6)
    sequence[3:] = 709.5
    expanded = softmax_block(tokens, 2, 3)
    with keeping_families():
        family = softmax_block(tokens, 2, 3)
    assert "overflows float64 (beyond 1.798e+308) at head (b=1) " in _fault(family, sequence)
    assert "at 3 positions, the first at position 3 " in _fault(expanded, sequence)


def test_a_constant_out_of_range_in_a_head_is_named_without_a_position():
    def build():
        return head_sum(2, lambda i: aggregate(select(indices, 3, Predicate.LT) & select(i, indices, Predicate.EQ),
                                               tokens * Fraction(10**400)))
    with keeping_families():
        family = build()
    message = _fault(family, np.ones(4))
    assert "in a head is beyond float64's range" in message and "position" not in message.split(":", 1)[1]


# -- the run's own float type --------------------------------------------------------------

# f / 2 rounds to the smallest normal float32 (a tie, rounded to even), while in
# float64 it is 2**-126 - 2**-150, below float32's normal range.
JUST_BELOW = np.nextafter(np.float32(2.0**-125), np.float32(0))
SMALLEST_NORMAL = np.finfo(np.float32).smallest_normal


@pytest.mark.parametrize("selector, sequence", [
    (select(indices, indices, Predicate.LE), [JUST_BELOW, 0, 1, 1]),            # rows: query 1 averages keys 0, 1
    (select(indices // 2, indices // 2, Predicate.EQ), [JUST_BELOW, 0, 1, 1]),  # runs of equal keys: {0, 1}, {2, 3}
    (select(indices, 1, Predicate.LE), [JUST_BELOW, 0, 1, 1]),                  # keys 0, 1 at every query
    (select(tokens * 0, tokens * 0, Predicate.EQ), [JUST_BELOW, 0]),            # decided on the input: both keys
], ids=["rows", "runs", "outer", "dynamic"])
def test_a_float32_mean_that_rounds_to_the_smallest_normal_is_no_subnormal(selector, sequence):
    assert JUST_BELOW / np.float32(2) == SMALLEST_NORMAL
    out = run_numeric(Program.of("p", {"out": aggregate(selector, tokens)}, "p"),
                      np.array(sequence, dtype=np.float32), strict=True, dtype=np.float32)["out"]
    assert out.dtype == np.float32
    assert out[0, 1] == SMALLEST_NORMAL


def test_a_float32_mean_that_is_subnormal_in_float32_is_refused_as_such():
    """f / 4 is below the smallest normal float32 however it is rounded."""
    message = _fault(aggregate(select(indices, indices, Predicate.LE), tokens),
                     np.array([JUST_BELOW, 0, 0, 0], dtype=np.float32), dtype=np.float32)
    assert "gives a subnormal float32" in message and "at 2 positions, the first at position 2 " in message
