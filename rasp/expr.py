"""The RASP language: sequence operations (SOps) and selectors as an expression graph.

A RASP program maps an input sequence of length n to output sequences of length n.
This module defines the syntax only; the meaning is defined once, in
``usim.encodings.evaluate``, and every interpretation supplies just its arithmetic.

Primitives
    ``tokens``   the input values x_0 .. x_{n-1}
    ``indices``  0 .. n-1
    ``length``   n at every position
    constants    a Python number used where a sequence is expected is broadcast

Element-wise operations (no attention; they stand for MLPs)
    ``+ - * / // % **``, unary ``-``, comparisons ``== != < <= > >=`` (giving
    boolean sequences), ``& | ~`` on boolean sequences, and the named functions
    :func:`where`, :func:`exp`, :func:`sqrt`, :func:`maximum`, :func:`minimum`,
    :func:`absolute`. The set is closed: every operation has a meaning in every
    interpretation, so programs contain no arbitrary Python functions.

Attention
    ``select(keys, queries, predicate)`` is the boolean n x n matrix with entry
    [q][k] = predicate(keys[k], queries[q]); keys first, as in the original RASP.
    Selectors combine with ``& | ~`` and a combination is still one head.
    ``aggregate(selector, values, default=0)`` is, at each query, the mean of the
    values at the selected keys and ``default`` where nothing is selected (RASP
    semantics); with ``semantics=Semantics.AHAT`` an empty row averages every
    position instead (average-hard attention with all scores tied).
    ``selector_width(selector)`` is the number of selected keys per query.
"""

from __future__ import annotations

import enum
import itertools
import numbers
from fractions import Fraction
from typing import Union

Number = Union[int, float, Fraction]

_ids = itertools.count()
_last_id = [-1]


def next_id() -> int:
    """The id the next node will get (ids only grow: a node made later has a larger one)."""
    return _last_id[0] + 1


class Op(enum.Enum):
    """The closed set of element-wise operations: (symbol, arity, kind).

    kind says what the arguments and result are: ``num`` numbers to a number,
    ``cmp`` numbers to a boolean, ``bool`` booleans to a boolean, ``where`` a
    boolean and two numbers to a number.
    """

    ADD = ("+", 2, "num")
    SUB = ("-", 2, "num")
    MUL = ("*", 2, "num")
    TRUEDIV = ("/", 2, "num")
    FLOORDIV = ("//", 2, "num")
    MOD = ("%", 2, "num")
    POW = ("**", 2, "num")
    NEG = ("-", 1, "num")
    ABS = ("abs", 1, "num")
    EXP = ("exp", 1, "num")
    SQRT = ("sqrt", 1, "num")
    MAXIMUM = ("maximum", 2, "num")
    MINIMUM = ("minimum", 2, "num")
    EQ = ("==", 2, "cmp")
    NE = ("!=", 2, "cmp")
    LT = ("<", 2, "cmp")
    LE = ("<=", 2, "cmp")
    GT = (">", 2, "cmp")
    GE = (">=", 2, "cmp")
    AND = ("&", 2, "bool")
    OR = ("|", 2, "bool")
    NOT = ("~", 1, "bool")
    WHERE = ("where", 3, "where")

    def __init__(self, symbol: str, arity: int, kind: str) -> None:
        self.symbol = symbol
        self.arity = arity
        self.kind = kind

    @property
    def gives_bool(self) -> bool:
        return self.kind in ("cmp", "bool")

    @property
    def infix(self) -> bool:
        return not self.symbol.isalpha()


class Predicate(enum.Enum):
    """Selector predicates, applied as predicate(key, query)."""

    EQ = "=="
    NE = "!="
    LT = "<"  # key < query
    LE = "<="
    GT = ">"
    GE = ">="
    TRUE = "always"
    FALSE = "never"

    def __init__(self, symbol: str) -> None:
        self.symbol = symbol

    def as_op(self) -> Op | None:
        """The comparison op computing key <pred> query, or None for always/never."""
        return _PRED_OPS.get(self)


_PRED_OPS = {
    Predicate.EQ: Op.EQ,
    Predicate.NE: Op.NE,
    Predicate.LT: Op.LT,
    Predicate.LE: Op.LE,
    Predicate.GT: Op.GT,
    Predicate.GE: Op.GE,
}


class Semantics(enum.Enum):
    """What an aggregate gives at a query that selects no key."""

    RASP = "rasp"  # the default value (0 unless stated)
    AHAT = "ahat"  # the mean over every position (all scores tied)


