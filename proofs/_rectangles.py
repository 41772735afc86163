"""T's blocks inside U's: an embedding as rectangles, and the zero-padding it defines.

A smaller T (sizes n x d) sits in U_N's blocks as :func:`usim.proofs._padding.embeddings`
places it: most blocks in the top-left corner, W_O head by head (head h's rows at
rows h N ..), a concatenation's heads side by side at U's widths. Each piece of
that placement is a :class:`Rectangle`; the padded stages
(:class:`usim.proofs._stages.PaddedFamily`) zero a workspace outside its
rectangles (:func:`inside_rectangle`, :func:`kept_in`), read T's blocks from them
(:func:`unpadded`) and write each result into its own (:func:`padded`), at fixed
and symbolic sizes alike (:mod:`usim.encodings.sized`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from usim.constructions.routing import Piece
from usim.encodings.sized import both, matrix_like, when
from usim.rasp.family import FamilyError, same_size


@dataclass(frozen=True)
class Rectangle:
    """T's entries (src_row + a, src_col + b), 0 <= a < rows, 0 <= b < cols, held
    at (row + a, col + b) of U's block: one piece of an embedding."""

    row: Any
    col: Any
    rows: Any
    cols: Any
    src_row: Any = 0
    src_col: Any = 0


def rectangle(piece: Piece, shape: tuple[Any, Any]) -> Rectangle:
    """A routing piece as a rectangle of T's block of ``shape``."""
    rows = (shape[0] if is_zero(piece.src_row) else shape[0] - piece.src_row) if piece.rows is None else piece.rows
    cols = (shape[1] if is_zero(piece.src_col) else shape[1] - piece.src_col) if piece.cols is None else piece.cols
    return Rectangle(piece.row, piece.col, rows, cols, piece.src_row, piece.src_col)


def is_zero(x: Any) -> bool:
    """x is 0 at every size (h * N for the head h = 0 too)."""
    return same(x, 0)


def inside_rectangle(r: Rectangle, row: Any, col: Any) -> list[Any]:
    """The conditions (SOps) that U's entry (row, col) is in the rectangle."""
    rows = [row < r.rows] if is_zero(r.row) else [row >= r.row, row < r.row + r.rows]
    return rows + ([col < r.cols] if is_zero(r.col) else [col >= r.col, col < r.col + r.cols])


def kept_in(here: Any, rectangles: list[list[Any]]) -> Any:
    """here and (the entry in one of the rectangles): each rectangle's conditions
    conjoined in order, the rectangles joined by or."""
    def conjoined(first: Any, conditions: list[Any]) -> Any:
        for c in conditions:
            first = c if first is None else first & c
        return first
    if len(rectangles) == 1:
        return conjoined(here, rectangles[0])
    union: Any = None
    for conditions in rectangles:
        one = conjoined(None, conditions)
        union = one if union is None else union | one
    return here & union


def _shift(i: Any, to: Any, frm: Any) -> Any:
    """i + to - frm (i itself when both are 0: the corner's entries unchanged)."""
    return i if is_zero(to) and is_zero(frm) else i + to - frm


def unpadded(model: Any, shape: tuple[Any, Any], placed: tuple[Rectangle, ...]) -> Any:
    """T's block of ``shape`` read from U's block ``model`` where the rectangles place it
    (they cover T's block; the last is taken where no earlier one holds the entry)."""
    def entry(i: Any, j: Any) -> Any:
        last = placed[-1]
        out: Callable[[], Any] = lambda: model[_shift(i, last.row, last.src_row), _shift(j, last.col, last.src_col)]  # noqa: E731
        for r in reversed(placed[:-1]):
            out = (lambda r, rest: lambda: when(
                both(both(i >= r.src_row, i < r.src_row + r.rows), both(j >= r.src_col, j < r.src_col + r.cols)),
                lambda: model[_shift(i, r.row, r.src_row), _shift(j, r.col, r.src_col)], rest))(r, out)
        return out()
    return matrix_like(model, *shape, entry)


def padded(model: Any, value: Any, rows: Any, cols: Any, placed: tuple[Rectangle, ...]) -> Any:
    """A rows x cols matrix holding ``value`` (T's block) where the rectangles place it, 0 elsewhere."""
    def entry(i: Any, j: Any) -> Any:
        out: Callable[[], Any] = lambda: 0  # noqa: E731
        for r in reversed(placed):
            where_ = both(i < r.rows, j < r.cols) if is_zero(r.row) and is_zero(r.col) else both(
                both(i >= r.row, i < r.row + r.rows), both(j >= r.col, j < r.col + r.cols))
            out = (lambda r, where_, rest: lambda: when(
                where_, lambda: value[_shift(i, r.src_row, r.row), _shift(j, r.src_col, r.col)], rest))(r, where_, out)
        return out()
    return matrix_like(model, rows, cols, entry)


def same(x: Any, y: Any) -> bool:
    """x == y at every size (False where they differ at some size)."""
    try:
        return same_size(x, y)
    except FamilyError:
        return False
