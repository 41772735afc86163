"""Text for ``usim repl``: what a statement gave, a selection as a grid.

The session (:mod:`usim.repl.session`) returns data; this module turns it into
the lines the session prints, in the REPL's habits: a sequence with its value
on the running example, a selector as the grid of which keys each query
selects, a function with its parameters, a value as it is.
"""

from __future__ import annotations

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
    Drawing,
    DrawnHead,
    Reply,
    Shown,
    example_literal,
)
from usim.repl.values import value_literal

KINDS = {"number": "numbers", "boolean": "booleans", "symbol": "symbols"}
MAX_GRID = 24
"""A selection on an input longer than this is summarised (how many keys each query selects)."""


def error_line(text: str) -> str:
    """A refusal as the session prints it: one line starting ``error:`` (or ``syntax error:``)."""
    return text if text.startswith(("error:", "syntax error:")) else f"error: {text}"


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
        return [error_line(str(shown.value))]
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
        drawing = shown.value
        lines = [f"draw {shown.name} on {example_literal(shown.example)}: " + heads_text(drawing)]
        for head in drawing.heads:
            lines += _head_lines(head, shown.example)
        return lines
    return [f"value: {shown.name} = {value_literal(shown.value)}"]


def heads_text(drawing: Drawing) -> str:
    """How many heads a drawing shows: ``2 head(s)``, ``12 of 14 heads``."""
    if not drawing.total:
        return "no heads (it reads no selector)"
    shown = len(drawing.heads)
    return f"{shown} head(s)" if shown == drawing.total else f"{shown} of {drawing.total} heads"


def reply_lines(reply: Reply) -> list[str]:
    """Every line for what one fed line gave.

    Args:
        reply: what :meth:`usim.repl.session.Session.feed` returned.

    Returns:
        The lines, in the order of the statements.
    """
    return [line for shown in reply.shown for line in shown_lines(shown)]
