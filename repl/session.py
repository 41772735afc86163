"""A session in the RASP REPL's language: statements typed one after another.

The RASP REPL (tech-srl/RASP) reads statements as they are typed, keeps what
they define, and shows every value on the *running example* (``hello`` until
``set example`` changes it). A :class:`Session` does the same with usim's
reader: :meth:`Session.feed` takes a line, waits for more while a statement is
unfinished (``def f() {`` ...), and returns what each finished statement gave,
as data (:class:`Shown`); the command line (``usim repl``) prints it.

**One reading of the whole session.** A statement the session accepts is kept
as text, and after each one the whole session is read again as one file
(:func:`usim.repl.rasp_file.load_text`). That is the reader's own meaning, not a
second one: a session is the file of its accepted statements, and usim's
commands in it (``check``, ``run``, ...) check exactly that file. It is also
what symbols need: an input of strings is read as codes of an alphabet of every
string the file uses and makes (:mod:`usim.repl.symbols`), so a new string
changes the codes of everything read before. The example decides how the
input is read, as in the REPL, where ``tokens`` holds strings on ``"hello"``
and numbers on ``[4, 7, 10]``: strings are read as symbols, numbers as numbers.

A statement that fails (a syntax error, an unknown name, a string where the
session reads numbers) changes nothing and is reported; the session goes on,
and a later statement cannot see a name the failed one would have set (the
REPL's "ignoring input"). ``set example`` is refused where a statement already
accepted cannot be read with the new example (a comparison with a string when
the new example holds numbers), naming that statement. Redefining a name is a
new statement: the later definition wins, as in a file. An expression statement
(``x;``, ``f("abc");``) is shown and not kept: it defines nothing a later
statement needs (``out`` is only its name when shown), and an application to an
input of one kind must not stop the session from taking an example of another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from usim.errors import UsimError
from usim.rasp import expr as E
from usim.rasp.program import topological_order
from usim.repl import tree as T
from usim.repl.errors import RaspFileError, RaspSyntaxError
from usim.repl.parser import parse
from usim.repl.rasp_file import RaspFile, load_text
from usim.repl.running import selection_shown
from usim.repl.values import Env, RaspFunction

SESSION = "<session>"
"""The file name a session's statements are read under (in messages)."""
DEFAULT_EXAMPLE: tuple[Any, ...] = tuple("hello")
"""The REPL's running example until ``set example`` changes it."""
MAX_DRAWN_HEADS = 12
"""A drawing of a sequence shows at most this many of its heads."""

SEQUENCE, SELECTOR, FUNCTION, VALUE, EXAMPLE, NOTE, DRAWING, ERROR = (
    "sequence", "selector", "function", "value", "example", "note", "drawing", "error")


@dataclass(frozen=True)
class Shown:
    """What one statement gave.

    ``what`` is one of :data:`SEQUENCE` (``value``: the sequence on the example,
    ``kind``: number, boolean or symbol), :data:`SELECTOR` (``value``: its
    selection on the example, row q column k: query q selects key k),
    :data:`FUNCTION` (``value``: its parameters), :data:`VALUE` (a number, string,
    list, dict or boolean), :data:`EXAMPLE` (``value``: the example),
    :data:`NOTE` (``value``: a sentence), :data:`DRAWING` (``value``: a tuple of
    :class:`DrawnHead`) and :data:`ERROR` (``value``: the one-line message).
    ``example`` is the input a value was shown on; ``problem`` says why a
    sequence or selector defined without error could not be shown on it.
    """

    what: str
    name: str = ""
    value: Any = None
    kind: str | None = None
    example: tuple[Any, ...] = ()
    problem: str | None = None


@dataclass(frozen=True)
class DrawnHead:
    """One head of a drawn sequence: an aggregate or a selector width, its
    selector's name, the selection on the input and the head's result."""

    name: str
    selector: str
    selection: tuple[tuple[bool, ...], ...]
    result: tuple[Any, ...]


@dataclass(frozen=True)
class Reply:
    """What one fed line gave: the statements' results in order, whether a
    statement is still unfinished (``pending``), and whether ``exit`` ended the
    session."""

    shown: tuple[Shown, ...] = ()
    pending: bool = False
    ended: bool = False

    @property
    def errors(self) -> tuple[str, ...]:
        return tuple(s.value for s in self.shown if s.what == ERROR)


def message(error: UsimError) -> str:
    """An error as one line, without the session's own file name and line (they
    count the session's statements, not what was typed)."""
    if isinstance(error, RaspFileError) and error.filename == SESSION:
        shown = f" (at `{error.text}`)" if error.text else ""
        kind = "syntax error" if isinstance(error, RaspSyntaxError) else "error"
        return f"{kind}: {error.message}{shown}"
    return str(error)


