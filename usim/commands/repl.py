"""``usim repl [FILE.rasp] [--example X]``: a RASP session with usim's commands in it.

Statements are the RASP REPL's (tech-srl/RASP): assignments, ``def``, ``load
"file"``, ``set example``, ``examples on/off``, ``show example``, ``draw(x)``,
``exit``; a statement may span lines (the prompt is then ``..``). Every value
is shown on the running example (``"hello"`` until ``set example``), as the
REPL shows it. :mod:`usim.repl.session` says how the session is read (the
whole session is one file, read again after each statement).

usim's commands, typed at the prompt (``:`` before one is optional):

* ``check F SPEC [OPTIONS]``: ``usim check`` of the session's function or
  sequence F against a built-in spec (or ``SPEC.py:NAME``), with its options
  (``--max-n 4``, ``--mutants``, ...): each shape PROVED or refuted with a
  replayed counterexample (``--verbose``: all that ``usim check`` prints);
* ``run F [INPUT] [--exact]``: F on the example or INPUT, as ``usim run`` runs
  a file (checked float64, or rationals with ``--exact``);
* ``cost F``: attention layers and heads per layer, as usim and as the REPL count;
* ``compile F [INPUT]``: the network usim compiles F into, at the input's
  length, its size, and the network run on the input exactly against F;
* ``draw F FILE [INPUT]``: the heads of F drawn into FILE (.png, .svg, .pdf;
  needs matplotlib); ``draw(F);`` draws them in the terminal;
* ``names``, ``source`` (the session as a file), ``save FILE.rasp``, ``help``.

An error is one line and the session goes on. Line editing, history
(``$XDG_STATE_HOME/usim/repl_history``, else ``~/.local/state/usim/repl_history``)
and completion of names come from the standard library's readline when the
input is a terminal. Read from a file or a pipe (``usim repl < session.txt``),
each line is printed after its prompt, so the output is a transcript; the exit
status is then 1 when a statement or command was refused or a check was not
PROVED, 0 otherwise.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from usim.errors import InputError, UsimError

if TYPE_CHECKING:  # pragma: no cover
    from usim.repl.session import Session

PROMPT, MORE = ">> ", ".. "
COMMANDS = ("check", "run", "cost", "compile", "draw", "names", "source", "save", "help")
HELP = """usim's commands (the rest is the RASP REPL's language):
  check F SPEC [OPTIONS]   prove F against a spec (usim check's options: --max-n N, --mutants, ...;
                           --verbose: everything usim check prints)
  run F [INPUT] [--exact]  run F on the example or INPUT
  cost F                   layers and heads, as usim and as the REPL count
  compile F [INPUT]        compile F to a network at the input's length, check it on the input
  draw F FILE [INPUT]      draw F's heads into FILE (.png, .svg, .pdf)
  names | source | save FILE.rasp | help | exit"""


class Refused(UsimError):
    """A command of the session that did not do what it was asked (its message
    is printed; a script's exit status becomes 1)."""


def command_of(line: str) -> tuple[str, str] | None:
    """``(command, rest)`` when ``line`` is one of usim's commands, else None
    (a RASP statement: ``run = 3;``, ``draw(x);`` and ``names;`` are RASP).

    Args:
        line: one line typed at the prompt.

    Returns:
        The command's name and the text after it, or None.
    """
    found = re.match(r"\s*(:?)([a-z]+)(.*)$", line, re.S)
    if not found or found.group(2) not in COMMANDS:
        return None
    colon, word, rest = found.groups()
    after = rest.strip()
    rasp = not rest[:1].isspace() or after.startswith(";") or (after.startswith("=") and not after.startswith("=="))
    if colon or not after or not rasp:  # a name followed by ; = ( [ ... is RASP: run = 3; names; draw(x);
        return word, after
    return None


def _split_expression(text: str) -> tuple[str, str]:
    """The first word of ``text``, taken whole where it has parentheses
    (``f(3, 2) [1, 2]`` -> ``f(3, 2)``, ``[1, 2]``)."""
    depth = 0
    for i, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char.isspace() and depth == 0:
            return text[:i], text[i:].strip()
    return text, ""


def _words(text: str) -> list[str]:
    """A command's arguments, split as a shell splits them (quotes kept together)."""
    try:
        return shlex.split(text)
    except ValueError as error:  # shlex: No closing quotation
        raise Refused(f"cannot split the arguments: {error}") from None


def _input(session: "Session", text: str) -> list[Any]:
    from usim.repl import read_input

    if not text:
        return list(session.example)
    values = read_input(text)
    if not values:
        raise InputError("the input is empty")
    return values


class Shell:
    """One ``usim repl``: the session, how lines reach it, and what it prints."""

    def __init__(self, session: "Session", write: Callable[[str], None] = print) -> None:
        self.session = session
        self.write = write
        self.failures = 0

    def out(self, lines: list[str]) -> None:
        for line in lines:
            self.write(line)

    # -- one line ------------------------------------------------------------------
    def line(self, text: str) -> bool:
        """Take one typed line: one of usim's commands, or RASP for the session.

        Args:
            text: the line, without its newline.

        Returns:
            False once the session ends (``exit``), else True.
        """
        from usim.render_session import reply_lines

        from usim.render_session import error_line
        from usim.repl.session import message

        command = None if self.session.pending else command_of(text)
        if command is not None:
            try:
                getattr(self, "do_" + command[0])(command[1])
            except SystemExit as stop:  # argparse's own refusal of check's options (printed by it)
                if stop.code:
                    self.failures += 1
            except UsimError as error:
                self.failures += 1
                self.write(error_line(message(error)))
            return True
        reply = self.session.feed(text)
        self.failures += len(reply.errors)
        self.out(reply_lines(reply))
        return not reply.ended

    def read_file(self, path: str) -> None:
        """Start from a file's statements, each as if typed: a statement that is
        refused is said with its line, and the rest are read; ``exit`` ends the file.

        Args:
            path: a file in the REPL's language.

        Raises:
            InputError: it cannot be read or is not in the REPL's language (one line).
        """
        from usim.render_session import error_line
        from usim.repl import parse

        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise InputError(f"cannot read {path}: {error.strerror or error}") from None
        except UnicodeDecodeError:
            raise InputError(f"{path} is not UTF-8 text") from None
        for statement in parse(text, path).statements:
            reply = self.session.feed(text[statement.span.start:statement.span.end])
            for refused in reply.errors:
                self.failures += 1
                self.write(f"{path}:{statement.span.line}: {error_line(refused)}")
            if reply.ended:
                self.write(f"{path}:{statement.span.line}: exit: the rest of the file is not read")
                break
        self.write(f"read {path}: " + (", ".join(self.session.names()) or "no names"))

    # -- usim's commands -------------------------------------------------------------
    def do_help(self, rest: str) -> None:
        self.out(HELP.splitlines())

    def do_names(self, rest: str) -> None:
        self.write(", ".join(self.session.names()) or "the session defines no names yet")

    def do_source(self, rest: str) -> None:
        self.out(self.session.source.splitlines() or ["(no statements yet)"])

    def do_save(self, rest: str) -> None:
        words = _words(rest)
        if len(words) != 1 or not words[0].endswith(".rasp"):
            raise Refused("save needs one file name ending in .rasp, e.g. save mine.rasp")
        path = Path(words[0])
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            temporary.write_text(self.session.saved(str(path.parent)), encoding="utf-8")
            os.replace(temporary, path)  # whole or not at all
        except OSError as error:
            temporary.unlink(missing_ok=True)
            raise Refused(f"cannot write {path}: {error.strerror or error}") from None
        self.write(f"wrote {path} ({len(self.session.statements)} statement(s))")

    def _function(self, rest: str, what: str) -> tuple[str, str]:
        name, after = _split_expression(rest)
        if not name:
            raise Refused(f"{what} needs a function or sequence of the session, e.g. {what} f")
        return name, after

    def do_run(self, rest: str) -> None:
        from usim.commands.run import show_sequence

        exact = bool(re.search(r"(^|\s)--exact$", rest))
        rest = re.sub(r"(^|\s)--exact$", "", rest).strip()
        name, after = self._function(rest, "run")
        values = _input(self.session, after)
        reading = self.session.reading_for(values)
        self.write(show_sequence(reading.run(name, values, exact=exact)))

    def do_cost(self, rest: str) -> None:
        from usim.listings.report import ListingCost
        from usim.render_check import cost_lines

        name, after = self._function(rest, "cost")
        if after:
            raise Refused(f"cost takes one function or sequence, not {after!r}")
        self.out(cost_lines(ListingCost.of(self.session.file.program(name))))

    def do_compile(self, rest: str) -> None:
        from usim.encodings.exact import EXACT
        from usim.encodings.runners import run_exact
        from usim.transformer import forward
        from usim.transformer.compiler import MAX_POSITIONS, compile_program
        from usim.transformer.size import size_of
        from usim.repl.running import encode_input

        name, after = self._function(rest, "compile")
        values = _input(self.session, after)
        if len(values) > MAX_POSITIONS:
            raise Refused(f"compile builds networks for at most {MAX_POSITIONS} positions, not {len(values)}")
        reading = self.session.reading_for(values)
        program = reading.program(name)
        tokens = encode_input(values, reading.elaborator.symbols)
        network = compile_program(program, len(values))
        self.write(f"compiled {name} at length {len(values)}: {size_of(network).summary()}")
        wanted = run_exact(program, list(tokens))[name]
        got = forward.run(network, EXACT, list(tokens))[name]
        differs = [p for p, (a, b) in enumerate(zip(wanted, got)) if a != b]
        if differs:
            self.failures += 1
            self.write(f"the network differs from {name} on {len(differs)} position(s) of this input, "
                       f"first at {differs[0]}: {got[differs[0]]} where the program gives {wanted[differs[0]]}")
        else:
            self.write(f"the network equals {name} on this input, exactly (every position)")

    def do_draw(self, rest: str) -> None:
        from usim.render_session import heads_text

        name, after = self._function(rest, "draw")
        target, after = _split_expression(after)
        if not target:
            raise Refused("draw F FILE needs a file to draw into (draw(F); draws in the terminal)")
        path = Path(target)
        if path.suffix.lower() not in (".png", ".svg", ".pdf"):
            raise Refused(f"draw writes .png, .svg or .pdf, not {path.name}")
        values = _input(self.session, after)
        drawing = self.session.heads(name, values)
        if not drawing.heads:
            raise Refused(f"{name} reads no selector: it has no heads to draw")
        _draw_heads(drawing.heads, values, path)
        self.write(f"drew {heads_text(drawing)} of {name} into {path}")

    def do_check(self, rest: str) -> None:
        from usim.cli import build_parser
        from usim.commands import check
        from usim.repl.session import SESSION

        name, after = self._function(rest, "check")
        words = _words(after)
        verbose = "--verbose" in words
        words = [w for w in words if w != "--verbose"]
        if not words or words[0].startswith("-"):
            raise Refused("check F SPEC: name a spec, e.g. check f sort (or SPEC.py:NAME)")
        given = [w.split("=")[0] for w in words[1:] if w.split("=")[0] in ("--function", "-f", "--spec", "--spec-file")]
        if given:
            raise Refused(f"check F SPEC names the function and the spec; {given[0]} cannot be given again")
        spec = ["--spec-file", words[0]] if ":" in words[0] or words[0].endswith(".py") else ["--spec", words[0]]
        args = build_parser().parse_args(["check", SESSION, "--function", name, *spec, *words[1:]])
        if not verbose:
            self.write(f"check {name} against {words[0]}:")
        if check.run(args, text=self.session.source, brief=not verbose, files=self.session.files) != 0:
            self.failures += 1


def _draw_heads(heads: tuple, values: list[Any], path: Path) -> None:
    """Each head's selection as a picture (keys across, queries down), one panel per head."""
    from usim.show.pictures import pyplot

    plt = pyplot()
    n = len(values)
    figure, axes = plt.subplots(1, len(heads), figsize=(max(3.0, 0.35 * n + 1.5) * len(heads), 0.35 * n + 2),
                                squeeze=False)
    labels = [str(v) for v in values]
    for axis, head in zip(axes[0], heads):
        axis.imshow([[1.0 if x else 0.0 for x in row] for row in head.selection], cmap="Greys", vmin=0, vmax=1)
        axis.set_title(f"{head.name}\n({head.selector})", fontsize=9)
        axis.set_xticks(range(n), labels)
        axis.set_yticks(range(n), labels)
        axis.set_xlabel("key")
        axis.set_ylabel("query")
    figure.tight_layout()
    try:
        figure.savefig(path)
    except OSError as error:
        raise Refused(f"cannot write {path}: {error.strerror or error}") from None
    finally:
        plt.close(figure)


# -- reading lines -------------------------------------------------------------------

def history_file() -> Path:
    """``$XDG_STATE_HOME/usim/repl_history``, else ``~/.local/state/usim/repl_history``."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "usim" / "repl_history"


def _line_editing(shell: Shell, history: Path | None) -> None:
    """readline's editing, history and completion of the session's names and commands."""
    try:
        import readline
    except ImportError:  # pragma: no cover - a Python without readline: plain input()
        return
    import atexit

    def complete(text: str, state: int) -> str | None:
        words = sorted({*shell.session.names(), *COMMANDS, "tokens", "indices", "length", "select",
                        "aggregate", "selector_width"})
        matches = [w for w in words if w.startswith(text)]
        return matches[state] if state < len(matches) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" \t\n()[],;=+-*/%^<>!")
    readline.parse_and_bind("tab: complete")
    if history is not None:
        try:
            history.parent.mkdir(parents=True, exist_ok=True)
            if history.exists():
                readline.read_history_file(history)
        except OSError:
            history = None
    if history is not None:
        readline.set_history_length(1000)
        atexit.register(_save_history, readline, history)


def _save_history(readline: Any, history: Path) -> None:
    try:
        readline.write_history_file(history)
    except OSError:  # pragma: no cover - a history that cannot be written is not kept
        pass


def _typed(shell: Shell) -> Iterator[str]:
    """Lines from a terminal, with prompts (Ctrl-C drops an unfinished statement)."""
    while True:
        try:
            yield input(MORE if shell.session.pending else PROMPT)
        except EOFError:
            print()
            return
        except KeyboardInterrupt:
            shell.session.cancel()
            print()


def _scripted(shell: Shell, stream: Any) -> Iterator[str]:
    """Lines from a file or a pipe, each printed after its prompt (a transcript)."""
    for raw in stream:
        line = raw.rstrip("\n")
        print((MORE if shell.session.pending else PROMPT) + line)
        yield line


def run(args: argparse.Namespace) -> int:
    from usim.repl.session import Session, example_literal

    example = None
    if args.example is not None:
        from usim.repl import read_input

        example = read_input(args.example)
        if not example:
            raise InputError("--example is empty: give a list or a string, e.g. --example '[1, 2, 3]'")
    session = Session(example) if example is not None else Session()
    shell = Shell(session)
    interactive = sys.stdin.isatty()
    print("usim repl: the RASP REPL's language, with usim's proofs (help: usim's commands; exit or Ctrl-D ends)")
    for path in args.files:
        shell.read_file(path)
    print(f"example: {example_literal(session.example)}")
    if interactive:
        _line_editing(shell, None if args.no_history else history_file())
    for line in (_typed(shell) if interactive else _scripted(shell, sys.stdin)):
        try:
            if not shell.line(line):
                break
        except KeyboardInterrupt:  # a long check or compile stopped: the session goes on
            shell.session.cancel()
            shell.failures += 1
            print("interrupted")
        except Exception as error:  # a fault of usim's, not of the line: one line, and the session goes on
            shell.failures += 1
            print(f"error: usim failed on this line ({type(error).__name__}: {error}); the session goes on")
    if session.pending and not interactive:
        shell.failures += 1
        print("error: the input ended inside a statement")
    return 1 if shell.failures and not interactive else 0


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "repl", help="an interactive session in the RASP REPL's language, with usim's check, run, "
        "cost, compile and draw inside it",
        description="A session in the RASP REPL's language: statements, def, load \"file\", set example, "
        "examples on/off, show example, draw(x); every value shown on the running example (\"hello\" "
        "until set example). usim's commands inside it: check F SPEC [OPTIONS], run F [INPUT] [--exact], "
        "cost F, compile F [INPUT], draw F FILE [INPUT], names, source, save FILE.rasp, help. An error is "
        "one line and the session goes on. From a terminal: line editing, history and completion "
        "(readline). From a file or a pipe (usim repl < session.txt): a transcript, exit status 1 when a "
        "line was refused or a check was not PROVED.",
        epilog="Inside the session, type help for usim's commands.")
    parser.add_argument("files", nargs="*", metavar="FILE.rasp", help="files whose statements start the session")
    parser.add_argument("--example", help='the running example, e.g. \'"hello"\' (the default) or \'[1, 2, 3]\'')
    parser.add_argument("--no-history", action="store_true", help="neither read nor write the history file")
    parser.set_defaults(func=run)