class Expr:
    """A node of a RASP program. Nodes are compared by identity."""

    kind = "expr"

    def __init__(self) -> None:
        self.id = next(_ids)
        _last_id[0] = self.id
        self._name: str | None = None

    @property
    def name(self) -> str:
        return self._name if self._name is not None else f"{self.kind}_{self.id}"

    @property
    def has_name(self) -> bool:
        return self._name is not None

    def named(self, name: str):
        """Give this node a name (used in listings, errors and reports); returns it."""
        if not name or not isinstance(name, str):
            raise ValueError(f"a name must be a non-empty string, got {name!r}")
        if isinstance(self, (Tokens, Indices, Length)):
            raise TypeError(f"the primitive {self.name} is shared by every program and cannot be "
                            "renamed; name an expression computed from it")
        self._name = name
        return self

    def children(self) -> tuple["Expr", ...]:
        return ()

    def __hash__(self) -> int:
        return self.id

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def _coerce(value: "SOp | Number | bool") -> "SOp":
    if isinstance(value, SOp):
        return value
    if isinstance(value, (bool, numbers.Number)):
        return Constant(value)
    as_sop = getattr(type(value), "as_sop", None)  # a symbolic integer (usim.rasp.family)
    if as_sop is not None:
        return as_sop(value)
    raise TypeError(
        f"expected a sequence or a number, got {type(value).__name__} {value!r}"
    )


def _is(value: object, number: int) -> bool:
    return isinstance(value, (int, Fraction)) and not isinstance(value, bool) and value == number


class SOp(Expr):
    """A sequence operation: a value at every position 0..n-1."""

    kind = "sop"

    @property
    def is_bool(self) -> bool:
        return False

    def __bool__(self) -> bool:
        raise TypeError(
            f"the sequence {self.name} has no single truth value; "
            "use where(condition, a, b) or a selector"
        )

    # arithmetic
    # x + 0, x - 0 and x * 1 with a Python number are x itself (no node is made)
    def __add__(self, other): return self if _is(other, 0) else Map(Op.ADD, self, other)
    def __radd__(self, other): return self if _is(other, 0) else Map(Op.ADD, other, self)
    def __sub__(self, other): return self if _is(other, 0) else Map(Op.SUB, self, other)
    def __rsub__(self, other): return Map(Op.SUB, other, self)
    def __mul__(self, other): return self if _is(other, 1) else Map(Op.MUL, self, other)
    def __rmul__(self, other): return self if _is(other, 1) else Map(Op.MUL, other, self)
    def __truediv__(self, other): return Map(Op.TRUEDIV, self, other)
    def __rtruediv__(self, other): return Map(Op.TRUEDIV, other, self)
    def __floordiv__(self, other): return Map(Op.FLOORDIV, self, other)
    def __rfloordiv__(self, other): return Map(Op.FLOORDIV, other, self)
    def __mod__(self, other): return Map(Op.MOD, self, other)
    def __rmod__(self, other): return Map(Op.MOD, other, self)
    def __pow__(self, other): return Map(Op.POW, self, other)
    def __rpow__(self, other): return Map(Op.POW, other, self)
    def __neg__(self): return Map(Op.NEG, self)
    def __abs__(self): return Map(Op.ABS, self)

    # comparisons give boolean sequences
    def __eq__(self, other): return Map(Op.EQ, self, other)  # type: ignore[override]
    def __ne__(self, other): return Map(Op.NE, self, other)  # type: ignore[override]
    def __lt__(self, other): return Map(Op.LT, self, other)
    def __le__(self, other): return Map(Op.LE, self, other)
    def __gt__(self, other): return Map(Op.GT, self, other)
    def __ge__(self, other): return Map(Op.GE, self, other)

    # boolean connectives
    def __and__(self, other): return Map(Op.AND, self, other)
    def __rand__(self, other): return Map(Op.AND, other, self)
    def __or__(self, other): return Map(Op.OR, self, other)
    def __ror__(self, other): return Map(Op.OR, other, self)
    def __invert__(self): return Map(Op.NOT, self)

    __hash__ = Expr.__hash__


class Tokens(SOp):
    kind = "tokens"

    @property
    def name(self) -> str:
        return self._name or "tokens"


class Indices(SOp):
    kind = "indices"

    @property
    def name(self) -> str:
        return self._name or "indices"


class Length(SOp):
    kind = "length"

    @property
    def name(self) -> str:
        return self._name or "length"


class Constant(SOp):
    """A number broadcast to every position.

    A float is read as the decimal it prints as (2.718 is 2718/1000 exactly), so
    that a constant written in a paper means the same rational everywhere.
    """

    kind = "const"

    def __init__(self, value: Number | bool) -> None:
        super().__init__()
        if isinstance(value, bool):
            self.value: Number | bool = value
        elif isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise ValueError(f"a constant must be finite, got {value!r}")
            self.value = Fraction(repr(value))
        elif isinstance(value, numbers.Rational):
            self.value = Fraction(value) if not isinstance(value, int) else int(value)
        else:
            raise TypeError(f"a constant must be a real number, got {value!r}")

    @property
    def is_bool(self) -> bool:
        return isinstance(self.value, bool)

    @property
    def name(self) -> str:
        return self._name or str(self.value)


