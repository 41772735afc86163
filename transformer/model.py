"""The transformer model usim states, evaluates and proves things about.

A :class:`Network` maps a sequence of n numbers to one (or more) sequences of
n numbers, like a RASP program, through a residual stream of width W:

**Embedding.** The model prepends a beginning-of-sequence position (BOS,
position 0, token 0), so it runs on n + 1 positions; real position p of the
input is network position p + 1. The residual vector at network position
t is

    r_0(t) = token(t) e_token + e_pos(t),

where ``token`` is dimension 0 (the input value; 0 at BOS) and the position
is **one-hot**: dimensions 1 .. n + 1 are ``pos:0`` (BOS) .. ``pos:n``. Every
other dimension starts at 0 and is written by a layer. A function f of the
position alone is the linear readout sum_t f(t) pos:t, so position
information costs no layer.

**Layers.** Each :class:`Layer` is attention heads, then an MLP, each added
to the residual stream (residual connections):

    r <- r + sum_h W_O^h attend_h(r),        r <- r + MLP(r).

A :class:`Head` has W_Q, W_K (W x d_k), W_V (W x d_v) and W_O (d_v x W). With
q_t = W_Q^T r(t), k_s = W_K^T r(s), v_s = W_V^T r(s) and scores
score(t, s) = q_t . k_s, its output at query t is sum_s a(t, s) v_s where the
weights a are

* **average-hard** (``kind="hard"``): a(t, s) = 1/|M_t| for s in
  M_t = argmax_s score(t, s) (the keys of maximal score), 0 elsewhere: every
  query averages the values at its maximisers, ties averaged;
* **softmax** (``kind="soft"``): a(t, s) = exp(score(t, s) + m(t, s)) /
  sum_u exp(score(t, u) + m(t, u)), with the fixed additive mask m
  (PyTorch's ``attn_mask``): 0 where ``mask[t, s]`` allows the key, -inf
  where it does not; every row allows at least one key (so the sum is
  positive). No scale is applied: a scale is part of W_Q.

The :class:`MLP` has two kinds of hidden unit, both read from r and written
back through one output matrix: ReLU units max(w . r, 0), and bilinear
(gated, GLU-style without a nonlinearity) units (a . r)(b . r), which
multiply two readouts exactly. There are no biases: a constant is the readout
of sum_t pos:t = 1. (The compiled programs need no layer norm of the residual
vector: see :mod:`usim.transformer` for why U's layer norm is not one.)

**Output.** Each named output is a readout w . r(t) at the end, at the real
positions (BOS dropped).

Weights are exact rationals (:class:`Linear`: sparse columns of Fractions);
:mod:`usim.transformer.forward` runs a network in every interpretation.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterable, Mapping, Sequence

import numpy as np

from usim.errors import ShapeError
from usim.rasp.cost import Cost

TOKEN = 0
HARD, SOFT = "hard", "soft"


def position_dim(t: int) -> int:
    """The residual dimension of the one-hot code of network position t (0 is BOS)."""
    return 1 + t


def embedding_dims(n: int) -> tuple[str, ...]:
    return ("token",) + tuple(f"pos:{t}" for t in range(n + 1))


Column = tuple[tuple[int, Fraction], ...]


def _exact(w: object) -> Fraction:
    if isinstance(w, float):
        raise TypeError(f"a weight must be exact (int or Fraction), got the float {w!r}")
    return Fraction(w)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Linear:
    """An exact ``rows x cols`` matrix stored by columns: column j lists its
    non-zero entries (row, weight) in increasing row order."""

    rows: int
    columns: tuple[Column, ...]

    @classmethod
    def of(cls, rows: int, columns: Iterable[Mapping[int, object] | Iterable[tuple[int, object]]]) -> "Linear":
        out = []
        for column in columns:
            items = column.items() if isinstance(column, Mapping) else column
            merged: dict[int, Fraction] = {}
            for i, w in items:
                if not 0 <= i < rows:
                    raise ShapeError(f"a weight at row {i} of a matrix with {rows} rows")
                merged[i] = merged.get(i, Fraction(0)) + _exact(w)
            out.append(tuple((i, merged[i]) for i in sorted(merged) if merged[i] != 0))
        return cls(rows, tuple(out))

    @classmethod
    def writes(cls, units: int, width: int, outs: Sequence[int]) -> "Linear":
        """The units x width matrix that adds unit i to residual dimension outs[i]."""
        columns: list[tuple[tuple[int, Fraction], ...]] = [() for _ in range(width)]
        for i, d in enumerate(outs):
            if columns[d]:
                raise ShapeError(f"two units write the residual dimension {d}")
            columns[d] = ((i, Fraction(1)),)
        return cls(units, tuple(columns))

    @classmethod
    def zeros(cls, rows: int, cols: int) -> "Linear":
        return cls(rows, tuple(() for _ in range(cols)))

    @property
    def cols(self) -> int:
        return len(self.columns)

    @property
    def nonzeros(self) -> int:
        return sum(len(c) for c in self.columns)

    @property
    def size(self) -> int:
        return self.rows * self.cols

    def reads(self) -> set[int]:
        """The rows with a non-zero weight (the residual dimensions read)."""
        return {i for column in self.columns for i, _ in column}

    def entry(self, i: int, j: int) -> Fraction:
        return dict(self.columns[j]).get(i, Fraction(0))

    def dense(self, dtype: type = np.float64) -> np.ndarray:
        out = np.zeros((self.rows, self.cols), dtype=dtype)
        for j, column in enumerate(self.columns):
            for i, w in column:
                out[i, j] = w
        return out

    def replaced(self, i: int, j: int, weight: object) -> "Linear":
        """The same matrix with entry (i, j) set to ``weight`` (for broken variants)."""
        columns = list(self.columns)
        entries = dict(columns[j])
        entries[i] = _exact(weight)
        columns[j] = tuple((r, w) for r, w in sorted(entries.items()) if w != 0)
        return Linear(self.rows, tuple(columns))

    def text(self) -> str:
        return ";".join(",".join(f"{i}:{w}" for i, w in column) for column in self.columns)


@dataclass(frozen=True, eq=False)
class Head:
    """One attention head (see the module docstring). ``mask`` (soft heads only):
    the (n+1) x (n+1) boolean matrix of allowed keys, [query, key], or None for
    every key. ``carries`` names, per value coordinate, what it stands for."""

    name: str
    kind: str
    query: Linear
    key: Linear
    value: Linear
    output: Linear
    mask: np.ndarray | None = None
    carries: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in (HARD, SOFT):
            raise ShapeError(f"head {self.name}: the kind must be {HARD!r} or {SOFT!r}, not {self.kind!r}")
        if self.query.cols != self.key.cols:
            raise ShapeError(f"head {self.name}: W_Q has {self.query.cols} columns, W_K {self.key.cols}")
        if self.value.cols != self.output.rows:
            raise ShapeError(f"head {self.name}: W_V has {self.value.cols} columns, W_O {self.output.rows} rows")
        if self.mask is not None:
            if self.kind != SOFT:
                raise ShapeError(f"head {self.name}: only a softmax head has an additive mask")
            mask = np.asarray(self.mask, dtype=bool)
            object.__setattr__(self, "mask", mask)
            if mask.ndim != 2 or mask.shape[0] != mask.shape[1]:
                raise ShapeError(f"head {self.name}: the mask must be square, got shape {mask.shape}")
            empty = np.flatnonzero(~mask.any(axis=1))
            if empty.size:
                raise ShapeError(f"head {self.name}: the mask allows no key at query {int(empty[0])} "
                                 "(the softmax would divide by 0)")

    @property
    def d_k(self) -> int:
        return self.query.cols

    @property
    def d_v(self) -> int:
        return self.value.cols

    def parameters(self) -> int:
        return self.query.size + self.key.size + self.value.size + self.output.size


@dataclass(frozen=True, eq=False)
class MLP:
    """ReLU units max(w . r, 0) and bilinear units (a . r)(b . r), written back by
    ``relu_out`` (U_r x W) and ``gate_out`` (U_b x W)."""

    relu_in: Linear
    relu_out: Linear
    gate_a: Linear
    gate_b: Linear
    gate_out: Linear
    labels: tuple[str, ...] = ()

    @classmethod
    def empty(cls, width: int) -> "MLP":
        return cls(Linear.zeros(width, 0), Linear.zeros(0, width), Linear.zeros(width, 0),
                   Linear.zeros(width, 0), Linear.zeros(0, width))

    @property
    def relu_units(self) -> int:
        return self.relu_in.cols

    @property
    def gate_units(self) -> int:
        return self.gate_a.cols

    @property
    def units(self) -> int:
        return self.relu_units + self.gate_units

    def parameters(self) -> int:
        return (self.relu_in.size + self.relu_out.size + self.gate_a.size + self.gate_b.size
                + self.gate_out.size)


@dataclass(frozen=True, eq=False)
class Layer:
    heads: tuple[Head, ...]
    mlp: MLP


@dataclass(frozen=True, eq=False)
class Network:
    """A transformer on sequences of length ``n`` (see the module docstring).

    ``dims`` labels every residual dimension (the embedding's first, then what
    each layer writes); ``outputs`` are readouts (W x 1) by name. ``name`` and
    ``outputs`` are what an obligation reads of a program.
    """

    name: str
    n: int
    dims: tuple[str, ...]
    layers: tuple[Layer, ...]
    outputs: tuple[tuple[str, Linear], ...]
    description: str = ""
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.dims[: self.n + 2] != embedding_dims(self.n):
            raise ShapeError(f"{self.name}: the first dimensions must be the embedding's")
        width = self.width
        for index, layer in enumerate(self.layers):
            for head in layer.heads:
                for what, m, rows in (("W_Q", head.query, width), ("W_K", head.key, width),
                                      ("W_V", head.value, width)):
                    if m.rows != rows:
                        raise ShapeError(f"{self.name} layer {index} head {head.name}: {what} has "
                                         f"{m.rows} rows, the residual stream {width}")
                if head.output.cols != width:
                    raise ShapeError(f"{self.name} head {head.name}: W_O writes {head.output.cols} "
                                     f"dimensions, the residual stream has {width}")
                if head.mask is not None and head.mask.shape[0] != self.n + 1:
                    raise ShapeError(f"{self.name} head {head.name}: the mask is for "
                                     f"{head.mask.shape[0]} positions, the network runs on {self.n + 1}")
            mlp = layer.mlp
            if {mlp.relu_in.rows, mlp.gate_a.rows, mlp.gate_b.rows} - {width} or \
                    {mlp.relu_out.cols, mlp.gate_out.cols} - {width}:
                raise ShapeError(f"{self.name} layer {index}: the MLP does not fit the residual stream")
        for name, readout in self.outputs:
            if readout.rows != width or readout.cols != 1:
                raise ShapeError(f"{self.name}: the output {name} must be a readout of the residual stream")

    @property
    def width(self) -> int:
        return len(self.dims)

    @property
    def readout(self) -> Linear:
        return self.outputs[0][1]

    def head_names(self) -> tuple[tuple[str, ...], ...]:
        return tuple(tuple(h.name for h in layer.heads) for layer in self.layers)

    @property
    def cost(self) -> Cost:
        """Layers and heads per layer, as a :class:`~usim.rasp.cost.Cost` (for reports)."""
        heads = self.head_names()
        return Cost(layers=len(self.layers), heads=heads, layers_with_length=len(self.layers),
                    heads_with_length=heads, maps=sum(layer.mlp.units for layer in self.layers),
                    uses_length=False)

    def parameters(self) -> int:
        """Every weight of the dense matrices: embedding (token and positions),
        every head's W_Q, W_K, W_V, W_O, every MLP's matrices, the readouts."""
        embedding = self.width * (1 + self.n + 1)
        inside = sum(h.parameters() for layer in self.layers for h in layer.heads)
        inside += sum(layer.mlp.parameters() for layer in self.layers)
        return embedding + inside + sum(r.size for _, r in self.outputs)

    def fingerprint(self) -> str:
        """sha256 of every weight (exact), mask, kind and the shapes: equal exactly
        when two networks compute with the same numbers."""
        parts = [f"network n={self.n} width={self.width}"]
        for index, layer in enumerate(self.layers):
            for h in layer.heads:
                mask = "" if h.mask is None else np.packbits(h.mask).tobytes().hex()
                parts.append(f"{index} head {h.kind} {h.query.text()}|{h.key.text()}|{h.value.text()}|"
                             f"{h.output.text()}|{mask}")
            m = layer.mlp
            parts.append(f"{index} mlp {m.relu_in.text()}|{m.relu_out.text()}|{m.gate_a.text()}|"
                         f"{m.gate_b.text()}|{m.gate_out.text()}")
        parts += [f"output {name} {r.text()}" for name, r in self.outputs]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()

    def with_layer(self, index: int, layer: Layer, name: str | None = None) -> "Network":
        layers = list(self.layers)
        layers[index] = layer
        return Network(name or self.name, self.n, self.dims, tuple(layers), self.outputs,
                       self.description, self.notes)


def heads_in(network: Network) -> Sequence[tuple[int, int, Head]]:
    """(layer, index in the layer, head) for every head, in order."""
    return [(i, j, h) for i, layer in enumerate(network.layers) for j, h in enumerate(layer.heads)]
