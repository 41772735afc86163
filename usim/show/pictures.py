"""The pictures: one per head, the layer diagram, the input and output matrices.

matplotlib is an optional extra (``pip install 'usim[plot]'``); :func:`pyplot`
imports it with the non-interactive Agg backend, or raises a :class:`UsimError`
that says how to install it (the command exits with status 2).

A head's picture is a RASPy-style selector drawing: query positions down, key
positions across, the selected cells filled (blue when the selector is decided
by positions alone, purple when it depends on the input's values) and, at small
sizes, marked with the value each selected key carries. Above the grid: the
values the head averages (one per key) and the input block each key position
belongs to; at the right: what the head writes at each query (grey where the
query selects nothing and gets the default) and the output block of that
position. A selector that is a single ``select(keys, queries, pred)`` also
shows its keys sequence under the grid and its queries sequence at the left, so
the reader can check the predicate cell by cell.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from usim.encodings.layout import SequenceLayout
from usim.errors import UsimError
from usim.rasp.expr import Expr, Indices, Length, Tokens
from usim.show import style
from usim.show.model import Head, Model, format_value

INSTALL_HINT = "usim show draws with matplotlib, which is not installed: pip install 'usim[plot]'"


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


def _block_handles(layout: SequenceLayout, palette: Sequence[str], what: str):
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=palette[i % len(palette)], label=f"{what} {b.name} ({b.shape})")
               for i, b in enumerate(layout.blocks)]
    if layout.length > layout.used:
        handles.append(Patch(facecolor=style.PADDING, label="padding"))
    return handles


class _Canvas:
    """Axes placed in inches on a figure of a known size."""

    def __init__(self, plt, width: float, height: float) -> None:
        self.figure = plt.figure(figsize=(width, height), dpi=style.DPI)
        self.width, self.height = width, height

    def axes(self, left: float, bottom: float, width: float, height: float):
        ax = self.figure.add_axes((left / self.width, bottom / self.height,
                                   width / self.width, height / self.height))
        ax.set_xticks([])
        ax.set_yticks([])
        for spine in ax.spines.values():
            spine.set_color(style.GRIDLINE)
        return ax


def _ticks(n: int) -> list[int]:
    step = 1 if n <= style.TEXT_LIMIT else max(1, int(np.ceil(n / 12)))
    return list(range(0, n, step))


def _strip(ax, values: Sequence[Any] | None, colours: Sequence[str] | None, vertical: bool,
           norm: float, label: str, show_text: bool, greyed: Sequence[bool] | None = None) -> None:
    """A row (or column) of n cells: coloured by value, or by the given colours."""
    n = len(values) if values is not None else len(colours or ())
    if colours is not None:
        from matplotlib.colors import to_rgba

        image = np.asarray([to_rgba(c) for c in colours])[None, :, :]
    else:
        import matplotlib

        cmap = matplotlib.colormaps[style.VALUE_MAP]
        scaled = 0.5 + 0.5 * _numbers(values) / (norm or 1.0)
        image = cmap(np.clip(0.15 + 0.7 * scaled, 0, 1))[None, :, :]
        if greyed is not None:
            from matplotlib.colors import to_rgba

            for p, g in enumerate(greyed):
                if g:
                    image[0, p] = to_rgba(style.EMPTY_ROW)
    if vertical:
        image = image.transpose(1, 0, 2)
    ax.imshow(image, aspect="auto", interpolation="nearest")
    if show_text and values is not None:
        size = style.font_size(n)
        for p, v in enumerate(values):
            x, y = (0, p) if vertical else (p, 0)
            ax.text(x, y, format_value(v), ha="center", va="center", fontsize=size, color=style.TEXT)
    if label:
        if vertical:
            ax.set_title(label, fontsize=7.5, color=style.MUTED, rotation=0, pad=3)
        else:
            ax.set_ylabel(label, fontsize=7.5, color=style.MUTED, rotation=0, ha="right", va="center")


def draw_head(model: Model, head: Head, path: Path) -> Path:
    """The selector picture of one head, saved as PNG at ``path``."""
    plt = pyplot()
    n = model.n
    s = style.cell_inches(n)
    text = n <= style.TEXT_LIMIT
    strip = s if text else 0.22
    band = 0.1
    single = head.key_values is not None
    left = 1.7 + (strip if single else 0)
    grid_w = n * s
    right = strip + band + 1.2
    top_title = 1.15
    top = band + (strip if head.moved is not None else 0) + 0.35
    bottom = 1.0 + (strip if single else 0)
    width = max(left + grid_w + right, 6.0)
    height = top_title + top + grid_w + bottom
    canvas = _Canvas(plt, width, height)
    x0, y0 = left, bottom
    colour = style.head_colour(head.kind, head.static)

    # the selection
    ax = canvas.axes(x0, y0, grid_w, grid_w)
    from matplotlib.colors import to_rgba

    image = np.empty((n, n, 4))
    image[:] = to_rgba(style.UNSELECTED)
    image[head.selection] = to_rgba(colour)
    ax.imshow(image, interpolation="nearest", aspect="auto")
    if n <= style.GRID_LIMIT:
        ax.set_xticks(np.arange(-0.5, n, 1), minor=True)
        ax.set_yticks(np.arange(-0.5, n, 1), minor=True)
        ax.grid(which="minor", color=style.GRIDLINE, linewidth=0.6)
        ax.tick_params(which="minor", length=0)
    if text and head.moved is not None:
        size = style.font_size(n)
        for q, k in zip(*np.nonzero(head.selection)):
            ax.text(k, q, format_value(head.moved[k]), ha="center", va="center",
                    fontsize=size, color="white", fontweight="bold")

    every = [v for seq in (head.moved, head.result, head.key_values, head.query_values) if seq
             for v in seq]
    norm = float(np.max(np.abs(_numbers(every)))) if every else 1.0
    empty = ~head.selection.any(axis=1)

    # above: input blocks of the key positions, and the values moved
    y = y0 + grid_w
    if head.moved is not None:
        values_ax = canvas.axes(x0, y, grid_w, strip)
        _strip(values_ax, head.moved, None, False, norm, "", text)
        _side_label(values_ax, f"values: {_clip(head.values, 24)}")
        y += strip
    band_ax = canvas.axes(x0, y, grid_w, band)
    _strip(band_ax, None, _block_colours(model.input_layout, style.INPUT_BLOCKS), False, norm, "", False)
    band_ax.set_xticks(_ticks(n))
    band_ax.xaxis.tick_top()
    band_ax.tick_params(axis="x", labelsize=7, length=2, colors=style.MUTED)
    band_ax.set_xlabel("key position", fontsize=8, color=style.MUTED)
    band_ax.xaxis.set_label_position("top")

    # right: what the head writes, and the output block of each query position
    result_ax = canvas.axes(x0 + grid_w + 0.08, y0, strip, grid_w)
    _strip(result_ax, head.result, None, True, norm, "result" if head.kind == "aggregate" else "width",
           text, greyed=empty if head.kind == "aggregate" else None)
    out_ax = canvas.axes(x0 + grid_w + 0.08 + strip, y0, band, grid_w)
    _strip(out_ax, None, _block_colours(model.output_layout, style.OUTPUT_BLOCKS), True, norm, "", False)

    # a single select: its keys below, its queries at the left
    position_ax = ax
    if single:
        keys_ax = canvas.axes(x0, y0 - strip - 0.04, grid_w, strip)
        _strip(keys_ax, head.key_values, None, False, norm, "", text)
        _side_label(keys_ax, f"keys: {_clip(head.keys_name, 24)}")
        queries_ax = canvas.axes(x0 - strip - 0.04, y0, strip, grid_w)
        _strip(queries_ax, head.query_values, None, True, norm, "", text)
        queries_ax.text(0.5, 1.02, f"queries:\n{_clip(head.queries_name, 18)}", transform=queries_ax.transAxes,
                        ha="right", va="bottom", fontsize=7.5, color=style.MUTED)
        position_ax = queries_ax
        keys_ax.set_xticks(_ticks(n))
        keys_ax.tick_params(axis="x", labelsize=7, length=2, colors=style.MUTED)
    position_ax.set_yticks(_ticks(n))
    position_ax.tick_params(axis="y", labelsize=7, length=2, colors=style.MUTED)
    position_ax.set_ylabel("query position", fontsize=8, color=style.MUTED)

    # title and legend
    layer = f"layer {head.layer}"
    if model.length_layer:
        layer += f" ({head.layer_with_length} counting the length layer)"
    decided = "decided by positions alone" if head.static else "depends on the input values"
    canvas.figure.text(0.02, 1 - 0.3 / height, f"head {head.name}  \u2014  {layer}",
                       fontsize=12, fontweight="bold", color=style.TEXT, va="top")
    canvas.figure.text(0.02, 1 - 0.62 / height, _clip(head.description, 110), fontsize=9,
                       color=style.TEXT, va="top")
    selector = "\n".join(textwrap.wrap(f"selector: {head.selector}  [{decided}]",
                                        int(width * 14))[:2])
    canvas.figure.text(0.02, 1 - 0.86 / height, selector, fontsize=7.5, color=style.MUTED,
                       va="top", family="monospace")
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=colour, label="selected"),
               Patch(facecolor=style.UNSELECTED, edgecolor=style.GRIDLINE, label="not selected")]
    if head.kind == "aggregate" and empty.any():
        rule = "mean of all values (AHAT)" if head.semantics == "ahat" else f"default {format_value(head.default)}"
        handles.append(Patch(facecolor=style.EMPTY_ROW, label=f"empty row \u2192 {rule}"))
    handles += _block_handles(model.input_layout, style.INPUT_BLOCKS, "key in input")
    handles += _block_handles(model.output_layout, style.OUTPUT_BLOCKS, "query in output")
    canvas.figure.legend(handles=handles, loc="lower left", fontsize=7, ncol=min(len(handles), 4),
                         frameon=False, bbox_to_anchor=(0.0, 0.0))
    canvas.figure.savefig(path, dpi=style.DPI)
    plt.close(canvas.figure)
    return path


def _side_label(ax, text: str) -> None:
    """A label at the right of a horizontal strip (where the result column leaves room)."""
    ax.text(1.0, 0.5, "  " + text, transform=ax.transAxes, ha="left", va="center",
            fontsize=7.5, color=style.MUTED)


def _clip(text: str | None, limit: int) -> str:
    text = text or ""
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- the layer diagram ---------------------------------------------------------------------

_PER_ROW = 6  # boxes per row before a layer wraps
_BOX_W, _BOX_H, _GAP = 2.5, 0.78, 0.3


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


def draw_layers(model: Model, path: Path) -> Path:
    """Attention layers as rows (bottom to top), heads as boxes, element-wise
    steps in the bands between them, the `length` layer marked."""
    plt = pyplot()
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    top_layer = max([h.layer_with_length for h in model.heads] + [1 if model.length_layer else 0])
    # rows from the bottom: inputs, band 0, layer 1, band 1, ...
    rows: list[tuple[str, str, list[tuple[Expr, str, str, str]]]] = []
    inputs: list[tuple[Expr, str, str, str]] = []
    for node in model.program.nodes():
        if isinstance(node, Tokens):
            inputs.append((node, "tokens", model.input_layout.describe(), "#fff7d6"))
        elif isinstance(node, Indices):
            inputs.append((node, "indices", "0 .. n-1", "#fff7d6"))
    rows.append(("input", "input", inputs))
    length_node = next((node for node in model.program.nodes() if isinstance(node, Length)), None)
    for band in range(0, top_layer + 1):
        if band > 0:
            boxes = []
            if band == 1 and length_node is not None:
                boxes.append((length_node, "length", "n, by a head of its own", style.LENGTH))
            for head in model.heads:
                if head.layer_with_length == band:
                    boxes.append((head.node, head.name, head.description,
                                  style.head_colour(head.kind, head.static)))
            label = f"layer {band}"
            plain = {h.layer for h in model.heads if h.layer_with_length == band}
            if band == 1 and length_node is not None:
                label += "\n(computes length)"
            elif length_node is not None and len(plain) == 1:
                label += f"\n({plain.pop()} without length)"
            rows.append(("layer", label, boxes))
        steps = [(s.node, s.name if not s.is_output else f"output {s.name}", s.text,
                  style.ELEMENTWISE) for s in model.steps if s.band == band]
        if steps:
            rows.append(("band", "element-wise", steps))

    # place the boxes
    positions: dict[int, tuple[float, float]] = {}
    placed = []
    y = 0.0
    row_labels = []
    widest = max(min(len(boxes), _PER_ROW) for _, _, boxes in rows) if rows else 1
    for kind, label, boxes in rows:
        chunks = [boxes[i:i + _PER_ROW] for i in range(0, len(boxes), _PER_ROW)] or [[]]
        start = y
        for chunk in chunks:
            offset = (widest - len(chunk)) * (_BOX_W + _GAP) / 2
            for i, (node, name, detail, colour) in enumerate(chunk):
                x = offset + i * (_BOX_W + _GAP)
                positions[node.id] = (x + _BOX_W / 2, y)
                placed.append((kind, node, name, detail, colour, x, y))
            y += _BOX_H + 0.35
        row_labels.append((kind, label, start, y - 0.35))
        y += 0.45
    width_units = widest * (_BOX_W + _GAP)
    height_units = y - 0.6
    scale = 0.9
    fig_w = 1.6 + width_units * scale
    fig_h = 1.0 + height_units * scale
    fig = plt.figure(figsize=(max(fig_w, 6), fig_h), dpi=style.DPI)
    ax = fig.add_axes((1.5 / max(fig_w, 6), 0.25 / fig_h, width_units * scale / max(fig_w, 6),
                       height_units * scale / fig_h))
    ax.set_xlim(-0.1, width_units)
    ax.set_ylim(-0.1, height_units)
    ax.axis("off")

    for kind, label, low, high in row_labels:
        if kind == "layer":
            ax.axhspan(low - 0.15, high + 0.15, color="#f3f6fb", zorder=0)
        colour = style.LENGTH if "length" in label else (style.TEXT if kind == "layer" else style.MUTED)
        ax.text(-0.25, (low + high) / 2, label, ha="right", va="center", fontsize=9,
                color=colour, fontweight="bold" if kind == "layer" else "normal")

    outputs = {s.node.id for s in model.steps if s.is_output}
    for kind, node, name, detail, colour, x, y0 in placed:
        edge = style.OUTPUT_EDGE if node.id in outputs else "#555555"
        ax.add_patch(FancyBboxPatch((x, y0), _BOX_W, _BOX_H, boxstyle="round,pad=0.02,rounding_size=0.08",
                                    facecolor=colour, edgecolor=edge,
                                    linewidth=2.0 if node.id in outputs else 0.8, zorder=2))
        light = kind == "layer" and colour not in (style.LENGTH,)
        ax.text(x + _BOX_W / 2, y0 + _BOX_H * 0.66, _clip(name, 28), ha="center", va="center",
                fontsize=8.5, fontweight="bold", color="white" if light else style.TEXT, zorder=3)
        ax.text(x + _BOX_W / 2, y0 + _BOX_H * 0.28, _clip(detail, 40), ha="center", va="center",
                fontsize=6.2, color="white" if light else style.TEXT, zorder=3)

    if len(placed) <= 60:
        shown = set(positions)
        memo: dict[int, set[int]] = {}
        for _, node, *_rest in placed:
            for source in _displayed_sources(node, shown, memo):
                (x1, y1), (x2, y2) = positions[source], positions[node.id]
                if y1 >= y2:
                    continue
                ax.add_patch(FancyArrowPatch((x1, y1 + _BOX_H), (x2, y2), arrowstyle="-|>",
                                             mutation_scale=7, color="#9a9a9a", linewidth=0.6,
                                             zorder=1, shrinkA=1, shrinkB=1))

    cost = model.cost
    summary = (f"{model.program.name}: {cost.layers} attention layer(s), heads per layer "
               f"{list(cost.heads_per_layer)}")
    if cost.uses_length:
        summary += (f"; counting the length layer {cost.layers_with_length}, "
                    f"{list(cost.heads_per_layer_with_length)}")
    fig.text(0.01, 1 - 0.12 / fig_h, summary, fontsize=9, va="top", color=style.TEXT)
    fig.savefig(path, dpi=style.DPI)
    plt.close(fig)
    return path


# -- input and output as matrices ----------------------------------------------------------


def draw_sequences(model: Model, path: Path) -> Path:
    """The input and output sequences, and the matrices they encode."""
    plt = pyplot()
    n = model.n
    text = n <= 40
    s = min(0.42, 11.0 / n)
    blocks = [("input", model.input_layout, model.tokens, style.INPUT_BLOCKS),
              ("output", model.output_layout, model.output, style.OUTPUT_BLOCKS)]
    every = _numbers(list(model.tokens) + list(model.output))
    norm = float(np.max(np.abs(every))) or 1.0
    cell = 0.42
    def rows_height(layout: SequenceLayout) -> float:
        return min(max(max(b.shape.rows for b in layout.blocks) * cell, 0.5), 6.0)

    mat_w = max(sum(b.shape.cols * cell + 0.6 for b in layout.blocks) for _, layout, _, _ in blocks)
    width = max(n * s + 1.6, mat_w + 3.5, 6.0)
    height = 0.3 + sum(0.5 + s + 0.5 + rows_height(layout) + 0.25 for _, layout, _, _ in blocks)
    canvas = _Canvas(plt, width, height)
    y = height - 0.15
    for what, layout, values, palette in blocks:
        y -= 0.5
        seq_ax = canvas.axes(1.2, y - s, n * s, s)
        _strip(seq_ax, None, _block_colours(layout, palette), False, norm, "", False)
        if text:
            size = min(style.font_size(n), 7.5 if n > 20 else 8.5)
            for p, v in enumerate(values):
                seq_ax.text(p, 0, format_value(v, 2), ha="center", va="center", fontsize=size,
                            color=style.TEXT)
        seq_ax.set_xticks(_ticks(n) if n <= 40 else list(range(0, n, max(1, n // 10))))
        seq_ax.tick_params(axis="x", labelsize=6.5, length=2, colors=style.MUTED)
        seq_ax.set_ylabel(f"{what}\n(n = {n})", rotation=0, ha="right", va="center", fontsize=9)
        seq_ax.set_title(f"{what} sequence: {layout.describe()}", fontsize=9, loc="left",
                         color=style.TEXT)
        y -= s + 0.5
        x = 1.2
        for index, block in enumerate(layout.blocks):
            r, c = block.shape.rows, block.shape.cols
            side = min(cell, 6.0 / max(r, c))
            ax = canvas.axes(x, y - r * side, c * side, r * side)
            matrix = _numbers(values[block.offset:block.end]).reshape(r, c)
            ax.imshow(matrix, cmap=style.VALUE_MAP, vmin=-norm * 1.4, vmax=norm * 1.4,
                      interpolation="nearest", aspect="auto")
            for spine in ax.spines.values():
                spine.set_color(palette[index % len(palette)])
                spine.set_linewidth(2.5)
            if r * c <= 400 and side >= 0.25:
                for i in range(r):
                    for j in range(c):
                        ax.text(j, i, format_value(values[block.offset + i * c + j], 3),
                                ha="center", va="center", fontsize=7.5, color=style.TEXT)
            ax.set_title(f"{block.name} ({block.shape})", fontsize=9, color=style.TEXT)
            x += c * side + 0.6
        if layout.length > layout.used:
            pad = values[layout.used:]
            zero = all(float(v) == 0 for v in pad)
            canvas.figure.text(x / width, (y - 0.2) / height,
                               f"padding [{layout.used}, {layout.length}): "
                               + ("all 0" if zero else "NOT all 0"),
                               fontsize=8, color=style.MUTED if zero else "#b00020", va="top")
        y -= rows_height(layout) + 0.25
    canvas.figure.savefig(path, dpi=style.DPI)
    plt.close(canvas.figure)
    return path
