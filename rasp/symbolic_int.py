"""Symbolic integers: the sizes of a family, the conditions between them, and names that hold them.

A :class:`SymbolicInt` is an integer expression over symbolic dimensions
(:func:`dimension`: r, c, k) and head indices (:func:`index_symbol`); a
comparison of two is a :class:`Condition`; one met by a sequence is a
:class:`Parameter` node (the integer at every position). Formatting a symbolic
integer into a node's name, or :func:`symbolic_text`, leaves a placeholder
that :func:`render` fills in for given values and :func:`readable` writes
symbolically. :mod:`usim.rasp.family` builds families from these.
"""

from __future__ import annotations

import functools
import itertools
import json
import operator
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from usim.errors import UsimError
from usim.rasp.expr import SOp


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
        return symbolic_text(_formatted, spec, self, shown="{" + str(self) + "}")


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
    is a non-zero constant, or one of a, b exceeds the other at every value of
    the dimensions (:func:`at_least`): never the same; otherwise a and b are equal at some
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
    if set(difference) == {()} or at_least(a, SymbolicInt.of(b) + 1) or at_least(b, SymbolicInt.of(a) + 1):
        return False  # a non-zero constant apart, or one larger at every size (each dimension >= 1)
    raise FamilyError(f"whether {a!s} and {b!s} are the same size depends on the sizes: a builder cannot "
                      "branch on it (write both cases with where, or state a side condition)")


def _shifted(term: SymbolicInt) -> SymbolicInt:
    """``term`` with every dimension x replaced by x + 1 (so x >= 1 becomes x >= 0)."""
    if term.op == "num":
        return term
    if term.op == "sym":
        return term + 1 if term.args[1] == DIMENSION else term
    return SymbolicInt(term.op, *(_shifted(a) for a in term.args))


def at_least(a: SymbolicInt | int, b: SymbolicInt | int) -> bool:
    """Whether a >= b at every value of the dimensions (each at least 1), shown
    by the polynomial a - b: with every dimension x written 1 + t (t >= 0), all
    its coefficients are non-negative. False means "not shown" (a - b may still
    be non-negative everywhere); a floor division, a remainder or a head index
    in either is never shown.

    >>> r = dimension("r")
    >>> at_least(3 + 3 * r * r, r * r), at_least(r * r, r + 1)
    (True, False)
    """
    if not is_symbolic(a, b):
        return a >= b
    difference = SymbolicInt.of(a) - SymbolicInt.of(b)
    if difference.symbols(INDEX):
        return False
    polynomial = _polynomial(_shifted(difference))
    return all(len(mono) == 0 or all(atom[0] == "sym" for atom in mono) for mono in polynomial) \
        and all(coefficient >= 0 for coefficient in polynomial.values())


def largest(*values: SymbolicInt | int) -> SymbolicInt | int:
    """max(values), where one of them is the largest at every size.

    For integers, max. For symbolic sizes, the first value that is at least
    every other at every value of the dimensions (:func:`at_least`); where
    none is shown to be, which is largest depends on the sizes and a builder
    cannot choose: a :class:`FamilyError` naming them (split the sizes into
    cases, or state a side condition).

    Raises:
        FamilyError: no value is the largest at every size.
    """
    if not values:
        raise ValueError("largest() of nothing")
    if not is_symbolic(*values):
        return max(values)
    for candidate in values:
        if all(at_least(candidate, other) for other in values):
            return candidate
    raise FamilyError("which of " + ", ".join(str(v) for v in values) + " is the largest depends on the "
                      "sizes: a builder cannot choose (split the sizes into cases, or state a side condition)")


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
#
# A placeholder carries its own template: the renderer's qualified name, how
# readable() writes it, and the arguments (a symbolic integer as its tree), as
# JSON between angle brackets (ASCII inside, so no bracket appears in it). No
# table of templates is kept: a name made while building one family holds all
# that is needed to render it, and what a process has built is not remembered.

_PLACEHOLDER = re.compile(r"⟨([^⟨⟩]*)⟩")
_RENDERERS: dict[str, Callable[..., str]] = {}
"""The renderers by qualified name: one entry per module-level function of the
code that renders names (filled on its first use, never per name)."""


def _formatted(spec: str, value: object) -> str:
    """``format(value, spec)``: how a symbolic integer formatted into a name renders."""
    return format(value, spec)


def _tree(term: SymbolicInt) -> list:
    if term.op in ("num", "sym"):
        return [term.op, *term.args]
    return [term.op, *(_tree(a) for a in term.args)]


def _term(tree: list) -> SymbolicInt:
    op, *args = tree
    if op in ("num", "sym"):
        return SymbolicInt(op, *args)
    return SymbolicInt(op, *(_term(a) for a in args))


def _encoded(value: object) -> object:
    if isinstance(value, SymbolicInt):
        return {"term": _tree(value)}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"a name template holds symbolic integers and plain values, not {value!r}")


def symbolic_text(render_: Callable[..., str], *args: object, shown: str | None = None) -> str:
    """A placeholder standing for ``render_(*values)``, the values of ``args``
    (symbolic integers or plain values) once the symbols have values.

    Args:
        render_: a module-level function (it is found again by its qualified name).
        args: its arguments: symbolic integers, numbers, strings.
        shown: how :func:`readable` writes it (default: the arguments in braces).

    Returns:
        The placeholder, to put in a name.
    """
    key = f"{render_.__module__}.{render_.__qualname__}"
    if "<" in render_.__qualname__:
        raise TypeError(f"a name template renders by a module-level function, not {key}")
    _RENDERERS[key] = render_
    shown = shown if shown is not None else "{" + ",".join(str(a) for a in args) + "}"
    payload = json.dumps([key, shown, *(_encoded(a) for a in args)], ensure_ascii=True, separators=(",", ":"))
    return f"⟨{payload}⟩"


@functools.lru_cache(maxsize=4096)  # bounded: an instantiation reads each placeholder once per head and size
def _template(payload: str) -> tuple[Callable[..., str], tuple, str]:
    key, shown, *args = json.loads(payload)
    if key not in _RENDERERS:
        raise FamilyError(f"no renderer {key} for the name template {payload}")
    return _RENDERERS[key], tuple(_term(a["term"]) if isinstance(a, dict) else a for a in args), shown


def render(text: str, env: Mapping[str, int]) -> str:
    """``text`` with every placeholder filled in for the values in ``env``."""
    def fill(match: re.Match) -> str:
        function, args, _ = _template(match.group(1))
        return str(function(*[a.value(env) if isinstance(a, SymbolicInt) else a for a in args]))
    return _PLACEHOLDER.sub(fill, text)


def readable(text: str) -> str:
    """``text`` with each placeholder written symbolically (``row_mean{b}``,
    ``prod{i}{j}``): how reports and broken variants name a head's nodes."""
    return _PLACEHOLDER.sub(lambda match: _template(match.group(1))[2], text)


# -- the integer at every position ---------------------------------------------------

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
