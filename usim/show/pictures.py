"""The pictures: one per head, the layer diagram, the input and output matrices.

matplotlib is an optional extra (``pip install 'usim[plot]'``); :func:`pyplot`
imports it with the non-interactive Agg backend, or raises a :class:`UsimError`
that says how to install it (the command exits with status 2).

A head's picture is a RASPy-style selector drawing: query positions down, key
positions across, the selected cells filled (blue when the selector is decided
by positions alone, purple when it depends on the input's values, teal for a
selector width; :mod:`usim.show.style`) and, at small sizes, marked with the
value each selected key carries. Above the grid: the values the head averages
(one per key) and, when they are computed position by position from the input,
the input block each key position belongs to; at the right: what the head
writes at each query (grey where the query selects nothing and gets the
default) and, when the output is computed position by position from it, the
output block of that position. A head that reads or writes a sequence inside
the program gets no block strip there, and its picture says so
(:func:`layout_notes`). A selector that is a single ``select(keys, queries,
pred)`` also shows its keys sequence under the grid and its queries sequence at
the left, so the reader can check the predicate cell by cell.

The layer diagram (:func:`draw_layers`) is SVG with its text kept as text.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from usim.encodings.layout import SequenceLayout
from usim.errors import UsimError
from usim.rasp.expr import Expr, Semantics
from usim.show import style
from usim.show.diagram import DiagramBox, LayerDiagram
from usim.show.model import Model, ShownHead, format_value

INSTALL_HINT = "usim draws pictures with matplotlib, which is not installed: pip install 'usim[plot]'"


def pyplot():
    """matplotlib.pyplot on the Agg backend, or a UsimError saying how to install it."""
    try:
        import matplotlib
    except ImportError:
        raise UsimError(INSTALL_HINT) from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _numbers(values: Sequence[Any]) -> np.ndarray:
    return np.asarray([float(v) for v in values], dtype=np.float64)


def _block_colours(layout: SequenceLayout, palette: Sequence[str]) -> list[str]:
    """The colour of each position: its block's, or PADDING."""
    colours = [style.PADDING] * layout.length
    for index, block in enumerate(layout.blocks):
        for p in range(block.offset, block.end):
            colours[p] = palette[index % len(palette)]
    return colours


def _block_key(layout: SequenceLayout, palette: Sequence[str], what: str) -> list[tuple[str, str]]:
    """(colour, meaning) of each block of a layout (its padding is one entry of
    :func:`head_legend`, whichever layouts have some)."""
    return [(palette[i % len(palette)], f"{what} {b.name} ({b.shape})") for i, b in enumerate(layout.blocks)]


def strip_layouts(model: Model, head: ShownHead) -> tuple[SequenceLayout | None, SequenceLayout | None]:
    """The layouts a head's picture draws as block strips: the input layout over
    the keys when what the head reads there is computed position by position
    from the input, the output layout beside the queries when the output is
    computed position by position from what the head writes; None where the
    head reads or writes a sequence inside the program.

    Args:
        model: the shown model.
        head: one of its heads.

    Returns:
        (the keys' layout or None, the queries' layout or None).
    """
    return (model.input_layout if head.reads_input else None,
            model.output_layout if head.writes_output else None)


def layout_notes(model: Model, head: ShownHead) -> tuple[str, str]:
    """What the key positions and the query positions of a head's picture are,
    in words (one line each, printed under its title).

    Args:
        model: the shown model.
        head: one of its heads.

    Returns:
        (the keys' line, the queries' line).
    """
    keys, queries = strip_layouts(model, head)
    read = "its values" if head.kind == "aggregate" else "its keys"
    keys_line = (f"keys: positions of the input ({read} are computed position by position from it; "
                 "block strip above)" if keys is not None else
                 f"keys: positions of {head.read_name}, a sequence inside the program (no input block strip)")
    queries_line = ("queries: the output is computed position by position from what this head writes "
                    "(block strip at the right)" if queries is not None else
                    f"queries: positions of {head.name}, a sequence inside the program (no output block strip)")
    return keys_line, queries_line


