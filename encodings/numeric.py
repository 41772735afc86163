"""The numeric interpretation: numpy float64, batched over many inputs at once.

A sequence is an array of shape (B, n), or (1, n) for a value that is the same
for every input (it broadcasts). Floor division and remainder follow numpy's
floor semantics, as the exact interpretation does. An aggregate over a selection
decided once per length is a gather (each query selects at most one key) or a
segmented sum (``np.add.reduceat`` over the selected keys); no n x n matrix is
built for it. A data-dependent selector is a (B, n, n) boolean array.

Two settings (``NumericInterpretation(strict=..., dtype=...)``):

* ``dtype``: the float type, float64 by default; ``np.longdouble`` (80-bit
  extended on x86-64: exp works up to about 11356 instead of 709) for runs that
  leave float64's range.
* ``strict``: the result is right or there is none. The default (non-strict)
  interpretation lets IEEE arithmetic run its course (an overflow gives inf, an
  exp far below 0 gives 0) and is as fast as numpy: other code batches random
  inputs through it for cross-checks. A strict one checks every result and
  raises :class:`RangeFault` where an operation

  (a) overflows: an infinity (none exists before it: inputs are finite and
      every infinity is caught where it first appears);
  (b) rounds into the subnormal numbers (too few digits left: a ratio of two
      subnormals is off by up to 1e-3 while looking fine); the exact ones
      (+, -, copies, max, min) are not flagged;
  (c) underflows to 0 from non-zero arguments (``*``, ``/``, ``exp``, ``**``
      and the division of an aggregate's sum by its count);
  (d) compares an undefined value (NaN: a selector, a comparison or a
      number used as a condition would silently decide on it).

  An undefined value (NaN, :mod:`usim.encodings.domain`) that reaches an output
  is caught by :func:`usim.encodings.runners.run_numeric`. The checks are
  conservative: a value that leaves the range and is then discarded (the
  branch of a ``where`` not taken) is refused all the same.

  A fault names the sequence position of the first value that failed (of the
  query reading it, where an aggregate computes one mean per selecting query
  or per run of equal keys) and, in a batch, the input
  (:mod:`usim.encodings.fault_places`). Every result is of the run's float
  type: a mean divides by its count in that type.

  :class:`RangeFault` is an ArithmeticError: the evaluator reports it as an
  :class:`~usim.errors.EvaluationError` naming the expression, and
  :func:`usim.encodings.runners.run_numeric` turns that into
  :class:`~usim.errors.RangeError` (or :class:`~usim.errors.UndefinedError`).

Floating point agreement is cross-validation, never proof.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Sequence

import numpy as np

from usim.encodings.domain import PARTIAL, Undefined, defined
from usim.encodings.family_arrays import evaluate_head_sum
from usim.encodings.fault_places import at_queries, where_text
from usim.encodings.interpretation import Interpretation
from usim.encodings.selection import (
    GatherSelection,
    GroupSelection,
    OuterSelection,
    StaticSelection,
    largest_magnitude,
)
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

# Operations that copy one of their arguments: they cannot round.
_COPYING = frozenset({Op.NEG, Op.ABS, Op.MAXIMUM, Op.MINIMUM})
# A sum or difference that is subnormal or zero is exact (no digit is lost).
_EXACT_WHEN_SMALL = frozenset({Op.ADD, Op.SUB})
# Operations whose zero result from non-zero arguments can only be an underflow.
_UNDERFLOWING = frozenset({Op.MUL, Op.TRUEDIV, Op.EXP, Op.POW})


class RangeFault(FloatingPointError):
    """A strict numeric run left its float type's range, or read an undefined value.

    ``kind`` is ``"overflow"``, ``"subnormal"``, ``"underflow"`` or
    ``"undefined"``; ``magnitude`` the largest magnitude among the offending
    operation's arguments at the positions that failed (None when unknown).
    """

    def __init__(self, message: str, kind: str, magnitude: float | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.magnitude = magnitude


def _overflows(value: Any) -> bool:
    """Whether ``float(value)`` overflows."""
    if isinstance(value, Undefined):
        return False
    try:
        float(value)
    except OverflowError:
        return True
    return False


def type_name(dtype: Any) -> str:
    """'float64', or 'long double' for numpy's longdouble (whatever its width)."""
    dtype = np.dtype(dtype)
    if dtype == np.dtype(np.longdouble) and dtype != np.dtype(np.float64):
        return "long double"
    return dtype.name


