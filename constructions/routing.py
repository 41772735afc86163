"""Routing: moving named matrix blocks between sequences with gather heads.

A computed sequence holds some named matrix blocks at known offsets (a
:class:`Part`: the sequence and its :class:`SequenceLayout`); what sits at its
other positions is unspecified. :func:`route` builds one sequence in a target
layout out of several parts. Every destination block is assembled from
rectangles (:class:`Piece`) of source blocks; all the pieces taken from one
source sequence are moved by ONE head:

    gather(source, src(p)),   src(p) = the source position of the entry that
                              belongs at p, or -1 (nothing: default 0),

where src is an element-wise map of ``indices`` (nested ``where`` over the
destination rectangles), so the selector select(indices, src, ==) is decided by
positions alone: the static plan computes it once per length, exactly, and
every output position is either one input position or 0. The heads of different
sources are added; their supports are disjoint, so the sum places each value
exactly once. A part marked ``clean`` (its sequence is 0 outside its blocks,
e.g. a product block's output) whose block stays where it is is added as it is,
without a head.

:func:`fix` sets positions to constants (an element-wise map, no head): it puts
the sizes a proof fixes (n, d) into a header.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cmp_to_key
from typing import Any, Mapping, Sequence

import numpy as np

from usim.constructions.base import SizedConstruction, gather, inside
from usim.encodings.layout import Block, SequenceLayout
from usim.errors import ShapeError
from usim.rasp.expr import SOp, indices, tokens, where
from usim.rasp.family import FamilyError, at_least, is_symbolic, same_size
from usim.rasp.program import Program


@dataclass(frozen=True)
class Piece:
    """Copy a rows x cols rectangle of source block ``source``, starting at its
    entry (src_row, src_col), to entry (row, col) of the destination block.
    ``rows``/``cols`` None: the rest of the source block. ``corner``: a block
    placed in the corner of a block that is as large or larger, moved by the
    rectangle's formula at every size (never as the whole block, even where
    the sizes agree), so that the placement of a T of sizes n x d into U's
    N x N blocks is one family over N, n and d."""

    source: str
    row: int = 0
    col: int = 0
    src_row: int = 0
    src_col: int = 0
    rows: int | None = None
    cols: int | None = None
    corner: bool = False


@dataclass(frozen=True, eq=False)
class Part:
    """A sequence and the named blocks it holds; ``clean``: 0 everywhere else."""

    sop: SOp
    layout: SequenceLayout
    clean: bool = False

    def holds(self, name: str) -> Block | None:
        for block in self.layout.blocks:
            if block.name == name:
                return block
        return None


@dataclass(frozen=True)
class Move:
    """One rectangle: destination block, source block, rectangle within them."""

    dest: Block
    source: Block
    row: int
    col: int
    src_row: int
    src_col: int
    rows: int
    cols: int
    corner: bool = False

    @property
    def whole(self) -> bool:
        """The whole source block to the whole destination block, same shape
        (symbolic sizes: the same expressions, :func:`same_size`); never for a
        piece placed in a corner."""
        d, s = self.dest.shape, self.source.shape
        return not self.corner and (same_size(d.rows, s.rows) and same_size(d.cols, s.cols) and same_size(self.rows, d.rows)
                and same_size(self.cols, d.cols) and same_size(self.row, 0) and same_size(self.col, 0))

    def source_of(self, p: int) -> int | None:
        """The source position of destination position p, or None (exact, for checks)."""
        q = p - self.dest.offset
        if not 0 <= q < self.dest.shape.size:
            return None
        i, j = divmod(q, self.dest.shape.cols)
        if not (self.row <= i < self.row + self.rows and self.col <= j < self.col + self.cols):
            return None
        return self.source.position(i - self.row + self.src_row, j - self.col + self.src_col)

    def positions(self) -> tuple[np.ndarray, np.ndarray]:
        """The rectangle's destination positions and, at the same places, their
        source positions (what :meth:`source_of` gives, for every p at once).

        Returns:
            Two int64 arrays, destinations row-major and their sources.
        """
        i = np.arange(self.row, self.row + self.rows, dtype=np.int64)[:, None]
        j = np.arange(self.col, self.col + self.cols, dtype=np.int64)[None, :]
        dest = self.dest.offset + i * self.dest.shape.cols + j
        src = self.source.offset + (i - self.row + self.src_row) * self.source.shape.cols \
            + (j - self.col + self.src_col)
        return dest.ravel(), src.ravel()

    def index_map(self, rest: SOp | int) -> SOp:
        """src(p) on this rectangle, ``rest`` elsewhere (a map of indices)."""
        p = indices
        d0, s0 = self.dest.offset, self.source.offset
        if self.whole:
            return where(inside(d0, self.dest.end), p + (s0 - d0), rest)
        dc, sc = self.dest.shape.cols, self.source.shape.cols
        i = (p - d0) // dc
        j = (p - d0) % dc
        within = (inside(d0, self.dest.end) & (i >= self.row) & (i < self.row + self.rows)
                  & (j >= self.col) & (j < self.col + self.cols))
        src = (i - self.row + self.src_row) * sc + (j - self.col + self.src_col) + s0
        return where(within, src, rest)


def plan_moves(parts: Sequence[Part], target: SequenceLayout,
               pieces: Mapping[str, Sequence[Piece]] | None = None) -> list[tuple[int, Move]]:
    """Which part and rectangle fills each destination block (checked shapes).

    Args:
        parts: the source sequences and the blocks they hold.
        target: the layout of the sequence to assemble.
        pieces: destination block name -> the rectangles it is made of; a
            block not listed is copied whole from the block of its name.

    Returns:
        (index of the first part holding the source block, the move) for
        every piece, in the order of ``target``'s blocks.

    Raises:
        ShapeError: no part holds a block needed, or a piece does not fit.
    """
    pieces = pieces or {}
    moves: list[tuple[int, Move]] = []
    for dest in target.blocks:
        for piece in pieces.get(dest.name, (Piece(dest.name),)):
            found = [(k, part.holds(piece.source)) for k, part in enumerate(parts)]
            found = [(k, b) for k, b in found if b is not None]
            if not found:
                raise ShapeError(f"no sequence holds the block {piece.source!r} needed for {dest.name!r}")
            k, source = found[0]
            rows = source.shape.rows - piece.src_row if piece.rows is None else piece.rows
            cols = source.shape.cols - piece.src_col if piece.cols is None else piece.cols
            sizes = (rows, cols, dest.shape.rows, dest.shape.cols, source.shape.rows, source.shape.cols)
            if not is_symbolic(*sizes) and (
                    piece.row + rows > dest.shape.rows or piece.col + cols > dest.shape.cols
                    or piece.src_row + rows > source.shape.rows
                    or piece.src_col + cols > source.shape.cols or rows < 1 or cols < 1):
                raise ShapeError(
                    f"a {rows}x{cols} piece of {source.name} ({source.shape}) at "
                    f"({piece.src_row}, {piece.src_col}) does not fit {dest.name} ({dest.shape}) "
                    f"at ({piece.row}, {piece.col})")
            moves.append((k, Move(dest, source, piece.row, piece.col, piece.src_row,
                                  piece.src_col, rows, cols, piece.corner)))
    return moves


def route(parts: Sequence[Part], target: SequenceLayout,
          pieces: Mapping[str, Sequence[Piece]] | None = None, name: str = "route") -> SOp:
    """The sequence of layout ``target`` assembled from ``parts`` (0 elsewhere).

    One gather head per source part (see the module docstring); a clean part
    whose only move keeps a whole block in place is added without a head.

    Args:
        parts: the source sequences and the blocks they hold, each as long
            as ``target``.
        target: the layout of the sequence to assemble.
        pieces: destination block name -> its rectangles (:func:`plan_moves`).
        name: the name of the result; its heads are ``name.0``, ``name.1``, ...

    Returns:
        The sequence holding ``target``'s blocks, 0 at every other position.

    Raises:
        ShapeError: a part's length differs from the target's, a block is
            missing or does not fit, or the target has no block.

    Two blocks swapped by one head:

    >>> from usim.encodings import run_exact
    >>> from usim.rasp.expr import tokens
    >>> from usim.rasp.program import Program
    >>> source = SequenceLayout.of(("A", (1, 2)), ("B", (1, 2)))
    >>> swapped = SequenceLayout.of(("B", (1, 2)), ("A", (1, 2)))
    >>> run_exact(Program.of("swap", {"W": route([Part(tokens, source)], swapped)}), [1, 2, 3, 4])
    {'W': [3, 4, 1, 2]}
    """
    for part in parts:
        if not same_size(part.layout.length, target.length):
            raise ShapeError(f"cannot route a sequence of length {part.layout.length} into one of "
                             f"length {target.length}")
    moves = plan_moves(parts, target, pieces)
    total: SOp | None = None
    for k, part in enumerate(parts):
        mine = [m for kk, m in moves if kk == k]
        if not mine:
            continue
        if (part.clean and len(mine) == len(part.layout.blocks) and all(
                m.whole and same_size(m.dest.offset, m.source.offset) for m in mine)):
            term = part.sop
        else:
            src: SOp | int = -1
            for move in mine:
                src = move.index_map(src)
            term = gather(part.sop, src).named(f"{name}.{k}")
        total = term if total is None else total + term
    if total is None:
        raise ShapeError("nothing to route: the target layout has no block")
    return total.named(name)


def routing_table(parts_layouts: Sequence[SequenceLayout], target: SequenceLayout,
                  pieces: Mapping[str, Sequence[Piece]] | None = None) -> list[tuple[int, int] | None]:
    """Exact specification of a routing: for each destination position, (part, source
    position) or None (0). Written from the layouts alone, for checking a route.

    Args:
        parts_layouts: the layouts of the source sequences.
        target: the layout of the sequence assembled.
        pieces: destination block name -> its rectangles (:func:`plan_moves`).

    Returns:
        For each position of ``target``, (part index, source position), or
        None where the route gives 0.

    Raises:
        ShapeError: two pieces write one position (or as :func:`plan_moves`).

    >>> routing_table([SequenceLayout.of(("A", (1, 2)), ("B", (1, 2)))],
    ...               SequenceLayout.of(("B", (1, 2)), ("A", (1, 2))))
    [(0, 2), (0, 3), (0, 0), (0, 1)]
    """
    part, source = routing_arrays(parts_layouts, target, pieces)
    return [None if s < 0 else (int(k), int(s)) for k, s in zip(part.tolist(), source.tolist())]


def routing_arrays(parts_layouts: Sequence[SequenceLayout], target: SequenceLayout,
                   pieces: Mapping[str, Sequence[Piece]] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`routing_table` as two arrays over the destination positions: the part
    and the source position of each, -1 in both where the route gives 0.

    Args:
        parts_layouts: the layouts of the source sequences.
        target: the layout of the sequence assembled.
        pieces: destination block name -> its rectangles (:func:`plan_moves`).

    Returns:
        (part index, source position), each an int64 array of ``target``'s length.

    Raises:
        ShapeError: two pieces write one position (or as :func:`plan_moves`).
    """
    dummy = [Part(indices, lay) for lay in parts_layouts]
    part = np.full(target.length, -1, dtype=np.int64)
    source = np.full(target.length, -1, dtype=np.int64)
    for k, move in plan_moves(dummy, target, pieces):
        dest, src = move.positions()  # distinct: the rectangle fits its block (plan_moves)
        written = source[dest] >= 0
        if written.any():
            raise ShapeError(f"two pieces write position {int(dest[written][0])} of {move.dest.name}")
        part[dest], source[dest] = k, src
    return part, source


