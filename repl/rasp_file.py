"""A RASP REPL file, read: its names, examples and alphabet, and the sequences it builds.

:func:`load_text` / :func:`load_file` parse a file (:mod:`.parser`), elaborate
its statements over the REPL's library (:mod:`.elaborate`, :mod:`.library`) --
with symbols, as many times as it takes to know every string it makes
(:mod:`.symbols`) -- and give a :class:`RaspFile`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from usim.errors import UsimError
from usim.rasp import expr as E
from usim.rasp.program import Program
from usim.repl import tree
from usim.repl.errors import RaspEvaluationError
from usim.repl.elaborate import Elaborator
from usim.repl.library import base_env
from usim.repl.parser import parse, parse_expression
from usim.repl.running import Example, run_numbers
from usim.repl.symbols import CONCATENATION, Alphabet, Collecting, NewStrings, within_limit
from usim.repl.values import Env, RaspFunction, Unbuilt, describe

EXPRESSION_FILE = "<expression>"


@dataclass(frozen=True)
class Built:
    """A sequence the file defines, and the local variables of the call that built it."""

    name: str
    sop: E.SOp
    locals: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class RaspFile:
    """A parsed and evaluated RASP file."""

    filename: str
    source: str
    tree: tree.Module
    env: Env
    elaborator: Elaborator

    @property
    def examples(self) -> list[Example]:
        return list(self.elaborator.examples)

    @property
    def alphabet(self) -> Alphabet | None:
        """The symbols (codes in sorted order) when the input is read as symbols."""
        return self.elaborator.alphabet

    def kind_of(self, sop: E.SOp) -> str:
        """number, boolean or symbol (:mod:`usim.repl.symbols`)."""
        return self.elaborator.kind(sop)

    @property
    def uses(self) -> set[str]:
        """Token kinds read (tokens_int, ...) and usim additions used (exp, Map, ...)."""
        return set(self.elaborator.uses)

    def names(self) -> list[str]:
        return sorted(n for n in self.env.vars if n != "out")

    def get(self, name: str) -> Any:
        """The value of a name the file defines; for an expression such as
        ``Det(Cofactor())``, the expression's syntax (it is checked to parse)."""
        if not is_name(name):
            return parse_expression(name, EXPRESSION_FILE)
        if name not in self.env.vars:
            defined = ", ".join(self.names()) or "nothing"
            raise UsimError(f"{self.filename} defines no {name!r} (it defines: {defined})")
        value = self.env.vars[name]
        if isinstance(value, Unbuilt):
            raise value.error
        return value

    def parameters(self, name: str) -> tuple[str, ...]:
        value = self.get(name)
        return value.params if isinstance(value, RaspFunction) else ()

    def function_of(self, name: str) -> RaspFunction | None:
        """The function of the file that ``name`` is, or that an expression such
        as ``Det(Cofactor())`` calls at its top; None for anything else."""
        value = self.get(name)
        if isinstance(value, tree.Call) and isinstance(value.func, tree.Name):
            found, value = self.env.lookup(value.func.id)
        return value if isinstance(value, RaspFunction) else None

    def build(self, name: str, args: Mapping[str, Any] | None = None) -> Built:
        """The sequence ``name`` is (a function is called with ``args`` by parameter
        name); ``name`` may also be an expression, e.g. ``Det(Cofactor())``.

        A call that joins symbols into strings the alphabet has no code for
        (a ``+`` inside a function, which the file's reading did not run)
        widens the alphabet first: the file is read again with every string the
        call makes, so :attr:`alphabet` may change here, and with it every code
        (sequences built before belong to the narrower alphabet)."""
        try:
            return self._build(name, args)
        except NewStrings:
            self._widen(lambda wider: wider._build(name, args))
            return self._build(name, args)

    def _widen(self, action: Callable[["RaspFile"], Any]) -> None:
        """Read the file again, collecting every string it and ``action`` make,
        then once more with the alphabet of them all (the codes stay in the
        strings' sorted order)."""
        alphabet = self.alphabet
        assert alphabet is not None  # only symbols are joined
        collecting = Collecting(alphabet.inputs)
        action(_run(self.tree, collecting, self.elaborator.loader))
        self.widen(collecting.seen)

    def widen(self, symbols: Sequence[str]) -> None:
        """Read the file again with ``symbols`` added to its alphabet (a
        certificate's alphabet, so that its obligations are built again with
        the codes they were proved with)."""
        alphabet = self.alphabet
        if alphabet is None:
            raise UsimError(f"{self.filename} is not read with symbols: it has no alphabet to widen")
        every = set(alphabet.symbols) | set(symbols)
        if every == set(alphabet.symbols):
            return
        within_limit(len(every), self.filename)
        wider = _run(self.tree, Alphabet.of(every, alphabet.inputs), self.elaborator.loader)
        self.env, self.elaborator = wider.env, wider.elaborator

    def value_of(self, name: str) -> Any:
        """What ``name`` is: a sequence, or any other value the file computes
        (``a = 9;``, a function of no parameters returning a list, ``f(3)``).

        Args:
            name: a name of the file, or an expression.

        Returns:
            The value (a sequence as its expression graph).
        """
        try:
            return self._value(name, None)[0]
        except NewStrings:
            self._widen(lambda wider: wider._value(name, None))
            return self._value(name, None)[0]

    def _build(self, name: str, args: Mapping[str, Any] | None = None) -> Built:
        value, scope = self._value(name, args)
        if not isinstance(value, E.SOp):
            raise UsimError(f"{name} in {self.filename} is {describe(value)}, not a sequence "
                            "(usim checks a function that returns one sequence, or a sequence)")
        return Built(name, value, scope)

    def _value(self, name: str, args: Mapping[str, Any] | None) -> tuple[Any, Mapping[str, Any]]:
        args = dict(args or {})
        value = self.get(name)
        scope: Mapping[str, Any] = {}
        if isinstance(value, tree.Node):  # an expression
            value, scope = self.elaborator.evaluate_outside(value, Env(self.env), EXPRESSION_FILE, name)
        elif isinstance(value, RaspFunction):
            missing = [p for p in value.params if p not in args]
            if missing:
                raise RaspEvaluationError(
                    value.filename, value.span.line, value.span.column,
                    f"cannot call {name}: no value for its parameter(s) {', '.join(missing)} "
                    f"(write the call itself, e.g. {name}({', '.join('...' for _ in value.params)}))",
                    f"def {name}({', '.join(value.params)})")
            result, env = self.elaborator.invoke(value, [args[p] for p in value.params])
            value, scope = result, dict(env.vars)
        return value, scope

    def program(self, name: str, args: Mapping[str, Any] | None = None) -> Program:
        built = self.build(name, args)
        return Program.of(name, {name: built.sop}, f"{name} from {self.filename}")

    def evaluate(self, text: str, bindings: Mapping[str, Any] | None = None) -> Any:
        """The value of a RASP expression in the file's scope, with ``bindings``
        (names to values) visible over it."""
        scope = Env(self.env)
        for key, value in (bindings or {}).items():
            scope.set(key, value)
        return self.elaborator.evaluate_outside(parse_expression(text, EXPRESSION_FILE), scope,
                                               EXPRESSION_FILE, text)[0]


    def run(self, name: str, tokens: Sequence[Any], exact: bool = False) -> list[Any]:
        """The sequence ``name`` (a function of no parameters, or an expression
        such as ``f(3)``) on one input: numeric (float64, checked: an overflow or
        an undefined value is an error, never a wrong number; long double when
        float64's range is not enough), or exact (rationals) with ``exact``.
        Boolean sequences come back as booleans, numbers as numpy floats of the
        type they were computed in (a long double is never rounded to float64:
        that would lose its digits, and below 2.2e-308 its value)."""
        from usim.errors import InputError

        if not tokens:
            raise InputError("the input is empty")
        built = self.build(name)
        if self.alphabet is not None:  # symbols: exact, on their codes
            return self.elaborator.run(built.sop, list(tokens), exact_only=True,
                                       label=name if is_name(name) else "the expression")
        label = name if is_name(name) else "the expression"
        return run_numbers(built.sop, label, tokens, exact, self.kind_of(built.sop) == "boolean")


