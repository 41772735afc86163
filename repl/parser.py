"""From the text of a RASP REPL file to its syntax tree (:mod:`.tree`).

The grammar is ``rasp.lark`` (LALR, lark); this module loads it once, turns lark's
parse tree into :mod:`.tree` nodes with spans, and turns lark's errors into one-line
:class:`RaspSyntaxError` messages with line, column and the offending text.

Building the LALR tables takes lark about 0.14 s, a third of a ``usim run``'s
start. So the tables lark computes are kept in the package, in the generated
module :mod:`usim.repl.rasp_tables` (lark's own serialisation,
``Lark.memo_serialize``, written as Python literals: no pickle, nothing read
from outside the installed package). They are used only when that module was
generated from this very grammar (its SHA-256) by this very lark version;
otherwise the parser is built from ``rasp.lark`` as before, so a stale or
foreign table is never used (the digest covers the grammar and the options
lark is given). After editing the grammar, write
them again with ``python -P -m usim.repl.write_tables`` (``tests/test_repl_parser.py``
fails until then).
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction
from pathlib import Path

import lark
from lark import Lark, Token, Transformer, v_args

from usim.repl import tree as T
from usim.repl.errors import RaspSyntaxError

GRAMMAR = Path(__file__).with_name("rasp.lark")

# Terminals that can start an expression: an "expected" set holding most of them
# is reported as "an expression".
_EXPRESSION_START = {
    "NAME", "INT", "FLOAT", "STRING", "LPAR", "LSQB", "LBRACE", "MINUS", "PLUS", "NOT",
    "SELECT", "AGGREGATE", "ROUND", "INDICATOR", "RANGE", "ZIP", "LEN",
}
_READABLE = {
    "NAME": "a name", "INT": "a number", "FLOAT": "a number", "STRING": "a string",
    "CMP": "a comparison (== != < <= > >=)", "$END": "the end of the file",
    "SET_EXAMPLE": "set example", "SHOW_EXAMPLE": "show example", "TOGGLE_EXAMPLES": "examples on/off",
    "FULL_SEQ_DISPLAY": "full seq display", "EXIT": "exit",
}


OPTIONS = {"parser": "lalr", "start": ["start", "example"], "propagate_positions": True,
           "maybe_placeholders": True}
"""How lark builds the parser (part of what the stored tables are made from)."""


def grammar_digest() -> str:
    """What :mod:`.rasp_tables` must be made from.

    Returns:
        The SHA-256 of ``rasp.lark``'s bytes followed by :data:`OPTIONS`, hex.
    """
    import hashlib

    return hashlib.sha256(GRAMMAR.read_bytes() + repr(sorted(OPTIONS.items())).encode()).hexdigest()


def build_lark() -> Lark:
    """The parser built from the grammar.

    Returns:
        lark's parser, its LALR tables computed now (about 0.14 s).
    """
    return Lark(GRAMMAR.read_text(encoding="utf-8"), **OPTIONS)


def stored_lark() -> Lark | None:
    """The parser from the stored tables.

    Returns:
        The parser, or None where the tables are missing or were made from
        another grammar (or other options) or by another lark version.
    """
    try:
        from usim.repl import rasp_tables
    except ImportError:
        return None
    if rasp_tables.LARK_VERSION != lark.__version__ or rasp_tables.GRAMMAR_SHA256 != grammar_digest():
        return None
    return Lark._load_from_dict(rasp_tables.DATA, rasp_tables.MEMO)


@functools.lru_cache(maxsize=1)
def _lark() -> Lark:
    return stored_lark() or build_lark()




def _span(meta_or_token) -> T.Span:
    return T.Span(meta_or_token.line, meta_or_token.column, meta_or_token.start_pos,
                  meta_or_token.end_pos)


def _names(node) -> tuple[str, ...]:
    return () if node is None else tuple(node)


@v_args(meta=True)
class _ToTree(Transformer):
    """lark's parse tree -> :mod:`.tree` nodes (bottom-up)."""

    def __init__(self, parse_example) -> None:
        super().__init__()
        self._parse_example = parse_example

    # -- lists ---------------------------------------------------------------
    def names(self, meta, children):
        return tuple(str(c) for c in children)

    def exprs(self, meta, children):
        return tuple(children)

    def args(self, meta, children):
        return tuple(children)

    def pairs(self, meta, children):
        return tuple(children)

    def pair(self, meta, children):
        return (children[0], children[1])

    # -- atoms ---------------------------------------------------------------
    def name(self, meta, children):
        return T.Name(_span(meta), str(children[0]))

    def int_(self, meta, children):
        return T.Number(_span(meta), int(children[0]))

    def float_(self, meta, children):
        value = Fraction(str(children[0]))
        return T.Number(_span(meta), int(value) if value.denominator == 1 else value)

    def string(self, meta, children):
        return T.String(_span(meta), str(children[0])[1:-1])

    def list_(self, meta, children):
        return T.ListLit(_span(meta), children[0] or ())

    def dict_(self, meta, children):
        return T.DictLit(_span(meta), children[0] or ())

    def listcomp(self, meta, children):
        return T.ListComp(_span(meta), children[0], children[1], children[2])

    def dictcomp(self, meta, children):
        return T.DictComp(_span(meta), children[0], children[1], children[2], children[3])

    def select(self, meta, children):
        _, keys, queries, predicate = children
        return T.SelectCall(_span(meta), keys, queries, str(predicate))

    def aggregate(self, meta, children):
        _, selector, values, default = children
        return T.AggregateCall(_span(meta), selector, values, default)

    def round_(self, meta, children):
        return T.Unary(_span(meta), "round", children[0])

    def indicator(self, meta, children):
        return T.Unary(_span(meta), "indicator", children[0])

    def range_(self, meta, children):
        return T.Builtin(_span(meta), "range", children[1])

    def zip_(self, meta, children):
        return T.Builtin(_span(meta), "zip", children[1])

    def len_(self, meta, children):
        return T.Builtin(_span(meta), "len", (children[1],))

    # -- operators -------------------------------------------------------------
    def _binary(op):  # noqa: N805 - a factory used in the class body
        def build(self, meta, children):
            return T.Binary(_span(meta), op, children[0], children[-1])
        return build

    add, sub, mul, div = _binary("+"), _binary("-"), _binary("*"), _binary("/")
    mod, pow = _binary("%"), _binary("^")
    and_, or_ = _binary("and"), _binary("or")

    def compare(self, meta, children):
        return T.Binary(_span(meta), str(children[1]), children[0], children[2])

    def _unary(op):  # noqa: N805
        def build(self, meta, children):
            return T.Unary(_span(meta), op, children[0])
        return build

    not_, neg, pos = _unary("not"), _unary("-"), _unary("+")

    def ifelse(self, meta, children):
        return T.IfElse(_span(meta), children[0], children[1], children[2])

    def contains(self, meta, children):
        return T.Contains(_span(meta), children[0], children[1])

    def index(self, meta, children):
        return T.Index(_span(meta), children[0], children[1])

    def call(self, meta, children):
        return T.Call(_span(meta), children[0], children[1] or ())

    def lambda_(self, meta, children):
        return T.Lambda(_span(meta), _names(children[0]), children[1])

    # -- statements --------------------------------------------------------------
    def expr_stmt(self, meta, children):
        exprs = children[0]
        if len(exprs) != 1:
            raise _located(meta, "a statement is one expression; write `a, b = ...;` to assign several")
        return T.ExprStatement(_span(meta), exprs[0])

    def assign(self, meta, children):
        targets, values = children
        names = []
        for target in targets:
            if not isinstance(target, T.Name):
                raise _located(target.span, "only names can be assigned to")
            names.append(target.id)
        return T.Assign(_span(meta), tuple(names), values)

    def draw(self, meta, children):
        return T.Draw(_span(meta), children[0], children[1] if len(children) > 1 else None)

    def load(self, meta, children):
        return T.Load(_span(meta), str(children[0])[1:-1])

    def funcdef(self, meta, children):
        name, params, *body, returns = children
        return T.FuncDef(_span(meta), str(name), _names(params), tuple(body), returns)

    def return_stmt(self, meta, children):
        return children[0]

    def forloop(self, meta, children):
        names, iterable, *body = children
        return T.ForLoop(_span(meta), names, iterable, tuple(body))

    def set_example(self, meta, children):
        token = children[0]
        match = re.match(r"set[ \t]+((s-op|selector)[ \t]+)?example", str(token))
        start = token.start_pos + match.end()
        return T.SetExample(_span(token), self._parse_example(start, token))

    def repl_command(self, meta, children):
        token = children[0]
        return T.ReplCommand(_span(token), " ".join(str(token).split("#")[0].split()))

    def exit(self, meta, children):
        return T.Exit(_span(children[0]))

    def example(self, meta, children):
        return children[0]

    def start(self, meta, children):
        return tuple(children)


