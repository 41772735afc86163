"""The parser of the REPL's language starts from its stored LALR tables only when
they were made from this grammar by this lark, and parses exactly as one built
from the grammar."""

from __future__ import annotations

from pathlib import Path

import lark
import pytest

from usim.repl import parser, rasp_tables

REPO = Path(__file__).resolve().parents[1]
LISTINGS = sorted((REPO / "examples" / "rasp").glob("*.rasp"))


def test_the_stored_tables_were_made_from_this_grammar() -> None:
    assert rasp_tables.GRAMMAR_SHA256 == parser.grammar_digest(), (
        "rasp.lark changed: write the tables again with python -P -m usim.repl.write_tables")


@pytest.mark.skipif(rasp_tables.LARK_VERSION != lark.__version__,
                    reason=f"the tables are lark {rasp_tables.LARK_VERSION}'s; this is lark {lark.__version__}, "
                    "which builds the parser from the grammar")
@pytest.mark.parametrize("path", LISTINGS, ids=lambda p: p.name)
def test_the_stored_parser_gives_the_same_trees_as_the_built_one(path: Path, monkeypatch) -> None:
    """usim's syntax trees, spans (lines, columns, offsets) included, and the
    examples parsed from ``set example`` lines (the second start symbol)."""
    stored, built = parser.stored_lark(), parser.build_lark()
    assert stored is not None
    text = path.read_text()
    monkeypatch.setattr(parser, "_lark", lambda: stored)
    from_stored = parser.parse(text, path.name)
    monkeypatch.setattr(parser, "_lark", lambda: built)
    assert parser.parse(text, path.name) == from_stored


def test_tables_made_from_another_grammar_are_not_used(monkeypatch) -> None:
    monkeypatch.setattr(rasp_tables, "GRAMMAR_SHA256", "0" * 64)
    assert parser.stored_lark() is None


def test_tables_made_with_other_options_are_not_used(monkeypatch) -> None:
    monkeypatch.setitem(parser.OPTIONS, "propagate_positions", False)
    assert parser.stored_lark() is None


def test_tables_made_by_another_lark_are_not_used(monkeypatch) -> None:
    monkeypatch.setattr(rasp_tables, "LARK_VERSION", "0.0.0")
    assert parser.stored_lark() is None


def test_write_tables_writes_tables_that_load(tmp_path) -> None:
    import importlib.util

    from usim.repl.write_tables import write_tables

    path = write_tables(tmp_path / "tables.py")
    spec = importlib.util.spec_from_file_location("tables", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.GRAMMAR_SHA256 == parser.grammar_digest() and module.LARK_VERSION == lark.__version__
    loaded = lark.Lark._load_from_dict(module.DATA, module.MEMO)
    text = "def f(a) { return a + 1; }\nx = f(tokens);\n"
    assert loaded.parse(text, start="start") == parser.build_lark().parse(text, start="start")
