"""Small false statements a user could write, the verdicts usim gives them, and
how a refused command line looks.

Every soundness test builds a statement with the public API (a Construction,
an Obligation) and asks for its verdict with each engine alone and with all of
them together (:func:`verdicts`): a false statement must never come out
PROVED, whichever engines run.
"""

from __future__ import annotations

from typing import Any, Callable

import sympy

from usim.constructions.base import Construction
from usim.encodings.layout import SequenceLayout
from usim.engine.claim import Obligation, ObligationResult, Status
from usim.engine.solvers.cvc5_engine import cvc5_available
from usim.engine.runner import check_obligation
from usim.rasp.expr import SOp
from usim.rasp.program import Program

ENGINES = ["sympy", "z3"] + (["cvc5"] if cvc5_available() else [])


def vector_obligation(program: SOp, target: Callable[[sympy.Matrix], Any], n: int = 1,
                      preconditions: Callable[[sympy.Matrix], list] | None = None,
                      name: str = "user") -> Obligation:
    """A user's claim about a 1 x n input X: ``program`` outputs ``target(X)`` (1 x n)."""
    construction = Construction(name, Program.of(name, {"y": program}),
                                SequenceLayout.of(("X", (1, n))), SequenceLayout.of(("Y", (1, n))))
    return Obligation(name, (n,), construction, lambda m: {"Y": target(m["X"])},
                      preconditions=(lambda m: preconditions(m["X"])) if preconditions else None)


def verdicts(ob: Obligation, timeout: float = 30) -> dict[str, ObligationResult]:
    """The obligation checked with each engine alone, and with all together ("all")."""
    out = {engine: check_obligation(ob, [engine], timeout) for engine in ENGINES}
    out["all"] = check_obligation(ob, ENGINES, timeout)
    return out


def assert_never_proved(ob: Obligation, expected: set[Status], timeout: float = 30) -> dict[str, ObligationResult]:
    """No engine set proves ``ob``; all together give a status in ``expected``."""
    found = verdicts(ob, timeout)
    for engines, result in found.items():
        assert result.status is not Status.PROVED, f"{engines}: PROVED a false statement"
    assert found["all"].status in expected, found["all"]
    return found


def refused(capsys, argv: list[str]) -> str:
    """Run ``usim ARGV``: exit status 2, one line on stderr naming the command, no
    traceback, nothing on stdout; the line."""
    from usim.cli import main

    try:
        code = main(list(argv))
    except SystemExit as stop:  # argparse's own refusals stop here
        code = stop.code
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert code == 2, captured
    assert len(lines) == 1 and lines[0].startswith(f"usim {argv[0]}: error: "), captured.err
    assert "Traceback" not in captured.err and captured.out == ""
    return lines[0]
