"""Programs with symbolic dimensions: one builder, every size.

A block builder (transpose, softmax, product) takes its dimensions as Python
integers and emits the graph for that size, with r or r*c heads. Called with
*symbolic* dimensions (:func:`dimension`) the very same builder emits a
**family**: one graph whose constants are integer expressions over the
dimensions (:class:`SymbolicInt`, a :class:`Parameter` node where one meets a
sequence) and whose repeated heads are one body over a symbolic head index:

* :func:`head_sum` ``(extents, make)``: the sum of ``make(i, ...)`` over the
  box of head indices, folded left in row-major order. With integer extents it
  *is* that fold (the builder's loop); with a symbolic extent it is a
  :class:`HeadSum` node: head b of r, head (i, j) of r*c;
* :func:`head_family` ``(extent, make)``: the list ``[make(0), make(1), ...]``,
  or a :class:`HeadFamily` whose entry ``family[i]`` at a symbolic i is a
  :class:`HeadAt` node (the product's r row heads a_i, read at head (i, j)).

Node names that depend on a head index are templates (``row_mean⟨...⟩``):
formatting a :class:`SymbolicInt` into a name, or :func:`symbolic_text`, leaves
a placeholder that :func:`render` fills in for given values. The symbolic
integers, conditions and placeholders are :mod:`usim.rasp.symbolic_int` (read
here too); a placeholder carries its whole template, so no table of names
grows with the families a process builds.

:func:`instantiate` gives the family's graph at given dimensions *by the same
operations the builder performs*: every node is rebuilt with the operator or
constructor that made it, a :class:`Parameter` becomes the Python integer it
stands for (so ``x + 0`` is ``x`` and ``1 * x`` is ``x``, as in the builder),
a head sum is the same left fold, names are rendered, and a node that the
builder makes once per head (made inside the loop body, whether or not it
depends on the head index) is made once per head. The tests check, for every
shape up to a bound, that the instance is the builder's graph node for node
(:func:`usim.rasp.fingerprint.canonical_text` with names): the parametric
engine (:mod:`usim.engine.parametric`) proves the family, so the proof is about
the code users run.

Conditions (``rows * cols <= inner * (rows + cols)``) between symbolic integers
are :class:`Condition` values: the builder's own side conditions become the
family's, and ``if`` on one is an error, as is ``range`` over a symbolic
dimension: a builder that branches on a size must say so through a combinator.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import operator
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from usim.errors import ShapeError
from usim.rasp.expr import (
    Aggregate,
    Constant,
    Expr,
    Indices,
    Length,
    Map,
    Op,
    Select,
    SelectorAnd,
    SelectorNot,
    SelectorOr,
    SelectorWidth,
    SOp,
    Tokens,
)
from usim.rasp.program import Program, topological_order
from usim.rasp.symbolic_int import (  # the sizes and names a family is built from, read here by its users
    DIMENSION,
    INDEX,
    Condition,
    FamilyError,
    Parameter,
    SymbolicInt,
    _integer,
    at_least,
    dimension,
    index_symbol,
    is_symbolic,
    largest,
    readable,
    render,
    same_size,
    symbolic_text,
)

__all__ = [  # the family's face: its own combinators and the symbolic integers they are built from
    "DIMENSION", "INDEX", "Condition", "FamilyError", "HeadAt", "HeadFamily", "HeadSum", "Parameter",
    "SymbolicInt", "at_least", "bound_indices", "dimension", "dimensions_of", "fold", "fresh", "head_family",
    "head_sum", "index_symbol", "instantiate", "keeping_families", "multiplicities", "is_symbolic", "largest", "readable", "render", "same_size", "symbolic_text",
]


# -- family nodes ---------------------------------------------------------------------

def _mark() -> int:
    """The id the next node will get (nodes are numbered in order of making)."""
    return Expr().id


class HeadSum(SOp):
    """The sum of ``body`` over the head indices in the box ``extents``
    (index m from 0 to extents[m] - 1), folded left in row-major order at
    instantiation. ``made``: the ids of the nodes the body's builder made."""

    kind = "head_sum"

    def __init__(self, indices: Sequence[SymbolicInt], extents: Sequence[SymbolicInt | int],
                 body: SOp, made: range) -> None:
        super().__init__()
        self.indices = tuple(indices)
        self.extents = tuple(extents)
        self.body = body
        self.made = made

    def children(self) -> tuple[Expr, ...]:
        return (self.body,)


