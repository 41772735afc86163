"""Text for ``usim repl``: what a statement gave, a selection as a grid.

The session (:mod:`usim.repl.session`) returns data; this module turns it into
the lines the session prints, in the REPL's habits: a sequence with its value
on the running example, a selector as the grid of which keys each query
selects, a function with its parameters, a value as it is.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

from usim.commands.run import show_sequence
from usim.repl.session import (
    DRAWING,
    ERROR,
    EXAMPLE,
    FUNCTION,
    NOTE,
    SELECTOR,
    SEQUENCE,
    DrawnHead,
    Reply,
    Shown,
    example_literal,
)

KINDS = {"number": "numbers", "boolean": "booleans", "symbol": "symbols"}
MAX_GRID = 24
"""A selection on an input longer than this is summarised (how many keys each query selects)."""


def value_text(value: Any) -> str:
    """A value of the REPL's language (number, string, boolean, list, dict)."""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, Fraction):
        return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{value_text(k)}: {value_text(v)}" for k, v in value.items()) + "}"
    return str(value)


def grid_lines(selection: Sequence[Sequence[bool]], example: Sequence[Any], indent: str = "    ") -> list[str]:
    """A selection as a grid: a row per query, a column per key, ``#`` where
    the query selects the key; rows and columns labelled by position and input.

    Args:
        selection: row q, column k: query q selects key k.
        example: the input it was computed on.
        indent: put before every line.

    Returns:
        The lines.
    """
    n = len(selection)
    if n > MAX_GRID:
        counts = [sum(row) for row in selection]
        return [f"{indent}(length {n}: keys selected by each query) {show_sequence(counts)}"]
    labels = [str(v) for v in example]
    width = max(len(s) for s in labels)
    left = len(str(n - 1)) + 1 + width
    lines = [indent + " " * (left + 2) + "keys"]
    for row in range(width):  # the keys' labels, written downwards when they are long
        cells = [s.rjust(width)[row] for s in labels]
        lines.append(indent + " " * (left + 2) + " ".join(cells))
    for q, row in enumerate(selection):
        mark = " ".join("#" if x else "." for x in row)
        lines.append(indent + f"{q} {labels[q].rjust(width)}".rjust(left) + "  " + mark)
    return lines


def _head_lines(head: DrawnHead, example: Sequence[Any]) -> list[str]:
    lines = [f"  head {head.name} (selector {head.selector})"
             + (f": {show_sequence(head.result)}" if head.result else "")]
    return lines + grid_lines(head.selection, example)


def shown_lines(shown: Shown) -> list[str]:
    """The lines for one statement's result.

    Args:
        shown: what the statement gave.

    Returns:
        The lines.
    """
    if shown.what == ERROR:
        return [f"error: {shown.value}" if not str(shown.value).startswith(("error:", "syntax error:"))
                else str(shown.value)]
    if shown.what == NOTE:
        return [str(shown.value)]
    if shown.what == EXAMPLE:
        return [f"example: {example_literal(shown.value)}"]
    if shown.what == FUNCTION:
        return [f"function: {shown.name}({', '.join(shown.value)})"]
    if shown.what in (SEQUENCE, SELECTOR):
        kind = f" of {KINDS.get(shown.kind or '', shown.kind)}" if shown.kind else ""
        head = f"{shown.what}{kind}: {shown.name}"
        if shown.problem is not None:
            return [head, f"  on {example_literal(shown.example)}: not shown ({shown.problem})"]
        if shown.value is None:
            return [head]
        if shown.what == SEQUENCE:
            return [head, f"  on {example_literal(shown.example)}: {show_sequence(shown.value)}"]
        return [head + f" on {example_literal(shown.example)} (a row per query, # where it selects the key)",
                *grid_lines(shown.value, shown.example)]
    if shown.what == DRAWING:
        heads = shown.value
        lines = [f"draw {shown.name} on {example_literal(shown.example)}: "
                 + (f"{len(heads)} head(s)" if heads else "no heads (it reads no selector)")]
        for head in heads:
            lines += _head_lines(head, shown.example)
        return lines
    return [f"value: {shown.name} = {value_text(shown.value)}"]


def reply_lines(reply: Reply) -> list[str]:
    """Every line for what one fed line gave."""
    return [line for shown in reply.shown for line in shown_lines(shown)]