def _position_order(a: tuple[Any, Any], b: tuple[Any, Any]) -> int:
    """The order of two fixed positions, at every size (symbolic positions such as
    o + 1 and o + 2 are ordered by :func:`at_least`)."""
    if same_size(a[0], b[0]):
        return 0
    if at_least(a[0], b[0]):
        return 1
    if at_least(b[0], a[0]):
        return -1
    raise FamilyError(f"the positions {a[0]} and {b[0]} are fixed in an order that depends on the sizes")


def fix(values: SOp, constants: Mapping[int, int | Fraction]) -> SOp:
    """``values`` with the given positions set to constants (element-wise, no head).

    Args:
        values: the sequence.
        constants: position -> the constant placed there.

    Returns:
        The sequence ``fixed`` (``values`` itself when there is nothing to fix).
    """
    out = values
    for position, value in sorted(constants.items(), key=cmp_to_key(_position_order)):
        out = where(indices == position, value, out)
    return out.named("fixed") if constants else out


def move_blocks_program(rows: int, cols: int, width: int, gap: int) -> Program:
    """One routing head as U's stages use it (Theorem 6's routes move whole
    blocks only): the sequence <G (1 x gap), X (rows x cols), Y (1 x width)>
    is routed into <Y, X> from position 0, G dropped, zeros after. Both moves
    are one head: src(p) = p + gap + rows*cols on Y's new place, p + gap - width
    on X's, -1 elsewhere; the new places overlap the old ones.

    Args:
        rows: the rows of X.
        cols: the columns of X.
        width: the length of Y.
        gap: the length of G.

    Returns:
        The program with one output, ``W``: <Y, X> then zeros.

    >>> from usim.encodings import run_exact
    >>> run_exact(move_blocks_program(1, 2, 1, 1), [9, 1, 2, 3])  # G = [9], X = [[1, 2]], Y = [3]
    {'W': [3, 1, 2, 0]}
    """
    source = SequenceLayout.of(("G", (1, gap)), ("X", (rows, cols)), ("Y", (1, width)))
    target = SequenceLayout.of(("Y", (1, width)), ("X", (rows, cols)), length=source.length)
    return Program.of("move_blocks", {"W": route([Part(tokens, source)], target, name="move")},
                      "one routing head: two whole blocks to new places, the rest dropped")