class Map(SOp):
    """An element-wise operation from the closed set :class:`Op`."""

    kind = "map"

    def __init__(self, op: Op, *args: "SOp | Number | bool") -> None:
        super().__init__()
        if len(args) != op.arity:
            raise TypeError(f"{op.name} takes {op.arity} arguments, got {len(args)}")
        self.op = op
        self.args: tuple[SOp, ...] = tuple(_coerce(a) for a in args)

    @property
    def is_bool(self) -> bool:
        return self.op.gives_bool

    def children(self) -> tuple[Expr, ...]:
        return self.args


class Selector(Expr):
    """A boolean n x n matrix: entry [q][k] says whether query q attends to key k."""

    kind = "selector"

    def __and__(self, other: "Selector") -> "Selector":
        return SelectorAnd(self, other)

    def __or__(self, other: "Selector") -> "Selector":
        return SelectorOr(self, other)

    def __invert__(self) -> "Selector":
        return SelectorNot(self)

    def __bool__(self) -> bool:
        raise TypeError(f"the selector {self.name} has no single truth value")


class Select(Selector):
    kind = "select"

    def __init__(self, keys: SOp | Number, queries: SOp | Number, predicate: Predicate) -> None:
        super().__init__()
        if not isinstance(predicate, Predicate):
            raise TypeError(f"select needs a Predicate, got {predicate!r}")
        self.keys = _coerce(keys)
        self.queries = _coerce(queries)
        self.predicate = predicate

    def children(self) -> tuple[Expr, ...]:
        return (self.keys, self.queries)


class SelectorAnd(Selector):
    kind = "select_and"

    def __init__(self, left: Selector, right: Selector) -> None:
        super().__init__()
        self.left, self.right = _selector(left), _selector(right)

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)


class SelectorOr(SelectorAnd):
    kind = "select_or"


class SelectorNot(Selector):
    kind = "select_not"

    def __init__(self, inner: Selector) -> None:
        super().__init__()
        self.inner = _selector(inner)

    def children(self) -> tuple[Expr, ...]:
        return (self.inner,)


def _selector(value: object) -> Selector:
    if not isinstance(value, Selector):
        raise TypeError(f"expected a selector, got {value!r}")
    return value


class Aggregate(SOp):
    """Mean of ``values`` over the selected keys; see :class:`Semantics` for empty rows.

    ``single=True``: the values are not numbers to average (symbols, booleans,
    read as codes), and the aggregate only *moves* one: a row that selects more
    than one key is undefined (as the RASP REPL refuses to average non-numbers).
    ``default=None``: a row that selects no key is undefined (the REPL's
    aggregate of symbols with a number as default makes a sequence of mixed
    types, which it refuses).
    """

    kind = "aggregate"

    def __init__(
        self,
        selector: Selector,
        values: SOp | Number,
        default: Number | None = 0,
        semantics: Semantics = Semantics.RASP,
        single: bool = False,
    ) -> None:
        super().__init__()
        self.selector = _selector(selector)
        self.values = _coerce(values)
        self.default = None if default is None else Constant(default).value
        if isinstance(self.default, bool):
            raise TypeError("an aggregate's default must be a number")
        self.semantics = Semantics(semantics)
        self.single = bool(single)

    def children(self) -> tuple[Expr, ...]:
        return (self.selector, self.values)


class SelectorWidth(SOp):
    """The number of keys each query selects."""

    kind = "selector_width"

    def __init__(self, selector: Selector) -> None:
        super().__init__()
        self.selector = _selector(selector)

    def children(self) -> tuple[Expr, ...]:
        return (self.selector,)


# ----------------------------------------------------------------------------
# The public constructors.

tokens = Tokens()
indices = Indices()
length = Length()


def constant(value: Number | bool) -> SOp:
    return Constant(value)


def select(keys: SOp | Number, queries: SOp | Number, predicate: Predicate) -> Selector:
    """Selector with entry [q][k] = predicate(keys[k], queries[q]) (keys first)."""
    return Select(keys, queries, predicate)


def aggregate(
    selector: Selector,
    values: SOp | Number,
    default: Number | None = 0,
    semantics: Semantics = Semantics.RASP,
    single: bool = False,
) -> SOp:
    """Mean of the selected values at each query; ``default`` on an empty row (RASP).
    ``single``: undefined where more than one key is selected; ``default=None``:
    undefined where none is (see :class:`Aggregate`)."""
    return Aggregate(selector, values, default, semantics, single)


def selector_width(selector: Selector) -> SOp:
    return SelectorWidth(selector)


def where(condition: SOp | bool, if_true: SOp | Number, if_false: SOp | Number) -> SOp:
    return Map(Op.WHERE, condition, if_true, if_false)


def exp(x: SOp | Number) -> SOp:
    return Map(Op.EXP, x)


def sqrt(x: SOp | Number) -> SOp:
    return Map(Op.SQRT, x)


def maximum(a: SOp | Number, b: SOp | Number) -> SOp:
    return Map(Op.MAXIMUM, a, b)


def minimum(a: SOp | Number, b: SOp | Number) -> SOp:
    return Map(Op.MINIMUM, a, b)


def absolute(x: SOp | Number) -> SOp:
    return Map(Op.ABS, x)
