"""Text laid out for a terminal: aligned tables and lines that fit :data:`LINE_WIDTH` columns.

Below every renderer (:mod:`usim.render`, :mod:`usim.render_all_sizes`, ...), so
that each can lay out its text without importing another.
"""

from __future__ import annotations

from typing import Sequence

LINE_WIDTH = 100
"""The widest a line of usim's terminal output is (tables and explanations wrap
to it; a matrix or a counterexample's values are never broken)."""


def fitted(lines: Sequence[str], width: int = LINE_WIDTH) -> list[str]:
    """Lines wrapped to ``width``, each continuation indented under its line's text.

    A line's leading spaces (and a list item's "- ") are kept, and its
    continuation lines start under the text after them.

    Args:
        lines: the lines, each without a newline.
        width: the widest a line may be.

    Returns:
        The wrapped lines (a line that fits is unchanged).
    """
    import textwrap

    out: list[str] = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        text = line.lstrip(" ")
        lead = " " * (len(line) - len(text))
        hang = lead + ("  " if text.startswith("- ") else "    ")
        out += textwrap.wrap(text, width, initial_indent=lead, subsequent_indent=hang,
                             break_long_words=False, break_on_hyphens=False)
    return out


def table(rows: Sequence[Sequence[str]], header: Sequence[str], width: int | None = None) -> str:
    """Rows in aligned columns under a header.

    Args:
        rows: the cells, row by row.
        header: the columns' names.
        width: the widest a line may be: the widest of the columns after the
            first is narrowed, one character at a time, until the lines fit,
            and its cells wrap onto continuation lines. None: no limit.

    Returns:
        The table's text.
    """
    import textwrap

    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    narrowest = 12
    while width is not None and sum(widths) + 2 * (len(widths) - 1) > width:
        widest = max(range(1, len(widths)), key=lambda i: widths[i], default=None)
        if widest is None or widths[widest] <= narrowest:
            break
        widths[widest] -= 1

    def lines(r: Sequence[str]) -> list[str]:
        cells = [textwrap.wrap(str(c), w) or [""] for c, w in zip(r, widths)]
        depth = max(len(c) for c in cells)
        return [
            "  ".join((c[k] if k < len(c) else "").ljust(w) for c, w in zip(cells, widths)).rstrip()
            for k in range(depth)
        ]

    out = [*lines(header), "  ".join("-" * w for w in widths)]
    for r in rows:
        out += lines(r)
    return "\n".join(out)