@dataclass(frozen=True, eq=False)
class HeadFamily:
    """``body`` for each value of ``index`` in [0, extent): entry i is ``self[i]``."""

    index: SymbolicInt
    extent: SymbolicInt | int
    body: SOp
    made: range

    def __getitem__(self, at: SymbolicInt | int) -> "HeadAt":
        return HeadAt(self, at)


class HeadAt(SOp):
    """Entry ``at`` of a :class:`HeadFamily` (the body with its index set to ``at``)."""

    kind = "head_at"

    def __init__(self, family: HeadFamily, at: SymbolicInt | int) -> None:
        super().__init__()
        self.family = family
        self.at = at

    def children(self) -> tuple[Expr, ...]:
        return (self.family.body,)


def fold(terms: Sequence[SOp]) -> SOp:
    """terms[0] + terms[1] + ... (left to right): how every block adds its heads."""
    if not terms:
        raise ShapeError("a sum over no head: every dimension must be at least 1")
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def _box(extents: Sequence[int]) -> Iterable[tuple[int, ...]]:
    return itertools.product(*(range(e) for e in extents))


_KEEP_FAMILIES: contextvars.ContextVar[bool] = contextvars.ContextVar("keep_families", default=False)


@contextlib.contextmanager
def keeping_families():
    """Within this block, :func:`head_sum` and :func:`head_family` keep their
    heads as ONE family node at integer extents too (a :class:`HeadSum` or
    :class:`HeadFamily` whose extents are numbers), where they otherwise make
    every head. The graph means the same: :func:`instantiate` at no dimensions
    gives the builder's graph node for node. A numeric run evaluates such a
    family as array operations (:mod:`usim.encodings.families`) rather than
    head by head: how ``usim simulate`` runs U's product and row heads.
    """
    token = _KEEP_FAMILIES.set(True)
    try:
        yield
    finally:
        _KEEP_FAMILIES.reset(token)


def head_sum(extents: SymbolicInt | int | Sequence[SymbolicInt | int], make: Callable[..., SOp],
             names: Sequence[str] | None = None) -> SOp:
    """make(i) summed over i < extents, or make(i, j) over the box, row-major.

    Integer extents: the left fold of the heads (what the builder's loop makes),
    or, within :func:`keeping_families`, one :class:`HeadSum` with those extents.
    A symbolic extent: one :class:`HeadSum` over symbolic head indices.
    """
    extents = tuple(extents) if isinstance(extents, (tuple, list)) else (extents,)
    if not is_symbolic(*extents) and not _KEEP_FAMILIES.get():
        return fold([make(*idx) for idx in _box(extents)])
    indices = [index_symbol(n) for n in (names or ["i", "j", "h", "g"][: len(extents)])]
    start = _mark()
    body = make(*indices)
    return HeadSum(indices, extents, body, range(start, _mark()))


def head_family(extent: SymbolicInt | int, make: Callable[[Any], SOp], name: str = "i") -> list[SOp] | HeadFamily:
    """[make(0), ..., make(extent - 1)], or a :class:`HeadFamily` for a symbolic extent
    (and for an integer one within :func:`keeping_families`)."""
    if not is_symbolic(extent) and not _KEEP_FAMILIES.get():
        return [make(i) for i in range(extent)]
    index = index_symbol(name)
    start = _mark()
    body = make(index)
    return HeadFamily(index, extent, body, range(start, _mark()))


