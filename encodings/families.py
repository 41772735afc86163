"""A family of like heads evaluated as array operations, not head by head.

U's product block adds r*c heads and its softmax r row heads; kept whole at
integer sizes (:func:`usim.rasp.family.keeping_families`), each such sum is ONE
:class:`~usim.rasp.family.HeadSum` node, ``sum over heads h of body_h``, read
here in the numeric interpretation without making its heads. The body must
have the shape of U's heads (:func:`plan_head_sum` says what else it refuses):

    body_h = aggregate(select_1 & ... & select_m, values_h)   (RASP mean, default 0)

where every select compares a sequence that no head changes (read at
positions: ``indices``, a row number) with a value that is the same at every
position for a given head (a :class:`~usim.rasp.family.Parameter` such as
``i*c + j``, or a constant). A select with that value on the query side
(``select(i*c + j, indices, ==)``, exactly one, by ``==``) says where head h
writes: the queries q with g(q) = v_h. The others restrict the keys head h
averages: K_h = {k : f(k) < v} for a value no head changes (the product's
``k < inner``), or {k : f(k) = v_h} for a head's own value (a row head's keys).
At a query q, head h selects K_h where g(q) = v_h and nothing elsewhere
(giving the default 0), so

    (sum_h body_h)(q) = sum over h with g(q) = v_h of  mean_{k in K_h} values_h(k)

and 0 where no head writes. The means are computed for every head at once:

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
head-by-head run, a value no head reads (a product at a key outside K) is not
audited: it cannot reach the result; a head that writes nowhere has its mean
audited all the same (a refusal the head-by-head run would not make).

The tests compare this evaluation with the head-by-head one (the family's
instance, :func:`usim.rasp.family.instantiate`) and with the exact
interpretation, on U at small sizes and on random families.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from usim.encodings.selection import INT64_SAFE
from usim.errors import UsimError
from usim.rasp.expr import (
    Aggregate,
    Constant,
    Expr,
    Indices,
    Map,
    Op,
    Predicate,
    Select,
    SelectorAnd,
    Semantics,
    SOp,
)
from usim.rasp.family import INDEX, FamilyError, HeadAt, HeadSum, Parameter, SymbolicInt, is_symbolic
from usim.rasp.program import Program, topological_order

_INTEGER_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": np.add, "-": np.subtract, "*": np.multiply, "//": np.floor_divide, "%": np.mod,
}
_PREDICATES: dict[Predicate, Callable[[Any, Any], Any]] = {
    Predicate.EQ: np.equal, Predicate.NE: np.not_equal, Predicate.LT: np.less,
    Predicate.LE: np.less_equal, Predicate.GT: np.greater, Predicate.GE: np.greater_equal,
}
_CHUNK = 1 << 24  # entries of a product formed at once where its bounds cannot vouch for it


class UnsupportedFamily(UsimError):
    """A head family whose body this module cannot evaluate as arrays (the
    message says which node): run its instance head by head instead."""


@dataclass(frozen=True)
class Comparison:
    """One select of a head's selector: ``sequence`` (read at positions, no head
    changes it) against ``head_value`` (one value per head), by ``predicate``
    applied as select applies it, predicate(key, query)."""

    sequence: SOp
    head_value: SOp
    predicate: Predicate
    on_keys: bool  # the sequence is the key side: a restriction of the keys

    def holds(self, sequence: np.ndarray, head_value: Any) -> np.ndarray:
        """Where the select holds, from the sequence's values and the heads'."""
        compare = _PREDICATES[self.predicate]
        return compare(sequence, head_value) if self.on_keys else compare(head_value, sequence)


@dataclass(frozen=True, eq=False)
class HeadSumPlan:
    """How a :class:`HeadSum` is evaluated as arrays (see the module docstring)."""

    node: HeadSum
    writes: Comparison  # the query side: head h writes at the q with g(q) = v_h
    keys: tuple[Comparison, ...]  # the key side: the keys head h averages
    values: SOp
    inputs: tuple[SOp, ...]  # the sequences the body reads that no head makes
    inside: frozenset[int]  # the ids of the nodes the heads make

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(i.args[0] for i in self.node.indices)

    @property
    def extents(self) -> tuple[int, ...]:
        return tuple(int(e) for e in self.node.extents)


def _conjuncts(selector: Expr, inside: frozenset[int]) -> list[Select]:
    """The selects a head's selector is the AND of (an OR or a NOT is refused:
    ``SelectorOr`` is a kind of ``SelectorAnd`` in the graph, so the type is
    compared exactly)."""
    if selector.id not in inside:
        raise UnsupportedFamily(f"a head's selector {selector.name} is made outside the head")
    if type(selector) is SelectorAnd:
        return [s for part in selector.children() for s in _conjuncts(part, inside)]
    if type(selector) is Select:
        return [selector]
    raise UnsupportedFamily(f"a head's selector is {type(selector).__name__}, not a conjunction of selects")


_EXACT_INDEX_OPS = {Op.ADD: np.add, Op.SUB: np.subtract, Op.MUL: np.multiply, Op.NEG: np.negative,
                    Op.FLOORDIV: np.floor_divide, Op.MOD: np.mod}
"""What a gather's source may compute inside a head: integer operations, done
exactly on int64 (checked against overflow), as the static pass decides it."""
_FLOAT_EXACT = 2**53  # integers below this in magnitude are exact in float64 (and long double)


def _check_body(node: HeadSum, body: Aggregate, inside: frozenset[int]) -> None:
    """Refuse a body with a node this module does not evaluate: inside the heads
    only constants, head parameters, maps, entries of head families and gathers
    (besides the body's own aggregate and its selects)."""
    stack, seen = [body.values], set()
    while stack:
        current = stack.pop()
        if current.id in seen or current.id not in inside:
            continue
        seen.add(current.id)
        if isinstance(current, HeadAt):
            stack.append(current.family.body)
            continue
        if isinstance(current, Aggregate):
            selector = current.selector
            if not (type(selector) is Select and selector.predicate is Predicate.EQ
                    and isinstance(selector.keys, Indices) and current.semantics is Semantics.RASP
                    and not current.single and current.default == 0 and current.values.id not in inside):
                raise UnsupportedFamily(f"a head aggregates by {current.name}, which is not a gather of a "
                                        "sequence the head does not make")
            _check_index(selector.queries, inside)
            continue
        if not isinstance(current, (Constant, Parameter, Map)):
            raise UnsupportedFamily(f"a head makes {type(current).__name__} ({current.name}), which is "
                                    "evaluated only head by head")
        stack.extend(current.children())


def _check_index(node: Expr, inside: frozenset[int]) -> None:
    """A gather's source: integer operations of positions, head parameters,
    integer constants and sequences the head does not make."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.id not in inside or isinstance(current, Parameter):
            continue
        if isinstance(current, Constant):
            if isinstance(current.value, bool) or not isinstance(current.value, int):
                raise UnsupportedFamily(f"a gather's source uses the constant {current.value!r}, not an integer")
            continue
        if not (isinstance(current, Map) and current.op in _EXACT_INDEX_OPS):
            raise UnsupportedFamily(f"a gather's source computes {current.name} other than by integer "
                                    "+, -, *, //, %")
        stack.extend(current.children())


def _made(node: HeadSum) -> tuple[frozenset[int], tuple[SOp, ...]]:
    """The ids of the nodes the heads make (the body's, and the bodies of the
    head families it reads an entry of), and the sequences it reads from outside."""
    ranges = [node.made]
    inside: set[int] = set()
    inputs: dict[int, SOp] = {}
    stack: list[Expr] = [node.body]
    while stack:
        current = stack.pop()
        if current.id in inside or current.id in inputs:
            continue
        if isinstance(current, HeadAt):
            ranges.append(current.family.made)
            inside.add(current.id)
            stack.append(current.family.body)
            continue
        if not any(current.id in r for r in ranges) and not isinstance(current, Parameter):
            inputs[current.id] = current
            continue
        inside.add(current.id)
        stack.extend(current.children())
    return frozenset(inside), tuple(inputs.values())


def plan_head_sum(node: HeadSum) -> HeadSumPlan:
    """How ``node`` is evaluated as arrays, or :class:`UnsupportedFamily` saying why not.

    Args:
        node: a head sum with integer extents (kept whole by
            :func:`usim.rasp.family.keeping_families`).

    Returns:
        Its plan: the select naming where each head writes, those restricting its
        keys, the values averaged and the sequences read from outside.
    """
    if is_symbolic(*node.extents):
        raise UnsupportedFamily("a head sum over a symbolic number of heads: give its sizes (instantiate it)")
    body = node.body
    if not isinstance(body, Aggregate):
        raise UnsupportedFamily(f"a head is {type(body).__name__}, not an aggregate")
    if body.semantics is not Semantics.RASP or body.single or body.default is None or body.default != 0:
        raise UnsupportedFamily("a head's aggregate is not RASP's mean with the default 0")
    inside, inputs = _made(node)
    _check_body(node, body, inside)
    writes: list[Comparison] = []
    keys: list[Comparison] = []
    for select in _conjuncts(body.selector, inside):
        sides = []
        for side in (select.keys, select.queries):
            if side.id in inside and not isinstance(side, (Parameter, Constant)):
                raise UnsupportedFamily(f"a head's select compares {side.name}, which the head makes")
            sides.append(isinstance(side, (Parameter, Constant)))
        if sides == [False, True]:
            keys.append(Comparison(select.keys, select.queries, select.predicate, on_keys=True))
        elif sides == [True, False]:
            writes.append(Comparison(select.queries, select.keys, select.predicate, on_keys=False))
        else:
            raise UnsupportedFamily(f"a head's select {select.name} does not compare a sequence with one "
                                    "value per head")
        if select.predicate not in _PREDICATES:
            raise UnsupportedFamily(f"a head's select {select.name} compares by {select.predicate.symbol}")
    if len(writes) != 1 or writes[0].predicate is not Predicate.EQ:
        raise UnsupportedFamily("a head does not name the queries it writes by one select (value == query)")
    per_head = [c for c in keys if _head_dependent(c.head_value)]
    if per_head:
        if len(per_head) > 1 or per_head[0].predicate is not Predicate.EQ:
            raise UnsupportedFamily("a head chooses its keys by its own value other than by one == select")
        if body.values.id in inside:
            raise UnsupportedFamily("a head that chooses its own keys averages values it makes itself")
    return HeadSumPlan(node, writes[0], tuple(keys), body.values, inputs, inside)


def _head_dependent(node: SOp) -> bool:
    return isinstance(node, Parameter) and bool(node.term.symbols(INDEX))


# -- evaluation ---------------------------------------------------------------------------

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
            return self.interp.lift([node.value]).reshape(())  # (strictly: refused out of range)
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
            if kind in ("num", "cmp"):
                args = [self._number(a, v) for a, v in zip(node.args, values)]
            elif kind == "bool":
                args = [self._boolean(a, v) for a, v in zip(node.args, values)]
            else:  # where
                args = [self._boolean(node.args[0], values[0]), self._number(node.args[1], values[1]),
                        self._number(node.args[2], values[2])]
            return self.interp.map(node.op, args)
        if isinstance(node, Aggregate):
            return self._gather(node, at, env)
        raise UnsupportedFamily(f"a head makes {type(node).__name__} ({node.name}), which is evaluated "
                                "only head by head")

    def _number(self, node: SOp, value: Any) -> Any:
        return self.interp.to_number(value) if node.is_bool else value

    def _boolean(self, node: SOp, value: Any) -> Any:
        return value if node.is_bool else self.interp.to_bool(value)

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
        return _exactly(_EXACT_INDEX_OPS[node.op], args[0], args[1], node.name)

    # -- the heads' means ------------------------------------------------------------------

    def key_mask(self, comparisons: tuple[Comparison, ...]) -> np.ndarray:
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
        shared = tuple(c for c in self.plan.keys if not _head_dependent(c.head_value))
        own = [c for c in self.plan.keys if _head_dependent(c.head_value)]
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
            self.interp._audit_average(means, totals, np.abs(totals), at.size != 1)
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
            return self._dot(x, y)
        v = over_keys(self.array(values, at, {}))
        if v.dtype == bool:
            v = v.astype(self.interp.dtype)
        with np.errstate(all="ignore"):
            totals = v.sum(axis=-1)
        if self.interp.strict:
            self.interp._audit("the sum of an aggregate", totals, lambda: [np.abs(v).max(axis=-1)], rounding=False)
        return totals

    def _dot(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """sum_k x[.., k] * y[.., k] over the broadcast head axes, the products audited."""
        m = len(self.plan.extents)
        x = x.reshape((1,) * (m + 2 - x.ndim) + x.shape)
        y = y.reshape((1,) * (m + 2 - y.ndim) + y.shape)
        if self.interp.strict and not self._products_in_range(x, y):
            return self._formed_products(x, y)
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
                               lambda: [np.abs(x).max(axis=-1), np.abs(y).max(axis=-1)], rounding=False)
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

    def _formed_products(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The products formed (and audited) along the first head axis a chunk at a
        time, and summed."""
        shape = np.broadcast_shapes(x.shape, y.shape)
        axis = max(range(1, len(shape) - 1), key=lambda a: shape[a], default=None)
        if axis is None:
            return self.interp.map(Op.MUL, [x, y]).sum(axis=-1)
        step = max(1, _CHUNK // max(1, int(np.prod(shape)) // shape[axis]))
        parts = []
        for start in range(0, shape[axis], step):
            cut = [slice(None)] * len(shape)
            cut[axis] = slice(start, start + step)
            xs = x[tuple(cut)] if x.shape[axis] > 1 else x
            ys = y[tuple(cut)] if y.shape[axis] > 1 else y
            product = self.interp.map(Op.MUL, [xs, ys])
            with np.errstate(all="ignore"):
                parts.append(product.sum(axis=-1))
        return np.concatenate(parts, axis=axis)

    def _grouped(self, own: Comparison, mask: np.ndarray, heads: int) -> tuple[np.ndarray, np.ndarray]:
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

            self.interp._audit("the sum of an aggregate", sums[:, chosen], largest, rounding=False)
            self.interp._audit_average(means[:, chosen], sums[:, chosen], np.abs(sums[:, chosen]),
                                       count[chosen] != 1)
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
            self.interp._audit("'+'", per_value, lambda: [np.abs(per_value)], rounding=False)
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


def unsupported_families(program: Program) -> str | None:
    """Why some head family of ``program`` cannot be evaluated as arrays (the first
    reason), or None when every one can (or there is none).

    Args:
        program: a program, its head families kept whole or not.

    Returns:
        The reason :func:`plan_head_sum` gives for the first family it refuses.
    """
    for node in topological_order(sop for _, sop in program.outputs):
        if isinstance(node, HeadSum):
            try:
                plan_head_sum(node)
            except UnsupportedFamily as error:
                return str(error)
    return None


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
