"""The meaning of a RASP REPL file: its statements run into usim expression nodes.

This follows the REPL's own evaluator (tech-srl/RASP, ``RASP_support/Evaluator.py``):
a file is a list of statements run in order in an environment; values are atoms
(numbers, booleans, strings), lists, dicts, functions, and the "unfinished"
sequences and selectors, which here are :mod:`usim.rasp.expr` nodes. Running a
statement never runs a program: it builds the expression graph, exactly as the
REPL builds its unfinished objects.

Operations, with the REPL's meaning
    ``a + b`` of symbols (strings): the joined string, as the REPL's Python
        concatenates them (a table over the strings each side can hold).
    ``a + b`` etc.  on two atoms: exact arithmetic (decimals are exact rationals,
        ``/`` is exact division, ``^`` a power kept exact when the result is
        rational); with a sequence on either side: an element-wise map. ``^``
        is always the POW map: ``2.718^x`` is not ``exp(x)``.
    comparisons     the same, giving booleans or boolean sequences.
    ``and or not``  on selectors: the combined selector (still one head); on
        sequences: element-wise, a value being true when non-zero; on atoms: Python's.
    ``x if c else y`` with a sequence ``c``: the element-wise ``where``; with an
        atom ``c``: only the chosen branch is evaluated.
    ``select(keys, queries, op)``  keys first; ``op`` relates key to query:
        ``select(k, q, <)`` selects, at query q, the keys k with k < q.
    ``aggregate(s, v[, default])``  the mean of v over the selected keys; default 0
        (booleans and symbols: the one selected value, undefined over several keys).
    ``s[i]``        for a sequence s and an integer i: one head gathering position i
        (i < 0 counts from the end: position length + i), broadcast everywhere.
    ``round(x)``, ``indicator(x)``  element-wise: round half to even (as Python's
        round) via floor and parity, and 1 where x is true else 0.
    ``f(args)``     a function call; ``sop(input)`` runs a sequence on an input
        list (recorded as one of the file's examples).

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
operations above (+ - * / % ^, comparisons, and/or/not, ``a if c else b``,
round, indicator, exp, sqrt, abs, the library's max/min). Anything else in a lambda
(a Python function, a method, an attribute) is rejected with its position.
"""

from __future__ import annotations

import contextlib
import operator
import os
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

from usim.errors import NotExactError, UsimError
from usim.rasp import expr as E
from usim.repl import tree as T
from usim.repl.errors import RaspEvaluationError
from usim.repl.symbols import BOOLEAN, NUMBER, SYMBOL, Alphabet, Collecting, UnknownSymbol

Atom = int | Fraction | bool | str

# The REPL's reserved names: constants that cannot be assigned.
RESERVED = frozenset({
    "tokens_asis", "tokens_str", "tokens_int", "tokens_bool", "tokens_float", "indices",
    "True", "False",
})

_ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
               "%": operator.mod, "^": operator.pow}
_COMPARISON = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
               ">": operator.gt, ">=": operator.ge}
PREDICATES = {"==": E.Predicate.EQ, "!=": E.Predicate.NE, "<": E.Predicate.LT,
              "<=": E.Predicate.LE, ">": E.Predicate.GT, ">=": E.Predicate.GE}
_PRIMITIVES = (E.Tokens, E.Indices, E.Length)
MAX_CALL_DEPTH = 100  # nested calls of RASP functions (the REPL has no recursion either)
MAX_CONCATENATION_TABLE = 128  # pairs of strings one + on symbols may join
CONCATENATION = "string concatenation"  # in Evaluator.uses when a + joins symbols


def normal(x: Any) -> Any:
    """A Fraction with denominator 1 as an int (so 6/3 is the integer 2)."""
    if isinstance(x, Fraction) and x.denominator == 1:
        return int(x)
    return x


def is_number(x: Any) -> bool:
    return isinstance(x, (int, Fraction)) and not isinstance(x, bool)


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
    """A function given in Python: ``fn(evaluator, call_node, args)``."""

    name: str
    fn: Callable[["Evaluator", T.Call, list[Any]], Any]
    addition: bool = False  # a usim addition, not in the REPL