def example_literal(values: Sequence[Any]) -> str:
    """An input written in the REPL's language: ``"hello"`` where every entry is
    one character (not a quote), else a list such as ``[1, 1/3, "ab", True]``."""
    from fractions import Fraction

    if values and all(isinstance(v, str) and len(v) == 1 and v not in '"\\' for v in values):
        return '"' + "".join(values) + '"'

    def one(v: Any) -> str:
        if isinstance(v, str):
            return '"' + v + '"'
        if isinstance(v, Fraction) and v.denominator != 1:
            return f"{v.numerator}/{v.denominator}"
        return str(v)
    return "[" + ", ".join(one(v) for v in values) + "]"


def _symbols(values: Sequence[Any]) -> bool:
    return any(isinstance(v, str) for v in values)


def read_session(statements: Sequence[str], example: Sequence[Any],
                 more: Sequence[Any] = ()) -> RaspFile:
    """The session's statements read as one file, the input read as the example is.

    Args:
        statements: the accepted statements' text, in order.
        example: the running example (strings: the input is read as symbols).
        more: further symbols an input may hold (an input given to a command).

    Returns:
        The reading (:class:`~usim.repl.rasp_file.RaspFile`).
    """
    source = "".join(s + "\n" for s in statements)
    if _symbols(example) or _symbols(more):
        inputs = sorted({v for v in (*example, *more) if isinstance(v, str)})
        return load_text(source, SESSION, symbols=True, inputs=inputs, with_examples=True)
    return load_text(source, SESSION)


