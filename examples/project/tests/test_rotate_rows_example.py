"""The example project's own tests: its claim proved, its broken variants and a wrong target refuted."""

from __future__ import annotations

import usim
from usim.testing import assert_proved, assert_refuted

from rotate_rows.claims import ROTATE


def test_the_rotation_is_proved_and_its_broken_variants_refuted(usim_max_n):
    report = assert_proved(ROTATE, max_n=usim_max_n(3), mutants=True)
    assert {r.label for r in report.results} >= {"1x1", "2x3", "3x2"}


def test_a_rotation_the_other_way_is_refuted_with_a_counterexample():
    def rotated_down(m):
        M = m["M"]
        return {"R": M.extract([(i - 1) % M.rows for i in range(M.rows)], list(range(M.cols)))}

    report = assert_refuted(usim.redeclare(ROTATE, id="rotate_rows_down", target=rotated_down), max_n=3)
    assert report.counterexample is not None and report.counterexample.replay == "exact"


def test_the_claims_are_found_by_the_name_the_command_line_reads():
    assert [c.id for c in usim.claims("rotate_rows.claims")] == ["rotate_rows"]
