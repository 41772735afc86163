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

import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

from usim.errors import UsimError
from usim.rasp import expr as E
from usim.rasp.program import topological_order
from usim.repl import tree as T
from usim.repl.errors import RaspFileError, RaspSyntaxError
from usim.repl.parser import parse
from usim.repl.rasp_file import EXPRESSION_FILE, RaspFile, load_text
from usim.repl.running import selection_shown
from usim.repl.values import Env, RaspFunction, Unbuilt, describe, value_literal

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
    :data:`NOTE` (``value``: a sentence), :data:`DRAWING` (``value``: a
    :class:`Drawing`) and :data:`ERROR` (``value``: the one-line message).
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
        """The one-line message of every statement that was refused."""
        return tuple(s.value for s in self.shown if s.what == ERROR)


@dataclass(frozen=True)
class Drawing:
    """What ``draw`` shows: the first heads (at most :data:`MAX_DRAWN_HEADS`) and how many there are."""

    heads: tuple[DrawnHead, ...]
    total: int


def message(error: UsimError) -> str:
    """An error as one line, without the session's own file name and line (they
    count the session's statements, not what was typed).

    Args:
        error: what a statement or command raised.

    Returns:
        ``error: ...`` or ``syntax error: ...`` with the offending text, or the
        error's own message where it points into a file the session loaded.
    """
    if isinstance(error, RaspFileError) and error.filename in (SESSION, EXPRESSION_FILE):
        shown = f" (at `{error.text}`)" if error.text else ""
        kind = "syntax error" if isinstance(error, RaspSyntaxError) else "error"
        return f"{kind}: {error.message}{shown}"
    return str(error)


def example_literal(values: Sequence[Any]) -> str:
    """An input written in the REPL's language.

    Args:
        values: the input's entries.

    Returns:
        ``"hello"`` where every entry is one character (not a quote or a
        backslash), else a list such as ``[1, 1/3, "ab", True]``.
    """
    if values and all(isinstance(v, str) and len(v) == 1 and v not in '"\\' for v in values):
        return '"' + "".join(values) + '"'
    return value_literal(list(values))


def checked_example(value: Any) -> tuple[Any, ...]:
    """An example as the session takes one: a non-empty list (or string) of
    numbers and booleans, or of strings (strings without quotes or backslashes,
    so that the session's file can write it).

    Args:
        value: the value ``set example`` (or ``--example``) gave.

    Returns:
        Its entries.

    Raises:
        UsimError: anything else, naming what is wrong.
    """
    if isinstance(value, str):
        value = list(value)
    if not isinstance(value, (list, tuple)) or not value:
        raise UsimError("an example is a non-empty list or string, e.g. set example [1, 2, 3]")
    strings = [isinstance(v, str) for v in value]
    for v in value:
        if not (isinstance(v, (str, bool, int, Fraction))):
            raise UsimError(f"an example holds numbers, booleans or strings, not {describe(v)}")
        if isinstance(v, str) and ('"' in v or "\\" in v):
            raise UsimError(f"an example's strings hold no quote or backslash, not {v!r}")
    if any(strings) and not all(strings):
        raise UsimError("an example holds strings or numbers, not both (the REPL refuses a mixed sequence)")
    return tuple(value)


def _symbols(values: Sequence[Any]) -> bool:
    return any(isinstance(v, str) for v in values)