class Session:
    """The statements typed so far, the running example, and the display settings.

    Example:

    >>> s = Session()
    >>> s.feed("x = indices + 1;").shown[0].value
    [1, 2, 3, 4, 5]
    >>> s.feed('set example [4, 7, 10]').shown[0].value
    (4, 7, 10)
    >>> [s.what for s in s.feed("def f(a) {").shown], s.feed("return a * 2; }").shown[0].value
    ([], ('a',))
    >>> s.feed("f(tokens);").shown[0].value
    [8, 14, 20]
    """

    def __init__(self, example: Sequence[Any] = DEFAULT_EXAMPLE) -> None:
        self.statements: list[str] = []
        self.example: tuple[Any, ...] = tuple(example)
        self.examples_on = True
        self._buffer = ""
        self.file = read_session(self.statements, self.example)

    @property
    def source(self) -> str:
        """The session as a RASP file: ``set example`` with the running example,
        then its accepted statements, one per line (what ``check`` checks, with
        the example's symbols as the alphabet, and what ``save`` writes)."""
        return f"set example {example_literal(self.example)}\n" + "".join(s + "\n" for s in self.statements)

    def names(self) -> list[str]:
        """The names the session defines (its own and those it loaded)."""
        return self.file.names()

    def reading_for(self, values: Sequence[Any]) -> RaspFile:
        """The session read so that ``values`` can be its input (their symbols
        join the alphabet); the current reading where they already can."""
        alphabet = self.file.alphabet
        if not _symbols(values) or (alphabet is not None and set(values) <= set(alphabet.inputs)):
            return self.file
        return read_session(self.statements, self.example, values)

    # -- feeding lines --------------------------------------------------------------
    def feed(self, line: str) -> Reply:
        """Take one line; run every statement it finishes.

        Args:
            line: the text typed (without its newline).

        Returns:
            What the finished statements gave (nothing while a statement is
            unfinished: ``pending``).
        """
        text = self._buffer + line + "\n"
        if not text.strip():
            self._buffer = ""
            return Reply()
        try:
            module = parse(text, SESSION)
        except RaspSyntaxError as error:
            if error.message.startswith("unexpected end of file"):
                self._buffer = text
                return Reply(pending=True)
            self._buffer = ""
            return Reply((Shown(ERROR, value=message(error)),))
        self._buffer = ""
        shown: list[Shown] = []
        for statement in module.statements:
            if isinstance(statement, T.Exit):
                return Reply(tuple(shown), ended=True)
            try:
                shown.extend(self._statement(statement, text))
            except UsimError as error:
                shown.append(Shown(ERROR, value=message(error)))
        return Reply(tuple(shown))

    @property
    def pending(self) -> bool:
        """Whether a statement is unfinished (the next line continues it)."""
        return bool(self._buffer)

    def cancel(self) -> None:
        """Drop an unfinished statement."""
        self._buffer = ""

    def _statement(self, node: T.Node, text: str) -> list[Shown]:
        source = text[node.span.start:node.span.end]
        if isinstance(node, T.SetExample):
            return [self._set_example(node, text)]
        if isinstance(node, T.ReplCommand):
            return self._setting(node.text)
        if isinstance(node, T.Draw):
            return [self._draw(node, text)]
        before = set(self.names())
        reading = read_session([*self.statements, source], self.example)
        if isinstance(node, T.ExprStatement):  # shown, not kept: a later example may not read it
            return [self._show("out", reading)]
        self.file = reading
        self.statements.append(source)
        if isinstance(node, T.Assign):
            return [self._show(name) for name in node.names]
        if isinstance(node, T.FuncDef):
            return [self._show(node.name)]
        if isinstance(node, T.Load):
            new = sorted(set(self.names()) - before)
            return [Shown(NOTE, value=f"loaded {node.filename}.rasp"
                          + (f": {', '.join(new)}" if new else " (no new names)"))]
        return []  # a for loop: its names are set, nothing is shown

    def _value(self, node: T.Node, text: str) -> Any:
        """An expression's value in the session as it stands (not kept)."""
        return self.file.elaborator.evaluate_outside(node, Env(self.file.env), SESSION, text)[0]

    def _set_example(self, node: T.SetExample, text: str) -> Shown:
        value = self._value(node.expr, text)
        if isinstance(value, str):
            value = list(value)
        if not isinstance(value, (list, tuple)) or not value:
            raise UsimError("an example is a non-empty list or string, e.g. set example [1, 2, 3]")
        example = tuple(value)
        try:
            reading = read_session(self.statements, example)
        except UsimError as error:
            where = self._statement_at(error)
            why = message(error).removeprefix("error: ")
            raise UsimError(f"the example stays as it was: {where}cannot be read with it ({why})") from None
        self.file, self.example = reading, example
        return Shown(EXAMPLE, value=example)

    def _statement_at(self, error: UsimError) -> str:
        """``the statement `...` `` that ``error`` (from reading the session) points into."""
        if not isinstance(error, RaspFileError) or error.filename != SESSION:
            return "the session "
        first = 1
        for statement in self.statements:
            last = first + statement.count("\n")
            if first <= error.line <= last:
                return f"`{statement}` "
            first = last + 1
        return "the session "

    def _setting(self, command: str) -> list[Shown]:
        words = command.split()
        if words[:1] == ["examples"]:
            self.examples_on = words[-1] == "on"
            return [Shown(NOTE, value=f"examples {'on' if self.examples_on else 'off'}")]
        if words[:1] == ["show"]:
            return [Shown(EXAMPLE, value=self.example)]
        return [Shown(NOTE, value="usim always shows sequences in full")]

    def _show(self, name: str, reading: RaspFile | None = None) -> Shown:
        reading = reading or self.file
        value = reading.env.vars.get(name)
        if isinstance(value, (E.SOp, E.Selector)):
            return self._on_example(name, value, reading)
        if isinstance(value, RaspFunction):
            return Shown(FUNCTION, name, value.params)
        return Shown(VALUE, name, value)

    def _on_example(self, name: str, value: E.SOp | E.Selector, reading: RaspFile) -> Shown:
        what = SEQUENCE if isinstance(value, E.SOp) else SELECTOR
        kind = reading.kind_of(value) if isinstance(value, E.SOp) else None
        if not self.examples_on:
            return Shown(what, name, kind=kind)
        try:
            if isinstance(value, E.SOp):
                shown: Any = reading.elaborator.run(value, list(self.example), label=name)
            else:
                shown = selection_shown(value, list(self.example), reading.elaborator.symbols)
        except UsimError as error:
            return Shown(what, name, kind=kind, example=self.example, problem=message(error))
        return Shown(what, name, shown, kind, self.example)

    def _draw(self, node: T.Draw, text: str) -> Shown:
        example = self.example
        if node.input is not None:
            given = self._value(node.input, text)
            example = tuple(given) if isinstance(given, (str, list, tuple)) else ()
            if not example:
                raise UsimError("draw's input is a non-empty list or string, e.g. draw(x, [1, 2, 3])")
        expression = node.expr.span.text(text)
        return Shown(DRAWING, expression, self.heads(expression, example), example=example)

    def heads(self, expression: str, example: Sequence[Any]) -> tuple[DrawnHead, ...]:
        """The heads of a selector or sequence on an input: each selector's
        selection and each head's result, in the order they are computed.

        Args:
            expression: a selector or a sequence of the session (a name or an
                expression such as ``f(3)``): its aggregates and selector widths.
            example: the input.

        Returns:
            The heads (at most :data:`MAX_DRAWN_HEADS`).
        """
        reading = self.reading_for(example)
        value = reading.evaluate(expression)
        symbols = reading.elaborator.symbols
        if isinstance(value, E.Selector):
            return (DrawnHead(value.name, value.name, _rows(selection_shown(value, list(example), symbols)), ()),)
        if not isinstance(value, E.SOp):
            raise UsimError(f"{expression} is not a selector or a sequence: draw shows the heads of one")
        heads = []
        for node in topological_order([value]):
            if isinstance(node, (E.Aggregate, E.SelectorWidth)) and len(heads) < MAX_DRAWN_HEADS:
                selection = selection_shown(node.selector, list(example), symbols)
                result = reading.elaborator.run(node, list(example), label=node.name)
                heads.append(DrawnHead(node.name, node.selector.name, _rows(selection), tuple(result)))
        return tuple(heads)


def _rows(matrix: list[list[bool]]) -> tuple[tuple[bool, ...], ...]:
    return tuple(tuple(row) for row in matrix)