class _Located(Exception):
    def __init__(self, span: T.Span, message: str) -> None:
        self.span, self.message = span, message


def _located(meta_or_span, message: str) -> _Located:
    span = meta_or_span if isinstance(meta_or_span, T.Span) else _span(meta_or_span)
    return _Located(span, message)


def _describe_expected(expected: set[str]) -> str:
    parser = _lark()
    expected = set(expected)
    parts: list[str] = []
    if len(expected & _EXPRESSION_START) >= 6:
        parts.append("an expression")
        expected -= _EXPRESSION_START
    for name in sorted(expected):
        if name in _READABLE:
            text = _READABLE[name]
        else:
            try:
                pattern = parser.get_terminal(name).pattern
            except KeyError:
                continue
            text = f"'{pattern.value}'" if isinstance(pattern, lark.lexer.PatternStr) else name.lower()
        if text not in parts:
            parts.append(text)
    if not parts:
        return ""
    if len(parts) == 1:
        return "expected " + parts[0]
    return "expected one of " + ", ".join(parts[:8]) + (", ..." if len(parts) > 8 else "")


def _line_text(source: str, line: int) -> str:
    lines = source.splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _syntax_error(error: lark.exceptions.LarkError, source: str, filename: str) -> RaspSyntaxError:
    if isinstance(error, lark.exceptions.UnexpectedToken):
        token = error.token
        if token.type == "$END":
            lines = source.rstrip().splitlines() or [""]
            line, column = len(lines), len(lines[-1]) + 1
            message = "unexpected end of file"
            hint = _describe_expected(error.expected)
            if hint:
                message += f"; {hint}"
            return RaspSyntaxError(filename, line, column, message, _line_text(source, line))
        message = f"unexpected {str(token)!r}"
        hint = _describe_expected(error.expected)
        if hint:
            message += f"; {hint}"
        if "lambda" in _line_text(source, error.line):
            message += (
                " (a lambda's body must be a RASP expression: numbers, its parameters, "
                "+ - * / % ^, comparisons, and/or/not, `a if c else b`)"
            )
        return RaspSyntaxError(filename, error.line, error.column, message,
                               _line_text(source, error.line))
    if isinstance(error, lark.exceptions.UnexpectedCharacters):
        char = source[error.pos_in_stream] if error.pos_in_stream < len(source) else "?"
        message = f"unexpected character {char!r}"
        if char == "'":
            message += " (RASP strings use double quotes)"
        elif char == ".":
            message += " (RASP has no attributes or methods; numbers are written like 2.5)"
        return RaspSyntaxError(filename, error.line, error.column, message,
                               _line_text(source, error.line))
    if isinstance(error, lark.exceptions.UnexpectedEOF):
        lines = source.rstrip().splitlines() or [""]
        return RaspSyntaxError(filename, len(lines), len(lines[-1]) + 1,
                               "unexpected end of file", _line_text(source, len(lines)))
    return RaspSyntaxError(filename, 1, 1, str(error).splitlines()[0])


