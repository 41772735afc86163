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

Node names that depend on a head index are templates (``row_mean⟨7⟩``):
formatting a :class:`SymbolicInt` into a name, or :func:`symbolic_text`, leaves
a placeholder that :func:`render` fills in for given values.

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

import itertools
import operator
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from usim.errors import ShapeError, UsimError
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

DIMENSION, INDEX = "dimension", "index"
"""The two roles of a symbol: a dimension of the statement (r, c, k) or a head index."""


class FamilyError(UsimError):
    """A family that cannot be built or instantiated (a size the builder refuses)."""


# -- symbolic integers ------------------------------------------------------------

_BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul,
           "//": operator.floordiv, "%": operator.mod}
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "//": 2, "%": 2}


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class SymbolicInt:
    """An integer expression over symbolic dimensions and head indices.

    A tree of ``("sym", name, role)``, ``("num", value)``, ``("neg", x)`` and
    binary ``+ - * // %`` (floor division and remainder as in Python; a
    division by zero is undefined, which the engine proves never happens).
    Operations with Python integers and other symbolic integers give symbolic
    integers (two numbers are folded, as Python would); with a sequence they
    defer to the sequence, which takes the symbolic integer as a
    :class:`Parameter`. It has no truth value and no order: comparisons give a
    :class:`Condition`.
    """

    __slots__ = ("op", "args")

    def __init__(self, op: str, *args: Any) -> None:
        self.op = op
        self.args = args

    # -- making ---------------------------------------------------------------
    @staticmethod
    def of(value: "SymbolicInt | int") -> "SymbolicInt":
        if isinstance(value, SymbolicInt):
            return value
        if _integer(value):
            return SymbolicInt("num", int(value))
        raise TypeError(f"not an integer: {value!r}")

    def _binary(self, op: str, other: object, reflected: bool = False):
        if not (isinstance(other, SymbolicInt) or _integer(other)):
            return NotImplemented
        left, right = (SymbolicInt.of(other), self) if reflected else (self, SymbolicInt.of(other))
        if left.op == "num" and right.op == "num":
            return SymbolicInt("num", _BINARY[op](left.args[0], right.args[0]))
        # x + 0, 0 + x, x - 0, x * 1, 1 * x are x: the same value, a shorter expression
        if (op in ("+", "-") and right.op == "num" and right.args[0] == 0) or \
                (op == "*" and right.op == "num" and right.args[0] == 1):
            return left
        if (op == "+" and left.op == "num" and left.args[0] == 0) or \
                (op == "*" and left.op == "num" and left.args[0] == 1):
            return right
        return SymbolicInt(op, left, right)

    def __add__(self, other): return self._binary("+", other)
    def __radd__(self, other): return self._binary("+", other, True)
    def __sub__(self, other): return self._binary("-", other)
    def __rsub__(self, other): return self._binary("-", other, True)
    def __mul__(self, other): return self._binary("*", other)
    def __rmul__(self, other): return self._binary("*", other, True)
    def __floordiv__(self, other): return self._binary("//", other)
    def __rfloordiv__(self, other): return self._binary("//", other, True)
    def __mod__(self, other): return self._binary("%", other)
    def __rmod__(self, other): return self._binary("%", other, True)

    def __neg__(self) -> "SymbolicInt":
        return SymbolicInt("num", -self.args[0]) if self.op == "num" else SymbolicInt("neg", self)

    # -- conditions -------------------------------------------------------------
    def _compare(self, op: str, other: object):
        if not (isinstance(other, SymbolicInt) or _integer(other)):
            return NotImplemented
        return Condition(op, (self, SymbolicInt.of(other)))

    def __lt__(self, other): return self._compare("<", other)
    def __le__(self, other): return self._compare("<=", other)
    def __gt__(self, other): return self._compare(">", other)
    def __ge__(self, other): return self._compare(">=", other)
    def __eq__(self, other): return self._compare("==", other)  # type: ignore[override]
    def __ne__(self, other): return self._compare("!=", other)  # type: ignore[override]

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise TypeError(f"the symbolic integer {self} has no truth value: a builder that branches on "
                        "a size must use a combinator of usim.rasp.family")

    # -- reading ----------------------------------------------------------------
    def as_sop(self) -> "Parameter":
        """The sequence holding this integer at every position (see usim.rasp.expr._coerce)."""
        return Parameter(self)

    def value(self, env: Mapping[str, int]) -> int:
        """The integer at these values of the symbols (Python's // and %)."""
        if self.op == "num":
            return self.args[0]
        if self.op == "sym":
            name = self.args[0]
            if name not in env:
                raise FamilyError(f"no value for the symbol {name}")
            return int(env[name])
        if self.op == "neg":
            return -self.args[0].value(env)
        left, right = (a.value(env) for a in self.args)
        if self.op in ("//", "%") and right == 0:
            raise FamilyError(f"{self} divides by zero at {dict(env)}")
        return _BINARY[self.op](left, right)

    def symbols(self, role: str | None = None) -> set[str]:
        if self.op == "sym":
            return {self.args[0]} if role in (None, self.args[1]) else set()
        if self.op == "num":
            return set()
        return set().union(*(a.symbols(role) for a in self.args))

    def text(self, names: Mapping[str, str] | None = None) -> tuple[str, int]:
        if self.op == "num":
            return str(self.args[0]), 3
        if self.op == "sym":
            return (names or {}).get(self.args[0], self.args[0].split("#")[0]), 3
        if self.op == "neg":
            inner, p = self.args[0].text(names)
            return "-" + (inner if p >= 3 else f"({inner})"), 3
        prec = _PRECEDENCE[self.op]
        (left, lp), (right, rp) = (a.text(names) for a in self.args)
        left = left if lp >= prec else f"({left})"
        right = right if rp > prec else f"({right})"
        return f"{left} {self.op} {right}", prec

    def __str__(self) -> str:
        return self.text()[0]

    def __repr__(self) -> str:
        return f"SymbolicInt({self})"

    def __format__(self, spec: str) -> str:
        return symbolic_text(lambda v: format(v, spec), self)


