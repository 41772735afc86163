"""Selectors decided concretely: which keys each query selects, as sparse rows.

A selector whose keys and queries do not depend on the tokens (indices, length,
constants and maps of them) is the same for every input of a given length. It is
decided once per length, exactly, and stored in compressed sparse rows: query q
selects ``keys[indptr[q]:indptr[q+1]]`` (ascending). No n x n matrix is built for
an equality selector: it is a hash join (for each query, look up the keys that
carry its value). Interpretations aggregate over such a selection by gathering.
Three shapes are kept smaller than their pairs, which are built only when
something asks for them: two masks (:class:`OuterSelection`: the same keys at
every selecting query), one source per query (:class:`GatherSelection`), and
runs of equal keys (:class:`GroupSelection`: an equality of keys that repeat);
an aggregate over each reads it as it is.
"""

from __future__ import annotations

import bisect
import math
import weakref
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from usim.rasp.expr import Predicate


@dataclass(frozen=True, eq=False)
class StaticSelection:
    n: int
    indptr: np.ndarray  # (n + 1,) int64
    keys: np.ndarray  # (nnz,) int64

    @property
    def counts(self) -> np.ndarray:
        return np.diff(self.indptr)

    @property
    def is_gather(self) -> bool:
        """Every query selects at most one key (the head only moves a value)."""
        return bool(self.keys.size == 0 or self.counts.max() <= 1)

    def keys_of(self, query: int) -> np.ndarray:
        return self.keys[self.indptr[query] : self.indptr[query + 1]]

    def rows(self) -> list[list[int]]:
        return [self.keys_of(q).tolist() for q in range(self.n)]

    def dense(self) -> np.ndarray:
        """The boolean n x n matrix [query, key] (for pictures and small cases)."""
        out = np.zeros((self.n, self.n), dtype=bool)
        out[np.repeat(np.arange(self.n), self.counts), self.keys] = True
        return out

    # -- construction -------------------------------------------------------
    @classmethod
    def from_codes(cls, n: int, codes: np.ndarray) -> "StaticSelection":
        """From sorted unique codes q * n + k."""
        codes = np.asarray(codes, dtype=np.int64)
        queries, keys = np.divmod(codes, n) if n else (codes, codes)
        indptr = np.searchsorted(queries, np.arange(n + 1), side="left").astype(np.int64)
        return cls(n, indptr, keys.astype(np.int64))

    @classmethod
    def from_rows(cls, n: int, rows: Sequence[Sequence[int]]) -> "StaticSelection":
        counts = np.fromiter((len(r) for r in rows), dtype=np.int64, count=n)
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        keys = (
            np.concatenate([np.sort(np.asarray(r, dtype=np.int64)) for r in rows])
            if n
            else np.zeros(0, np.int64)
        )
        return cls(n, indptr, keys.astype(np.int64))

    def codes(self) -> np.ndarray:
        return np.repeat(np.arange(self.n, dtype=np.int64), self.counts) * self.n + self.keys

    def restrict(self, query_mask: np.ndarray, key_mask: np.ndarray) -> "StaticSelection":
        """Only the pairs whose query and key are in the masks (AND with an outer selection)."""
        queries = np.repeat(np.arange(self.n, dtype=np.int64), self.counts)
        keep = query_mask[queries] & key_mask[self.keys]
        return StaticSelection.from_codes(self.n, (queries * self.n + self.keys)[keep])

    def __and__(self, other: "StaticSelection") -> "StaticSelection":
        if isinstance(other, OuterSelection):
            return self.restrict(other.query_mask, other.key_mask)
        # Both code arrays are sorted and unique: look the smaller one up in the
        # larger (O(small * log large)), rather than sorting their concatenation.
        small, large = sorted((self.codes(), other.codes()), key=len)
        if small.size == 0 or large.size == 0:
            return StaticSelection.from_codes(self.n, small[:0])
        at = np.minimum(np.searchsorted(large, small), large.size - 1)
        return StaticSelection.from_codes(self.n, small[large[at] == small])

    def __or__(self, other: "StaticSelection") -> "StaticSelection":
        return StaticSelection.from_codes(self.n, np.union1d(self.codes(), other.codes()))

    def __invert__(self) -> "StaticSelection":
        everything = np.arange(self.n * self.n, dtype=np.int64)
        return StaticSelection.from_codes(self.n, np.setdiff1d(everything, self.codes()))