move_blocks_construction = SizedConstruction(
    name=lambda rows, cols, width, gap: f"move blocks {rows}x{cols}, width {width}, gap {gap}",
    dims=("r", "c", "w", "g"),
    program=move_blocks_program,
    inputs=lambda rows, cols, width, gap: [("G", (1, gap)), ("X", (rows, cols)), ("Y", (1, width))],
    outputs=lambda rows, cols, width, gap: [("Y", (1, width)), ("X", (rows, cols)), ("Z", (1, gap))],
)
"""The routing claim's construction at (r, c, w, g): the family's instance (usim prove routing --all-sizes)."""


def concatenate_heads_program(size: int, heads: int) -> Program:
    """One routing head as Theorem 9 concatenates its heads: H blocks of n x n,
    stacked in S (H n x n, head h's block at rows h n ..), placed side by side in
    C = [S_0 | S_1 | ... | S_{H-1}] (n x H n) from position 0.

    Entry (i, j) of C sits at p = i H n + j and belongs to head h = j // n, whose
    entry (i, j % n) is at (h n + i) n + j % n of S; one head moves them all:
    src(p) = ((p % H n) // n * n + p // H n) * n + (p % H n) % n, the head index
    (node ``head``) being a formula in H, not one piece per head, so one family
    covers every H (the concatenation of :func:`route` takes one piece per head).

    Args:
        size: n, each head's block being n x n.
        heads: H.

    Returns:
        The program with one output, ``W``: C (as long as S: H n^2 entries each).

    >>> from usim.encodings import run_exact
    >>> run_exact(concatenate_heads_program(1, 3), [1, 2, 3])  # S = [1; 2; 3]: C = [1 2 3]
    {'W': [1, 2, 3]}
    >>> run_exact(concatenate_heads_program(2, 2), [1, 2, 3, 4, 5, 6, 7, 8])  # [[1 2; 3 4] | [5 6; 7 8]]
    {'W': [1, 2, 5, 6, 3, 4, 7, 8]}
    """
    width = heads * size
    column = (indices % width).named("concat_col")
    head = (column // size).named("head")
    src = (head * size + indices // width) * size + column % size
    return Program.of("concatenate_heads", {"W": gather(tokens, src).named("concat")},
                      "one routing head: H stacked n x n blocks placed side by side")


concatenate_heads_construction = SizedConstruction(
    name=lambda size, heads: f"concatenate {heads} heads of {size}x{size}",
    dims=("n", "h"),
    program=concatenate_heads_program,
    inputs=lambda size, heads: [("S", (heads * size, size))],
    outputs=lambda size, heads: [("C", (size, heads * size))],
)
"""The concatenation claim's construction at (n, H): the family's instance
(usim prove head_concatenation --all-sizes)."""


def slice_heads_program(rows: int, cols: int, heads: int) -> Program:
    """One routing head that slices H blocks of r x c placed side by side,
    Q = [Q_0 | Q_1 | ... | Q_{H-1}] (r x H c), into the same blocks stacked,
    T = [Q_0; Q_1; ...; Q_{H-1}] (H r x c) from position 0: the inverse of a
    concatenation, how one product X [A_0 | ... | A_{H-1}] (X being N x d, each
    A_h d x d: r = N, c = d) gives every head's X A_h as the rows of one block.

    Entry (a, b) of T sits at p = a c + b and belongs to head h = a // r, whose
    entry (a % r, b) is at (a % r) H c + h c + b of Q: one head moves them all,
    src(p) = ((p // c) % r) H c + ((p // c) // r) c + p % c (the head index, node
    ``head``, being (p // c) // r), one formula in r, c and H, so one family
    covers every H.

    Args:
        rows: r, each block's rows.
        cols: c, each block's columns.
        heads: H.

    Returns:
        The program with one output, ``W``: T (as long as Q: H r c entries each).

    >>> from usim.encodings import run_exact
    >>> run_exact(slice_heads_program(1, 1, 3), [1, 2, 3])  # Q = [1 2 3]: T = [1; 2; 3]
    {'W': [1, 2, 3]}
    >>> run_exact(slice_heads_program(2, 2, 2), [1, 2, 5, 6, 3, 4, 7, 8])  # [[1 2; 3 4] | [5 6; 7 8]]
    {'W': [1, 2, 3, 4, 5, 6, 7, 8]}
    >>> run_exact(slice_heads_program(1, 2, 2), [1, 2, 3, 4])  # [[1 2] | [3 4]]: T = [1 2; 3 4]
    {'W': [1, 2, 3, 4]}
    """
    return Program.of("slice_heads", {"W": slice_heads(tokens, rows, cols, heads)},
                      "one routing head: H side-by-side r x c blocks stacked")


def slice_heads(values: SOp, rows: int, cols: int, heads: int, offset: int = 0) -> SOp:
    """The head of :func:`slice_heads_program` on Q at ``offset`` of ``values``:
    T = [Q_0; ...; Q_{H-1}] from position 0, 0 from position H r c on (the
    source -1 there, so a stage of U gets a clean block).

    Args:
        values: the sequence holding Q (r x H c) row-major.
        rows: r, each block's rows.
        cols: c, each block's columns.
        heads: H.
        offset: the position of Q[0][0].

    Returns:
        The sequence holding T (H r x c) row-major from position 0, zeros after (node ``slice``).
    """
    row = (indices // cols).named("slice_row")
    head = (row // rows).named("head")
    src = (row % rows) * (heads * cols) + head * cols + indices % cols + offset
    return gather(values, where(indices < rows * heads * cols, src, -1)).named("slice")


slice_heads_construction = SizedConstruction(
    name=lambda rows, cols, heads: f"slice {heads} heads of {rows}x{cols}",
    dims=("r", "c", "h"),
    program=slice_heads_program,
    inputs=lambda rows, cols, heads: [("Q", (rows, heads * cols))],
    outputs=lambda rows, cols, heads: [("T", (heads * rows, cols))],
)
"""The slicing claim's construction at (r, c, H): the family's instance
(usim prove head_slicing --all-sizes)."""


def diagonal_blocks_program(rows: int, cols: int, heads: int) -> Program:
    """One routing head that places the H diagonal r x c blocks of Z (H r x H c)
    side by side: C = [Z_00 | Z_11 | ... | Z_{H-1,H-1}] (r x H c) from position
    0, zeros after. With P = [P_0; ...; P_{H-1}] stacked (each P_h r x k) and
    Y = [Y_0 | ... | Y_{H-1}] side by side (each Y_h k x c), the product Z = P Y has
    the blocks Z_gh = P_g Y_h, so C = [P_0 Y_0 | ... | P_{H-1} Y_{H-1}] is Theorem
    9's concatenation of the heads' outputs, made from one product and this head
    (in U: r = N, k = N, c = d_v).

    Entry (i, j) of C sits at p = i H c + j and belongs to head h = j // c, whose
    entry is Z[h r + i, j], at (h r + i) H c + j: src(p) = ((p % H c) // c * r +
    p // H c) H c + p % H c for p < H r c, -1 (nothing) past C. The head index
    (node ``head``) is a formula in H, so one family covers every H.

    Args:
        rows: r, each block's rows.
        cols: c, each block's columns.
        heads: H.

    Returns:
        The program with one output, ``W``: C, then zeros (as long as Z: H^2 r c).

    >>> from usim.encodings import run_exact
    >>> run_exact(diagonal_blocks_program(1, 1, 2), [1, 2, 3, 4])  # Z = [1 2; 3 4]: C = [1 4]
    {'W': [1, 4, 0, 0]}
    >>> run_exact(diagonal_blocks_program(2, 2, 2), list(range(1, 17)))["W"][:8]  # Z's rows 1..4, 5..8, ...
    [1, 2, 11, 12, 5, 6, 15, 16]
    >>> run_exact(diagonal_blocks_program(2, 1, 2), list(range(1, 9)))  # Z = [1 2; 3 4; 5 6; 7 8]
    {'W': [1, 6, 3, 8, 0, 0, 0, 0]}
    """
    return Program.of("diagonal_blocks", {"W": diagonal_blocks(tokens, rows, cols, heads)},
                      "one routing head: the H diagonal r x c blocks placed side by side")


def diagonal_blocks(values: SOp, rows: int, cols: int, heads: int, offset: int = 0) -> SOp:
    """The head of :func:`diagonal_blocks_program` on Z at ``offset`` of ``values``:
    C = [Z_00 | ... | Z_{H-1,H-1}] from position 0, 0 from position H r c on.

    Args:
        values: the sequence holding Z (H r x H c) row-major.
        rows: r, each block's rows.
        cols: c, each block's columns.
        heads: H.
        offset: the position of Z[0][0].

    Returns:
        The sequence holding C (r x H c) row-major from position 0, zeros after (node ``diagonal``).
    """
    width = heads * cols
    column = (indices % width).named("diagonal_col")
    head = (column // cols).named("head")
    src = (head * rows + indices // width) * width + column + offset
    return gather(values, where(indices < rows * width, src, -1)).named("diagonal")


diagonal_blocks_construction = SizedConstruction(
    name=lambda rows, cols, heads: f"diagonal blocks of {heads} heads of {rows}x{cols}",
    dims=("r", "c", "h"),
    program=diagonal_blocks_program,
    inputs=lambda rows, cols, heads: [("Z", (heads * rows, heads * cols))],
    outputs=lambda rows, cols, heads: [("C", (rows, heads * cols))],
)
"""The diagonal-blocks claim's construction at (r, c, H): the family's instance
(usim prove head_diagonal_blocks --all-sizes)."""
