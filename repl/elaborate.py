"""The meaning of a RASP REPL file: its statements run into usim expression nodes.

This follows the REPL's own evaluator (tech-srl/RASP, ``RASP_support/Evaluator.py``):
a file is a list of statements run in order in an environment; values are atoms
(numbers, booleans, strings), lists, dicts, functions, and the "unfinished"
sequences and selectors, which here are :mod:`usim.rasp.expr` nodes. Running a
statement never runs a program: it builds the expression graph, exactly as the
REPL builds its unfinished objects.

Operations have the REPL's meaning (:mod:`.operators`, where they are listed);
``f(args)`` is a function call, and ``sop(input)`` runs a sequence on an input
list (recorded as one of the file's examples; :mod:`.running`).

Names: by default ``tokens``, ``tokens_int``, ``tokens_float``, ``tokens_str``
and ``tokens_asis`` are all usim's numeric input (the REPL's ``int`` conversion of
``tokens_int`` is not applied, and a string meeting a sequence is an error);
``tokens_bool`` is ``tokens != 0``. A file read with symbols (``load_text(...,
symbols=True)``) reads ``tokens``, ``tokens_str`` and ``tokens_asis`` as symbols, the
REPL's strings, held as codes; every sequence then has a kind (number, boolean,
symbol) and the REPL's rules for mixing them are applied here
(:mod:`.symbols`): aggregates of booleans and symbols move one value and never
average. ``indices``, ``length``, ``True``, ``False``; the REPL library (see
:mod:`.library`).

usim additions (not in the REPL; a checked file that uses them says so):
``exp(x)``, ``sqrt(x)``, ``abs(x)``; ``numerical(x)`` and ``categorical(x)``
(Tracr's annotations, no-ops); ``Map(f, s)`` and ``SequenceMap(f, s1, s2, ...)``
where ``f`` is ``lambda params: body`` or a RASP function whose body, applied to
the sequences, is element-wise: built only from the parameters, numbers and the
operations (+ - * / % ^, comparisons, and/or/not, ``a if c else b``,
round, indicator, exp, sqrt, abs, the library's max/min). Anything else in a lambda
(a Python function, a method, an attribute) is rejected with its position.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

from usim.errors import UsimError
from usim.rasp import expr as E
from usim.repl import tree as T
from usim.repl.errors import RaspEvaluationError, TableTooLarge
from usim.repl.operators import Operators
from usim.repl.running import Example, run_shown
from usim.repl.symbols import Alphabet, Collecting, SymbolTables
from usim.repl.values import BuiltinFunction, Env, LambdaValue, RaspFunction, Unbuilt, describe

# The REPL's reserved names: constants that cannot be assigned.
RESERVED = frozenset({
    "tokens_asis", "tokens_str", "tokens_int", "tokens_bool", "tokens_float", "indices",
    "True", "False",
})

_PRIMITIVES = (E.Tokens, E.Indices, E.Length)
MAX_CALL_DEPTH = 100  # nested calls of RASP functions (the REPL has no recursion either)

def _names_set(statement: T.Node) -> list[str]:
    """The names an assignment, or a for loop (its variables and every assignment in its body), sets."""
    if isinstance(statement, T.Assign):
        return list(statement.names)
    if isinstance(statement, T.ForLoop):
        return list(statement.names) + [n for inner in statement.body for n in _names_set(inner)]
    return []


class _Exit(Exception):
    """`exit` / `quit`: stop running the file."""


@dataclass
class _Frame:
    filename: str
    source: str
    call: str = ""  # "in a call of f at file:line:col"


@dataclass
class Elaborator(Operators):
    """Elaborates a file: runs its statements into usim expression nodes, and
    collects the file's examples and the additions it uses."""

    loader: Callable[[str, str], T.Module] | None = None  # (path, from_file) -> tree
    examples: list[Example] = field(default_factory=list)
    uses: set[str] = field(default_factory=set)
    frames: list[_Frame] = field(default_factory=list)
    _loading: set[str] = field(default_factory=set)
    _lambda_depth: int = 0
    _guarded: bool = False
    alphabet: Alphabet | None = None  # None: usim's numbers only; else strings are symbols (codes)
    symbols: SymbolTables = field(init=False)  # the kinds of its sequences, the tables of + on symbols

    def __post_init__(self) -> None:
        self.symbols = SymbolTables(self.alphabet)

    # -- errors ------------------------------------------------------------------
    def error(self, node: T.Node, message: str,
              kind: type[RaspEvaluationError] = RaspEvaluationError) -> RaspEvaluationError:
        frame = self.frames[-1]
        calls = list(dict.fromkeys(f.call for f in reversed(self.frames) if f.call))
        if calls:
            message += " (" + "; ".join(calls[:3]) + ")"
        return kind(frame.filename, node.span.line, node.span.column, message, node.span.text(frame.source))

    def _where(self, node: T.Node) -> str:
        frame = self.frames[-1]
        return f"{frame.filename}:{node.span.line}:{node.span.column}"

    # -- files --------------------------------------------------------------------
    def run_module(self, module: T.Module, env: Env) -> None:
        self.frames.append(_Frame(module.filename, module.source))
        try:
            for statement in module.statements:
                with self._depth_guard(statement):
                    try:
                        self.execute(statement, env)
                    except TableTooLarge as error:
                        if not isinstance(statement, (T.Assign, T.ForLoop)):
                            raise
                        # as the REPL, which builds a sequence only when it is shown: the
                        # names the statement sets stay unbuilt, and only what reads them is refused
                        for name in _names_set(statement):
                            self.bind(statement, env, name, Unbuilt(name, error))
        except _Exit:
            pass
        finally:
            self.frames.pop()

    @contextlib.contextmanager
    def _depth_guard(self, node: T.Node):
        """Python's own recursion limit, met by a recursive RASP function before
        :data:`MAX_CALL_DEPTH` or by a very deeply nested expression, as one error."""
        outermost = not self._guarded
        self._guarded = True
        try:
            yield
        except RecursionError:
            if not outermost:
                raise
            raise self.error(node, "calls or expressions nested too deeply (a recursive function? "
                                   "RASP functions cannot call themselves)") from None
        finally:
            if outermost:
                self._guarded = False

    def evaluate_outside(self, node: T.Node, env: Env, filename: str, source: str) -> tuple[Any, dict]:
        """An expression given from outside any file (``usim check --function
        'Det(Cofactor())'``): its value, and, when it calls a RASP function, the
        local variables of that call."""
        self.frames.append(_Frame(filename, source))
        try:
            with self._depth_guard(node):
                if isinstance(node, T.Call) and isinstance(node.func, T.Name):
                    found, function = env.lookup(node.func.id)
                    if found and isinstance(function, RaspFunction):
                        args = [self.eval(a, env) for a in node.args]
                        result, scope = self.call_function(node, function, args)
                        return result, dict(scope.vars)
                return self.eval(node, env), {}
        finally:
            self.frames.pop()

    # -- statements -------------------------------------------------------------
    def execute(self, node: T.Node, env: Env) -> None:
        if isinstance(node, T.Assign):
            values = [self.eval(v, env) for v in node.values]
            value: Any = values[0] if len(values) == 1 else tuple(values)
            if len(node.names) == 1:
                self.assign(node, env, node.names[0], value)
                return
            if not isinstance(value, (list, tuple)) or len(value) != len(node.names):
                got = len(value) if isinstance(value, (list, tuple)) else 1
                raise self.error(node, f"{len(node.names)} names but {got} value(s)")
            for name, v in zip(node.names, value):
                self.assign(node, env, name, v)
        elif isinstance(node, T.ExprStatement):
            env.set("out", self.eval(node.expr, env))
        elif isinstance(node, T.FuncDef):
            frame = self.frames[-1]
            function = RaspFunction(node.name, node.params, node.body, node.returns, env,
                                    frame.filename, frame.source, node.span)
            self.bind(node, env, node.name, function)
        elif isinstance(node, T.ForLoop):
            iterable = self.eval(node.iterable, env)
            if isinstance(iterable, dict):
                iterable = list(iterable)
            if not isinstance(iterable, (list, tuple)):
                raise self.error(node.iterable, f"a for loop needs a list or dict, got {describe(iterable)}")
            for item in iterable:
                if len(node.names) == 1:
                    self.bind(node, env, node.names[0], item)
                else:
                    if not isinstance(item, (list, tuple)) or len(item) != len(node.names):
                        raise self.error(node, f"cannot unpack {describe(item)} into {len(node.names)} names")
                    for name, v in zip(node.names, item):
                        self.bind(node, env, name, v)
                for statement in node.body:
                    self.execute(statement, env)
        elif isinstance(node, T.SetExample):
            value = self.eval(node.expr, env)
            self.record_example(node.expr, value, "set example")
        elif isinstance(node, T.Draw):
            self.eval(node.expr, env)  # evaluated for its errors; no picture is drawn
            if node.input is not None:
                self.eval(node.input, env)
        elif isinstance(node, T.Load):
            self.load(node, env)
        elif isinstance(node, T.ReplCommand):
            pass  # display settings: no meaning for proofs
        elif isinstance(node, T.Exit):
            raise _Exit()
        else:  # pragma: no cover - the parser makes nothing else
            raise self.error(node, f"unknown statement {type(node).__name__}")

    def assign(self, node: T.Node, env: Env, name: str, value: Any) -> None:
        """An assignment statement: as in the REPL, a node takes the name it is
        assigned to (the last assignment wins; tokens, indices and length keep theirs)."""
        self.bind(node, env, name, value)
        if isinstance(value, (E.SOp, E.Selector)) and not isinstance(value, _PRIMITIVES):
            value.named(name)

    def bind(self, node: T.Node, env: Env, name: str, value: Any) -> None:
        """A variable set without naming its value (parameters, loop variables)."""
        if name in RESERVED:
            raise self.error(node, f"cannot assign to the reserved name {name}")
        env.set(name, value)

    def load(self, node: T.Load, env: Env) -> None:
        if self.loader is None:
            raise self.error(node, "`load` is not available here")
        frame = self.frames[-1]
        base = os.path.dirname(frame.filename) if os.path.exists(frame.filename) else "."
        path = os.path.normpath(os.path.join(base, node.filename + ".rasp"))
        if path in self._loading:
            raise self.error(node, f"{path} loads itself")
        try:
            module = self.loader(path, frame.filename)
        except FileNotFoundError:
            raise self.error(node, f"could not find the file {path}") from None
        except UnicodeDecodeError:
            raise self.error(node, f"{path} is not UTF-8 text") from None
        except OSError as error:  # a folder, no permission, ...
            raise self.error(node, f"cannot read {path}: {error.strerror or error}") from None
        # As in the REPL: the file runs in its own scope over the library, and
        # every name not starting with "_" is copied into the loading scope.
        root = env
        while root.parent is not None and root.parent.name != "library":
            root = root.parent
        scope = Env(root.parent, name=path)
        self._loading.add(path)
        try:
            self.run_module(module, scope)
        finally:
            self._loading.discard(path)
        for name, value in scope.vars.items():
            if not name.startswith("_") and name != "out":
                env.set(name, value)

    def record_example(self, node: T.Node, value: Any, kind: str) -> None:
        if isinstance(value, str):
            value = list(value)
        if not isinstance(value, (list, tuple)):
            raise self.error(node, f"an example must be a list (or string), got {describe(value)}")
        self.examples.append(Example(tuple(value), node.span.line, kind))

    # -- expressions -------------------------------------------------------------
    def eval(self, node: T.Node, env: Env) -> Any:
        method = getattr(self, "_eval_" + type(node).__name__)
        return method(node, env)

    def _eval_Number(self, node: T.Number, env: Env) -> Any:
        return node.value

    def _eval_String(self, node: T.String, env: Env) -> Any:
        return node.value

    def _eval_Name(self, node: T.Name, env: Env) -> Any:
        found, value = env.lookup(node.id)
        if not found:
            hint = ""
            if self._lambda_depth:
                hint = ("; a lambda body may use only its parameters, numbers, + - * / % ^, "
                        "comparisons, and/or/not, `a if c else b` and RASP functions")
            raise self.error(node, f"unknown name {node.id}{hint}")
        if isinstance(value, Unbuilt):
            raise value.error
        if node.id.startswith("tokens"):
            self.uses.add(node.id)
            if self.alphabet is not None and node.id in ("tokens_int", "tokens_float", "tokens_bool"):
                raise self.error(node, f"{node.id} reads the input as numbers, but it is read as symbols "
                                       "here (a spec of symbols, --alphabet, or an input of strings)")
        if isinstance(value, BuiltinFunction) and value.addition:
            self.uses.add(f"usim addition {value.name}")
        return value

    def _eval_ListLit(self, node: T.ListLit, env: Env) -> Any:
        return [self.eval(item, env) for item in node.items]

    def _eval_DictLit(self, node: T.DictLit, env: Env) -> Any:
        out = {}
        for key, value in node.pairs:
            out[self.dict_key(key, env)] = self.eval(value, env)
        return out

    def dict_key(self, node: T.Node, env: Env) -> Any:
        key = self.eval(node, env)
        if not isinstance(key, (int, Fraction, bool, str)):
            raise self.error(node, f"a dict key must be an atom, got {describe(key)}")
        return key

    def _eval_ListComp(self, node: T.ListComp, env: Env) -> Any:
        out = []
        for scope in self._iterations(node, node.names, node.iterable, env):
            out.append(self.eval(node.value, scope))
        return out

    def _eval_DictComp(self, node: T.DictComp, env: Env) -> Any:
        out = {}
        for scope in self._iterations(node, node.names, node.iterable, env):
            out[self.dict_key(node.key, scope)] = self.eval(node.value, scope)
        return out

    def _iterations(self, node: T.Node, names: tuple[str, ...], iterable_node: T.Node, env: Env):
        iterable = self.eval(iterable_node, env)
        if isinstance(iterable, dict):
            iterable = list(iterable)
        if not isinstance(iterable, (list, tuple)):
            raise self.error(iterable_node, f"a comprehension needs a list or dict, got {describe(iterable)}")
        for item in iterable:
            scope = Env(env)
            if len(names) == 1:
                self.bind(node, scope, names[0], item)
            else:
                if not isinstance(item, (list, tuple)) or len(item) != len(names):
                    raise self.error(node, f"cannot unpack {describe(item)} into {len(names)} names")
                for name, v in zip(names, item):
                    self.bind(node, scope, name, v)
            yield scope

    def _eval_Builtin(self, node: T.Builtin, env: Env) -> Any:
        args = [self.eval(a, env) for a in node.args]
        if node.name == "range":
            if not 1 <= len(args) <= 3 or not all(isinstance(a, int) and not isinstance(a, bool) for a in args):
                raise self.error(node, "range takes 1 to 3 integers")
            return list(range(*args))
        if node.name == "len":
            if not isinstance(args[0], (list, tuple, dict, str)):
                raise self.error(node, f"len needs a list, got {describe(args[0])}")
            return len(args[0])
        # zip
        if not all(isinstance(a, (list, tuple)) for a in args):
            raise self.error(node, "zip takes lists")
        if len({len(a) for a in args}) > 1:
            raise self.error(node, "zip needs lists of one length")
        return [list(t) for t in zip(*args)]

    def _eval_Lambda(self, node: T.Lambda, env: Env) -> Any:
        frame = self.frames[-1]
        return LambdaValue(node.params, node.body, env, frame.filename, frame.source, node.span)

    def _eval_Call(self, node: T.Call, env: Env) -> Any:
        function = self.eval(node.func, env)
        args = [self.eval(a, env) for a in node.args]
        return self.call(node, function, args)

    def call(self, node: T.Call, function: Any, args: list[Any]) -> Any:
        if isinstance(function, RaspFunction):
            return self.call_function(node, function, args)[0]
        if isinstance(function, BuiltinFunction):
            return function.fn(self, node, args)
        if isinstance(function, LambdaValue):
            return self.call_lambda(node, function, args)
        if isinstance(function, E.SOp):
            return self.apply(node, function, args)
        if isinstance(function, E.Selector):
            raise self.error(node, "applying a selector to an input is not supported (apply a sequence)")
        raise self.error(node.func, f"{describe(function)} is not a function")

    def call_function(self, node: T.Node, function: RaspFunction, args: list[Any]) -> tuple[Any, Env]:
        """The result of a call, and the scope of the call (its local variables)."""
        if len(args) != len(function.params):
            raise self.error(node, f"{function.name} takes {len(function.params)} argument(s), got {len(args)}")
        for arg in args:
            if isinstance(arg, LambdaValue):
                raise self.error(node, "a lambda may only be passed to Map or SequenceMap")
        scope = Env(function.closure, name=function.name)
        for name, value in zip(function.params, args):
            self.bind(node, scope, name, value)
        call = f"in a call of {function.name} at {self._where(node)}" if self.frames else ""
        self.frames.append(_Frame(function.filename, function.source, call))
        try:
            if len(self.frames) > MAX_CALL_DEPTH:
                raise self.error(node, f"calls nested more than {MAX_CALL_DEPTH} deep (recursion in "
                                       f"{function.name}? RASP functions cannot call themselves)")
            for statement in function.body:
                self.execute(statement, scope)
            results = [self.eval(r, scope) for r in function.returns]
        finally:
            self.frames.pop()
        return (results[0] if len(results) == 1 else tuple(results)), scope

    def invoke(self, function: RaspFunction, args: list[Any]) -> tuple[Any, Env]:
        """Call ``function`` from outside any file (``usim check``): result and locals."""
        self.frames.append(_Frame(function.filename, function.source))
        try:
            node = T.Call(function.span, T.Name(function.span, function.name), ())
            with self._depth_guard(node):
                return self.call_function(node, function, args)
        finally:
            self.frames.pop()

    def call_lambda(self, node: T.Node, function: LambdaValue, args: list[Any]) -> Any:
        if len(args) != len(function.params):
            raise self.error(node, f"the lambda takes {len(function.params)} argument(s), got {len(args)}")
        scope = Env(function.closure, name="lambda")
        for name, value in zip(function.params, args):
            scope.set(name, value)
        self.frames.append(_Frame(function.filename, function.source,
                                  f"in a lambda at {self._where(node)}"))
        self._lambda_depth += 1
        try:
            return self.eval(function.body, scope)
        finally:
            self._lambda_depth -= 1
            self.frames.pop()

    def apply(self, node: T.Call, sop: E.SOp, args: list[Any]) -> list[Any]:
        """``sop(input)``: run the sequence on an input (and keep it as an example)."""
        if len(args) != 1:
            raise self.error(node, f"a sequence is applied to one input, got {len(args)}")
        self.record_example(node.args[0], args[0], "application")
        values = list(args[0])
        try:
            return self.run(sop, values)
        except UsimError as error:
            if isinstance(self.alphabet, Collecting):
                # the first reading only collects strings: it may not know the input's
                # symbols yet (a + of symbols then has no table); the next reading runs it
                return [None] * len(values)
            raise self.error(node, str(error)) from None

    def run(self, sop: E.SOp, values: list[Any], exact_only: bool = False, label: str | None = None) -> list[Any]:
        """The sequence on one input, as the REPL shows it: numbers exactly where
        they can be (else floats), booleans as booleans, symbols as strings
        (:func:`usim.repl.running.run_shown`)."""
        return run_shown(sop, values, self.symbols, exact_only, label)