def read_input(text: str) -> list[Any]:
    """An input as a RASP file writes one: a list such as ``[1, 2.5, -3]`` (or a
    string, its characters), read exactly."""
    value = load_text("", "<input>").evaluate(text)
    if isinstance(value, str):
        return list(value)
    if not isinstance(value, (list, tuple)):
        raise UsimError(f"the input {text!r} is {describe(value)}: write a list such as [1, 2, 3]")
    return list(value)


def is_name(text: str) -> bool:
    """A plain name (a function or sequence of the file), not an expression."""
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", text or ""))


def load_text(text: str, filename: str = "<string>", symbols: bool = False,
              inputs: Sequence[str] | None = None, with_examples: bool = False,
              files: dict[str, str] | None = None) -> RaspFile:
    """Parse and run RASP source text.

    By default the input and every sequence hold numbers (a string meeting a
    sequence is an error). With ``symbols`` the input is read as symbols, as
    the REPL's ``tokens_str``: the file is run once to collect every string it
    uses and makes (a ``+`` of symbols makes the strings it can join, so a file
    that joins strings is read a second time once the input's symbols are
    known), then again with the alphabet of them all, sorted (strings as codes,
    :mod:`usim.repl.symbols`). The input ranges over ``inputs`` (by
    default the symbols of the file's examples, else every symbol it uses; with
    ``with_examples``, the examples' symbols as well as ``inputs``: a run on one
    input, where the file's own applications must run too). ``files``: the text
    of each file a ``load`` reads, by its path; a path not in it is read from
    disk and added (a session keeps what it loaded, whatever the disk holds later)."""
    module = parse(text, filename)
    loader = _loader if files is None else _keeping(files)
    alphabet = None
    if symbols:
        first = _run(module, Collecting(inputs or ()), loader)
        seen = set(first.elaborator.alphabet.seen) | string_literals(module)  # type: ignore[union-attr]
        examples = {v for e in first.examples for v in e.values if isinstance(v, str)}
        chosen = list(inputs) if inputs else (sorted(examples) or sorted(seen))
        if inputs and with_examples:
            chosen = sorted(set(inputs) | examples)
        if not chosen:
            raise UsimError(f"{filename}: no symbol to read the input as: give an alphabet "
                            "(--alphabet abc) or an example of strings (set example \"abc\")")
        if CONCATENATION in first.uses and not set(chosen) <= set(inputs or ()):
            # the first reading did not know the input's symbols, so it could
            # not make the strings a + joins to them: read it again knowing them
            again = _run(module, Collecting(chosen), loader)
            seen |= set(again.elaborator.alphabet.seen)  # type: ignore[union-attr]
        within_limit(len(seen | examples), filename)
        alphabet = Alphabet.of(seen | examples, chosen)
    return _run(module, alphabet, loader)


