"""The static pass's arithmetic: exact values as numpy arrays.

Every node that does not depend on the tokens (indices, length, constants and
what is computed from them) is evaluated once per length, exactly
(:func:`usim.encodings.evaluate.plan_for`). Its values are mostly integers
(positions, offsets, rows and columns), and over a sequence of thousands of
positions a Python list of Fractions is where U's numeric run spent 95 % of its
time. This interpretation holds such a sequence as an int64 numpy array and
does the integer operations with numpy, exactly:

* ``+``, ``-``, ``*``, ``**`` (non-negative integer exponent), negation,
  ``abs``, max and min, comparisons and the connectives, ``where``, ``//``
  and ``%`` (floor semantics, as Python and numpy), and ``/`` where every
  quotient is an integer, on int64 arrays whose operands are bounded so that no
  result can leave int64 (|x| < 2**62 for a sum, a product of the bounds below
  2**62): integers are exact;
* everything else (a Fraction, a value out of that range, a division by zero
  or with a remainder, an undefined value, a root, exp) is handed to the exact
  interpretation position by position, on Python numbers, and comes back as an
  object array. So every result is the exact interpretation's own, whichever
  path computed it; ``tests/test_encodings_static.py`` checks that they agree.

Aggregates over a selection decided by positions gather (one key per query)
or sum with ``np.add.reduceat``; a mean that is not an integer goes to the
exact path.
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

import numpy as np

from usim.encodings.interpretation import Interpretation
from usim.encodings.selection import (
    INT64_SAFE,
    GatherSelection,
    GroupSelection,
    OuterSelection,
    StaticSelection,
    bound_array,
    largest_magnitude,
)
from usim.rasp.expr import Constant, Expr, Indices, Length, Op, Predicate, Semantics

_BOUND = INT64_SAFE  # no sum or product of operands below it in magnitude leaves int64 (checked)

_LINEAR = {  # results within twice the operands' bound: exact on int64 below _BOUND // 2
    Op.ADD: np.add, Op.SUB: np.subtract, Op.NEG: np.negative, Op.ABS: np.abs,
    Op.MAXIMUM: np.maximum, Op.MINIMUM: np.minimum,
    Op.EQ: np.equal, Op.NE: np.not_equal, Op.LT: np.less, Op.LE: np.less_equal,
    Op.GT: np.greater, Op.GE: np.greater_equal,
}
_BOOL_OPS = {Op.AND: np.logical_and, Op.OR: np.logical_or, Op.NOT: np.logical_not}


def as_array(values: Sequence[Any]) -> np.ndarray:
    """Exact values as an array: bool, int64 where every value is an integer within
    bounds, else an object array of the values themselves."""
    if isinstance(values, np.ndarray):
        return values
    values = list(values)
    try:  # numpy reads bools and machine integers in C; anything else becomes an object
        array = np.asarray(values)
    except (OverflowError, ValueError):
        array = None
    if array is not None and array.ndim == 1 and len(values):
        if array.dtype == bool:
            return array
        if array.dtype.kind in "iu" and largest_magnitude(array) < _BOUND:
            return array.astype(np.int64)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def as_list(values: Any) -> list[Any]:
    """The values as Python numbers (ints, Fractions, bools, Undefined)."""
    return values.tolist() if isinstance(values, np.ndarray) else list(values)


def constant_array(value: np.generic, n: int) -> np.ndarray:
    """``value`` at n positions, as one read-only value seen n times (no memory
    per position: U's constants, and its length, over millions of positions)."""
    return np.broadcast_to(value, (n,))


def _scalar(a: np.ndarray) -> np.generic | None:
    """The one value of an array made by :func:`constant_array` (or any array
    whose positions all share one element), else None."""
    return a[0] if a.ndim == 1 and a.size and a.strides == (0,) else None


def _integers(*arrays: np.ndarray) -> bool:
    return all(isinstance(a, np.ndarray) and a.dtype == np.int64 for a in arrays)


class StaticInterpretation(Interpretation):
    """Exact sequences as numpy arrays (see the module docstring)."""

    name: ClassVar[str] = "static"
    propagates_undefined: ClassVar[bool] = True  # its undefined values are the exact interpretation's

    def __init__(self) -> None:
        from usim.encodings.exact import EXACT

        self.exact = EXACT

    # -- sequences -----------------------------------------------------------
    def length(self, tokens: Any) -> int:
        return len(tokens)

    def primitive(self, node: Expr, n: int) -> np.ndarray | None:
        """``indices``, ``length`` or a constant at length n as an array directly
        (what :func:`usim.encodings.evaluate._meaning` says they are, without
        building a list first); None for any other node."""
        if isinstance(node, Indices):
            return bound_array(np.arange(n, dtype=np.int64), max(n - 1, 0))
        if isinstance(node, Length):
            return constant_array(np.int64(n), n)
        if isinstance(node, Constant):
            value = node.value
            if isinstance(value, bool):
                return constant_array(np.bool_(value), n)
            if isinstance(value, int) and -_BOUND < value < _BOUND:
                return constant_array(np.int64(value), n)
            out = np.empty(n, dtype=object)
            out[:] = [value] * n
            return out
        return None

    def lift(self, values: Sequence[Any]) -> np.ndarray:
        return as_array(values)

    def _exactly(self, method: str, *args: Any) -> np.ndarray:
        return as_array(getattr(self.exact, method)(*[as_list(a) if isinstance(a, np.ndarray) else a
                                                      for a in args]))

    def map(self, op: Op, args: list[np.ndarray]) -> np.ndarray:
        fast = self._fast(op, args)
        return fast if fast is not None else self._exactly("map", op, [as_list(a) for a in args])

    def _fast(self, op: Op, args: list[np.ndarray]) -> np.ndarray | None:
        if op in _BOOL_OPS:
            return _BOOL_OPS[op](*args) if all(a.dtype == bool for a in args) else None
        if op is Op.WHERE:
            condition, a, b = args
            if condition.dtype == bool and a.dtype == b.dtype and a.dtype in (np.int64, bool):
                chosen = np.where(condition, a, b)
                if a.dtype == np.int64 and chosen.base is None:  # |where| <= the larger operand's bound
                    return bound_array(chosen, max(largest_magnitude(a), largest_magnitude(b)))
                return chosen
            return None
        if not _integers(*args):
            return None
        bounds = [largest_magnitude(a) for a in args]
        n = args[0].size
        # a constant operand enters as its one value (numpy divides by one integer
        # several times faster than element by element); two constants give one
        scalars = [_scalar(a) for a in args]
        operands = [a if s is None else s for a, s in zip(args, scalars)]

        def whole(result: Any, bound: int | None = None) -> np.ndarray:
            """The result over the n positions; an integer one read-only with a
            bound on its magnitudes from the operands' (never read again)."""
            if np.ndim(result) == 0:
                return constant_array(result, n)
            if bound is not None and result.dtype == np.int64 and result.base is None:
                return bound_array(result, bound)
            return result

        if op in _LINEAR:
            if max(bounds) >= _BOUND // 2:
                return None
            bound = bounds[0] + bounds[1] if op in (Op.ADD, Op.SUB) else max(bounds)  # |a +- b|, |-a|, max, min
            return whole(_LINEAR[op](*operands), bound)
        if op is Op.MUL:
            return whole(np.multiply(*operands), bounds[0] * bounds[1]) if bounds[0] * bounds[1] < _BOUND else None
        if op in (Op.FLOORDIV, Op.MOD, Op.TRUEDIV):
            a, b = operands
            if not np.all(b != 0):
                return None  # a division by zero: the exact path gives the undefined values
            if op is Op.FLOORDIV:  # |a // b| <= |a| for a whole b != 0
                return whole(np.floor_divide(a, b), bounds[0])
            if op is Op.MOD:  # |a mod b| < |b|
                return whole(np.mod(a, b), bounds[1])
            if np.all(np.mod(a, b) == 0):
                return whole(np.floor_divide(a, b), bounds[0])
            return None
        if op is Op.POW:
            base, exponent = args
            if exponent.size and exponent.min() < 0:
                return None  # a rational result (or 0 to a negative power): the exact path
            top = int(exponent.max()) if exponent.size else 0
            if bounds[0] > 1 and (top > 62 or bounds[0] ** top >= _BOUND):
                return None
            return np.power(base, exponent)
        return None

    def to_number(self, seq: np.ndarray) -> np.ndarray:
        return seq.astype(np.int64) if seq.dtype == bool else self._exactly("to_number", seq)

    def to_bool(self, seq: np.ndarray) -> np.ndarray:
        return seq != 0 if seq.dtype == np.int64 else self._exactly("to_bool", seq)

    # -- selectors: decided by usim.encodings.selection, never here -------------
    def select(self, predicate: Predicate, keys: Any, queries: Any) -> Any:  # pragma: no cover
        raise AssertionError("a static select is decided by usim.encodings.selection.decide")

    def densify(self, selection: StaticSelection) -> Any:  # pragma: no cover
        raise AssertionError("the static pass has no dynamic selection")

    def combine(self, op: Op, selections: list[Any]) -> Any:  # pragma: no cover
        raise AssertionError("the static pass has no dynamic selection")

    def aggregate_dynamic(self, selection: Any, values: Any, default: Any, semantics: Semantics) -> Any:
        raise AssertionError("the static pass has no dynamic selection")  # pragma: no cover

    def width(self, selection: Any) -> Any:  # pragma: no cover
        raise AssertionError("a static selector width is its selection's counts")

    # -- aggregation -----------------------------------------------------------
    def aggregate_static(self, selection: StaticSelection, values: np.ndarray, default: Any,
                         semantics: Semantics) -> np.ndarray:
        counts = selection.counts
        if not (_integers(values) and largest_magnitude(values) * max(1, selection.n) < _BOUND) \
                or (semantics is Semantics.AHAT and not counts.all()):
            return self._exactly("aggregate_static", selection, values, default, semantics)
        if isinstance(selection, GatherSelection):  # one key per query, or none: a copy
            nonempty = selection.source >= 0
            if not nonempty.all() and not (isinstance(default, int) and -_BOUND < default < _BOUND):
                return self._exactly("aggregate_static", selection, values, default, semantics)
            return np.where(nonempty, values[np.maximum(selection.source, 0)], default)
        out = np.full(selection.n, 0, dtype=np.int64)
        nonempty = counts > 0
        if isinstance(selection, OuterSelection):  # the same keys at every selecting query: one mean
            if nonempty.any():
                chosen = values[selection.key_mask]
                total, count = int(chosen.sum()), int(chosen.size)
                if total % count:
                    return self._exactly("aggregate_static", selection, values, default, semantics)
                out[nonempty] = total // count
        elif isinstance(selection, GroupSelection):  # one mean per run of equal keys read by a query
            read = np.zeros(selection.starts.size, dtype=bool)
            read[selection.group[nonempty]] = True
            sums, sizes = selection.run_sums(values), selection.sizes
            if np.any(sums[read] % sizes[read]):
                return self._exactly("aggregate_static", selection, values, default, semantics)
            out[nonempty] = (sums // np.maximum(sizes, 1))[selection.group[nonempty]]
        elif selection.is_gather:
            out[nonempty] = values[selection.keys]
        elif nonempty.any():
            sums = np.add.reduceat(values[selection.keys], selection.indptr[:-1][nonempty])
            if np.any(sums % counts[nonempty]):
                return self._exactly("aggregate_static", selection, values, default, semantics)
            out[nonempty] = sums // counts[nonempty]
        if not nonempty.all():
            if not (isinstance(default, int) and -_BOUND < default < _BOUND):
                return self._exactly("aggregate_static", selection, values, default, semantics)
            out[~nonempty] = default
        return out

    def undefined_where(self, values: np.ndarray, counts: Any, several: bool, empty: bool) -> np.ndarray:
        return self._exactly("undefined_where", values, as_list(counts), several, empty)


STATIC = StaticInterpretation()