def _short(x: Any) -> str:
    """A float of any width in 4 significant digits (long double's range included)."""
    return np.format_float_scientific(x, precision=3, trim="-")


@dataclass(frozen=True)
class Difference:
    """max |a - b| over two arrays of floats, or why there is none.

    A position where either side is not a finite number has no difference: an
    undefined value (NaN) is not a number, and an infinity is what a float run
    gives when it overflows (no finite computation has one). It is never
    counted as a difference of 0 nor left out: ``largest`` is then infinite and
    ``missing`` says which side and where.
    """

    largest: Any  # a float of the arrays' type (a long double stays one); inf when missing
    missing: str | None = None  # e.g. "the network's value is undefined (NaN) at position 2 of input 5"

    def text(self, digits: int = 3) -> str:
        """The largest difference in scientific notation (``digits`` after the
        point, from its own value whatever its width), or "none: " and why."""
        from usim.encodings.digits import significant

        return f"none: {self.missing}" if self.missing else significant(self.largest, digits, "e")


def _float_array(a: Any) -> np.ndarray:
    """``a`` as an array of floats, keeping a float type's width (a long double stays one)."""
    a = np.asarray(a)
    return a if a.dtype.kind == "f" else a.astype(np.float64)


def difference(a: Any, b: Any, names: tuple[str, str] = ("the first side's", "the second side's")) -> Difference:
    """max |a - b| over two float arrays of one shape (a batch (B, n) or a sequence),
    or where a side is not a finite number (see :class:`Difference`).

    Args:
        a, b: the arrays (floats of any width; other numbers are read as float64).
        names: how the message names each side ("the network's value").

    Returns:
        The largest difference in the wider type of the two (0 for empty
        arrays), or the first position (of the first side that has one) where
        a value is undefined (NaN) or infinite.
    """
    a, b = _float_array(a), _float_array(b)
    for side, name in ((a, names[0]), (b, names[1])):
        bad = ~np.isfinite(side)
        if bad.any():
            first = side[tuple(np.argwhere(bad)[0])]
            kind = ("undefined (NaN)" if np.isnan(first)
                    else f"an infinity (the run overflowed {type_name(side.dtype)})")
            return Difference(np.inf, f"{name} value is {kind} {where_text(bad)}")
    if not a.size and not b.size:
        return Difference(np.result_type(a, b).type(0))
    return Difference(np.max(np.abs(a - b)))


def largest_difference(a: Any, b: Any) -> float:
    """max |a - b| over float arrays as a float (of the arrays' type): infinite
    where either side is undefined (NaN) or infinite at some position, however
    many sides (:func:`difference` says where); 0.0 for empty arrays."""
    return difference(a, b).largest


def _largest(mask: np.ndarray, args: Sequence[Any]) -> float | None:
    """The largest magnitude among ``args`` at the positions of ``mask``."""
    found = None
    for a in args:
        a = np.asarray(a)
        if a.dtype == bool:
            continue
        picked = np.abs(np.broadcast_to(a, mask.shape)[mask])
        picked = picked[np.isfinite(picked)]
        if picked.size:
            top = float(picked.max())
            found = top if found is None else max(found, top)
    return found


