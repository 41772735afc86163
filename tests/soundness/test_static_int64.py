"""The static pass's int64 arrays never wrap (found in review).

Its bound check read |a| with numpy's abs, which maps -2**63 onto itself: a
sequence of -2**63 passed as "small", and the next subtraction wrapped to
+2**63 - 1 in the exact interpretation and the numeric run alike.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from usim.encodings.evaluate import evaluate
from usim.encodings.exact import EXACT
from usim.encodings.runners import run_numeric
from usim.encodings.static import STATIC, as_array
from usim.rasp.expr import Op, indices, tokens
from usim.rasp.program import Program

LOWEST = -(2**63)


def test_the_lowest_int64_is_not_taken_for_a_small_integer():
    assert as_array([LOWEST, LOWEST]).dtype == object
    assert STATIC.map(Op.NEG, [as_array([LOWEST])]).tolist() == [2**63]


def test_a_value_at_int64s_lowest_minus_one_is_exact_in_every_run():
    lowest = (indices * 0 - 2**32) * 2**31
    program = Program.of("below_int64", {"y": (lowest - 1 + tokens * 0).named("y")}, "-2**63 - 1 everywhere")
    assert evaluate(program, EXACT, [Fraction(0)] * 3)["y"] == [LOWEST - 1] * 3
    numeric = run_numeric(program, [0.0] * 3)["y"]
    assert np.allclose(np.asarray(numeric, dtype=float), float(LOWEST - 1))