class OuterSelection(StaticSelection):
    """Query q selects every key of ``key_mask`` if ``query_mask[q]``, else none.

    A select with a constant side decides to this: select(row, b, ==) (a constant
    query: every query selects the keys of row b) or select(b, row, ==) (a
    constant key: the queries of row b select every key), and ``always``. It is
    stored as two masks, O(n), instead of up to n*n (query, key) pairs; the AND
    of two is again one (the softmax head: the c queries of row b times the c
    keys of row b). The pairs are built only when something asks for them.
    """

    def __init__(self, n: int, query_mask: np.ndarray, key_mask: np.ndarray) -> None:
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "query_mask", np.asarray(query_mask, dtype=bool))
        object.__setattr__(self, "key_mask", np.asarray(key_mask, dtype=bool))
        object.__setattr__(self, "_pairs", None)
        object.__setattr__(self, "_key_index", None)

    def _materialised(self) -> tuple[np.ndarray, np.ndarray]:
        if self._pairs is None:
            chosen = np.flatnonzero(self.key_mask).astype(np.int64)
            indptr = np.concatenate([[0], np.cumsum(self.counts)]).astype(np.int64)
            object.__setattr__(self, "_pairs", (indptr, np.tile(chosen, int(self.query_mask.sum()))))
        return self._pairs

    indptr = property(lambda self: self._materialised()[0])  # type: ignore[assignment]
    keys = property(lambda self: self._materialised()[1])  # type: ignore[assignment]

    @property
    def counts(self) -> np.ndarray:
        # computed when asked, never kept: one array of n per head adds up on U
        return np.where(self.query_mask, self.key_index.size, 0).astype(np.int64)

    @property
    def key_index(self) -> np.ndarray:
        """The selected keys, in order (the same for every selecting query)."""
        if self._key_index is None:
            index = np.flatnonzero(self.key_mask)
            index.setflags(write=False)
            object.__setattr__(self, "_key_index", index)
        return self._key_index

    def __and__(self, other: StaticSelection) -> StaticSelection:
        if isinstance(other, OuterSelection):
            return OuterSelection(self.n, self.query_mask & other.query_mask, self.key_mask & other.key_mask)
        return other.restrict(self.query_mask, self.key_mask)

    def __repr__(self) -> str:
        return (f"OuterSelection(n={self.n}, queries={np.flatnonzero(self.query_mask).tolist()}, "
                f"keys={np.flatnonzero(self.key_mask).tolist()})")