def dimension(name: str) -> SymbolicInt:
    """A symbolic dimension (a positive integer) named ``name``."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name or ""):
        raise ValueError(f"a dimension needs a plain name, not {name!r}")
    return SymbolicInt("sym", name, DIMENSION)


_index_counter = itertools.count()


def index_symbol(name: str) -> SymbolicInt:
    """A fresh symbolic head index (or any bound index) shown as ``name``."""
    return SymbolicInt("sym", f"{name}#{next(_index_counter)}", INDEX)


def is_symbolic(*values: object) -> bool:
    return any(isinstance(v, SymbolicInt) for v in values)


def _polynomial(term: SymbolicInt) -> dict[tuple, int]:
    """``term`` as a polynomial: monomial (a sorted tuple of atoms) -> coefficient.
    Symbols are atoms by their full names (two head indices shown alike are
    different symbols); a floor division or remainder is an atom by its
    structure, with its arguments in normal form."""
    def atom(key: tuple) -> dict[tuple, int]:
        return {(key,): 1}

    def add(a: dict, b: dict, sign: int = 1) -> dict:
        out = dict(a)
        for mono, coeff in b.items():
            out[mono] = out.get(mono, 0) + sign * coeff
        return {m: c for m, c in out.items() if c}

    def mul(a: dict, b: dict) -> dict:
        out: dict[tuple, int] = {}
        for ma, ca in a.items():
            for mb, cb in b.items():
                mono = tuple(sorted(ma + mb))
                out[mono] = out.get(mono, 0) + ca * cb
        return {m: c for m, c in out.items() if c}

    if term.op == "num":
        return {(): term.args[0]} if term.args[0] else {}
    if term.op == "sym":
        return atom(("sym", term.args[0]))
    if term.op == "neg":
        return add({}, _polynomial(term.args[0]), -1)
    left, right = (_polynomial(a) for a in term.args)
    if term.op == "+":
        return add(left, right)
    if term.op == "-":
        return add(left, right, -1)
    if term.op == "*":
        return mul(left, right)
    return atom((term.op, tuple(sorted(left.items())), tuple(sorted(right.items()))))


def same_size(a: SymbolicInt | int, b: SymbolicInt | int) -> bool:
    """a == b, where that has one answer at every size.

    For integers, a == b. For symbolic sizes: True when a - b is 0 as a
    polynomial (the same size at every value of the dimensions), False when it
    is a non-zero constant (never the same); otherwise a and b are equal at some
    sizes and not at others, and a builder that branched on the answer would
    build a family that is not its own program at those sizes: a
    :class:`FamilyError` naming both.

    Raises:
        FamilyError: the answer depends on the values of the dimensions.
    """
    if not is_symbolic(a, b):
        return a == b
    difference = _polynomial(SymbolicInt.of(a) - SymbolicInt.of(b))
    if not difference:
        return True
    if set(difference) == {()}:
        return False
    raise FamilyError(f"whether {a!s} and {b!s} are the same size depends on the sizes: a builder cannot "
                      "branch on it (write both cases with where, or state a side condition)")


@dataclass(frozen=True, eq=False)
class Condition:
    """A relation between symbolic integers, or a Boolean combination of them."""

    op: str  # < <= == != > >= and or not
    args: tuple

    def __and__(self, other: "Condition") -> "Condition":
        return Condition("and", (self, other))

    def __or__(self, other: "Condition") -> "Condition":
        return Condition("or", (self, other))

    def __invert__(self) -> "Condition":
        return Condition("not", (self,))

    def __bool__(self) -> bool:
        raise TypeError(f"the condition {self} on symbolic dimensions has no truth value here")

    def holds(self, env: Mapping[str, int]) -> bool:
        if self.op == "and":
            return all(a.holds(env) for a in self.args)
        if self.op == "or":
            return any(a.holds(env) for a in self.args)
        if self.op == "not":
            return not self.args[0].holds(env)
        left, right = (a.value(env) for a in self.args)
        return {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
                ">": operator.gt, ">=": operator.ge}[self.op](left, right)

    def symbols(self) -> set[str]:
        return set().union(*(a.symbols() for a in self.args))

    def __str__(self) -> str:
        if self.op == "not":
            return "not (" + str(self.args[0]) + ")"
        if self.op in ("and", "or"):
            return f" {self.op} ".join("(" + str(a) + ")" for a in self.args)
        return f"{str(self.args[0])} {self.op} {str(self.args[1])}"


# -- names with placeholders --------------------------------------------------------

_TEMPLATES: dict[int, tuple[Callable[..., str], tuple, str]] = {}
_template_counter = itertools.count()
_PLACEHOLDER = re.compile(r"⟨(\d+)⟩")


def symbolic_text(render_: Callable[..., str], *args: object, shown: str | None = None) -> str:
    """A placeholder standing for ``render_(*values)``, the values of ``args``
    (symbolic integers or plain values) once the symbols have values; ``shown``
    is how :func:`readable` writes it (default: the arguments in braces)."""
    key = next(_template_counter)
    _TEMPLATES[key] = (render_, args, shown if shown is not None else
                       "{" + ",".join(str(a) for a in args) + "}")
    return f"⟨{key}⟩"


def render(text: str, env: Mapping[str, int]) -> str:
    """``text`` with every placeholder filled in for the values in ``env``."""
    def fill(match: re.Match) -> str:
        function, args, _ = _TEMPLATES[int(match.group(1))]
        return str(function(*[a.value(env) if isinstance(a, SymbolicInt) else a for a in args]))
    return _PLACEHOLDER.sub(fill, text)


def readable(text: str) -> str:
    """``text`` with each placeholder written symbolically (``row_mean{b}``,
    ``prod{i}{j}``): how reports and broken variants name a head's nodes."""
    return _PLACEHOLDER.sub(lambda match: _TEMPLATES[int(match.group(1))][2], text)


