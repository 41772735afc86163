"""``--engine`` (``usim prove``, ``usim check``): a list with an empty or repeated
name is one line and exit 2, nothing run.

Before: ``--engine 'sympy,'`` dropped the empty name and ran sympy alone, and
``sympy,sympy`` ran it twice, silently."""

from __future__ import annotations

from pathlib import Path

import pytest
from soundness_statements import refused

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "rasp"

COMMANDS = {
    "prove": ["prove", "lemma3", "--max-n", "1", "-q"],
    "check": ["check", str(EXAMPLES / "relu.rasp"), "-f", "relu", "--spec", "relu", "--max-n", "1"],
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("engines, says", [
    ("sympy,", "--engine 'sympy,' has an empty name"),
    (",z3", "--engine ',z3' has an empty name"),
    ("sympy,,z3", "--engine 'sympy,,z3' has an empty name"),
    (" ", "--engine needs a name"),
    ("sympy,sympy", "--engine 'sympy,sympy' names sympy twice"),
])
def test_an_engine_list_with_an_empty_or_repeated_name_is_refused(command, engines, says, capsys):
    assert says in refused(capsys, [*COMMANDS[command], "--engine", engines])


def test_an_engine_list_with_spaces_around_the_names_is_accepted():
    from usim.commands.options import engines_option

    assert engines_option(" sympy , z3 ") == ["sympy", "z3"]
    assert engines_option("all") is None
