"""A planned head sum (:mod:`usim.encodings.families`) evaluated as array operations.

For a plan of ``sum over heads h of aggregate(select_1 & ... & select_m, values_h)``,
where head h writes at the queries q with g(q) = v_h and averages its keys K_h,
the means are computed for every head at once:

* keys the same for every head (the product): ``values_h`` is evaluated at the
  positions of K only, as an array with one axis per head index (the body's
  gathers read ``values[src]`` with ``src`` an array over the heads); a
  product of two factors over different head indices, a_i * b_j, is summed
  over K as a matrix product (sum_k a_i(k) b_j(k): one BLAS call for the r*c
  heads);
* keys chosen by a head's own value (the row heads): ``values`` is a sequence
  no head changes, and the sums over each head's keys are one grouped sum
  (``np.bincount``) over the positions, in position order.

Which keys and queries each head selects is decided as the evaluator decides
it: exactly, on int64, where the sequences compared are decided by positions
alone (the static pass's values: a select of the static pass is exact), and a
gather's source is int64 arithmetic of positions, head parameters and integer
constants, refused where it could leave int64; as floats where a sequence
depends on the input, as a head-by-head numeric run compares them. What this
module cannot decide so (a non-integer static value, a head value beyond
2**53, an OR of selects, an aggregate other than a gather inside a head) is
refused with :class:`UnsupportedFamily`, never approximated, and U is then run
head by head. The means are the same sums of the same products, added in
another order (the matrix product's, and position order in the grouped sums
where numpy's sum adds pairwise): floating point, which is cross-validation,
as every numeric run is; in a non-strict run a value that leaves the range may
come out as another non-finite value than head by head. A strict run audits what
it computes as the head-by-head run does, where it matters: the means (no
overflow, no subnormal from averaging, no 0 from a non-zero total); a product
summed by BLAS is never formed, so its entries are checked by bounds first
(max|a| max|b| finite, min|a| min|b| over the non-zero entries normal: then no
product overflows, rounds into the subnormals or underflows), and where the
bounds cannot tell the products are formed and audited one by one. Unlike the
head-by-head run, a fault is named by the head's indices (and, for a value at a
key, the key's position): a head's mean is computed once, not at a position;
a value no head reads (a product at a key outside K) is not audited: it cannot
reach the result; a head that writes nowhere has its mean audited all the same
(a refusal the head-by-head run would not make).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from usim.encodings.families import (
    EXACT_INDEX_OPS,
    HeadSelect,
    HeadSumPlan,
    UnsupportedFamily,
    varies_by_head,
)
from usim.encodings.fault_places import where_text
from usim.encodings.selection import INT64_SAFE
from usim.rasp.expr import (
    Aggregate,
    Constant,
    Expr,
    Indices,
    Map,
    Op,
    Predicate,
    Select,
    Semantics,
    SOp,
)
from usim.rasp.family import FamilyError, HeadAt, Parameter, SymbolicInt

_INTEGER_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": np.add, "-": np.subtract, "*": np.multiply, "//": np.floor_divide, "%": np.mod,
}
_CHUNK = 1 << 24  # entries of a product formed at once where its bounds cannot vouch for it
_FLOAT_EXACT = 2**53  # integers below this in magnitude are exact in float64 (and long double)

@dataclass(eq=False)
class _Heads:
    """One evaluation of a plan: the sequences read, the axes of the head indices,
    the interpretation's arithmetic (its audits included)."""

    plan: HeadSumPlan
    sequences: Mapping[int, np.ndarray]  # input id -> (B, n)
    exact: Mapping[int, Any]  # input id -> its exact value (n,), for the inputs decided by positions alone
    interp: Any
    n: int

    def __post_init__(self) -> None:
        m = len(self.plan.extents)
        self.axes = {}
        for axis, (name, extent) in enumerate(zip(self.plan.names, self.plan.extents)):
            shape = [1] * (m + 2)
            shape[axis + 1] = extent
            self.axes[name] = np.arange(extent, dtype=np.int64).reshape(shape)
        self.memo: dict[int, Any] = {}

    # the values of integers over the heads (shape (1, e_1.., 1), or a Python int)
    def integer(self, term: SymbolicInt | int, env: Mapping[str, Any]) -> Any:
        """A head parameter's value at every head, exactly (int64, refused where
        it could leave int64)."""
        if not isinstance(term, SymbolicInt):
            return term
        if term.op == "num":
            return term.args[0]
        if term.op == "sym":
            name = term.args[0]
            if name in env:
                return env[name]
            if name in self.axes:
                return self.axes[name]
            raise UnsupportedFamily(f"the head index {name.split('#')[0]} has no value here")
        if term.op == "neg":
            return _exactly(np.negative, self.integer(term.args[0], env), 0, str(term))
        left, right = (self.integer(a, env) for a in term.args)
        return _exactly(_INTEGER_OPS[term.op], left, right, str(term))

    def head_values(self, node: SOp) -> np.ndarray:
        """A per-head value (Parameter or integer constant) for every head,
        row-major: int64, shape (H,)."""
        if isinstance(node, Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, int):
                raise UnsupportedFamily(f"a head's select compares with the constant {node.value!r}, "
                                        "not an integer")
            value = node.value
        else:
            value = self.integer(node.term, {})
        _within(value, INT64_SAFE, f"the value {node.name}")
        full = np.broadcast_to(np.asarray(value, dtype=np.int64), (1, *self.plan.extents, 1))
        return np.asarray(full).reshape(-1)

    def decided_by(self, node: SOp, head_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A sequence a select compares with the heads' values, and those values,
        so that numpy compares them as the evaluator does: exactly (int64) where
        the sequence is decided by positions alone (the static pass decides such
        a select exactly), as floats where it depends on the input (as a
        head-by-head numeric run does)."""
        if node.id in self.exact:
            value = self.exact[node.id]
            if not (isinstance(value, np.ndarray) and value.dtype == np.int64):
                raise UnsupportedFamily(f"a head's select compares {node.name}, whose values are not "
                                        "integers: evaluated only head by head")
            return value.reshape(1, -1), head_values
        _within(head_values, _FLOAT_EXACT, "a head's value compared with a sequence of the input")
        sequence = self.sequence(node)
        if self.interp.strict:
            self.interp._refuse_undefined("a head's selector", [sequence])
        return sequence, head_values.astype(sequence.dtype)

    def sequence(self, node: SOp) -> np.ndarray:
        value = self.sequences[node.id]
        return np.asarray(value)

    # a node of the body at the positions ``at`` (shape (B, e_1.., |at|), broadcastable)
    def array(self, node: Expr, at: np.ndarray, env: Mapping[str, Any]) -> Any:
        """A node of the body at the positions ``at``: shape (B, e_1, .., |at|) or
        one that broadcasts to it. ``env``: the head families' own indices, as
        arrays over the heads (a value is kept only where no such index is bound)."""
        if env:
            return self._array(node, at, env)
        if node.id not in self.memo:
            self.memo[node.id] = self._array(node, at, env)
        return self.memo[node.id]

    def _array(self, node: Expr, at: np.ndarray, env: Mapping[str, Any]) -> Any:
        m = len(self.plan.extents)
        if node.id not in self.plan.inside and not isinstance(node, Parameter):
            seq = self.sequence(node)
            return seq[:, at].reshape((seq.shape[0],) + (1,) * m + (at.size,))
        if isinstance(node, Parameter):
            value = self.integer(node.term, env)
            _within(value, _FLOAT_EXACT, f"the head parameter {node.name}")
            return np.asarray(value, dtype=self.interp.dtype)
        if isinstance(node, Constant):
            if isinstance(node.value, bool):
                return np.asarray(node.value)
            if self.interp.strict:  # refused out of range, named as no position's value
                return self.interp._lift_strictly([node.value], lambda _: f"the constant {node.value} in a "
                                                                          "head").reshape(())
            return self.interp.lift([node.value]).reshape(())
        if isinstance(node, HeadAt):
            family = node.family
            entry = self.integer(node.at, env)
            if np.any(np.asarray(entry) < 0) or np.any(np.asarray(entry) >= int(family.extent)):
                raise FamilyError(f"an entry past the end of a family of {family.extent} heads")
            inner = dict(env)
            inner[family.index.args[0]] = entry
            return self.array(family.body, at, inner)
        if isinstance(node, Map):
            values = [self.array(a, at, env) for a in node.args]
            kind = node.op.kind
            where = self.at_keys(at)
            if kind in ("num", "cmp"):
                args = [self._number(a, v) for a, v in zip(node.args, values)]
            elif kind == "bool":
                args = [self._boolean(a, v, where) for a, v in zip(node.args, values)]
            else:  # where
                args = [self._boolean(node.args[0], values[0], where), self._number(node.args[1], values[1]),
                        self._number(node.args[2], values[2])]
            return self.interp.map(node.op, args, where)
        if isinstance(node, Aggregate):
            return self._gather(node, at, env)
        raise UnsupportedFamily(f"a head makes {type(node).__name__} ({node.name}), which is evaluated "
                                "only head by head")

    def _number(self, node: SOp, value: Any) -> Any:
        return self.interp.to_number(value) if node.is_bool else value

    def _boolean(self, node: SOp, value: Any, where: Callable[[np.ndarray], str]) -> Any:
        return value if node.is_bool else self.interp.to_bool(value, where)

    def _gather(self, node: Aggregate, at: np.ndarray, env: Mapping[str, Any]) -> Any:
        """aggregate(select(indices, src, ==), values) inside a head: values[src] where
        src is a position, the default 0 elsewhere (a copy: nothing to audit)."""
        selector = node.selector
        if not (isinstance(selector, Select) and selector.predicate is Predicate.EQ
                and isinstance(selector.keys, Indices) and node.semantics is Semantics.RASP
                and node.default == 0 and node.values.id not in self.plan.inside):
            raise UnsupportedFamily(f"a head aggregates by {node.name}, which is not a gather of a sequence")
        source = np.asarray(self.index(selector.queries, at, env), dtype=np.int64)
        source = source.reshape((1,) * (len(self.plan.extents) + 2 - source.ndim) + source.shape)
        values = self.sequence(node.values)
        valid = (source >= 0) & (source < self.n)
        index = np.where(valid, source, 0)
        if index.shape[0] == 1:
            picked = values[:, index[0]]
        else:
            batch = max(values.shape[0], index.shape[0])
            flat = np.broadcast_to(index, (batch,) + index.shape[1:]).reshape(batch, -1)
            picked = np.take_along_axis(np.broadcast_to(values, (batch, values.shape[1])), flat, axis=1)
            picked = picked.reshape((batch,) + index.shape[1:])
        return np.where(valid, picked, 0).astype(self.interp.dtype)

    def index(self, node: Expr, at: np.ndarray, env: Mapping[str, Any]) -> Any:
        """A gather's source at the positions ``at``, exactly: int64 arithmetic on
        positions, head parameters, integer constants and sequences decided by
        positions alone (refused where it could leave int64 or divides by 0)."""
        m = len(self.plan.extents)
        if isinstance(node, Parameter):
            return self.integer(node.term, env)
        if node.id not in self.plan.inside:
            value = self.exact.get(node.id)
            if not (isinstance(value, np.ndarray) and value.dtype == np.int64):
                raise UnsupportedFamily(f"a gather's source reads {node.name}, which is not integers decided "
                                        "by positions alone")
            return value[at].reshape((1,) * (m + 1) + (at.size,))
        if isinstance(node, Constant):
            return node.value
        args = [self.index(a, at, env) for a in node.args]
        if node.op in (Op.FLOORDIV, Op.MOD) and np.any(np.asarray(args[1]) == 0):
            raise UnsupportedFamily(f"a gather's source {node.name} divides by 0")
        if node.op is Op.NEG:
            return _exactly(np.negative, args[0], 0, node.name)
        return _exactly(EXACT_INDEX_OPS[node.op], args[0], args[1], node.name)

    # -- where a strict run's fault is -------------------------------------------------------

    def head_text(self, index: Sequence[int], shape: Sequence[int]) -> str:
        """The head at ``index`` on the head axes of an array of ``shape``: 'head
        (i=1, j=0)'; an axis of 1 where the family has several heads holds one
        value for all of them ('the heads with i=1', 'every head')."""
        named = [f"{name.split('#')[0]}={k}" for name, extent, k, size
                 in zip(self.plan.names, self.plan.extents, index, shape) if size == extent]
        if len(named) == len(self.plan.extents):
            return f"head ({', '.join(named)})"
        return f"the heads with {', '.join(named)}" if named else "every head"

    def at_heads(self, columns: np.ndarray | None = None) -> Callable[[np.ndarray], str]:
        """Names the failed entries of a mask over the heads: (B, e_1, .., e_m) or one
        that broadcasts to it, (B, H) row-major, or (B, c) over the heads numbered
        ``columns`` (row-major)."""
        extents = tuple(self.plan.extents)

        def where(mask: np.ndarray) -> str:
            mask = np.asarray(mask)
            if columns is not None:
                full = np.zeros((mask.shape[0], int(np.prod(extents))), dtype=bool)
                full[:, columns] = mask
                mask = full
            if mask.ndim == 2 and len(extents) != 1:
                mask = mask.reshape((mask.shape[0],) + extents)
            shape = mask.shape[1:]
            return where_text(mask, lambda index: self.head_text(index, shape),
                              "heads" if shape == extents else "values computed")

        return where

    def at_keys(self, at: np.ndarray, chunk: tuple[int, int] | None = None) -> Callable[[np.ndarray], str]:
        """Names the failed entries of a mask (B, e_1, .., e_m, |at|) over the heads and
        the key positions ``at`` (or one that broadcasts to it); ``chunk`` = (axis,
        start): the mask holds the heads from ``start`` on along that axis."""
        m = len(self.plan.extents)

        def where(mask: np.ndarray) -> str:
            mask = np.asarray(mask)
            mask = mask.reshape((1,) * (m + 2 - mask.ndim) + mask.shape)
            shape = list(mask.shape[1:-1])
            if chunk is not None:
                shape[chunk[0] - 1] = self.plan.extents[chunk[0] - 1]

            def name(index: tuple[int, ...]) -> str:
                heads = list(index[:-1])
                if chunk is not None:
                    heads[chunk[0] - 1] += chunk[1]
                key = f"position {at[index[-1]]}" if mask.shape[-1] == at.size else "every key position"
                return f"{key} of {self.head_text(heads, shape)}"

            return where_text(mask, name, "values computed")

        return where

    # -- the heads' means ------------------------------------------------------------------

    def key_mask(self, comparisons: tuple[HeadSelect, ...]) -> np.ndarray:
        """The positions every comparison no head changes admits (shape (n,))."""
        mask = np.ones(self.n, dtype=bool)
        for c in comparisons:
            seq, values = self.decided_by(c.sequence, self.head_values(c.head_value))
            if seq.shape[0] != 1:
                raise UnsupportedFamily(f"the keys of a head depend on the input ({c.sequence.name})")
            mask &= c.holds(seq[0], values[0])
        return mask

    def means(self) -> tuple[np.ndarray, np.ndarray]:
        """Every head's mean over its keys, and its count of keys: (B, H) and (H,)."""
        shared = tuple(c for c in self.plan.keys if not varies_by_head(c.head_value))
        own = [c for c in self.plan.keys if varies_by_head(c.head_value)]
        mask = self.key_mask(shared)
        heads = int(np.prod(self.plan.extents))
        if own:
            return self._grouped(own[0], mask, heads)
        at = np.flatnonzero(mask)
        count = np.full(heads, at.size, dtype=np.int64)
        if not at.size:
            return np.zeros((1, heads), dtype=self.interp.dtype), count
        totals = self._totals(at)
        batch = totals.shape[0]
        totals = np.broadcast_to(totals, (batch, *self.plan.extents)).reshape(batch, heads)
        with np.errstate(all="ignore"):
            means = totals / at.size
        if self.interp.strict:
            self.interp._audit_average(means, totals, np.abs(totals), at.size != 1, self.at_heads())
        return means, count

    def _totals(self, at: np.ndarray) -> np.ndarray:
        """sum over the keys ``at`` of values_h, for every head: (B, e_1, ..)."""
        values = self.plan.values
        keys = (at.size,)  # a value the same at every key (a head parameter) is summed |K| times

        def over_keys(v: Any) -> np.ndarray:
            v = np.asarray(v)
            v = v.reshape((1,) * (len(self.plan.extents) + 2 - v.ndim) + v.shape)
            return np.broadcast_to(v, v.shape[:-1] + keys)

        if isinstance(values, Map) and values.op is Op.MUL and values.id in self.plan.inside \
                and not any(a.is_bool for a in values.args):
            x, y = (over_keys(self.array(a, at, {})) for a in values.args)
            return self._dot(x, y, at)
        v = over_keys(self.array(values, at, {}))
        if v.dtype == bool:
            v = v.astype(self.interp.dtype)
        with np.errstate(all="ignore"):
            totals = v.sum(axis=-1)
        if self.interp.strict:
            self.interp._audit("the sum of an aggregate", totals, lambda: [np.abs(v).max(axis=-1)], rounding=False,
                               where=self.at_heads())
        return totals

    def _dot(self, x: np.ndarray, y: np.ndarray, at: np.ndarray) -> np.ndarray:
        """sum over the keys ``at`` of x[.., k] * y[.., k] over the broadcast head axes,
        the products audited."""
        m = len(self.plan.extents)
        x = x.reshape((1,) * (m + 2 - x.ndim) + x.shape)
        y = y.reshape((1,) * (m + 2 - y.ndim) + y.shape)
        if self.interp.strict and not self._products_in_range(x, y):
            return self._formed_products(x, y, at)
        xs = [a for a in range(1, m + 1) if x.shape[a] > 1]
        ys = [a for a in range(1, m + 1) if y.shape[a] > 1]
        both = sorted(set(xs) | set(ys))
        letter = {a: chr(ord("a") + a) for a in both}  # "b".."": one per head axis; "z" the batch, "y" the keys
        batched = x.shape[0] > 1 or y.shape[0] > 1

        def operand(v: np.ndarray, axes: list[int]) -> tuple[str, np.ndarray]:
            keep_batch = v.shape[0] > 1
            shape = ([v.shape[0]] if keep_batch else []) + [v.shape[a] for a in axes] + [v.shape[-1]]
            return ("z" if keep_batch else "") + "".join(letter[a] for a in axes) + "y", v.reshape(shape)

        (sx, vx), (sy, vy) = operand(x, xs), operand(y, ys)
        out = ("z" if batched else "") + "".join(letter[a] for a in both)
        with np.errstate(all="ignore"):
            totals = np.einsum(f"{sx},{sy}->{out}", vx, vy, optimize=True)
        batch = max(x.shape[0], y.shape[0])
        full = [batch] + [(x if a in xs else y).shape[a] if a in both else 1 for a in range(1, m + 1)]
        totals = np.asarray(totals).reshape(full)
        if self.interp.strict:
            self.interp._audit("the sum of an aggregate", totals,
                               lambda: [np.abs(x).max(axis=-1), np.abs(y).max(axis=-1)], rounding=False,
                               where=self.at_heads())
        return totals

    def _products_in_range(self, x: np.ndarray, y: np.ndarray) -> bool:
        """Whether bounds alone show that no product x*y overflows, rounds into the
        subnormals or underflows to 0 from non-zero factors."""
        info = self.interp._info
        with np.errstate(all="ignore"):
            ax, ay = np.abs(x), np.abs(y)
            if np.isnan(ax).any() or np.isnan(ay).any():
                return False
            top = ax.max(initial=0.0) * ay.max(initial=0.0)
            nx, ny = ax[ax > 0], ay[ay > 0]
            if not nx.size or not ny.size:
                return bool(np.isfinite(top))
            bottom = nx.min() * ny.min()
        return bool(np.isfinite(top) and top <= info.max and bottom >= info.smallest_normal)

    def _formed_products(self, x: np.ndarray, y: np.ndarray, at: np.ndarray) -> np.ndarray:
        """The products over the keys ``at`` formed (and audited) along the
        longest head axis a chunk at a time, and summed."""
        shape = np.broadcast_shapes(x.shape, y.shape)
        axis = max(range(1, len(shape) - 1), key=lambda a: shape[a], default=None)
        if axis is None:
            return self.interp.map(Op.MUL, [x, y], self.at_keys(at)).sum(axis=-1)
        step = max(1, _CHUNK // max(1, int(np.prod(shape)) // shape[axis]))
        parts = []
        for start in range(0, shape[axis], step):
            cut = [slice(None)] * len(shape)
            cut[axis] = slice(start, start + step)
            xs = x[tuple(cut)] if x.shape[axis] > 1 else x
            ys = y[tuple(cut)] if y.shape[axis] > 1 else y
            product = self.interp.map(Op.MUL, [xs, ys], self.at_keys(at, (axis, start) if shape[axis] > 1 else None))
            with np.errstate(all="ignore"):
                parts.append(product.sum(axis=-1))
        return np.concatenate(parts, axis=axis)

    def _grouped(self, own: HeadSelect, mask: np.ndarray, heads: int) -> tuple[np.ndarray, np.ndarray]:
        """Keys chosen by each head's own value (f(k) == v_h): one grouped sum."""
        f, v = self.decided_by(own.sequence, self.head_values(own.head_value))
        if f.shape[0] != 1:
            raise UnsupportedFamily(f"the keys of a head depend on the input ({own.sequence.name})")
        distinct, group = np.unique(v, return_inverse=True)
        keys = np.flatnonzero(mask)
        fk = f[0, keys]
        slot = np.minimum(np.searchsorted(distinct, fk), distinct.size - 1)
        hit = distinct[slot] == fk
        keys, slot = keys[hit], slot[hit]
        counts = np.bincount(slot, minlength=distinct.size)
        values = np.asarray(self.sequence(self.plan.values), dtype=self.interp.dtype)
        if values.dtype == bool:
            values = values.astype(self.interp.dtype)
        batch = values.shape[0]
        sums = np.zeros((batch, distinct.size), dtype=self.interp.dtype)
        with np.errstate(all="ignore"):
            for b in range(batch):
                np.add.at(sums[b], slot, values[b, keys])
            sums = sums[:, group]
            count = counts[group]
            means = np.where(count > 0, sums / np.maximum(count, 1), 0.0).astype(self.interp.dtype)
        if self.interp.strict:
            chosen = count > 0

            def largest() -> list[np.ndarray]:  # only when reporting: each head's largest value
                top = np.zeros((batch, distinct.size), dtype=self.interp.dtype)
                for b in range(batch):
                    np.maximum.at(top[b], slot, np.abs(values[b, keys]))
                return [top[:, group][:, chosen]]

            where = self.at_heads(np.flatnonzero(chosen))
            self.interp._audit("the sum of an aggregate", sums[:, chosen], largest, rounding=False, where=where)
            self.interp._audit_average(means[:, chosen], sums[:, chosen], np.abs(sums[:, chosen]),
                                       count[chosen] != 1, where)
        return means, count

    def result(self) -> np.ndarray:
        """The sum of the heads at every position: (B, n)."""
        means, _ = self.means()
        if isinstance(self.plan.writes.sequence, Indices):  # head h writes at position v_h: a scatter
            return self._scattered(means, self.head_values(self.plan.writes.head_value))
        g, v = self.decided_by(self.plan.writes.sequence, self.head_values(self.plan.writes.head_value))
        distinct, group = np.unique(v, return_inverse=True)
        batch = means.shape[0]
        per_value = np.zeros((batch, distinct.size), dtype=self.interp.dtype)
        with np.errstate(all="ignore"):
            for b in range(batch):
                np.add.at(per_value[b], group, means[b])
        if self.interp.strict and distinct.size < v.size:  # several heads write one query: a sum
            writes = self.plan.writes.sequence.name
            self.interp._audit("'+'", per_value, lambda: [np.abs(per_value)], rounding=False,
                               where=lambda mask: where_text(
                                   mask, lambda k: f"the sum of the heads writing where {writes} = {distinct[k[-1]]}",
                                   "sums of heads"))
        slot = np.minimum(np.searchsorted(distinct, g), distinct.size - 1)
        hit = distinct[slot] == g  # (Bg, n)
        out = np.where(hit, np.take_along_axis(
            np.broadcast_to(per_value, (max(batch, g.shape[0]), distinct.size)),
            np.broadcast_to(slot, (max(batch, g.shape[0]), self.n)), axis=1), 0.0)
        return out.astype(self.interp.dtype)


    def _scattered(self, means: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Head h's mean at position v_h (the heads writing one position added in
        head order, as the fold adds them), 0 at every other position."""
        positions = np.asarray(positions)
        inside = (positions >= 0) & (positions < self.n) & (np.floor(positions) == positions)
        at = positions[inside].astype(np.int64)
        batch = means.shape[0]
        out = np.zeros((batch, self.n), dtype=self.interp.dtype)
        if np.unique(at).size == at.size:
            out[:, at] = means[:, inside]
            return out
        with np.errstate(all="ignore"):
            for b in range(batch):
                np.add.at(out[b], at, means[b, inside])
        if self.interp.strict:  # several heads write one position: a sum
            self.interp._audit("'+'", out, lambda: [np.abs(out)], rounding=False)
        return out


def _magnitude(value: Any) -> int:
    a = np.asarray(value)
    return max(-int(a.min()), int(a.max())) if a.size else 0


def _within(value: Any, limit: int, what: str) -> None:
    if _magnitude(value) >= limit:
        raise UnsupportedFamily(f"{what} reaches {limit} in magnitude: evaluated only head by head")


def _exactly(op: Callable[[Any, Any], Any], left: Any, right: Any, what: str) -> Any:
    """An integer operation on int64 head values, refused where the result could
    leave int64 (checked on the operands' bounds before computing)."""
    a, b = _magnitude(left), _magnitude(right)
    if (a + b if op in (np.add, np.subtract, np.negative) else a * b if op is np.multiply else a) >= INT64_SAFE:
        raise UnsupportedFamily(f"{what} could leave int64 at some head: evaluated only head by head")
    return op(np.asarray(left, dtype=np.int64), np.asarray(right, dtype=np.int64)) if op is not np.negative \
        else np.negative(np.asarray(left, dtype=np.int64))


def evaluate_head_sum(plan: HeadSumPlan, sequences: Mapping[int, np.ndarray], exact: Mapping[int, Any],
                      interp: Any, n: int) -> np.ndarray:
    """The head sum's value at every position, its heads evaluated as arrays.

    Args:
        plan: from :func:`plan_head_sum`.
        sequences: the value (B, n) of each of ``plan.inputs``, by node id.
        exact: the exact value (n,) of each input decided by positions alone
            (the static pass's), by node id: selects on them are decided exactly.
        interp: the numeric interpretation (its float type and its strict audits).
        n: the length.

    Returns:
        The sum of the heads, (B, n) in the interpretation's float type.

    Raises:
        UnsupportedFamily: the family has a value this module does not evaluate
            exactly as the head-by-head run would (run its instance instead).
    """
    return _Heads(plan, sequences, exact, interp, n).result()