def head_legend(model: Model, head: ShownHead) -> list[tuple[str, str]]:
    """The legend of a head's picture: (colour, meaning), each meaning once.

    Args:
        model: the shown model.
        head: one of its heads.

    Returns:
        The swatches in the order drawn.
    """
    key = [(style.head_colour(head.kind, head.static), "selected"), (style.UNSELECTED, "not selected")]
    if head.moved is not None and (~head.selection.any(axis=1)).any():
        rule = ("mean of all values (AHAT)" if head.semantics is Semantics.AHAT
                else f"default {format_value(head.default)}")
        key.append((style.EMPTY_ROW, f"empty row \u2192 {rule}"))
    keys, queries = strip_layouts(model, head)
    if keys is not None:
        key += _block_key(keys, style.INPUT_BLOCKS, "key in input")
    if queries is not None:
        key += _block_key(queries, style.OUTPUT_BLOCKS, "query in output")
    if any(layout is not None and layout.length > layout.used for layout in (keys, queries)):
        key.append((style.PADDING, "padding (in no block)"))
    return key


def head_title(head: ShownHead) -> str:
    """The title of a head's picture.

    Args:
        head: the head.

    Returns:
        Its name and its layer, as every picture and the page name layers.
    """
    return f"head {head.name}  \u2014  {head.layer_label}"


class _Sheet:
    """A figure with one axes whose data coordinates are inches (x right, y up).

    Every picture is placed by hand in inches: cells are images with an extent,
    labels are texts. One axes and no tick objects keep drawing fast.
    """

    def __init__(self, plt, width: float, height: float) -> None:
        self.figure = plt.figure(figsize=(width, height), dpi=style.DPI)
        self.ax = self.figure.add_axes((0, 0, 1, 1))
        self.ax.set_xlim(0, width)
        self.ax.set_ylim(0, height)
        self.ax.axis("off")
        self.width, self.height = width, height

    def cells(self, x: float, top: float, cell_w: float, cell_h: float, colours: np.ndarray,
              texts: Sequence[Sequence[str]] | None = None, grid: bool = False,
              text_colour: str = style.TEXT, size: float = 8.0, bold: bool = False,
              edge: str | None = None, edge_width: float = 0.8) -> None:
        """A rows x cols block of coloured cells with its top-left corner at (x, top)."""
        rows, cols = colours.shape[:2]
        right, bottom = x + cols * cell_w, top - rows * cell_h
        self.ax.imshow(colours, extent=(x, right, bottom, top), interpolation="nearest",
                       aspect="auto", zorder=1)
        if grid:
            self.ax.vlines([x + j * cell_w for j in range(cols + 1)], bottom, top,
                           colors=style.GRIDLINE, linewidth=0.6, zorder=2)
            self.ax.hlines([top - i * cell_h for i in range(rows + 1)], x, right,
                           colors=style.GRIDLINE, linewidth=0.6, zorder=2)
        if edge:
            from matplotlib.patches import Rectangle

            self.ax.add_patch(Rectangle((x, bottom), right - x, top - bottom, fill=False,
                                        edgecolor=edge, linewidth=edge_width, zorder=3))
        if texts is not None:
            for i, row in enumerate(texts):
                for j, value in enumerate(row):
                    if value:
                        self.ax.text(x + (j + 0.5) * cell_w, top - (i + 0.5) * cell_h, value,
                                     ha="center", va="center", fontsize=size, color=text_colour,
                                     fontweight="bold" if bold else "normal", zorder=4)

    def text(self, x: float, y: float, text: str, **kw) -> None:
        kw.setdefault("fontsize", 8)
        kw.setdefault("color", style.TEXT)
        self.ax.text(x, y, text, **kw)

    def save(self, plt, path: Path) -> Path:
        """Write the picture as PNG with a palette of at most 256 colours: the
        pictures are flat fills and text, and a palette makes them about a third
        the size of full colour with nothing a reader can tell apart (drawn to
        memory and encoded once)."""
        from PIL import Image  # matplotlib's own dependency

        self.figure.set_dpi(style.DPI)
        self.figure.canvas.draw()
        pixels = np.asarray(self.figure.canvas.buffer_rgba())
        plt.close(self.figure)
        drawn = Image.fromarray(pixels[..., :3])
        drawn.quantize(colors=256, method=Image.Quantize.FASTOCTREE).save(path)
        return path


def _ticks(n: int) -> list[int]:
    step = 1 if n <= style.TEXT_LIMIT else max(1, int(np.ceil(n / 12)))
    return list(range(0, n, step))


def _rgba(colours: Sequence[str]) -> np.ndarray:
    from matplotlib.colors import to_rgba

    return np.asarray([to_rgba(c) for c in colours])


