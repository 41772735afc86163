"""Write :mod:`usim.repl.rasp_tables`, the stored LALR tables of ``rasp.lark``.

Run ``python -P -m usim.repl.write_tables`` after editing the grammar
(:mod:`usim.repl.parser` says why the tables are stored and when they are used).
"""

from __future__ import annotations

import os
from pathlib import Path

from usim.repl.parser import build_lark, grammar_digest


def write_tables(path: Path | None = None) -> Path:
    """Write :mod:`.rasp_tables` from the grammar, as this lark builds it.

    Args:
        path: where (default: ``rasp_tables.py`` beside this module).

    Returns:
        The path written.
    """
    import lark
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    data, memo = build_lark().memo_serialize([TerminalDef, Rule])
    path = path or Path(__file__).with_name("rasp_tables.py")
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(
        '"""The LALR tables of ``rasp.lark``, as lark computes them (generated: do not edit).\n\n'
        "Written by ``python -P -m usim.repl.write_tables``;\n"
        "used only with the grammar and the lark version below.\n"
        '"""\n\n'
        f"GRAMMAR_SHA256 = {grammar_digest()!r}\n"
        f"LARK_VERSION = {lark.__version__!r}\n"
        f"DATA = {data!r}\n"
        f"MEMO = {memo!r}\n", encoding="utf-8")
    os.replace(temporary, path)  # whole or not at all
    return path


if __name__ == "__main__":
    print(f"wrote {write_tables()}")
