"""The cross-check of the interpretations says what it compared, in words."""

from __future__ import annotations

from pathlib import Path

from usim.cli import main

LISTING = Path(__file__).resolve().parent.parent / "examples" / "rasp" / "softmax_paper.rasp"


def test_a_term_z3_leaves_unevaluated_is_not_compared_rather_than_said_to_differ(capsys) -> None:
    """At 3x1 the paper's softmax is PROVED (every entry is 1); z3's simplify leaves
    its power 1359/500 ** x a term. That was printed 'smt DIFFERS' beside PROVED."""
    main(["check", str(LISTING), "--function", "softmax", "--spec", "softmax", "--shape", "3x1"])
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.strip().startswith("interpretations: exact"))
    assert "DIFFERS" not in line
    assert "smt not compared at position 0: z3's simplify leaves a term there" in line
    assert "a check of usim, not of the listing" in out
