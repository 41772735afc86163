"""One palette and one set of size rules for every picture `usim show` draws.

A colour means one thing in every picture. The cool hues (teal, blue, purple:
hues in SELECTION_HUES) mean a head's selection and nothing else: the selected
cells of a head whose selector is decided by positions alone are STATIC blue,
of a head whose selector depends on the input values DYNAMIC purple, of a
selector width WIDTH teal (a head's box in the layer diagram takes the same
colour). Everything else stays out of those hues: values are drawn on one warm
diverging map (VALUE_COLOURS: brown below 0, white at 0, red above), input
blocks take INPUT_BLOCKS in layout order, output blocks OUTPUT_BLOCKS, a
position in no block is PADDING (light grey), a query that selects nothing
EMPTY_ROW (mid grey); the `length` input is LENGTH orange, element-wise steps
are ELEMENTWISE grey. :func:`is_selection_hue` is the rule, and the tests hold
every other colour to it.

Sizes: up to TEXT_LIMIT positions a picture writes every value in its cell; up
to GRID_LIMIT it still draws the cell grid; beyond, it is a compact heat map.
The layer diagram is written as SVG with its text as text, at most
DIAGRAM_WIDTH inches wide and never below DIAGRAM_FONT points, so that a page
shows it at its own size, legibly.
"""

from __future__ import annotations

import colorsys

STATIC = "#2f6db5"
DYNAMIC = "#7e4fb0"
WIDTH = "#2a9d8f"  # selector-width heads
SELECTION = (STATIC, DYNAMIC, WIDTH)
SELECTION_HUES = (160.0, 300.0)  # degrees: teal to purple
LENGTH = "#e69f00"
ELEMENTWISE = "#e2e2e2"
INPUT_BOX = "#fff7d6"
OUTPUT_EDGE = "#1b7f3b"
UNSELECTED = "#f5f5f5"
GRIDLINE = "#c8c8c8"
EMPTY_ROW = "#a8a8a8"
TEXT = "#222222"
MUTED = "#666666"
INPUT_BLOCKS = ("#f0a35e", "#8fce6a", "#e78ac3", "#e8d44d", "#a67c52", "#e0665f")
OUTPUT_BLOCKS = ("#c2185b", "#f9a825", "#8d6e63", "#9e9d24")
PADDING = "#dcdcdc"
VALUE_COLOURS = ("#8c510a", "#ffffff", "#b2182b")  # the value map: most negative, 0, most positive

TEXT_LIMIT = 24
GRID_LIMIT = 48
DPI = 110
DIAGRAM_WIDTH = 10.6  # inches: about 1 000 px where a browser shows an SVG at its own size
DIAGRAM_FONT = 9.0  # points, the smallest text of the layer diagram


def head_colour(kind: str, static: bool) -> str:
    """The colour of a head's selected cells (and of its box in the diagram).

    Args:
        kind: "aggregate" or "selector_width".
        static: whether the selector is decided by positions alone.

    Returns:
        One of SELECTION.
    """
    if kind == "selector_width":
        return WIDTH
    return STATIC if static else DYNAMIC


def is_selection_hue(colour: str | tuple[float, ...]) -> bool:
    """Whether a colour looks like a selection: a cool hue (SELECTION_HUES)
    with some saturation. Greys and whites never do.

    Args:
        colour: "#rrggbb", or an RGB(A) tuple of floats in [0, 1].

    Returns:
        True for the selection colours, False for every other colour usim draws.
    """
    if isinstance(colour, str):
        text = colour.lstrip("#")
        rgb = tuple(int(text[i:i + 2], 16) / 255 for i in (0, 2, 4))
    else:
        rgb = tuple(float(c) for c in colour[:3])
    hue, lightness, saturation = colorsys.rgb_to_hls(*rgb)
    low, high = SELECTION_HUES
    return saturation >= 0.2 and 0.1 < lightness < 0.95 and low <= hue * 360 <= high


def cell_inches(n: int) -> float:
    """The side of one cell: 0.46 inch while a picture stays within about 9
    inches, then shrinking (values are written up to TEXT_LIMIT positions)."""
    return max(0.02, min(0.46, 9.0 / n))


def font_size(n: int) -> float:
    return 8.5 if n <= 10 else (7.0 if n <= 16 else 6.0)
