"""A float32 run computes its means in float32 (found in review).

An aggregate divided its float32 sums by int64 counts, which numpy does in
float64: the mean of a selector decided on the input came back as float64, and
the rest of the "float32" run went on in float64, whose overflow audit looks for
an infinity and so let through values beyond float32's range. A gather (a copy,
not audited) then rounded two such values, 1e50 and 2e50, to the same float32
infinity, and the strict run said 1e50 == 2e50 with no error.
"""

from __future__ import annotations

import numpy as np
import pytest

from usim.encodings.evaluate import evaluate
from usim.encodings.numeric import NumericInterpretation
from usim.encodings.runners import run_numeric
from usim.errors import RangeError
from usim.rasp.expr import Predicate, aggregate, indices, select, tokens, where
from usim.rasp.program import Program


def test_a_float32_run_never_equates_two_values_beyond_float32():
    mean = aggregate(select(tokens * 0, tokens * 0, Predicate.EQ), tokens)  # 1e20: every key, decided on the input
    a, b = mean * 1e30, mean * 2e30  # 1e50 and 2e50: beyond float32's range
    copy = select(indices, indices, Predicate.EQ)
    same = where(aggregate(copy, a) == aggregate(copy, b), 1, 0)
    program = Program.of("same", {"out": same}, "same")
    with pytest.raises(RangeError, match=r"'\*' overflows float32"):
        run_numeric(program, np.array([1e20, 1e20], dtype=np.float32), strict=True, dtype=np.float32)
    assert run_numeric(program, [1e20, 1e20], strict=True)["out"].tolist() == [[0.0, 0.0]]  # float64: right


@pytest.mark.parametrize("selector", [
    select(tokens * 0, tokens * 0, Predicate.EQ),      # decided on the input
    select(indices, indices, Predicate.LE),            # rows of keys
    select(indices // 2, indices // 2, Predicate.EQ),  # runs of equal keys
    select(indices, 1, Predicate.LE),                  # the same keys at every query
    select(indices, indices, Predicate.EQ),            # one key per query
], ids=["dynamic", "rows", "runs", "outer", "gather"])
def test_every_aggregate_of_a_float32_run_is_float32(selector):
    program = Program.of("mean", {"out": aggregate(selector, tokens)}, "mean")
    for strict in (False, True):
        interp = NumericInterpretation(strict=strict, dtype=np.float32)
        out = evaluate(program, interp, np.array([[1, 2, 3, 4]], dtype=np.float32))["out"]
        assert np.asarray(out).dtype == np.float32