# -- family nodes ---------------------------------------------------------------------

class Parameter(SOp):
    """A symbolic integer at every position: a constant of the family whose
    value is known once the dimensions (and head indices) are."""

    kind = "parameter"

    def __init__(self, term: SymbolicInt) -> None:
        super().__init__()
        self.term = term

    @property
    def name(self) -> str:
        return self._name or str(self.term)


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


def head_sum(extents: SymbolicInt | int | Sequence[SymbolicInt | int], make: Callable[..., SOp],
             names: Sequence[str] | None = None) -> SOp:
    """make(i) summed over i < extents, or make(i, j) over the box, row-major.

    Integer extents: the left fold of the heads (what the builder's loop makes).
    A symbolic extent: one :class:`HeadSum` over symbolic head indices.
    """
    extents = tuple(extents) if isinstance(extents, (tuple, list)) else (extents,)
    if not is_symbolic(*extents):
        return fold([make(*idx) for idx in _box(extents)])
    indices = [index_symbol(n) for n in (names or ["i", "j", "h", "g"][: len(extents)])]
    start = _mark()
    body = make(*indices)
    return HeadSum(indices, extents, body, range(start, _mark()))


def head_family(extent: SymbolicInt | int, make: Callable[[Any], SOp], name: str = "i") -> list[SOp] | HeadFamily:
    """[make(0), ..., make(extent - 1)], or a :class:`HeadFamily` for a symbolic extent."""
    if not is_symbolic(extent):
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
