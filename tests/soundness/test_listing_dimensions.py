"""Which variables of a listing fix a dimension of the check (found in review).

A whole number named like a dimension (``c``, ``r``, ``n``) that the listing
never reads, or a loop counter left behind, used to fix that dimension: the
identity was "4 PROVED" as a transpose, every shape r x 1 (true there, and all
a user would see of a program that transposes nothing). Only the function's
own assignments and parameters, and file-level variables the file reads, fix a
dimension now; the identity is refuted at every shape with r, c > 1.
"""

from __future__ import annotations

import pytest

from usim.engine.claim import Status
from usim.listings.check import CheckRequest, check
from usim.listings.plan import plan_shapes
from usim.listings.specs import spec
from usim.repl import load_text

IDENTITY = {
    "unread file-level variable": "c = 1;\ndef transpose() { return tokens; }\n",
    "loop counter": "def transpose() {\n    for c in range(2) { x = c; }\n    return tokens;\n}\n",
}


@pytest.mark.parametrize("how", sorted(IDENTITY))
def test_a_variable_nothing_reads_fixes_no_dimension_and_the_identity_is_refuted(how):
    rasp = load_text(IDENTITY[how], "identity.rasp")
    plan = plan_shapes(rasp, "transpose", spec("transpose"), None, 3)
    assert not plan.fixed, plan.describe(spec("transpose"))
    report = check(CheckRequest("identity.rasp", "transpose", spec("transpose"), max_n=2, engines=["sympy"], timeout=60,
                                text=IDENTITY[how]))
    by_shape = {s.label: s.status for s in report.shapes}
    assert by_shape["2x2"] is Status.REFUTED
    assert by_shape["2x1"] is by_shape["1x2"] is Status.PROVED  # a row's or column's transpose: the same sequence


def test_a_variable_the_function_assigns_or_a_file_level_one_it_reads_still_fixes_a_dimension():
    transpose = spec("transpose")
    own = load_text("def t() { r = 3; return tokens; }\n", "own.rasp")
    assert plan_shapes(own, "t", transpose, None, 3).fixed["r"][1] == 3
    read = load_text("r = 2;\ndef t() { return aggregate(select(indices, indices + r - r, ==), tokens); }\n",
                     "read.rasp")
    assert plan_shapes(read, "t", transpose, None, 3).fixed["r"][1] == 2