class NumericInterpretation(Interpretation):
    """numpy arrays of ``dtype`` (float64 by default); ``strict`` checks every
    result for a loss of range (see the module docstring)."""

    name: ClassVar[str] = "numeric"

    def __init__(self, strict: bool = False, dtype: Any = np.float64) -> None:
        self.strict = strict
        self.dtype = np.dtype(dtype).type
        if np.dtype(self.dtype).kind != "f":
            raise TypeError(f"the numeric interpretation needs a float type, not {dtype!r}")
        self._info = np.finfo(self.dtype)
        self._type = type_name(self.dtype)

    def length(self, tokens: np.ndarray) -> int:
        return int(tokens.shape[-1])

    def lift(self, values: Sequence[Any]) -> np.ndarray:
        if isinstance(values, np.ndarray) and values.dtype != object:  # the static pass's integers
            if values.dtype == bool:
                return values[None, :]
            if not self.strict or not values.size or largest_magnitude(values) < 2**53:
                if values.ndim == 1 and values.size and values.strides == (0,):  # a constant: one value
                    return np.broadcast_to(values[:1].astype(self.dtype), (1, values.size))
                return values.astype(self.dtype)[None, :]  # exact in float64 below 2**53
        if isinstance(values, np.ndarray):
            values = values.tolist()
        if all(isinstance(v, bool) for v in values) and len(values):
            return np.asarray(values, dtype=bool)[None, :]
        if self.strict:
            return self._lift_strictly(values)
        return np.asarray([np.nan if isinstance(v, Undefined) else float(v) for v in values],
                          dtype=self.dtype)[None, :]

    def _lift_strictly(self, values: Sequence[Any], named: Callable[[int], str] | None = None) -> np.ndarray:
        """Exact values as floats, refusing one that overflows or loses its digits
        (``named(p)`` names the value at ``p`` in the error; by default "the
        constant ... at position p").

        Each value is rounded to a Python float (float64) first, so float64's
        normal range is the limit whatever the run's type: a value below it
        has lost digits before a long double could keep them."""
        if named is None:
            named = lambda p: f"the constant {values[p]} at position {p}"  # noqa: E731
        try:
            floats = np.asarray([np.nan if isinstance(v, Undefined) else float(v) for v in values],
                                dtype=np.float64)
        except OverflowError:
            p = next(p for p, v in enumerate(values) if _overflows(v))
            through = "" if self.dtype is np.float64 else " (it is read through float64)"
            raise RangeFault(f"{named(p)} is beyond float64's range{through}", "overflow") from None
        smallest = max(float(self._info.smallest_normal), float(np.finfo(np.float64).smallest_normal))
        with np.errstate(invalid="ignore"):
            small = np.nonzero(np.abs(floats) < smallest)[0]
        for p in small:
            if values[p] != 0:
                raise RangeFault(f"{named(p)} is below "
                                 f"{type_name(np.float64) if smallest > self._info.smallest_normal else self._type}'s "
                                 "normal range", "underflow")
        return floats.astype(self.dtype)[None, :]

    def map(self, op: Op, args: list[np.ndarray],
            where: Callable[[np.ndarray], str] = where_text) -> np.ndarray:
        """The operation on whole arrays; NaN where it is undefined
        (:mod:`usim.encodings.domain`), never an infinity for a division by 0.
        ``where`` names a fault's place from its mask (by default the last axis
        is the sequence position: :func:`~usim.encodings.fault_places.where_text`)."""
        with np.errstate(all="ignore"):
            if op in PARTIAL:
                args = [np.asarray(a, dtype=self.dtype) for a in args]
                result = np.where(defined(_LOGIC, op, tuple(args)), _UFUNCS[op](*args), np.nan)
            else:
                result = _UFUNCS[op](*args)
        if self.strict:
            self._audit_map(op, args, result, where)
        return result

    # -- the strict checks -----------------------------------------------------

    def _audit_map(self, op: Op, args: list[np.ndarray], result: np.ndarray,
                   where: Callable[[np.ndarray], str]) -> None:
        if op.kind == "cmp":
            self._refuse_undefined(f"the comparison {op.symbol}", args, where)
            return
        if op.kind != "num" or op in _COPYING:
            return
        label = op.symbol if op.symbol.isalpha() else f"'{op.symbol}'"
        zero = None
        if op in _UNDERFLOWING:
            def zero() -> np.ndarray:  # where every argument is non-zero (asked only if some result is 0)
                with np.errstate(invalid="ignore"):
                    return np.logical_and.reduce(
                        [np.broadcast_to(np.asarray(a) != 0, np.shape(result)) for a in args])
        self._audit(label, result, args, rounding=op not in _EXACT_WHEN_SMALL, nonzero=zero, where=where)

    def _audit(self, label: str, result: np.ndarray, args: Sequence[Any] | Callable[[], Sequence[Any]],
               rounding: bool | np.ndarray = True,
               nonzero: np.ndarray | Callable[[], np.ndarray] | None = None,
               where: Callable[[np.ndarray], str] = where_text) -> None:
        """Raise :class:`RangeFault` where ``result`` overflowed, rounded into the
        subnormals (where ``rounding``: a copy cannot round), or is 0 where
        ``nonzero`` (or the function giving it) says it should not be; ``args``
        (or a function giving them) measure the offending magnitude; ``where``
        names the failed entries from their mask (by default the last axis is
        the sequence position)."""
        r = np.asarray(result)
        with np.errstate(all="ignore"):  # a finite sum: no infinity among the entries, in one pass
            finite = r.dtype.kind == "f" and bool(np.isfinite(np.add.reduce(r, axis=None)))
        if not finite:
            overflow = np.isinf(r)
            if overflow.any():
                raise self._fault("overflow", f"{label} overflows {self._type} (beyond "
                                  f"{_short(self._info.max)}) {where(overflow)}", overflow, args)
        checks_rounding = np.any(rounding)
        if not checks_rounding and nonzero is None:
            return
        with np.errstate(invalid="ignore"):
            magnitude = np.abs(r)
            if bool((magnitude >= self._info.smallest_normal).all()):
                return  # every entry normal (no 0, no subnormal, no NaN): nothing rounded away or underflowed
            if callable(nonzero):
                nonzero = nonzero()
            if checks_rounding:
                subnormal = (r != 0) & (magnitude < self._info.smallest_normal) & rounding
                if subnormal.any():
                    raise self._fault("subnormal", f"{label} gives a subnormal {self._type} (below "
                                      f"{_short(self._info.smallest_normal)}: too few digits left) "
                                      f"{where(subnormal)}", subnormal, args)
            if nonzero is not None:
                underflow = (r == 0) & nonzero
                if underflow.any():
                    raise self._fault("underflow", f"{label} underflows to 0 in {self._type} from "
                                      f"non-zero arguments {where(underflow)}", underflow, args)

    def _fault(self, kind: str, message: str, mask: np.ndarray,
               args: Sequence[Any] | Callable[[], Sequence[Any]]) -> RangeFault:
        magnitude = _largest(mask, args() if callable(args) else args)
        if magnitude is not None:
            message += f" (largest argument magnitude {magnitude:.6g})"
        return RangeFault(message, kind, magnitude)

    def _refuse_undefined(self, what: str, args: Sequence[Any],
                          where: Callable[[np.ndarray], str] = where_text) -> None:
        for a in args:
            a = np.asarray(a)
            if a.dtype != bool and np.isnan(a).any():
                raise RangeFault(f"{what} reads an undefined value (NaN) {where(np.isnan(a))}",
                                 "undefined")

    def _audit_average(self, out: np.ndarray, totals: np.ndarray | None, values: np.ndarray,
                       averaged: bool | np.ndarray = True,
                       where: Callable[[np.ndarray], str] = where_text) -> None:
        """An aggregate's means: no overflow, no subnormal where more than one value is
        ``averaged`` (a mean of one is a copy), no 0 from a non-zero total; ``where``
        names the failed means from their mask (by default: a mean at every position)."""
        def row_largest() -> list[np.ndarray]:  # only when reporting: each row's largest value
            with np.errstate(all="ignore"):
                largest = np.nanmax(np.abs(values), axis=-1, keepdims=True, initial=0.0)
            return [np.broadcast_to(largest, np.shape(out))]

        nonzero = None if totals is None else np.asarray(totals) != 0
        self._audit("the average of an aggregate", out, row_largest, rounding=averaged, nonzero=nonzero,
                    where=where)

    # -- the rest --------------------------------------------------------------

    def to_number(self, seq: np.ndarray) -> np.ndarray:
        return np.asarray(seq, dtype=self.dtype)

    def to_bool(self, seq: np.ndarray, where: Callable[[np.ndarray], str] = where_text) -> np.ndarray:
        if self.strict:
            self._refuse_undefined("a number used as a condition", [seq], where)
        return np.asarray(seq) != 0

    def select(self, predicate: Predicate, keys: np.ndarray, queries: np.ndarray) -> np.ndarray:
        if self.strict and predicate not in (Predicate.TRUE, Predicate.FALSE):
            self._refuse_undefined(f"the selector {predicate.symbol}", [keys, queries])
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

    def _empty(self, values: np.ndarray, default: Any, semantics: Semantics, used: Any = True) -> np.ndarray:
        """What a row selecting no key holds: the default, or (AHAT) the mean of
        every value. A default that some row ``used`` holds is lifted as a
        constant is (strictly: refused when it overflows or loses its digits)."""
        if semantics is Semantics.AHAT:
            return values.mean(axis=1, keepdims=True)
        if self.strict and np.any(used):
            value = self._lift_strictly([default], lambda p: f"the default {default} of an aggregate (held "
                                                             "where a row selects no key)")[0, 0]
            return np.full((values.shape[0], 1), value, dtype=self.dtype)
        return np.full((values.shape[0], 1), float(default), dtype=self.dtype)

    def _means(self, sums: np.ndarray, counts: Any) -> np.ndarray:
        """``sums / counts`` in the run's float type: numpy would divide a float32
        sum by an int64 count in float64, and the run would go on in float64."""
        return np.true_divide(sums, np.asarray(counts, dtype=self.dtype))

    def aggregate_static(
        self, selection: StaticSelection, values: np.ndarray, default: Any, semantics: Semantics
    ) -> np.ndarray:
        values = np.asarray(values, dtype=self.dtype)
        batch, n = values.shape[0], selection.n
        if isinstance(selection, OuterSelection):  # one mean, over the same keys, at every selecting query
            chosen = selection.key_index.size
            nonempty = selection.query_mask if chosen else np.zeros(n, dtype=bool)
            everywhere = chosen and bool(nonempty.all())  # (a broadcast: U's header fields)
            queries = np.arange(n) if everywhere else np.flatnonzero(nonempty)
            with np.errstate(all="ignore"):
                totals = values[:, selection.key_index].sum(axis=1, keepdims=True)
                means = np.broadcast_to(self._means(totals, chosen), (batch, queries.size)) if chosen else None
                if everywhere:  # one value per input, seen at every position: held once
                    out = means
                else:
                    out = np.broadcast_to(self._empty(values, default, semantics, queries.size < n),
                                          (batch, n)).copy()
                    if queries.size:
                        out[:, queries] = means
            if self.strict:
                # the selecting queries; an empty row holds the default (a constant) or,
                # under AHAT, an average of every value, audited as such
                if queries.size:
                    self._audit_average(means, np.broadcast_to(totals, means.shape), values, chosen > 1,
                                        at_queries(queries, n))
                if semantics is Semantics.AHAT and queries.size < n:
                    self._audit_average(out[:, ~nonempty], None, values, where=at_queries(np.flatnonzero(~nonempty), n))
            return out
        if isinstance(selection, GatherSelection):  # one key per query, or none: a copy
            source = selection.source
            nonempty = source >= 0
            with np.errstate(all="ignore"):
                empty = self._empty(values, default, semantics, ~nonempty)
                out = np.where(nonempty, values[:, np.maximum(source, 0)], empty)
            if self.strict and semantics is Semantics.AHAT and not nonempty.all():
                # a copy cannot leave the range; the default of an empty row is an average
                self._audit_average(np.where(nonempty, 0.0, out), None, values)
            return out
        counts = selection.counts
        nonempty = counts > 0
        with np.errstate(all="ignore"):
            out = np.broadcast_to(self._empty(values, default, semantics, ~nonempty), (batch, n)).copy()
        if isinstance(selection, GroupSelection):  # one mean per run of equal keys, read by its queries
            read = np.zeros(selection.starts.size, dtype=bool)
            read[selection.group[nonempty]] = True
            sizes = selection.sizes[read]
            with np.errstate(all="ignore"):
                sums = selection.run_sums(values)[:, read]
                means = self._means(sums, sizes)
                run_of = np.cumsum(read) - 1  # a read run's place among the read ones
                out[:, nonempty] = means[:, run_of[selection.group[nonempty]]]
            if self.strict:  # one mean per run: named at the queries that read it
                self._audit_average(means, sums, values, sizes != 1,
                                    at_queries(np.flatnonzero(nonempty), n, run_of[selection.group[nonempty]]))
                if semantics is Semantics.AHAT and not nonempty.all():
                    self._audit_average(out[:, ~nonempty], None, values, where=at_queries(np.flatnonzero(~nonempty), n))
            return out
        if selection.is_gather:
            queries = np.nonzero(nonempty)[0]
            out[:, queries] = values[:, selection.keys]
            if self.strict and semantics is Semantics.AHAT and not nonempty.all():
                # a copy cannot leave the range; the default of an empty row is an average
                self._audit_average(np.where(nonempty, 0.0, out), None, values)
            return out
        starts = selection.indptr[:-1][nonempty]
        gathered = values[:, selection.keys]
        with np.errstate(all="ignore"):
            sums = np.add.reduceat(gathered, starts, axis=1)
            means = self._means(sums, counts[nonempty])
            out[:, nonempty] = means
        if self.strict:
            # the rows selecting keys; an empty row holds the default (a constant) or,
            # under AHAT, an average of every value, audited as such
            self._audit_average(means, sums, values, counts[nonempty] != 1, at_queries(np.flatnonzero(nonempty), n))
            if semantics is Semantics.AHAT and not nonempty.all():
                self._audit_average(out[:, ~nonempty], None, values, where=at_queries(np.flatnonzero(~nonempty), n))
        return out

    def aggregate_dynamic(
        self, selection: np.ndarray, values: np.ndarray, default: Any, semantics: Semantics
    ) -> np.ndarray:
        values = np.asarray(values, dtype=self.dtype)
        selection = np.asarray(selection, dtype=bool)
        batch = max(values.shape[0], selection.shape[0])
        counts = selection.sum(axis=-1)
        with np.errstate(all="ignore"):
            totals = np.where(selection, values[:, None, :], 0.0).sum(axis=-1)
            means = self._means(totals, np.maximum(counts, 1))
            empty = np.broadcast_to(self._empty(values, default, semantics, counts == 0), (batch, 1))
        out = np.where(counts == 0, empty, means)
        if self.strict:
            self._audit_average(out, np.where(counts == 0, 0, totals), values, counts != 1)
        return out

    def head_sum(self, family: Any, sequences: Any, exact: Any, n: int) -> np.ndarray:
        """The heads of a family kept whole, as array operations (audited as
        :mod:`usim.encodings.families` says when strict)."""
        return evaluate_head_sum(family, sequences, exact, self, n)

    def width(self, selection: np.ndarray) -> np.ndarray:
        return np.asarray(selection, dtype=bool).sum(axis=-1).astype(self.dtype)

    def undefined_where(self, values: np.ndarray, counts: Any, several: bool, empty: bool) -> np.ndarray:
        """NaN (undefined) where an aggregate of non-numbers selects several keys,
        or one without a default selects none."""
        counts = np.asarray(counts)
        bad = np.zeros(np.broadcast_shapes(np.shape(values), counts.shape), dtype=bool)
        if several:
            bad |= counts > 1
        if empty:
            bad |= counts == 0
        return np.where(bad, np.nan, values)