def read_session(statements: Sequence[str], example: Sequence[Any], more: Sequence[Any] = (),
                 files: dict[str, str] | None = None) -> RaspFile:
    """The session's statements read as one file, the input read as the example is.

    Args:
        statements: the accepted statements' text, in order.
        example: the running example (strings: the input is read as symbols).
        more: further symbols an input may hold (an input given to a command).
        files: the text of every file the session loaded, by path (a file
            not in it is read from disk and added).

    Returns:
        The reading (:class:`~usim.repl.rasp_file.RaspFile`).
    """
    source = "".join(s + "\n" for s in statements)
    if _symbols(example) or _symbols(more):
        inputs = sorted({v for v in (*example, *more) if isinstance(v, str)})
        return load_text(source, SESSION, symbols=True, inputs=inputs, with_examples=True, files=files)
    return load_text(source, SESSION, files=files)


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
        self.example: tuple[Any, ...] = checked_example(example)
        self.examples_on = True
        self.files: dict[str, str] = {}
        """The text of every file loaded, as it was when first loaded (the session
        and its checks read these, whatever the disk holds later)."""
        self._loads: dict[int, str] = {}  # statement index -> the loaded file's absolute path
        self._buffer = ""
        self.file = self._read(self.statements, self.example)

    def _read(self, statements: Sequence[str], example: Sequence[Any], more: Sequence[Any] = ()) -> RaspFile:
        return read_session(statements, example, more, self.files)

    @property
    def source(self) -> str:
        """The session as a RASP file: ``set example`` with the running example,
        then its accepted statements, one per line (what ``check`` checks, with
        the example's symbols as the alphabet, and what ``save`` writes)."""
        return f"set example {example_literal(self.example)}\n" + "".join(s + "\n" for s in self.statements)

    def saved(self, folder: str) -> str:
        """The session as a file placed in ``folder``: :attr:`source`, each
        ``load`` written relative to that folder (a load is read beside its file).

        Args:
            folder: where the file will be.

        Returns:
            The file's text.
        """
        lines = [f"set example {example_literal(self.example)}"]
        for i, statement in enumerate(self.statements):
            if i in self._loads:
                statement = f'load "{os.path.relpath(self._loads[i], os.path.abspath(folder))}";'
            lines.append(statement)
        return "".join(line + "\n" for line in lines)

    def names(self) -> list[str]:
        """The names the session defines.

        Returns:
            Its own and those it loaded, sorted.
        """
        return self.file.names()

    def reading_for(self, values: Sequence[Any]) -> RaspFile:
        """The session read so that ``values`` can be its input.

        Args:
            values: an input (its symbols join the alphabet).

        Returns:
            The current reading where it already can take them, else a new one.

        Raises:
            UsimError: a statement of the session cannot be read with this
                input (strings where it reads numbers), naming it.
        """
        alphabet = self.file.alphabet
        if not _symbols(values) or (alphabet is not None and set(values) <= set(alphabet.inputs)):
            return self.file
        checked_example(values)
        try:
            return self._read(self.statements, self.example, values)
        except UsimError as error:
            why = message(error).removeprefix("error: ")
            raise UsimError(f"the input {example_literal(values)} cannot be given: "
                            f"{self._statement_at(error)}cannot be read with it ({why})") from None

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
        reading = self._read([*self.statements, source], self.example)
        if isinstance(node, T.ExprStatement):  # shown, not kept: a later example may not read it
            return [self._show("out", reading)]
        for name in node.names if isinstance(node, T.Assign) else ():
            if isinstance(unbuilt := reading.env.vars.get(name), Unbuilt):
                raise unbuilt.error  # refused here and not kept, as any statement in error
        self.file = reading
        if isinstance(node, T.Load):
            self._loads[len(self.statements)] = os.path.abspath(node.filename)
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
        example = checked_example(self._value(node.expr, text))
        try:
            reading = self._read(self.statements, example)
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
        if isinstance(value, Unbuilt):  # read, but too large to build: say why, as when it is run
            raise value.error
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
            example = checked_example(self._value(node.input, text))
        expression = node.expr.span.text(text)
        return Shown(DRAWING, expression, self.heads(expression, example), example=example)

    def heads(self, expression: str, example: Sequence[Any]) -> Drawing:
        """The heads of a selector or sequence on an input: each selector's
        selection and each head's result, in the order they are computed.

        Args:
            expression: a selector or a sequence of the session (a name or an
                expression such as ``f(3)``): its aggregates and selector widths.
            example: the input.

        Returns:
            The first heads (at most :data:`MAX_DRAWN_HEADS`) and how many there are.
        """
        reading = self.reading_for(example)
        value = reading.evaluate(expression)
        symbols = reading.elaborator.symbols
        if isinstance(value, E.Selector):
            selection = _rows(selection_shown(value, list(example), symbols))
            return Drawing((DrawnHead(value.name, value.name, selection, ()),), 1)
        if not isinstance(value, E.SOp):
            raise UsimError(f"{expression} is not a selector or a sequence: draw shows the heads of one")
        every = [node for node in topological_order([value]) if isinstance(node, (E.Aggregate, E.SelectorWidth))]
        heads = []
        for node in every[:MAX_DRAWN_HEADS]:
            selection = selection_shown(node.selector, list(example), symbols)
            result = reading.elaborator.run(node, list(example), label=node.name)
            heads.append(DrawnHead(node.name, node.selector.name, _rows(selection), tuple(result)))
        return Drawing(tuple(heads), len(every))


def _rows(matrix: list[list[bool]]) -> tuple[tuple[bool, ...], ...]:
    return tuple(tuple(row) for row in matrix)
