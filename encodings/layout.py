"""How matrices are laid out as sequences.

Row-major flattening: entry (i, j) of an r x c matrix M sits at position
``offset + i*c + j``. A layout is a list of named blocks placed one after
another, e.g. the input <A, B> of the product: A (r x k) at [0, r*k), B (k x c)
at [r*k, r*k + k*c). A result is written row-major from position 0; positions
past it hold the aggregate default (0), which a layout states as padding.

Encoding and decoding check shapes and lengths and name what does not fit.
Values can be anything (numbers, sympy symbols, z3 terms); :meth:`encode_numeric`
and :meth:`decode_numeric` handle batches of float arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from usim.encodings.notation import parse_dims, shape_label
from usim.errors import InputError, ShapeError
from usim.rasp.family import SymbolicInt, at_least, is_symbolic


@dataclass(frozen=True)
class MatrixShape:
    rows: int
    cols: int

    def __post_init__(self) -> None:
        for what, v in (("rows", self.rows), ("cols", self.cols)):
            if isinstance(v, SymbolicInt):
                continue  # a symbolic size (a family, usim.rasp.family): it has no value to check yet
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
                raise ShapeError(f"a matrix needs a positive whole number of {what}, got {v!r}")

    @property
    def size(self) -> int:
        return self.rows * self.cols

    def __str__(self) -> str:
        return shape_label((self.rows, self.cols))

    @classmethod
    def parse(cls, text: str) -> "MatrixShape":
        dims = parse_dims(text, 2)
        return cls(*dims)


@dataclass(frozen=True)
class Block:
    name: str
    shape: MatrixShape
    offset: int

    @property
    def end(self) -> int:
        return self.offset + self.shape.size

    def position(self, i: int, j: int) -> int:
        if not (0 <= i < self.shape.rows and 0 <= j < self.shape.cols):
            raise ShapeError(f"entry ({i}, {j}) is outside {self.name} ({self.shape})")
        return self.offset + i * self.shape.cols + j


def _shape_of(matrix: Any) -> tuple[int, ...]:
    shape = getattr(matrix, "shape", None)
    if shape is not None:
        return tuple(int(s) for s in shape)
    if isinstance(matrix, (list, tuple)):
        rows = len(matrix)
        cols = {len(r) if isinstance(r, (list, tuple)) else -1 for r in matrix}
        if rows and (len(cols) != 1 or -1 in cols):
            raise ShapeError("a matrix must be a list of rows of equal length")
        return (rows, cols.pop() if rows else 0)
    raise ShapeError(f"cannot read {type(matrix).__name__} as a matrix")


@dataclass(frozen=True)
class SequenceLayout:
    """Named matrix blocks, one after another, in a sequence of ``length``."""

    blocks: tuple[Block, ...]
    length: int

    @classmethod
    def of(cls, *named: tuple[str, MatrixShape | tuple[int, int]], length: int | None = None) -> "SequenceLayout":
        blocks, offset = [], 0
        names = [name for name, _ in named]
        for name in names:
            if names.count(name) > 1:
                raise ShapeError(f"the layout names two blocks {name!r}: block names must differ")
        for name, shape in named:
            shape = shape if isinstance(shape, MatrixShape) else MatrixShape(*shape)
            blocks.append(Block(name, shape, offset))
            offset += shape.size
        if length is None:
            length = offset
        if not is_symbolic(length, offset) and length < offset:
            raise ShapeError(
                f"the blocks {', '.join(f'{b.name} ({b.shape})' for b in blocks)} need "
                f"{offset} positions, but the sequence has only {length}"
            )
        return cls(tuple(blocks), length)

    @property
    def used(self) -> int:
        return self.blocks[-1].end if self.blocks else 0

    def block(self, name: str) -> Block:
        for b in self.blocks:
            if b.name == name:
                return b
        raise ShapeError(f"no block named {name!r} in this layout ({', '.join(b.name for b in self.blocks)})")

    def describe(self) -> str:
        parts = [f"{b.name} ({b.shape}) at [{b.offset}, {b.end})" for b in self.blocks]
        if not at_least(self.used, self.length):
            parts.append(f"padding at [{self.used}, {self.length})")
        return "; ".join(parts)

    def check_length(self, n: int) -> None:
        if n != self.length:
            raise ShapeError(
                f"a sequence of length {n} does not fit the layout {self.describe()} "
                f"(length {self.length})"
            )

    # -- any values ---------------------------------------------------------
    def encode(self, matrices: Mapping[str, Any], fill: Any = 0) -> list[Any]:
        """The sequence holding ``matrices`` (by block name), padding filled."""
        unknown = set(matrices) - {b.name for b in self.blocks}
        if unknown:
            raise ShapeError(f"no block named {sorted(unknown)[0]!r} in this layout")
        seq: list[Any] = [fill] * self.length
        for b in self.blocks:
            if b.name not in matrices:
                raise ShapeError(f"the matrix {b.name} ({b.shape}) is missing")
            m = matrices[b.name]
            got = _shape_of(m)
            if got != (b.shape.rows, b.shape.cols):
                raise ShapeError(f"the matrix {b.name} has shape {shape_label(got)}, the layout expects {b.shape}")
            for i in range(b.shape.rows):
                for j in range(b.shape.cols):
                    seq[b.position(i, j)] = m[i, j] if hasattr(m, "shape") else m[i][j]
        return seq

    def decode(self, seq: Sequence[Any], name: str | None = None) -> list[list[Any]]:
        """The block ``name`` (default: the first) of ``seq`` as a list of rows."""
        self.check_length(len(seq))
        b = self.block(name) if name else self.blocks[0]
        return [[seq[b.position(i, j)] for j in range(b.shape.cols)] for i in range(b.shape.rows)]

    def padding(self, seq: Sequence[Any]) -> list[Any]:
        """The values past the last block."""
        self.check_length(len(seq))
        return list(seq[self.used :])

    def symbols(self, make: Callable[[str], Any]) -> dict[str, list[list[Any]]]:
        """A matrix of fresh symbols per block, named like ``A[1,2]``."""
        return {
            b.name: [[make(f"{b.name}[{i},{j}]") for j in range(b.shape.cols)]
                     for i in range(b.shape.rows)]
            for b in self.blocks
        }

    # -- numeric batches ------------------------------------------------------
    def encode_numeric(self, matrices: Mapping[str, Any], fill: float = 0.0) -> np.ndarray:
        """A (B, length) float64 array from (r, c) or (B, r, c) arrays."""
        arrays = {}
        batch = None
        for b in self.blocks:
            if b.name not in matrices:
                raise ShapeError(f"the matrix {b.name} ({b.shape}) is missing")
            a = np.asarray(matrices[b.name], dtype=np.float64)
            if a.ndim == 2:
                a = a[None]
            if a.ndim != 3 or a.shape[1:] != (b.shape.rows, b.shape.cols):
                shown = shape_label(a.shape[-2:]) if a.ndim >= 2 else str(a.shape)
                raise ShapeError(f"the matrix {b.name} has shape {shown}, the layout expects {b.shape}")
            if not np.all(np.isfinite(a)):
                bad = tuple(int(x) for x in np.argwhere(~np.isfinite(a))[0][1:])
                raise InputError(f"the matrix {b.name} has a non-finite value at entry {bad}")
            # a single matrix (batch 1) is shared by every input of the batch
            if batch not in (None, 1) and a.shape[0] not in (1, batch):
                raise ShapeError(f"the matrices have different batch sizes ({batch} and {a.shape[0]})")
            batch = max(batch or 1, a.shape[0])
            arrays[b.name] = a
        out = np.full((batch or 1, self.length), fill, dtype=np.float64)
        for b in self.blocks:
            out[:, b.offset : b.end] = np.broadcast_to(arrays[b.name], (batch, b.shape.rows, b.shape.cols)).reshape(batch, -1)
        return out

    def decode_numeric(self, seq: np.ndarray, name: str | None = None) -> np.ndarray:
        """The block as a (B, r, c) array from a (B, length) array."""
        seq = np.atleast_2d(seq)
        self.check_length(seq.shape[-1])
        b = self.block(name) if name else self.blocks[0]
        return seq[:, b.offset : b.end].reshape(seq.shape[0], b.shape.rows, b.shape.cols)