def value_colours(values: Sequence[Any], norm: float, strong: bool = False) -> np.ndarray:
    """The colours of values on the one value map (style.VALUE_COLOURS).

    Args:
        values: the values.
        norm: the magnitude drawn at the map's ends.
        strong: the map's full range, where no value is written (the compact
            view); else its light middle, so that dark text stays readable.

    Returns:
        An (len(values), 4) array of RGBA colours.
    """
    from matplotlib.colors import LinearSegmentedColormap

    cmap = LinearSegmentedColormap.from_list("usim_values", style.VALUE_COLOURS)
    scaled = 0.5 + 0.5 * _numbers(values) / (norm or 1.0)
    low, span = (0.05, 0.9) if strong else (0.25, 0.5)
    return cmap(np.clip(low + span * scaled, 0, 1))


def _scale(values: Sequence[Any]) -> float:
    """The largest magnitude among the values (1 when there are none or all are 0)."""
    return float(np.max(np.abs(_numbers(values)))) or 1.0 if len(values) else 1.0


def _texts(values: Sequence[Any], show: bool, digits: int = 3) -> list[str]:
    return [format_value(v, digits) if show else "" for v in values]


def draw_head(model: Model, head: ShownHead, path: Path) -> Path:
    """The selector picture of one head, saved as PNG at ``path``."""
    plt = pyplot()
    n = model.n
    s = style.cell_inches(n)
    show = n <= style.TEXT_LIMIT
    t = s if show else 0.22  # strip thickness
    b = 0.1  # block band thickness
    size = style.font_size(n)
    single = head.key_values is not None
    aggregate = head.moved is not None
    grid = n * s
    title_h, numbers_h = 1.65, 0.28
    left = 1.3 + (t + 0.05 if single else 0) + (0.5 if single else 0)
    right = 0.05 + t + b + 1.7
    legend = head_legend(model, head)
    legend_h = 0.3 + 0.22 * ((len(legend) + 3) // 4)
    keys_layout, queries_layout = strip_layouts(model, head)
    width = max(left + grid + right, 6.2)
    height = title_h + numbers_h + b + (t if aggregate else 0) + 0.05 + grid + (t + 0.05 if single else 0) + 0.3 + legend_h
    sheet = _Sheet(plt, width, height)
    colour = style.head_colour(head.kind, head.static)
    # one colour scale for the values moved and written, one for the keys and queries
    norm = _scale(head.result + (head.moved or ()))
    index_norm = _scale((head.key_values or ()) + (head.query_values or ()))
    empty = ~head.selection.any(axis=1)

    # from the top: key positions, input blocks of the keys, the values moved, the grid
    y = height - title_h
    for k in _ticks(n):
        sheet.text(left + (k + 0.5) * s, y - numbers_h / 2, str(k), ha="center", va="center",
                   fontsize=7, color=style.MUTED)
    sheet.text(left + grid / 2, y + 0.05, "key position", ha="center", va="bottom", fontsize=8,
               color=style.MUTED)
    y -= numbers_h
    if keys_layout is not None:
        sheet.cells(left, y, s, b, _rgba(_block_colours(keys_layout, style.INPUT_BLOCKS))[None])
    y -= b
    if aggregate:
        sheet.cells(left, y, s, t, value_colours(head.moved, norm, not show)[None], [_texts(head.moved, show)],
                    grid=show, size=size)
        sheet.text(left - 0.1, y - t / 2, f"values:\n{_clip(head.values, 22)}", ha="right",
                   va="center", fontsize=7.5, color=style.MUTED)
        y -= t
    y -= 0.05
    top = y
    image = np.empty((n, n, 4))
    image[:] = _rgba([style.UNSELECTED])[0]
    image[head.selection] = _rgba([colour])[0]
    moved = None
    if show and aggregate:
        moved = [[format_value(head.moved[k]) if head.selection[q, k] else "" for k in range(n)]
                 for q in range(n)]
    sheet.cells(left, top, s, s, image, moved, grid=n <= style.GRID_LIMIT, text_colour="white",
                size=size, bold=True, edge=style.GRIDLINE)

    # right: what the head writes (grey on an empty row), and the output block of the query
    result = value_colours(head.result, norm, not show)
    if aggregate:
        result[empty] = _rgba([style.EMPTY_ROW])[0]
    x = left + grid + 0.05
    sheet.cells(x, top, t, s, result[:, None, :], [[v] for v in _texts(head.result, show)],
                grid=show, size=size)
    sheet.text(x + t / 2, top + 0.04, "result" if aggregate else "width", ha="center", va="bottom",
               fontsize=7.5, color=style.MUTED)
    if queries_layout is not None:
        out = _rgba(_block_colours(queries_layout, style.OUTPUT_BLOCKS))[:, None, :]
        sheet.cells(x + t, top, b, s, out)

    # a single select: its queries at the left, its keys below
    x_numbers = left - 0.15
    if single:
        qx = left - t - 0.05
        sheet.cells(qx, top, t, s, value_colours(head.query_values, index_norm, not show)[:, None, :],
                    [[v] for v in _texts(head.query_values, show)], grid=show, size=size)
        sheet.text(qx + t, top - grid - 0.09, f"queries:\n{_clip(head.queries_name, 22)}",
                   ha="right", va="top", fontsize=7.5, color=style.MUTED)
        ky = top - grid - 0.05
        sheet.cells(left, ky, s, t, value_colours(head.key_values, index_norm, not show)[None],
                    [_texts(head.key_values, show)], grid=show, size=size)
        sheet.text(left + grid + 0.1, ky - t / 2, f"keys: {_clip(head.keys_name, 26)}", va="center",
                   fontsize=7.5, color=style.MUTED)
        x_numbers = qx - 0.1
    for q in _ticks(n):
        sheet.text(x_numbers, top - (q + 0.5) * s, str(q), ha="right", va="center", fontsize=7,
                   color=style.MUTED)
    sheet.text(x_numbers - 0.3, top - grid / 2, "query position", ha="right", va="center",
               fontsize=8, color=style.MUTED, rotation=90)

    # title and legend
    decided = "decided by positions alone" if head.static else "depends on the input values"
    sheet.text(0.2, height - 0.3, head_title(head), fontsize=12, fontweight="bold", va="top")
    sheet.text(0.2, height - 0.62, _clip(head.description, 110), fontsize=9, va="top")
    selector = "\n".join(textwrap.wrap(f"selector: {head.selector}  [{decided}]",
                                        int(width * 13))[:2])
    sheet.text(0.2, height - 0.86, selector, fontsize=7.5, color=style.MUTED, va="top",
               family="monospace")
    for row, line in enumerate(layout_notes(model, head)):
        sheet.text(0.2, height - 1.16 - 0.17 * row, _clip(line, int(width * 15)), fontsize=7.5,
                   color=style.MUTED, va="top")
    _draw_key(sheet, legend, legend_h)
    return sheet.save(plt, path)


def _draw_key(sheet: "_Sheet", key: Sequence[tuple[str, str]], room: float) -> None:
    """Colour swatches with their meaning, four to a row, at the bottom (cheaper
    to draw than a matplotlib legend)."""
    from matplotlib.patches import Rectangle

    column = (sheet.width - 0.3) / 4
    for index, (colour, label) in enumerate(key):
        row, col = divmod(index, 4)
        x, y = 0.15 + col * column, room - 0.25 - row * 0.22
        sheet.ax.add_patch(Rectangle((x, y - 0.06), 0.2, 0.12, facecolor=colour,
                                     edgecolor=style.GRIDLINE, linewidth=0.5))
        sheet.text(x + 0.27, y, _clip(label, int(column * 13)), va="center", fontsize=7)


def _clip(text: str | None, limit: int) -> str:
    text = text or ""
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- the layer diagram ---------------------------------------------------------------------

_PER_ROW = 4  # boxes per row before a row wraps
_LABELS_W, _MARGIN, _GAP = 1.15, 0.15, 0.18  # inches
_LINE = style.DIAGRAM_FONT * 1.3 / 72  # inches per line of text


def _displayed_sources(node: Expr, shown: set[int], memo: dict[int, set[int]]) -> set[int]:
    """The shown nodes that ``node`` reads, looking through the ones not shown."""
    out: set[int] = set()
    for child in node.children():
        if child.id in shown:
            out.add(child.id)
        else:
            if child.id not in memo:
                memo[child.id] = _displayed_sources(child, shown, memo)
            out |= memo[child.id]
    return out


def _box_colour(box: DiagramBox) -> str:
    if box.kind in ("aggregate", "selector_width"):
        return style.head_colour(box.kind, box.static)
    return {"input": style.INPUT_BOX, "length": style.LENGTH}.get(box.kind, style.ELEMENTWISE)


def box_lines(box: DiagramBox, box_width: float) -> list[str]:
    """A box's detail wrapped whole (nothing cut) to the width of a box.

    Args:
        box: the box.
        box_width: its width in inches.

    Returns:
        The lines of its detail.
    """
    per_line = max(12, int(box_width * 72 / (style.DIAGRAM_FONT * 0.66)))
    return textwrap.wrap(box.detail, per_line, break_long_words=True, break_on_hyphens=False) or [""]


def draw_layers(diagram: LayerDiagram, path: Path) -> Path:
    """Attention layers as rows (bottom to top), heads as boxes, element-wise
    steps in the bands between them, the inputs (``length`` among them) at the
    bottom; written as SVG at ``path`` with its text as text, at most
    style.DIAGRAM_WIDTH inches wide, no text under style.DIAGRAM_FONT points,
    formulas wrapped whole.

    Args:
        diagram: the rows to draw (:func:`usim.show.diagram.layer_diagram`).
        path: the file to write (.svg).

    Returns:
        ``path``.
    """
    plt = pyplot()
    import matplotlib
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    width = style.DIAGRAM_WIDTH
    box_w = (width - _LABELS_W - _MARGIN - (_PER_ROW - 1) * _GAP) / _PER_ROW
    summary = textwrap.wrap(diagram.summary, int(width * 72 / (style.DIAGRAM_FONT * 0.58)))
    # lay the rows out from the bottom, in inches: (row, chunks of (box, lines, x), y, height)
    layout = []
    y = 0.2
    for row in diagram.rows:
        chunks = [row.boxes[i:i + _PER_ROW] for i in range(0, len(row.boxes), _PER_ROW)] or [()]
        low = y
        for chunk in chunks:
            lines = [box_lines(box, box_w) for box in chunk]
            height = 0.16 + (1 + max((len(ls) for ls in lines), default=0)) * _LINE
            offset = _LABELS_W + (_PER_ROW - len(chunk)) * (box_w + _GAP) / 2
            layout.append((row, [(box, ls, offset + i * (box_w + _GAP)) for i, (box, ls) in
                                 enumerate(zip(chunk, lines))], y, height))
            y += height + 0.16
        layout.append((row, None, low, y - 0.16 - low))  # the row's extent, for its label
        y += 0.22
    total = y + 0.15 + len(summary) * _LINE
    # text as text (not paths), one font named (every label would carry matplotlib's dozen fallbacks),
    # no metadata (its date made the same diagram a different file on every run)
    with matplotlib.rc_context({"svg.fonttype": "none", "font.family": "sans-serif",
                                "font.sans-serif": ["DejaVu Sans"], "svg.hashsalt": "usim"}):
        figure = plt.figure(figsize=(width, total), dpi=style.DPI)
        ax = figure.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, width)
        ax.set_ylim(0, total)
        ax.axis("off")
        font = style.DIAGRAM_FONT
        centres: dict[int, tuple[float, float, float]] = {}  # node id -> (x, bottom, top)
        placed = []
        for row, boxes, low, height in layout:
            if boxes is None:
                if row.kind == "layer":
                    ax.axhspan(low - 0.08, low + height + 0.08, color="#f4f3ee", zorder=0)
                colour = style.TEXT if row.kind == "layer" else style.MUTED
                ax.text(_LABELS_W - 0.12, low + height / 2, row.label, ha="right", va="center",
                        fontsize=font + (1 if row.kind == "layer" else 0), color=colour,
                        fontweight="bold" if row.kind == "layer" else "normal")
                continue
            for box, lines, x in boxes:
                colour = _box_colour(box)
                light = box.kind in ("aggregate", "selector_width")
                ax.add_patch(FancyBboxPatch((x, low), box_w, height,
                                            boxstyle="round,pad=0.01,rounding_size=0.06",
                                            facecolor=colour,
                                            edgecolor=style.OUTPUT_EDGE if box.is_output else "#555555",
                                            linewidth=2.0 if box.is_output else 0.8, zorder=2))
                ink = "white" if light else style.TEXT
                top = low + height - 0.08
                ax.text(x + box_w / 2, top - _LINE / 2, _clip(box.title, int(box_w * 72 / (font * 0.68))),
                        ha="center", va="center", fontsize=font + 0.5, fontweight="bold", color=ink, zorder=3)
                face = {"family": "monospace"} if box.kind == "step" else {}
                for i, line in enumerate(lines, 1):
                    ax.text(x + box_w / 2, top - (i + 0.5) * _LINE, line, ha="center", va="center",
                            fontsize=font, color=ink, zorder=3, **face)
                centres[box.node.id] = (x + box_w / 2, low, low + height)
                placed.append(box)
        if len(placed) <= 60:  # beyond, arrows are a thicket
            shown = set(centres)
            quiet = {box.node.id for box in placed if box.kind == "input" and box.title == "indices"}
            memo: dict[int, set[int]] = {}
            for box in placed:
                x2, bottom, _ = centres[box.node.id]
                for source in _displayed_sources(box.node, shown, memo) - quiet:
                    x1, _, top = centres[source]
                    if top >= bottom:
                        continue
                    ax.add_patch(FancyArrowPatch((x1, top), (x2, bottom), arrowstyle="-|>",
                                                 mutation_scale=7, color="#8a8a8a", linewidth=0.6,
                                                 alpha=0.6, zorder=4, shrinkA=1, shrinkB=1))
        ax.text(_MARGIN, total - 0.1, "\n".join(summary), fontsize=font, va="top", color=style.TEXT)
        figure.savefig(path, format="svg", metadata={"Date": None})
        plt.close(figure)
    return path


