"""One palette and one set of size rules for every picture `usim show` draws.

A colour means the same thing in every picture: the selected cells of a head
whose selector is decided by positions alone are STATIC blue, of a head whose
selector depends on the input values DYNAMIC purple; the `length` layer is
LENGTH orange; element-wise steps are grey; input blocks take INPUT_BLOCKS in
layout order, output blocks OUTPUT_BLOCKS, padding is PADDING. Values are drawn
on a diverging map centred at 0 (VALUE_MAP).

Sizes: up to TEXT_LIMIT positions a picture writes every value in its cell; up
to GRID_LIMIT it still draws the cell grid; beyond, it is a compact heat map.
"""

from __future__ import annotations

STATIC = "#2f6db5"
DYNAMIC = "#7e4fb0"
WIDTH = "#2a9d8f"  # selector-width heads
LENGTH = "#e69f00"
ELEMENTWISE = "#e2e2e2"
OUTPUT_EDGE = "#1b7f3b"
UNSELECTED = "#f5f5f5"
GRIDLINE = "#c8c8c8"
EMPTY_ROW = "#d9d9d9"
TEXT = "#222222"
MUTED = "#666666"
INPUT_BLOCKS = ("#56b4e9", "#f0a35e", "#9ad17a", "#cc79a7", "#e8d44d", "#8c9fd9")
OUTPUT_BLOCKS = ("#3cb371", "#d98cb3", "#7fb3d5", "#c9a227")
PADDING = "#c0c0c0"
VALUE_MAP = "RdBu_r"

TEXT_LIMIT = 24
GRID_LIMIT = 48
DPI = 110


def head_colour(kind: str, static: bool) -> str:
    if kind == "selector_width":
        return WIDTH
    return STATIC if static else DYNAMIC


def cell_inches(n: int) -> float:
    """The side of one cell: 0.46 inch while a picture stays within about 9
    inches, then shrinking (values are written up to TEXT_LIMIT positions)."""
    return max(0.02, min(0.46, 9.0 / n))


def font_size(n: int) -> float:
    return 8.5 if n <= 10 else (7.0 if n <= 16 else 6.0)