def string_literals(module: tree.Module) -> set[str]:
    """Every string the file writes, and each of its characters (a function's
    body runs only when it is called: its strings are found here)."""
    found: set[str] = set()
    stack: list[Any] = list(module.statements)
    while stack:
        node = stack.pop()
        if isinstance(node, tree.SetExample) and isinstance(node.expr, tree.String):
            found.update(node.expr.value)  # an example's string is its characters, never one symbol
            continue
        if isinstance(node, tree.String):
            found.add(node.value)
            found.update(node.value)
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
        elif isinstance(node, tree.Node):
            stack.extend(getattr(node, f.name) for f in fields(node) if f.name != "span")
    return found


def _run(module: tree.Module, alphabet: Alphabet | None,
         loader: Callable[[str, str], tree.Module] | None = None) -> RaspFile:
    elaborator = Elaborator(loader=loader or _loader, alphabet=alphabet)
    library = base_env(elaborator)
    env = Env(library, name=module.filename)
    elaborator.run_module(module, env)
    return RaspFile(module.filename, module.source, module, env, elaborator)


def load_file(path: str | Path, symbols: bool = False, inputs: Sequence[str] | None = None,
              with_examples: bool = False) -> RaspFile:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        from usim.errors import InputError

        raise InputError(f"no such file: {path}") from None
    except UnicodeDecodeError as error:
        from usim.errors import InputError

        raise InputError(f"{path} is not UTF-8 text: {error}") from None
    except OSError as error:  # a folder, no permission, ...
        from usim.errors import InputError

        raise InputError(f"cannot read {path}: {error.strerror}") from None
    return load_text(text, str(path), symbols, inputs, with_examples)


def _loader(path: str, from_file: str) -> tree.Module:
    return parse(Path(path).read_text(encoding="utf-8"), path)


def _keeping(files: dict[str, str]) -> Callable[[str, str], tree.Module]:
    """A loader that reads each file once: from ``files``, else from disk into ``files``."""
    def load(path: str, from_file: str) -> tree.Module:
        if path not in files:
            files[path] = Path(path).read_text(encoding="utf-8")
        return parse(files[path], path)
    return load
