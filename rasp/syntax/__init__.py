"""Programs written in the original RASP REPL's language, read into usim.

``load_file(path)`` / ``load_text(text)`` parse a file (lark grammar ``rasp.lark``,
:mod:`.parser`), run its statements (:mod:`.evaluator`, with the REPL's library,
:mod:`.library`) and return a :class:`RaspFile`: its names, its examples, and
``build(name, args)`` / ``program(name, args)``, which call a function of the file
(or take a sequence it defines) and give usim's expression graph.

Syntax errors are :class:`RaspSyntaxError` and meaning errors
:class:`RaspEvaluationError`; both name file, line, column and the offending text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from usim.errors import UsimError
from usim.rasp import expr as E
from usim.rasp.program import Program
from usim.rasp.syntax import tree
from usim.rasp.syntax.errors import RaspEvaluationError, RaspFileError, RaspSyntaxError
from usim.rasp.syntax.evaluator import Env, Evaluator, Example, RaspFunction, describe
from usim.rasp.syntax.library import base_env
from usim.rasp.syntax.parser import parse, parse_expression

EXPRESSION_FILE = "<expression>"

__all__ = [
    "Built", "Example", "RaspEvaluationError", "RaspFile", "RaspFileError", "RaspFunction",
    "RaspSyntaxError", "is_name", "load_file", "load_text", "parse", "parse_expression",
]


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
    evaluator: Evaluator

    @property
    def examples(self) -> list[Example]:
        return list(self.evaluator.examples)

    @property
    def uses(self) -> set[str]:
        """Token kinds read (tokens_int, ...) and usim additions used (exp, Map, ...)."""
        return set(self.evaluator.uses)

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
        return self.env.vars[name]

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
        name); ``name`` may also be an expression, e.g. ``Det(Cofactor())``."""
        args = dict(args or {})
        value = self.get(name)
        scope: Mapping[str, Any] = {}
        if isinstance(value, tree.Node):  # an expression
            value, scope = self.evaluator.evaluate_outside(value, Env(self.env), EXPRESSION_FILE, name)
        elif isinstance(value, RaspFunction):
            missing = [p for p in value.params if p not in args]
            if missing:
                raise RaspEvaluationError(
                    self.filename, value.span.line, value.span.column,
                    f"cannot call {name}: no value for its parameter(s) {', '.join(missing)}",
                    f"def {name}({', '.join(value.params)})")
            result, env = self.evaluator.invoke(value, [args[p] for p in value.params])
            value, scope = result, dict(env.vars)
        if not isinstance(value, E.SOp):
            raise UsimError(f"{name} in {self.filename} is {describe(value)}, not a sequence "
                            "(usim checks a function that returns one sequence, or a sequence)")
        return Built(name, value, scope)

    def program(self, name: str, args: Mapping[str, Any] | None = None) -> Program:
        built = self.build(name, args)
        return Program.of(name, {name: built.sop}, f"{name} from {self.filename}")

    def evaluate(self, text: str, bindings: Mapping[str, Any] | None = None) -> Any:
        """The value of a RASP expression in the file's scope, with ``bindings``
        (names to values) visible over it."""
        scope = Env(self.env)
        for key, value in (bindings or {}).items():
            scope.set(key, value)
        return self.evaluator.evaluate_outside(parse_expression(text, EXPRESSION_FILE), scope,
                                               EXPRESSION_FILE, text)[0]


def is_name(text: str) -> bool:
    """A plain name (a function or sequence of the file), not an expression."""
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", text or ""))


def load_text(text: str, filename: str = "<string>") -> RaspFile:
    """Parse and run RASP source text."""
    module = parse(text, filename)
    evaluator = Evaluator(loader=_loader)
    library = base_env(evaluator)
    env = Env(library, name=filename)
    evaluator.run_module(module, env)
    return RaspFile(filename, text, module, env, evaluator)


def load_file(path: str | Path) -> RaspFile:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        from usim.errors import InputError

        raise InputError(f"no such file: {path}") from None
    except UnicodeDecodeError as error:
        from usim.errors import InputError

        raise InputError(f"{path} is not UTF-8 text: {error}") from None
    return load_text(text, str(path))


def _loader(path: str, from_file: str) -> tree.Module:
    return parse(Path(path).read_text(encoding="utf-8"), path)