@dataclass(frozen=True)
class Example:
    """An input the file names: ``set example X`` or an application ``sop(X)``."""

    values: tuple[Any, ...]
    line: int
    kind: str  # "set example" or "application"

    @property
    def numeric(self) -> bool:
        return all(is_number(v) or isinstance(v, bool) for v in self.values) and bool(self.values)

    @property
    def symbols(self) -> bool:
        return all(isinstance(v, str) for v in self.values) and bool(self.values)


class NewStrings(UsimError):
    """A ``+`` of symbols made a string the alphabet has no code for: the file
    must be read again with a wider alphabet (:meth:`usim.repl.RaspFile.build`
    does). Its message names the ``+``."""

    def __init__(self, error: RaspEvaluationError) -> None:
        super().__init__(str(error))


class _Exit(Exception):
    """`exit` / `quit`: stop running the file."""


@dataclass
class _Frame:
    filename: str
    source: str
    call: str = ""  # "in a call of f at file:line:col"


@dataclass
class Evaluator:
    """Runs statements; collects the file's examples and the additions it uses."""

    loader: Callable[[str, str], T.Module] | None = None  # (path, from_file) -> tree
    examples: list[Example] = field(default_factory=list)
    uses: set[str] = field(default_factory=set)
    frames: list[_Frame] = field(default_factory=list)
    _loading: set[str] = field(default_factory=set)
    _lambda_depth: int = 0
    _guarded: bool = False
    alphabet: Alphabet | None = None  # None: usim's numbers only; else strings are symbols (codes)
    kinds: dict[int, str] = field(default_factory=dict)  # sequence id -> number / boolean / symbol
    _codes: dict[int, tuple[int, ...]] = field(default_factory=dict)  # symbol_codes, by sequence id
    _joins: set[int] = field(default_factory=set)  # the tables of + on symbols, by sequence id

    def __post_init__(self) -> None:
        if self.alphabet is not None:
            self.kinds[E.tokens.id] = SYMBOL

    # -- kinds ----------------------------------------------------------------------
    def kind(self, value: Any) -> str:
        """What a value holds: a number, a boolean or a symbol (a string)."""
        if isinstance(value, E.SOp):
            return self.kinds.get(value.id, BOOLEAN if value.is_bool else NUMBER)
        if isinstance(value, bool):
            return BOOLEAN
        if isinstance(value, str):
            return SYMBOL
        return NUMBER

    def mark(self, sop: E.SOp, kind: str) -> E.SOp:
        if kind == SYMBOL or (kind == BOOLEAN and not sop.is_bool):
            self.kinds[sop.id] = kind
        return sop

    # -- errors ------------------------------------------------------------------
    def error(self, node: T.Node, message: str) -> RaspEvaluationError:
        frame = self.frames[-1]
        calls = list(dict.fromkeys(f.call for f in reversed(self.frames) if f.call))
        if calls:
            message += " (" + "; ".join(calls[:3]) + ")"
        return RaspEvaluationError(frame.filename, node.span.line, node.span.column, message,
                                   node.span.text(frame.source))

    def _where(self, node: T.Node) -> str:
        frame = self.frames[-1]
        return f"{frame.filename}:{node.span.line}:{node.span.column}"

    # -- files --------------------------------------------------------------------
    def run_module(self, module: T.Module, env: Env) -> None:
        self.frames.append(_Frame(module.filename, module.source))
        try:
            for statement in module.statements:
                with self._depth_guard(statement):
                    self.execute(statement, env)
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

    def _eval_Contains(self, node: T.Contains, env: Env) -> Any:
        item = self.eval(node.item, env)
        container = self.eval(node.container, env)
        if isinstance(item, E.SOp):
            if not isinstance(container, (list, tuple)):
                raise self.error(node, f"`sequence in X` needs a list of atoms, got {describe(container)}")
            result: E.SOp = E.Constant(False)
            for v in container:
                result = result | self.elementwise(node, "==", item, v)
            return result
        if isinstance(item, (E.Selector, RaspFunction, BuiltinFunction, LambdaValue)):
            raise self.error(node, f"cannot look for {describe(item)} in a container")
        if isinstance(container, (list, tuple, dict, str)):
            return item in container
        if isinstance(container, E.SOp):
            # as the REPL: some position holds the atom (one head over every position)
            found = E.where(self.elementwise(node, "==", container, item), 1, 0)
            return E.aggregate(E.select(1, 1, E.Predicate.EQ), found) > 0
        raise self.error(node, f"cannot look inside {describe(container)}")

    # -- operators -------------------------------------------------------------------
    def atom_for_sequence(self, node: T.Node, value: Any) -> Any:
        """``value`` as an operand next to a sequence: a sequence, a number, or a
        symbol's code (a constant sequence of kind symbol)."""
        if isinstance(value, E.SOp) or is_number(value) or isinstance(value, bool):
            return value
        if isinstance(value, str):
            if self.alphabet is None:
                raise self.error(
                    node,
                    f'the string "{value}" cannot meet a sequence: usim reads the input as numbers '
                    "here (check with a spec of symbols or --alphabet, or run with an input of strings, "
                    "to read it as symbols)",
                )
            return self.mark(E.Constant(self.alphabet.code(value)), SYMBOL)
        raise self.error(node, f"{describe(value)} cannot be used as a sequence")

    def _eval_Unary(self, node: T.Unary, env: Env) -> Any:
        value = self.eval(node.operand, env)
        op = node.op
        if isinstance(value, E.SOp) and self.kind(value) == SYMBOL:
            if op == "not":  # as Python's: a string is false exactly when it is empty
                if "" not in self.alphabet.symbols and not isinstance(self.alphabet, Collecting):  # type: ignore[union-attr]
                    return self.mark(value != value, BOOLEAN)  # never empty: False (undefined stays so)
                return self.elementwise(node, "==", value, "")
            raise self.error(node, f"cannot apply {op} to a sequence of symbols")
        if op == "not":
            if isinstance(value, E.Selector):
                return ~value
            if isinstance(value, E.SOp):
                return ~value
            if isinstance(value, (RaspFunction, BuiltinFunction, LambdaValue)):
                raise self.error(node, f"cannot apply not to {describe(value)}")
            return not value
        if isinstance(value, E.Selector):
            raise self.error(node, f"cannot apply {op} to a selector")
        if op == "indicator":
            if not isinstance(value, E.SOp):
                raise self.error(node, f"indicator needs a sequence, got {describe(value)}")
            return E.where(value, 1, 0)
        if op == "round":
            if isinstance(value, E.SOp):
                return round_half_even(value)
            if is_number(value) or isinstance(value, bool):
                return round(value)
            raise self.error(node, f"cannot round {describe(value)}")
        if isinstance(value, E.SOp) or is_number(value) or isinstance(value, bool):
            return -value if op == "-" else (+value if not isinstance(value, E.SOp) else value)
        raise self.error(node, f"cannot apply {op} to {describe(value)}")

    def _eval_Binary(self, node: T.Binary, env: Env) -> Any:
        left = self.eval(node.left, env)
        right = self.eval(node.right, env)
        return self.binary(node, node.op, left, right)

    def binary(self, node: T.Binary, op: str, left: Any, right: Any) -> Any:
        if op in ("and", "or"):
            selectors = isinstance(left, E.Selector), isinstance(right, E.Selector)
            if any(selectors):
                if not all(selectors):
                    raise self.error(node, f"cannot combine a selector and a non-selector with {op}")
                return left & right if op == "and" else left | right
            if isinstance(left, E.SOp) or isinstance(right, E.SOp):
                a = self._sequence(node.left, left)
                b = self._sequence(node.right, right)
                if SYMBOL in (self.kind(a), self.kind(b)):
                    raise self.error(node, f"cannot apply {op} to a sequence of symbols")
                return a & b if op == "and" else a | b
            return (left and right) if op == "and" else (left or right)
        for side, value in ((node.left, left), (node.right, right)):
            if isinstance(value, E.Selector):
                raise self.error(side, f"cannot apply {op} to a selector")
        function = _ARITHMETIC.get(op) or _COMPARISON[op]
        if isinstance(left, E.SOp) or isinstance(right, E.SOp):
            return self.elementwise(node, op, left, right)
        return self._atoms(node, op, function, left, right)

    def elementwise(self, node: T.Node, op: str, left: Any, right: Any) -> E.SOp:
        """``left op right`` with a sequence on a side, by the kinds' rules:
        symbols are compared with symbols only (never equal to a number, and
        not ordered against one), and take no arithmetic."""
        a = self.atom_for_sequence(getattr(node, "left", node), left)
        b = self.atom_for_sequence(getattr(node, "right", node), right)
        kinds = {self.kind(a), self.kind(b)}
        if SYMBOL in kinds:
            if op == "+" and kinds == {SYMBOL}:
                return self.concatenate(node, a, b)
            if op in _ARITHMETIC:
                raise self.error(node, f"cannot apply {op} to symbols and numbers (the REPL "
                                       "raises a type error)" if kinds != {SYMBOL} else
                                 f"cannot apply {op} to symbols (only + joins strings)")
            if kinds != {SYMBOL}:
                if op in ("==", "!="):  # a string is never equal to a number (the REPL: False)
                    return self.mark(E.Constant(op == "!="), BOOLEAN)
                raise self.error(node, f"cannot order a symbol and a number with {op} (the REPL "
                                       "raises a type error)")
        function = _ARITHMETIC.get(op) or _COMPARISON[op]
        # with an atom on the left, Python falls back to the sequence's reflected
        # operator (3 - x is x.__rsub__(3), 0 + x is x itself)
        return function(a, b)

    def concatenate(self, node: T.Node, left: E.SOp, right: E.SOp) -> E.SOp:
        """``left + right`` on symbols: the REPL's string concatenation, as a table.

        A string made at run time needs a code, so the strings a sequence of
        symbols can hold are worked out from how it is built
        (:meth:`symbol_codes`: a superset of the values it takes on every input
        over the input's symbols), and the table gives, for every pair of them,
        the code of the joined string. It is a binary search on each side's
        codes (``where(left < a_mid, ..., ...)``, depth log2 of the list, so a
        long list never nests deeply), and every leaf tests its code
        (``where(left == a, v, v)``): a side that is undefined at a position
        leaves the result undefined there, as the REPL fails there. The joined
        strings join the alphabet: :func:`usim.repl.load_text` and
        :meth:`usim.repl.RaspFile.build` read the file until the alphabet
        holds every string it can make, and a run on an input outside the
        input's symbols is refused (:meth:`run`).
        """
        firsts, seconds = self.symbol_codes(node, left), self.symbol_codes(node, right)
        if len(firsts) * len(seconds) > MAX_CONCATENATION_TABLE:
            raise self.error(node, f"this + joins {len(firsts)} strings to {len(seconds)}: a table of "
                                   f"more than {MAX_CONCATENATION_TABLE} strings (usim gives every "
                                   "string a program can make its own code)")
        alphabet = self.alphabet
        assert alphabet is not None  # a sequence of symbols exists only with an alphabet
        self.uses.add(CONCATENATION)
        if not firsts or not seconds:  # a side undefined everywhere: so is the result
            return self.mark(_undefined(), SYMBOL)

        def joined(first: int, second: int) -> E.SOp:
            text = alphabet.symbol(first) + alphabet.symbol(second)
            try:
                return E.Constant(alphabet.code(text))
            except UnknownSymbol:
                raise NewStrings(self.error(node, f"the string {text!r} this + makes has no code "
                                                  "in the alphabet")) from None

        table = _search(left, firsts, lambda first: _search(right, seconds, lambda second: joined(first, second)))
        self._joins.add(table.id)
        return self.mark(table, SYMBOL)

    def symbol_codes(self, node: T.Node, sop: E.SOp) -> tuple[int, ...]:
        """The codes a sequence of symbols can hold, from how it is built: the
        input's symbols, constants, what an aggregate moves (and its default),
        either branch of a ``where``; sorted. More codes than it can hold only
        make a table larger, never wrong; none: the sequence is undefined
        everywhere."""
        codes = self._codes.get(sop.id)
        if codes is not None:
            return codes
        found: set[int] = set()
        if isinstance(sop, E.Tokens):
            found.update(self.alphabet.input_codes)  # type: ignore[union-attr]
        elif isinstance(sop, E.Constant) and is_number(sop.value):
            found.add(int(sop.value))
        elif isinstance(sop, E.Aggregate) and sop.single:
            if not _selects_nothing(sop.selector):
                found.update(self.symbol_codes(node, sop.values))
            if sop.default is not None:
                found.add(int(sop.default))
        elif isinstance(sop, E.Map) and sop.op is E.Op.WHERE:
            found.update(self.symbol_codes(node, sop.args[1]))
            found.update(self.symbol_codes(node, sop.args[2]))
        else:  # pragma: no cover - every sequence of symbols is built from the above
            raise self.error(node, f"cannot tell which strings {sop.name} holds, to join them")
        codes = tuple(sorted(found))
        self._codes[sop.id] = codes
        return codes

    def _sequence(self, node: T.Node, value: Any) -> E.SOp:
        value = self.atom_for_sequence(node, value)
        return value if isinstance(value, E.SOp) else E.Constant(value)

    def _atoms(self, node: T.Binary, op: str, function, left: Any, right: Any) -> Any:
        if op in _COMPARISON:
            try:
                return function(left, right)
            except TypeError:
                raise self.error(node, f"cannot compare {describe(left)} and {describe(right)}") from None
        if isinstance(left, str) and isinstance(right, str) and op == "+":
            return left + right
        if isinstance(left, list) and isinstance(right, list) and op == "+":
            return left + right  # as Python (the REPL): the lists one after the other
        for side, value in ((node.left, left), (node.right, right)):
            if not (is_number(value) or isinstance(value, bool)):
                raise self.error(side, f"cannot apply {op} to {describe(value)}")
        try:
            if op == "/":
                return normal(Fraction(left) / Fraction(right))
            if op == "^":
                return self._power(left, right)
            return normal(function(Fraction(left), Fraction(right)) if op == "%" else function(left, right))
        except ZeroDivisionError:
            raise self.error(node, f"division by zero in {describe(left)} {op} {describe(right)}") from None
        except UsimError as error:  # a power outside its domain: (-8) ^ 0.5
            raise self.error(node, str(error)) from None

    @staticmethod
    def _power(base: Any, exponent: Any) -> Any:
        from usim.encodings.exact import exact_pow

        try:
            return normal(exact_pow(Fraction(base), Fraction(exponent)))
        except NotExactError:
            # an irrational power of two numbers: kept as a constant POW node
            return E.Map(E.Op.POW, E.Constant(base), E.Constant(exponent))

    def _eval_IfElse(self, node: T.IfElse, env: Env) -> Any:
        cond = self.eval(node.cond, env)
        if isinstance(cond, E.Selector):
            raise self.error(node.cond, "a selector cannot be a condition")
        if isinstance(cond, E.SOp):
            if self.kind(cond) == SYMBOL:
                raise self.error(node.cond, "a sequence of symbols cannot be a condition")
            then = self._sequence(node.then, self.eval(node.then, env))
            otherwise = self._sequence(node.otherwise, self.eval(node.otherwise, env))
            kinds = {self.kind(then), self.kind(otherwise)}
            if SYMBOL in kinds and kinds != {SYMBOL}:
                raise self.error(node, "one branch gives symbols and the other numbers (the REPL "
                                       "refuses a sequence of mixed types)")
            kind = SYMBOL if kinds == {SYMBOL} else BOOLEAN if kinds == {BOOLEAN} else NUMBER
            return self.mark(E.where(cond, then, otherwise), kind)
        return self.eval(node.then if cond else node.otherwise, env)

    def _eval_Index(self, node: T.Index, env: Env) -> Any:
        target = self.eval(node.target, env)
        index = self.eval(node.index, env)
        if isinstance(target, E.SOp):
            if not isinstance(index, int) or isinstance(index, bool):
                raise self.error(node.index, f"a sequence is indexed by an integer, got {describe(index)}")
            # one head: every query reads the key at position index (length+index if < 0)
            where = index if index >= 0 else E.length + index
            return self.aggregate_of(node, E.select(E.indices, where, E.Predicate.EQ), target, None)
        if isinstance(index, E.SOp) and isinstance(target, (list, tuple, dict, str)):
            return self.lookup(node, target, index)
        if isinstance(target, dict):
            if index not in target:
                raise self.error(node.index, f"{describe(index)} is not a key of the dict")
            return target[index]
        if isinstance(target, (list, tuple, str)):
            if not isinstance(index, int) or isinstance(index, bool):
                raise self.error(node.index, f"a list is indexed by an integer, got {describe(index)}")
            if not -len(target) <= index < len(target):
                raise self.error(node.index, f"index {index} is out of range for {describe(target)}")
            return target[index]
        raise self.error(node.target, f"cannot index {describe(target)}")

    def lookup(self, node: T.Index, table: Any, index: E.SOp) -> E.SOp:
        """A list, dict or string indexed by a sequence (the REPL's ``d[tokens]``):
        at each position, the entry its index names, as a table of ``where``s;
        undefined where it names no entry (the REPL fails there)."""
        pairs = list(table.items()) if isinstance(table, dict) else list(enumerate(table))
        values = [v for _, v in pairs]
        kinds = {self.kind(v) for v in values}
        if not pairs or not all(is_number(v) or isinstance(v, (bool, str)) for v in values) or len(kinds) > 1:
            raise self.error(node, "a table indexed by a sequence must hold atoms of one kind (numbers, "
                                   "booleans or strings)")
        kind = kinds.pop()
        result: E.SOp = self.mark(_undefined(single=kind != NUMBER), kind)
        for key, value in reversed(pairs):
            hit = self.elementwise(node, "==", index, key)
            result = self.mark(E.where(hit, self._sequence(node, value), result), kind)
        return result

    def _eval_Select(self, node: T.Select, env: Env) -> Any:
        keys = self._sequence(node.keys, self.eval(node.keys, env))
        queries = self._sequence(node.queries, self.eval(node.queries, env))
        kinds = {self.kind(keys), self.kind(queries)}
        if SYMBOL in kinds and kinds != {SYMBOL}:
            if node.predicate in ("==", "!="):  # a symbol never equals a number
                return E.select(keys, queries, E.Predicate.TRUE if node.predicate == "!=" else E.Predicate.FALSE)
            raise self.error(node, f"cannot order symbols against numbers with {node.predicate} (the REPL "
                                   "raises a type error)")
        return E.select(keys, queries, PREDICATES[node.predicate])

    def _eval_Aggregate(self, node: T.Aggregate, env: Env) -> Any:
        selector = self.eval(node.selector, env)
        if not isinstance(selector, E.Selector):
            raise self.error(node.selector, f"aggregate needs a selector, got {describe(selector)}")
        values = self._sequence(node.values, self.eval(node.values, env))
        default = self.eval(node.default, env) if node.default is not None else None
        return self.aggregate_of(node, selector, values, default, node.default)

    def aggregate_of(self, node: T.Node, selector: E.Selector, values: E.SOp, default: Any,
                     default_node: T.Node | None = None) -> E.SOp:
        """An aggregate with the REPL's rules for what it may hold: numbers are
        averaged; booleans and symbols are only moved (a row selecting several
        keys is undefined); symbols need a symbol as default (a row selecting no
        key is undefined otherwise)."""
        where = default_node or node
        kind = self.kind(values)
        if kind == NUMBER:
            if default is None:
                default = 0
            if isinstance(default, bool):
                default = int(default)
            if not is_number(default):
                raise self.error(where, f"an aggregate's default must be a number here, got {describe(default)}")
            return E.aggregate(selector, values, default)
        if kind == BOOLEAN:
            if default is None:
                default = 0
            if not (is_number(default) or isinstance(default, bool)):
                raise self.error(where, f"an aggregate of booleans takes a boolean default, got {describe(default)}")
            return self.mark(E.aggregate(selector, values, int(default) if isinstance(default, bool) else default,
                                         single=True), BOOLEAN if default in (0, 1) else NUMBER)
        if isinstance(default, str):
            code: int | None = self.alphabet.code(default)  # type: ignore[union-attr]
        elif default is None or is_number(default) or isinstance(default, bool):
            code = None  # the REPL's mixed sequence: undefined where no key is selected
        else:
            raise self.error(where, f"an aggregate of symbols takes a symbol as default, got {describe(default)}")
        return self.mark(E.aggregate(selector, values, code, single=True), SYMBOL)

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
        they can be (else floats), booleans as booleans, symbols as strings."""
        from usim.encodings.runners import run_exact, run_numeric
        from usim.errors import InputError
        from usim.rasp.program import Program

        if not values:
            raise InputError("the input is empty")
        if self.alphabet is not None:
            tokens = self.alphabet.encode(values)
            outside = sorted({v for v in values if v not in self.alphabet.inputs})
            if outside and self._joins_strings(sop):
                raise InputError(f"the input holds {', '.join(map(repr, outside))}, outside the symbols it "
                                 f"ranges over ({', '.join(map(repr, self.alphabet.inputs))}): the strings a + "
                                 "makes are known only for those")
        elif all(is_number(v) or isinstance(v, bool) for v in values):
            tokens = values
        else:
            raise InputError("usim reads this input as numbers; an input of strings needs symbols "
                             "(run it with strings as its input, or check it with --alphabet)")
        name = label or (sop.name if sop.has_name else "the sequence")
        program = Program.of(name, {name: sop})
        try:
            out = [normal(v) for v in run_exact(program, tokens)[name]]
        except NotExactError:
            if exact_only:
                raise
            out = [float(v) for v in run_numeric(program, [float(v) for v in tokens])[name][0]]
        return self.shown(sop, out)

    def _joins_strings(self, sop: E.SOp) -> bool:
        """Whether ``sop`` reads a table of ``+`` on symbols (made for the input's symbols)."""
        from usim.rasp.program import topological_order

        return any(node.id in self._joins for node in topological_order([sop]))

    def shown(self, sop: E.SOp, values: list[Any]) -> list[Any]:
        """Values of ``sop`` as its kind: symbols back from their codes, booleans as booleans."""
        kind = self.kind(sop)
        if kind == SYMBOL:
            return [self.alphabet.symbol(v) for v in values]  # type: ignore[union-attr]
        if kind == BOOLEAN:
            return [bool(v) for v in values]
        return values


def _undefined(single: bool = True) -> E.SOp:
    """A sequence undefined everywhere: it takes a value from no key and has no
    default (``single``: a value of symbols or booleans, moved, never averaged)."""
    return E.aggregate(E.select(E.indices, E.indices, E.Predicate.FALSE), 0, default=None, single=single)


def _search(sop: E.SOp, codes: tuple[int, ...], leaf: Callable[[int], E.SOp]) -> E.SOp:
    """``leaf(c)`` where ``sop`` holds the code ``c`` of ``codes`` (sorted), by
    halving the list; each leaf reads ``sop == c`` so that an undefined ``sop``
    leaves the result undefined."""
    if len(codes) == 1:
        value = leaf(codes[0])
        return E.where(sop == codes[0], value, value)
    middle = len(codes) // 2
    return E.where(sop < codes[middle], _search(sop, codes[:middle], leaf), _search(sop, codes[middle:], leaf))


def _selects_nothing(selector: E.Selector) -> bool:
    return isinstance(selector, E.Select) and selector.predicate is E.Predicate.FALSE


def round_half_even(x: E.SOp) -> E.SOp:
    """Python's round on every position, from floor and parity (closed operations).

    t = x + 1/2 and f = floor(t) round half up; where x is exactly half-way
    (t == f) and f is odd, the even neighbour f - 1 is the answer.
    """
    t = x + Fraction(1, 2)
    f = t // 1
    return E.where((t == f) & (f % 2 == 1), f - 1, f)