class GatherSelection(StaticSelection):
    """Query q selects the one key ``source[q]``, or none where it is -1.

    What a select of the indices against a position decides to (``gather``: U's
    routing heads, its header broadcasts): stored as that one array, O(n) and
    made in a few passes, where the rows' pairs cost a cumulative sum and a
    gather of their own. The pairs are built only when something asks for them.
    """

    def __init__(self, n: int, source: np.ndarray) -> None:
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "source", np.asarray(source, dtype=np.int64))
        object.__setattr__(self, "_pairs", None)

    def _materialised(self) -> tuple[np.ndarray, np.ndarray]:
        if self._pairs is None:
            inside = self.source >= 0
            indptr = np.zeros(self.source.size + 1, dtype=np.int64)
            np.cumsum(inside, out=indptr[1:])
            object.__setattr__(self, "_pairs", (indptr, self.source[inside]))
        return self._pairs

    indptr = property(lambda self: self._materialised()[0])  # type: ignore[assignment]
    keys = property(lambda self: self._materialised()[1])  # type: ignore[assignment]

    @property
    def counts(self) -> np.ndarray:
        return (self.source >= 0).astype(np.int64)

    @property
    def is_gather(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"GatherSelection(n={self.n}, source={self.source.tolist()})"


class GroupSelection(StaticSelection):
    """Query q selects every key carrying q's value: select(keys, queries, ==).

    Sorted by value (stably), the keys fall into runs of equal values, run g
    being ``order[starts[g]:starts[g + 1]]`` (ascending positions); query q
    selects the whole run ``group[q]``, or nothing where it is -1 (no key
    carries its value). What an equality select decides to when its keys are
    not consecutive integers (a group's label against itself: a row's entries
    select each other). Stored as the order and the runs, O(n), where the pairs
    are the sum of the squares of the runs' sizes (82 million for one select of
    U's at BERT-base's size); the pairs are built only when something asks for
    them. An aggregate over it is one sum per run (:meth:`run_sums`), each over
    the same keys in the same order as over the query's row of pairs.
    """

    def __init__(self, n: int, order: np.ndarray, starts: np.ndarray, group: np.ndarray) -> None:
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "order", np.asarray(order, dtype=np.int64))
        object.__setattr__(self, "starts", np.asarray(starts, dtype=np.int64))
        object.__setattr__(self, "group", np.asarray(group, dtype=np.int64))
        object.__setattr__(self, "_pairs", None)

    @property
    def sizes(self) -> np.ndarray:
        """The number of keys in each run."""
        return np.diff(self.starts, append=self.n)

    @property
    def counts(self) -> np.ndarray:
        return np.where(self.group >= 0, self.sizes[np.maximum(self.group, 0)], 0) if self.starts.size \
            else np.zeros(self.n, dtype=np.int64)

    def run_sums(self, values: np.ndarray) -> np.ndarray:
        """The sum of ``values`` (..., n) over each run's keys, in position order: (..., runs)."""
        if not self.starts.size:
            return np.zeros(values.shape[:-1] + (0,), dtype=values.dtype)
        return np.add.reduceat(values[..., self.order], self.starts, axis=-1)

    def _materialised(self) -> tuple[np.ndarray, np.ndarray]:
        if self._pairs is None:
            counts = self.counts
            first = self.starts[np.maximum(self.group, 0)] if self.starts.size else np.zeros(self.n, np.int64)
            object.__setattr__(self, "_pairs", _expand(self.order, first, counts))
        return self._pairs

    indptr = property(lambda self: self._materialised()[0])  # type: ignore[assignment]
    keys = property(lambda self: self._materialised()[1])  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"GroupSelection(n={self.n}, rows={self.rows()})"


