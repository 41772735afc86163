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

and 0 where no head writes. This module plans a sum (which select names the
queries a head writes, which restrict its keys, what it averages) and refuses
what the array evaluation (:mod:`usim.encodings.family_arrays`) would not
compute exactly as the head-by-head run does: an OR of selects, an aggregate
other than a gather inside a head, a gather's source other than integer
arithmetic, with :class:`UnsupportedFamily` naming the node; U is then run
head by head.

The tests compare the array evaluation with the head-by-head one (the family's
instance, :func:`usim.rasp.family.instantiate`) and with the exact
interpretation, on U at small sizes and on random families.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

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
from usim.rasp.family import INDEX, HeadAt, HeadSum, Parameter, is_symbolic
from usim.rasp.program import Program, topological_order

from usim.errors import UsimError

_PREDICATES: dict[Predicate, Callable[[Any, Any], Any]] = {
    Predicate.EQ: np.equal, Predicate.NE: np.not_equal, Predicate.LT: np.less,
    Predicate.LE: np.less_equal, Predicate.GT: np.greater, Predicate.GE: np.greater_equal,
}


class UnsupportedFamily(UsimError):
    """A head family whose body this module cannot evaluate as arrays (the
    message says which node): run its instance head by head instead."""


@dataclass(frozen=True)
class HeadSelect:
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
    writes: HeadSelect  # the query side: head h writes at the q with g(q) = v_h
    keys: tuple[HeadSelect, ...]  # the key side: the keys head h averages
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


EXACT_INDEX_OPS = {Op.ADD: np.add, Op.SUB: np.subtract, Op.MUL: np.multiply, Op.NEG: np.negative,
                    Op.FLOORDIV: np.floor_divide, Op.MOD: np.mod}
"""What a gather's source may compute inside a head: integer operations, done
exactly on int64 (checked against overflow), as the static pass decides it."""


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
        if not (isinstance(current, Map) and current.op in EXACT_INDEX_OPS):
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
    writes: list[HeadSelect] = []
    keys: list[HeadSelect] = []
    for select in _conjuncts(body.selector, inside):
        sides = []
        for side in (select.keys, select.queries):
            if side.id in inside and not isinstance(side, (Parameter, Constant)):
                raise UnsupportedFamily(f"a head's select compares {side.name}, which the head makes")
            sides.append(isinstance(side, (Parameter, Constant)))
        if sides == [False, True]:
            keys.append(HeadSelect(select.keys, select.queries, select.predicate, on_keys=True))
        elif sides == [True, False]:
            writes.append(HeadSelect(select.queries, select.keys, select.predicate, on_keys=False))
        else:
            raise UnsupportedFamily(f"a head's select {select.name} does not compare a sequence with one "
                                    "value per head")
        if select.predicate not in _PREDICATES:
            raise UnsupportedFamily(f"a head's select {select.name} compares by {select.predicate.symbol}")
    if len(writes) != 1 or writes[0].predicate is not Predicate.EQ:
        raise UnsupportedFamily("a head does not name the queries it writes by one select (value == query)")
    per_head = [c for c in keys if varies_by_head(c.head_value)]
    if per_head:
        if len(per_head) > 1 or per_head[0].predicate is not Predicate.EQ:
            raise UnsupportedFamily("a head chooses its keys by its own value other than by one == select")
        if body.values.id in inside:
            raise UnsupportedFamily("a head that chooses its own keys averages values it makes itself")
    return HeadSumPlan(node, writes[0], tuple(keys), body.values, inputs, inside)


def varies_by_head(node: SOp) -> bool:
    """Whether ``node`` is a head parameter whose value depends on the head index."""
    return isinstance(node, Parameter) and bool(node.term.symbols(INDEX))


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