# -- input and output as matrices ----------------------------------------------------------


def draw_sequences(model: Model, path: Path) -> Path:
    """The input and output sequences, and the matrices they encode.

    Each sequence is a strip of positions coloured by the block they belong to
    (padding grey); under it, each block as its matrix, on the value colour map
    with the values written in (up to 20 x 20 entries).
    """
    plt = pyplot()
    n = model.n
    show = n <= 40
    s = min(0.42, 11.0 / n)
    parts = [("input", model.input_layout, model.tokens, style.INPUT_BLOCKS),
             ("output", model.output_layout, model.output, style.OUTPUT_BLOCKS)]
    norm = float(np.max(np.abs(_numbers(list(model.tokens) + list(model.output))))) or 1.0

    def side(layout: SequenceLayout) -> float:
        return min(0.42, 6.0 / max(max(b.shape.rows, b.shape.cols) for b in layout.blocks))

    def block_height(layout: SequenceLayout) -> float:
        return max(b.shape.rows for b in layout.blocks) * side(layout)

    left = 1.2
    mat_w = max(sum(b.shape.cols * side(layout) + 0.6 for b in layout.blocks)
                for _, layout, _, _ in parts)
    width = max(left + n * s + 0.4, left + mat_w + 2.4, 6.0)
    height = 0.2 + sum(0.45 + s + 0.55 + block_height(layout) + 0.3 for _, layout, _, _ in parts)
    sheet = _Sheet(plt, width, height)
    y = height - 0.2
    for what, layout, values, palette in parts:
        sheet.text(left, y - 0.3, f"{what} sequence: {layout.describe()}", fontsize=9, va="bottom")
        y -= 0.45
        sheet.cells(left, y, s, s, _rgba(_block_colours(layout, palette))[None],
                    [_texts(values, show, 2)], grid=True,
                    size=min(style.font_size(n), 7.5 if n > 20 else 8.5))
        sheet.text(left - 0.1, y - s / 2, f"{what}\n(n = {n})", ha="right", va="center", fontsize=9)
        for p in (_ticks(n) if show else range(0, n, max(1, n // 10))):
            sheet.text(left + (p + 0.5) * s, y - s - 0.04, str(p), ha="center", va="top",
                       fontsize=6.5, color=style.MUTED)
        y -= s + 0.55
        x = left
        a = side(layout)
        for index, block in enumerate(layout.blocks):
            r, c = block.shape.rows, block.shape.cols
            matrix = list(values[block.offset:block.end])
            texts = [_texts(matrix[i * c:(i + 1) * c], r <= 20 and c <= 20) for i in range(r)]
            sheet.cells(x, y, a, a, value_colours(matrix, norm).reshape(r, c, 4), texts,
                        size=7.5, edge=palette[index % len(palette)], edge_width=2.5)
            sheet.text(x + c * a / 2, y + 0.04, f"{block.name} ({block.shape})", ha="center",
                       va="bottom", fontsize=9)
            x += c * a + 0.6
        if layout.length > layout.used:
            zero = all(float(v) == 0 for v in values[layout.used:])
            sheet.text(x, y - 0.1, f"padding [{layout.used}, {layout.length}): "
                       + ("all 0" if zero else "NOT all 0"), va="top", fontsize=8,
                       color=style.MUTED if zero else "#b00020")
        y -= block_height(layout) + 0.3
    return sheet.save(plt, path)