def fresh(sop: SOp, name: str) -> SOp:
    """``sop`` under the name ``name``, never renaming a node that already has a
    name or a primitive (it may be shared): such a node is copied as sop + 0.
    The rule is recorded on the node, so that :func:`instantiate` applies it
    again to whatever the node becomes at given sizes."""
    if sop.has_name or isinstance(sop, (Tokens, Indices, Length, Constant)):
        sop = Map(Op.ADD, sop, 0)
    node = sop.named(name)
    node.fresh_name = True
    return node


# -- instantiation --------------------------------------------------------------------

_OPERATORS: dict[Op, Callable[..., Any]] = {
    Op.ADD: operator.add, Op.SUB: operator.sub, Op.MUL: operator.mul, Op.TRUEDIV: operator.truediv,
    Op.FLOORDIV: operator.floordiv, Op.MOD: operator.mod, Op.POW: operator.pow, Op.NEG: operator.neg,
    Op.ABS: operator.abs, Op.EQ: operator.eq, Op.NE: operator.ne, Op.LT: operator.lt, Op.LE: operator.le,
    Op.GT: operator.gt, Op.GE: operator.ge,
}


def bound_indices(node: Expr) -> tuple[SymbolicInt, ...]:
    """The head indices a family node binds (for its body)."""
    if isinstance(node, HeadSum):
        return node.indices
    if isinstance(node, HeadAt):
        return (node.family.index,)
    return ()


class _Instance:
    def __init__(self, program: Program, dims: Mapping[str, int]) -> None:
        self.dims = dict(dims)
        self.memo: dict[tuple, Any] = {}
        nodes = program.nodes()
        self.ranges: list[tuple[range, frozenset[str]]] = []
        for node in nodes:
            if isinstance(node, HeadSum):
                self.ranges.append((node.made, frozenset(i.args[0] for i in node.indices)))
            elif isinstance(node, HeadAt):
                self.ranges.append((node.family.made, frozenset([node.family.index.args[0]])))
        self.deps: dict[int, frozenset[str]] = {}
        for node in nodes:  # children first
            if isinstance(node, Parameter):
                found = frozenset(node.term.symbols(INDEX))
            else:
                found = frozenset().union(*(self.deps[c.id] for c in node.children()))
                found -= {i.args[0] for i in bound_indices(node)}
                if isinstance(node, HeadAt) and isinstance(node.at, SymbolicInt):
                    found |= node.at.symbols(INDEX)
            self.deps[node.id] = found

    def scope(self, node: Expr) -> frozenset[str]:
        made_in = [names for r, names in self.ranges if node.id in r]
        return self.deps[node.id].union(*made_in)

    def value(self, term: SymbolicInt | int, env: Mapping[str, int]) -> int:
        return term.value({**self.dims, **env}) if isinstance(term, SymbolicInt) else term

    def build(self, node: Expr, env: Mapping[str, int]) -> Any:
        scope = self.scope(node)
        missing = scope - set(env)
        if missing:
            raise FamilyError(f"the node {node.name} is used outside the head that made it")
        key = (node.id, tuple(sorted((s, env[s]) for s in scope)))
        if key not in self.memo:
            self.memo[key] = self._make(node, {s: env[s] for s in scope})
        return self.memo[key]

    def _make(self, node: Expr, env: Mapping[str, int]) -> Any:
        if isinstance(node, (Tokens, Indices, Length)):
            return node
        if isinstance(node, Parameter):
            return self.value(node.term, env)
        if isinstance(node, HeadSum):
            extents = [self.value(e, env) for e in node.extents]
            names = [i.args[0] for i in node.indices]
            out = fold([self.build(node.body, {**env, **dict(zip(names, idx))}) for idx in _box(extents)])
        elif isinstance(node, HeadAt):
            at, extent = self.value(node.at, env), self.value(node.family.extent, env)
            if not 0 <= at < extent:
                raise FamilyError(f"head {at} of a family of {extent}")
            out = self.build(node.family.body, {**env, node.family.index.args[0]: at})
        else:
            children = [self.build(c, env) for c in node.children()]
            out = self._rebuild(node, children)
        if node.has_name:
            name = render(node.name, {**self.dims, **env})
            if not isinstance(out, Expr):
                raise FamilyError(f"the named node {name} is the number {out} at these sizes")
            out = fresh(out, name) if getattr(node, "fresh_name", False) else out.named(name)
        return out

    @staticmethod
    def _rebuild(node: Expr, children: list[Any]) -> Any:
        if isinstance(node, Constant):
            return Constant(node.value)
        if isinstance(node, Map):
            if node.op in _OPERATORS:
                out = _OPERATORS[node.op](*children)
            else:
                out = Map(node.op, *children)
            if not isinstance(out, SOp):
                raise FamilyError(f"{node.op.symbol} of two numbers where the builder has a sequence")
            return out
        if isinstance(node, Select):
            return Select(children[0], children[1], node.predicate)
        if isinstance(node, SelectorOr):
            return SelectorOr(*children)
        if isinstance(node, SelectorAnd):
            return SelectorAnd(*children)
        if isinstance(node, SelectorNot):
            return SelectorNot(*children)
        if isinstance(node, Aggregate):
            return Aggregate(children[0], children[1], node.default, node.semantics, node.single)
        if isinstance(node, SelectorWidth):
            return SelectorWidth(children[0])
        raise FamilyError(f"cannot instantiate {node!r}")