def _expand(order: np.ndarray, first: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Compressed rows in which query q selects ``order[first[q]:first[q] + counts[q]]``,
    built without a Python loop: (indptr, keys)."""
    indptr = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    positions = np.arange(indptr[-1], dtype=np.int64) - np.repeat(indptr[:-1] - first, counts)
    return indptr, order[positions]


_COMPARE = {
    Predicate.EQ: np.equal, Predicate.NE: np.not_equal, Predicate.LT: np.less,
    Predicate.LE: np.less_equal, Predicate.GT: np.greater, Predicate.GE: np.greater_equal,
}

INT64_SAFE = 2**62
"""Integers below this in magnitude are kept in int64: no sum or product of two of
them leaves int64 before the result is checked against it again."""


_BOUNDS: dict[int, tuple[weakref.ref, int]] = {}


def bound_array(a: np.ndarray, bound: int) -> np.ndarray:
    """Make ``a`` read-only and remember ``bound`` >= max |a_i| for it, so that
    :func:`largest_magnitude` need not read it (the static pass knows the bound
    of a sum from its operands'). The bound must hold: it guards int64 overflow.

    Args:
        a: an integer array nobody writes to afterwards.
        bound: an upper bound on its magnitudes.

    Returns:
        ``a``, now read-only.
    """
    a.flags.writeable = False
    if len(_BOUNDS) > 4096:
        for key in [k for k, (ref, _) in _BOUNDS.items() if ref() is None]:
            del _BOUNDS[key]
    _BOUNDS[id(a)] = (weakref.ref(a), bound)
    return a


def largest_magnitude(a: np.ndarray) -> int:
    """max |a_i| of an integer array, as a Python int (np.abs would wrap -2**63
    onto itself), or a bound on it given by :func:`bound_array`; 0 for an empty one."""
    if a.size and a.ndim == 1 and a.strides == (0,):  # one value seen at every position
        return abs(int(a[0]))
    known = _BOUNDS.get(id(a))
    if known is not None and known[0]() is a and not a.flags.writeable:
        return known[1]
    return max(-int(a.min()), int(a.max())) if a.size else 0


def _as_integers(keys: Sequence, queries: Sequence) -> tuple[np.ndarray, np.ndarray] | None:
    """Keys and queries as int64 arrays on one common scale, exactly, or None.

    Rationals are multiplied by the least common multiple of their denominators
    (an order- and equality-preserving map); None when a value is not rational
    or the scaled values do not fit in int64.
    """
    if all(isinstance(a, np.ndarray) and a.dtype == np.int64 for a in (keys, queries)):
        safe = all(largest_magnitude(a) < INT64_SAFE for a in (keys, queries))
        return (keys, queries) if safe else None
    values = list(keys) + list(queries)
    scale = 1
    for v in values:
        if isinstance(v, Fraction):
            scale = math.lcm(scale, v.denominator)
        elif not isinstance(v, (int, np.integer)):  # bool is an int
            return None
    scaled = [int(v * scale) for v in values] if scale != 1 else [int(v) for v in values]
    if scaled and max(abs(min(scaled)), abs(max(scaled))) >= INT64_SAFE:
        return None
    array = np.asarray(scaled, dtype=np.int64)
    return array[: len(keys)], array[len(keys):]


_RANKED: list[tuple[np.ndarray, np.ndarray, np.ndarray, bool, bool]] = []  # newest last
_RANKED_KEPT = 4


def _ranked(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool, bool]:
    """The stable order of ``keys`` by value, the keys in it, whether they are
    consecutive integers (first, first + 1, ...), and whether they are so in
    their own order (the order is then the identity), for the last few key arrays.
    The static pass's values are never written; an array is kept only if it owns
    its data, and made read-only, so that it cannot change under its cached order. U's heads at n = d = 64 make
    1 186 selects on one key sequence (the indices), each of which sorted it again."""
    for kept, order, ranked, consecutive, ascending in _RANKED:
        if kept is keys:
            return order, ranked, consecutive, ascending
    ascending = bool(keys.size and np.all(np.diff(keys) == 1))
    if ascending:
        order, ranked, consecutive = np.arange(keys.size, dtype=np.int64), keys, True
    else:
        order = np.argsort(keys, kind="stable")
        ranked = keys[order]
        consecutive = bool(ranked.size and np.all(np.diff(ranked) == 1))
    if keys.base is None:  # a view could change through its base: never kept
        keys.flags.writeable = False
        _RANKED.append((keys, order, ranked, consecutive, ascending))
        del _RANKED[:-_RANKED_KEPT]
    return order, ranked, consecutive, ascending


def _decide_vectorised(predicate: Predicate, keys: np.ndarray, queries: np.ndarray) -> StaticSelection:
    """The same selection with numpy: each query selects a run of the keys sorted by value.

    With the keys sorted by value (stably), the keys equal to, below or above a
    query value form one contiguous run [lo, hi) found by binary search. An
    equality is kept as those runs (a :class:`GatherSelection` where the keys
    are consecutive integers, else a :class:`GroupSelection`); an order's runs
    are expanded without a Python loop and sorted into (query, key) codes.
    """
    n = keys.size
    order, ranked, consecutive, ascending = _ranked(keys)
    if consecutive and predicate is Predicate.EQ:  # a gather (U's routing heads): each query
        # selects the one key holding its value, if any, found by its offset
        offset = queries - ranked[0]
        inside = (offset >= 0) & (offset < n)
        if ascending:
            source = np.where(inside, offset, -1)
        else:
            source = np.where(inside, order[np.where(inside, offset, 0)], -1)
        return GatherSelection(n, source)
    if predicate is Predicate.EQ:  # each query selects the run of keys carrying its value
        starts = np.flatnonzero(np.diff(ranked, prepend=ranked[:1] - 1)) if n else np.zeros(0, np.int64)
        values = ranked[starts]
        at = np.minimum(np.searchsorted(values, queries), max(values.size - 1, 0))
        group = np.where(values[at] == queries, at, -1) if values.size else np.full(n, -1, np.int64)
        return GroupSelection(n, order, starts, group)
    if consecutive:  # (U's keys are mostly the indices) a query's place is its offset from the
        # first key: no binary search, whose random accesses were most of U's select time at 64
        inside = (queries >= ranked[0]) & (queries <= ranked[-1])
        left = np.clip(queries - ranked[0], 0, n)
        right = left + inside
    else:
        left = np.searchsorted(ranked, queries, side="left")
        right = np.searchsorted(ranked, queries, side="right")
    zeros, alls = np.zeros_like(left), np.full_like(left, n)
    lo, hi = {
        Predicate.LT: (zeros, left),  # key < query
        Predicate.LE: (zeros, right),
        Predicate.GT: (right, alls),
        Predicate.GE: (left, alls),
    }[predicate]
    counts = hi - lo
    _, chosen = _expand(order, lo, counts)
    codes = np.repeat(np.arange(n, dtype=np.int64), counts) * n + chosen
    return StaticSelection.from_codes(n, np.sort(codes))


def decide(predicate: Predicate, keys: Sequence, queries: Sequence) -> StaticSelection:
    """Entry [q][k] = predicate(keys[k], queries[q]) over exact values, sparsely.

    Rational values (the usual case: maps of indices and length) are compared as
    int64 on a common scale with numpy (:func:`_decide_vectorised`), and a select
    with a constant side is an :class:`OuterSelection` (two masks); otherwise
    equality is a hash join and the orders a binary search over the keys sorted
    by value, in Python. ``!=`` is the complement of equality. All comparisons
    are exact.
    """
    n = len(keys)
    keys, queries = (v.tolist() if isinstance(v, np.ndarray) and v.dtype != np.int64 else v
                     for v in (keys, queries))
    if predicate is Predicate.TRUE:
        return OuterSelection(n, np.ones(n, dtype=bool), np.ones(n, dtype=bool))
    if predicate is Predicate.FALSE:
        return StaticSelection(n, np.zeros(n + 1, np.int64), np.zeros(0, np.int64))
    integers = _as_integers(keys, queries)
    if integers is not None:
        key_values, query_values = integers
        compare = _COMPARE[predicate]
        if n and np.all(query_values == query_values[0]):  # one query value: the same keys everywhere
            return OuterSelection(n, np.ones(n, dtype=bool), compare(key_values, query_values[0]))
        if n and np.all(key_values == key_values[0]):  # one key value: all keys or none
            return OuterSelection(n, compare(key_values[0], query_values), np.ones(n, dtype=bool))
        if predicate is Predicate.NE:
            return ~_decide_vectorised(Predicate.EQ, *integers)
        return _decide_vectorised(predicate, *integers)
    if predicate in (Predicate.EQ, Predicate.NE):
        where: dict = {}
        for k, value in enumerate(keys):
            where.setdefault(value, []).append(k)
        equal = StaticSelection.from_rows(n, [where.get(q, ()) for q in queries])
        return equal if predicate is Predicate.EQ else ~equal
    order = sorted(range(n), key=lambda k: keys[k])
    values = [keys[k] for k in order]
    rows = []
    for q in queries:
        if predicate is Predicate.LT:  # key < query
            chosen = order[: bisect.bisect_left(values, q)]
        elif predicate is Predicate.LE:
            chosen = order[: bisect.bisect_right(values, q)]
        elif predicate is Predicate.GT:
            chosen = order[bisect.bisect_right(values, q):]
        else:  # GE
            chosen = order[bisect.bisect_left(values, q):]
        rows.append(chosen)
    return StaticSelection.from_rows(n, rows)
