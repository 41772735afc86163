"""The syntax tree of a RASP REPL file: small frozen dataclasses with positions.

The parser (:mod:`usim.repl.parser`) builds these from lark's parse tree;
the elaborator (:mod:`usim.repl.elaborate`) gives them their meaning. Every
node carries a :class:`Span` so that an error can name the line, the column and
the offending text.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class Span:
    """Where a node sits in its file: 1-based line and column, 0-based offsets."""

    line: int
    column: int
    start: int
    end: int

    def text(self, source: str, limit: int = 60) -> str:
        """The node's source text on one line, shortened to ``limit`` characters."""
        text = " ".join(source[self.start:self.end].split())
        return text if len(text) <= limit else text[: limit - 3] + "..."


# -- expressions ---------------------------------------------------------------

@dataclass(frozen=True)
class Node:
    span: Span


@dataclass(frozen=True)
class Number(Node):
    """A numeric literal: an int, or a decimal read exactly (2.718 is 2718/1000)."""

    value: int | Fraction


@dataclass(frozen=True)
class String(Node):
    value: str


@dataclass(frozen=True)
class Name(Node):
    id: str


@dataclass(frozen=True)
class ListLit(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True)
class DictLit(Node):
    pairs: tuple[tuple[Node, Node], ...]


@dataclass(frozen=True)
class Unary(Node):
    """``op`` is one of: not, -, +, round, indicator."""

    op: str
    operand: Node


@dataclass(frozen=True)
class Binary(Node):
    """``op`` is one of: + - * / % ^ == != < <= > >= and or."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class IfElse(Node):
    """``then if cond else otherwise``."""

    then: Node
    cond: Node
    otherwise: Node


@dataclass(frozen=True)
class Index(Node):
    target: Node
    index: Node


@dataclass(frozen=True)
class Call(Node):
    func: Node
    args: tuple[Node, ...]


@dataclass(frozen=True)
class Lambda(Node):
    """``lambda params: body`` (a usim addition, allowed only as a call argument)."""

    params: tuple[str, ...]
    body: Node


@dataclass(frozen=True)
class SelectCall(Node):
    """``select(keys, queries, predicate)``: keys first, as in the REPL."""

    keys: Node
    queries: Node
    predicate: str


@dataclass(frozen=True)
class AggregateCall(Node):
    """``aggregate(selector, values[, default])`` as written in the REPL."""

    selector: Node
    values: Node
    default: Node | None


@dataclass(frozen=True)
class Builtin(Node):
    """range(...), zip(...), len(...): the REPL's list helpers."""

    name: str
    args: tuple[Node, ...]


@dataclass(frozen=True)
class ListComp(Node):
    value: Node
    names: tuple[str, ...]
    iterable: Node


@dataclass(frozen=True)
class DictComp(Node):
    key: Node
    value: Node
    names: tuple[str, ...]
    iterable: Node


@dataclass(frozen=True)
class Contains(Node):
    """``item in container``."""

    item: Node
    container: Node


# -- statements ------------------------------------------------------------------

@dataclass(frozen=True)
class ExprStatement(Node):
    expr: Node


@dataclass(frozen=True)
class Assign(Node):
    names: tuple[str, ...]
    values: tuple[Node, ...]


@dataclass(frozen=True)
class Draw(Node):
    """``draw(sop[, input]);``: the REPL draws a picture; usim evaluates and ignores it."""

    expr: Node
    input: Node | None


@dataclass(frozen=True)
class Load(Node):
    filename: str


@dataclass(frozen=True)
class FuncDef(Node):
    name: str
    params: tuple[str, ...]
    body: tuple[Node, ...]
    returns: tuple[Node, ...]


@dataclass(frozen=True)
class ForLoop(Node):
    names: tuple[str, ...]
    iterable: Node
    body: tuple[Node, ...]


@dataclass(frozen=True)
class SetExample(Node):
    """``set [s-op|selector] example EXPR``: the running example (kept for checks)."""

    expr: Node


@dataclass(frozen=True)
class ReplCommand(Node):
    """A REPL command with no meaning for proofs (examples on/off, show example, ...)."""

    text: str


@dataclass(frozen=True)
class Exit(Node):
    """``exit`` / ``quit``: the REPL stops reading the file here."""


@dataclass(frozen=True)
class Module:
    filename: str
    source: str
    statements: tuple[Node, ...]