def multiplicities(program: Program) -> dict[int, int]:
    """How many times the instance at integer extents makes each node of a family
    graph (by node id): the product of the extents of the head indices it is
    made under, as :func:`instantiate` makes it once per value of its scope.

    Args:
        program: a family graph whose head sums and families have integer extents.

    Returns:
        Node id -> the number of its copies in the instance.
    """
    instance = _Instance(program, {})
    extents: dict[str, int] = {}
    for node in program.nodes():
        if isinstance(node, HeadSum):
            pairs = zip(node.indices, node.extents)
        elif isinstance(node, HeadAt):
            pairs = [(node.family.index, node.family.extent)]
        else:
            continue
        for index, extent in pairs:
            if is_symbolic(extent):
                raise FamilyError("a head family of a symbolic size has no count of copies: give its sizes")
            extents[index.args[0]] = int(extent)
    out = {}
    for node in program.nodes():
        count = 1
        for name in instance.scope(node):
            count *= extents[name]
        out[node.id] = count
    return out


def instantiate(program: Program, dims: Mapping[str, int]) -> Program:
    """The family ``program`` at the dimensions ``dims`` (name -> positive int):
    its graph rebuilt by the builder's own operations (see the module docstring)."""
    for name, value in dims.items():
        if not _integer(value) or value < 1:
            raise ShapeError(f"the dimension {name} must be a positive whole number, not {value!r}")
    instance = _Instance(program, dims)
    outputs = {}
    for key, sop in program.outputs:
        out = instance.build(sop, {})
        if not isinstance(out, SOp):
            raise FamilyError(f"the output {key} is the number {out} at these sizes")
        outputs[key] = out
    return Program.of(render(program.name, dims), outputs, render(program.description, dims))


def dimensions_of(program: Program) -> set[str]:
    """The symbolic dimensions a family uses."""
    found: set[str] = set()
    for node in topological_order(sop for _, sop in program.outputs):
        if isinstance(node, Parameter):
            found |= node.term.symbols(DIMENSION)
        if isinstance(node, HeadSum):
            for e in node.extents:
                if isinstance(e, SymbolicInt):
                    found |= e.symbols(DIMENSION)
        if isinstance(node, HeadAt):
            for e in (node.at, node.family.extent):
                if isinstance(e, SymbolicInt):
                    found |= e.symbols(DIMENSION)
    return found