def strip_comments(text: str) -> str:
    """``text`` without its comments: from a ``#`` outside a string to the end of its line."""
    lines = []
    for line in text.split("\n"):
        inside = False
        for i, char in enumerate(line):
            if char == '"':
                inside = not inside
            elif char == "#" and not inside:
                line = line[:i]
                break
        lines.append(line)
    return "\n".join(lines)


def parse_expression(text: str, filename: str = "<expression>") -> T.Node:
    """One RASP expression (a trailing ``;`` allowed), e.g. ``Det(Cofactor())``."""
    try:
        tree = _lark().parse(text, start="example")
        return _ToTree(None).transform(tree)
    except lark.exceptions.VisitError as error:
        inner = error.orig_exc
        if isinstance(inner, _Located):
            raise RaspSyntaxError(filename, inner.span.line, inner.span.column, inner.message,
                                  inner.span.text(text)) from None
        raise
    except lark.exceptions.LarkError as error:
        raise _syntax_error(error, text, filename) from None


def parse(source: str, filename: str = "<string>") -> T.Module:
    """The syntax tree of a whole file; a :class:`RaspSyntaxError` if it is not RASP."""
    parser = _lark()

    def parse_example(start: int, token: Token) -> T.Node:
        end = token.end_pos
        rest = strip_comments(source[start:end])
        if not rest.strip():
            raise _Located(_span(token), "`set example` needs a value, e.g. set example [1, 2, 3]")
        # keep absolute positions: blank out everything before the example's text
        padded = re.sub(r"[^\n]", " ", source[:start]) + rest
        try:
            tree = parser.parse(padded, start="example")
        except lark.exceptions.LarkError as error:
            raise _syntax_error(error, padded, filename) from None
        return _ToTree(parse_example).transform(tree)

    try:
        tree = parser.parse(source, start="start")
        statements = _ToTree(parse_example).transform(tree)
    except lark.exceptions.VisitError as error:
        inner = error.orig_exc
        if isinstance(inner, _Located):
            raise RaspSyntaxError(filename, inner.span.line, inner.span.column, inner.message,
                                  inner.span.text(source)) from None
        if isinstance(inner, RaspSyntaxError):
            raise inner from None
        raise
    except lark.exceptions.LarkError as error:
        raise _syntax_error(error, source, filename) from None
    return T.Module(filename, source, tuple(statements))
