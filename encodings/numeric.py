"""The numeric interpretation: numpy float64, batched over many inputs at once.

A sequence is an array of shape (B, n), or (1, n) for a value that is the same
for every input (it broadcasts). Floor division and remainder follow numpy's
floor semantics, as the exact interpretation does. An aggregate over a selection
decided once per length is a gather (each query selects at most one key) or a
segmented sum (``np.add.reduceat`` over the selected keys); no n x n matrix is
built for it. A data-dependent selector is a (B, n, n) boolean array.

Floating point agreement is cross-validation, never proof.
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

import numpy as np

from usim.encodings.domain import PARTIAL, Undefined, defined
from usim.encodings.interpretation import Interpretation
from usim.encodings.selection import OuterSelection, StaticSelection
from usim.rasp.expr import Op, Predicate, Semantics

_UFUNCS = {
    Op.ADD: np.add,
    Op.SUB: np.subtract,
    Op.MUL: np.multiply,
    Op.TRUEDIV: np.true_divide,
    Op.FLOORDIV: np.floor_divide,
    Op.MOD: np.mod,
    Op.POW: np.power,
    Op.NEG: np.negative,
    Op.ABS: np.abs,
    Op.EXP: np.exp,
    Op.SQRT: np.sqrt,
    Op.MAXIMUM: np.maximum,
    Op.MINIMUM: np.minimum,
    Op.EQ: np.equal,
    Op.NE: np.not_equal,
    Op.LT: np.less,
    Op.LE: np.less_equal,
    Op.GT: np.greater,
    Op.GE: np.greater_equal,
    Op.AND: np.logical_and,
    Op.OR: np.logical_or,
    Op.NOT: np.logical_not,
    Op.WHERE: np.where,
}


class _ArrayLogic:
    """numpy arrays as the booleans of :func:`usim.encodings.domain.defined`, so
    that the numeric interpretation applies the very same domain rule."""

    @staticmethod
    def constant(value: Any) -> np.ndarray:
        return np.asarray(value)

    @staticmethod
    def scalar(op: Op, *args: Any) -> np.ndarray:
        return _UFUNCS[op](*args)

    @staticmethod
    def is_integer(x: Any) -> np.ndarray:
        return np.isfinite(x) & (np.floor(x) == x)

    @staticmethod
    def conjunction(*conditions: Any) -> np.ndarray:
        return np.logical_and.reduce(np.broadcast_arrays(*conditions))

    @staticmethod
    def disjunction(*conditions: Any) -> np.ndarray:
        return np.logical_or.reduce(np.broadcast_arrays(*conditions))


_LOGIC = _ArrayLogic()


class NumericInterpretation(Interpretation):
    name: ClassVar[str] = "numeric"

    def length(self, tokens: np.ndarray) -> int:
        return int(tokens.shape[-1])

    def lift(self, values: Sequence[Any]) -> np.ndarray:
        if all(isinstance(v, bool) for v in values) and len(values):
            return np.asarray(values, dtype=bool)[None, :]
        return np.asarray([np.nan if isinstance(v, Undefined) else float(v) for v in values],
                          dtype=np.float64)[None, :]

    def map(self, op: Op, args: list[np.ndarray]) -> np.ndarray:
        """The operation on whole arrays; NaN where it is undefined
        (:mod:`usim.encodings.domain`), never an infinity for a division by 0."""
        with np.errstate(all="ignore"):
            if op in PARTIAL:
                args = [np.asarray(a, dtype=np.float64) for a in args]
                return np.where(defined(_LOGIC, op, tuple(args)), _UFUNCS[op](*args), np.nan)
            return _UFUNCS[op](*args)

    def to_number(self, seq: np.ndarray) -> np.ndarray:
        return np.asarray(seq, dtype=np.float64)

    def to_bool(self, seq: np.ndarray) -> np.ndarray:
        return np.asarray(seq) != 0

    def select(self, predicate: Predicate, keys: np.ndarray, queries: np.ndarray) -> np.ndarray:
        keys = np.asarray(keys)[:, None, :]
        queries = np.asarray(queries)[:, :, None]
        if predicate is Predicate.TRUE:
            return np.ones(np.broadcast_shapes(keys.shape, queries.shape), dtype=bool)
        if predicate is Predicate.FALSE:
            return np.zeros(np.broadcast_shapes(keys.shape, queries.shape), dtype=bool)
        return _UFUNCS[predicate.as_op()](keys, queries)

    def densify(self, selection: StaticSelection) -> np.ndarray:
        return selection.dense()[None, :, :]

    def combine(self, op: Op, selections: list[np.ndarray]) -> np.ndarray:
        return _UFUNCS[op](*selections)

    def _empty(self, values: np.ndarray, default: Any, semantics: Semantics) -> np.ndarray:
        if semantics is Semantics.AHAT:
            return values.mean(axis=1, keepdims=True)
        return np.full((values.shape[0], 1), float(default))

    def aggregate_static(
        self, selection: StaticSelection, values: np.ndarray, default: Any, semantics: Semantics
    ) -> np.ndarray:
        values = np.asarray(values, dtype=np.float64)
        batch, n = values.shape[0], selection.n
        counts = selection.counts
        out = np.broadcast_to(self._empty(values, default, semantics), (batch, n)).copy()
        nonempty = counts > 0
        if isinstance(selection, OuterSelection):  # one mean, over the same keys, at every selecting query
            if nonempty.any():
                with np.errstate(all="ignore"):
                    out[:, nonempty] = values[:, selection.key_mask].mean(axis=1, keepdims=True)
            return out
        if selection.is_gather:
            queries = np.nonzero(nonempty)[0]
            out[:, queries] = values[:, selection.keys]
            return out
        starts = selection.indptr[:-1][nonempty]
        gathered = values[:, selection.keys]
        with np.errstate(all="ignore"):
            out[:, nonempty] = np.add.reduceat(gathered, starts, axis=1) / counts[nonempty]
        return out

    def aggregate_dynamic(
        self, selection: np.ndarray, values: np.ndarray, default: Any, semantics: Semantics
    ) -> np.ndarray:
        values = np.asarray(values, dtype=np.float64)
        selection = np.asarray(selection, dtype=bool)
        batch = max(values.shape[0], selection.shape[0])
        counts = selection.sum(axis=-1)
        with np.errstate(all="ignore"):
            totals = np.where(selection, values[:, None, :], 0.0).sum(axis=-1)
            means = totals / np.maximum(counts, 1)
        empty = np.broadcast_to(self._empty(values, default, semantics), (batch, 1))
        return np.where(counts == 0, empty, means)

    def width(self, selection: np.ndarray) -> np.ndarray:
        return np.asarray(selection, dtype=bool).sum(axis=-1).astype(np.float64)
