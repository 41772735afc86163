"""The compiler refuses what it cannot realise with one line naming the expression.

Before: an aggregate with no default (a REPL listing's aggregate of symbols,
``default=None``: a row that selects no key is undefined) reached
``Fraction(None)`` in ``build_head`` and raised a raw ``TypeError``."""

from __future__ import annotations

from pathlib import Path

import pytest

from usim.rasp.program import Program
from usim.repl import load_file
from usim.transformer.compiler import compile_program
from usim.transformer.circuit import CompileError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "rasp"


def test_an_aggregate_with_no_default_is_a_compile_error_naming_it():
    rasp = load_file(str(EXAMPLES / "symbols.rasp"), True, ["a", "b", "c"])
    sop = rasp.build("reverse", None).sop
    assert sop.default is None  # the listing's aggregate of symbols gives none
    with pytest.raises(CompileError) as error:
        compile_program(Program.of("reverse", {"reverse": sop}), 3)
    message = str(error.value)
    assert len(message.splitlines()) == 1
    assert message.startswith(f"reverse: cannot compile {sop.name} = aggregate(")
    assert "it has no default" in message
