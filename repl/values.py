"""The values a RASP REPL file computes, and the scopes that hold them.

As in the REPL's own evaluator: atoms (numbers, booleans, strings), lists, dicts,
functions (``def``, ``lambda``, the library's built-ins), and the "unfinished"
sequences and selectors, which here are :mod:`usim.rasp.expr` nodes. The
elaborator (:mod:`usim.repl.elaborate`) makes them; messages name them with
:func:`describe`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable

from usim.rasp import expr as E
from usim.repl import tree as T

if TYPE_CHECKING:
    from usim.repl.elaborate import Elaborator
    from usim.repl.errors import TableTooLarge

Atom = int | Fraction | bool | str


def normal(x: Any) -> Any:
    """A Fraction with denominator 1 as an int (so 6/3 is the integer 2)."""
    if isinstance(x, Fraction) and x.denominator == 1:
        return int(x)
    return x


def is_number(x: Any) -> bool:
    """An int or a Fraction, not a boolean."""
    return isinstance(x, (int, Fraction)) and not isinstance(x, bool)


@dataclass(frozen=True)
class Unbuilt:
    """A name a top-level assignment gives a value usim could not build within
    its limits (a table of joined strings too large for the input's symbols).

    The rest of the file is read as the REPL reads it, which builds nothing
    until it is shown: reading this name (in a later statement, or as the
    function to run or check) raises ``error``, the ``+`` that passed the limit.
    """

    name: str
    error: "TableTooLarge"


def describe(value: Any) -> str:
    """What a value is, for messages."""
    if isinstance(value, E.Selector):
        return f"the selector {value.name}"
    if isinstance(value, E.SOp):
        return f"the sequence {value.name}"
    if isinstance(value, RaspFunction):
        return f"the function {value.name}"
    if isinstance(value, (BuiltinFunction, LambdaValue)):
        return f"the function {value.name}"
    if isinstance(value, bool):
        return f"the boolean {value}"
    if isinstance(value, str):
        return f'the string "{value}"'
    if is_number(value):
        return f"the number {value}"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "a dict"
    return repr(value)


def value_literal(value: Any) -> str:
    """A value written in the REPL's language: ``"ab"``, ``1/3``, ``True``, a
    list or a dict of them (what the session shows and writes)."""
    if isinstance(value, str):
        return '"' + value + '"'
    if isinstance(value, Fraction):
        return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(value_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{value_literal(k)}: {value_literal(v)}" for k, v in value.items()) + "}"
    return str(value)


class Env:
    """Variables of one scope; lookups fall back to the parent (the enclosing scope)."""

    def __init__(self, parent: "Env | None" = None, name: str = "") -> None:
        self.parent = parent
        self.name = name
        self.vars: dict[str, Any] = {}

    def lookup(self, name: str) -> tuple[bool, Any]:
        env: Env | None = self
        while env is not None:
            if name in env.vars:
                return True, env.vars[name]
            env = env.parent
        return False, None

    def set(self, name: str, value: Any) -> None:
        self.vars[name] = value

    def visible_names(self) -> list[str]:
        names: set[str] = set()
        env: Env | None = self
        while env is not None:
            names |= set(env.vars)
            env = env.parent
        return sorted(names)


@dataclass(frozen=True, eq=False)
class RaspFunction:
    """``def name(params) { body; return returns; }`` closed over its defining scope."""

    name: str
    params: tuple[str, ...]
    body: tuple[T.Node, ...]
    returns: tuple[T.Node, ...]
    closure: Env
    filename: str
    source: str
    span: T.Span


@dataclass(frozen=True, eq=False)
class LambdaValue:
    """``lambda params: body`` (usim addition), closed over its scope."""

    params: tuple[str, ...]
    body: T.Node
    closure: Env
    filename: str
    source: str
    span: T.Span

    @property
    def name(self) -> str:
        return "lambda"


@dataclass(frozen=True, eq=False)
class BuiltinFunction:
    """A function given in Python: ``fn(elaborator, call_node, args)``."""

    name: str
    fn: Callable[["Elaborator", T.Call, list[Any]], Any]
    addition: bool = False  # a usim addition, not in the REPL
