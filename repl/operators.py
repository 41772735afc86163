"""The REPL's operators on atoms and sequences, with the kinds' rules.

The expressions of :mod:`usim.repl.elaborate` that combine values: each gives
the REPL's meaning, as usim expression nodes when a sequence takes part and as
Python's value on two atoms. A sequence's kind (number, boolean, symbol:
:mod:`usim.repl.symbols`) decides what it may meet.

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
"""

from __future__ import annotations

import operator
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from usim.errors import UsimError
from usim.rasp import expr as E
from usim.repl import tree as T
from usim.repl.errors import RaspEvaluationError, TableTooLarge
from usim.repl.running import exact_power
from usim.repl.symbols import (BOOLEAN, NUMBER, SYMBOL, Alphabet, CannotJoin, Collecting, JoinTooLarge, NewString,
                               NewStrings, SymbolTables, undefined)
from usim.repl.values import BuiltinFunction, LambdaValue, RaspFunction, describe, is_number, normal

if TYPE_CHECKING:
    from usim.repl.values import Env

_ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
               "%": operator.mod, "^": operator.pow}
_COMPARISON = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
               ">": operator.gt, ">=": operator.ge}
PREDICATES = {"==": E.Predicate.EQ, "!=": E.Predicate.NE, "<": E.Predicate.LT,
              "<=": E.Predicate.LE, ">": E.Predicate.GT, ">=": E.Predicate.GE}


class Operators:
    """The operator expressions of :class:`usim.repl.elaborate.Elaborator`
    (which this is a part of: it gives ``eval`` and ``error``, the place of a
    node in the file being read)."""

    alphabet: Alphabet | None
    symbols: SymbolTables
    uses: set[str]

    def eval(self, node: T.Node, env: Env) -> Any:  # pragma: no cover - the Elaborator's
        raise NotImplementedError

    def error(self, node: T.Node, message: str) -> RaspEvaluationError:  # pragma: no cover - the Elaborator's
        raise NotImplementedError

    # -- kinds ----------------------------------------------------------------------
    def kind(self, value: Any) -> str:
        """What a value holds: a number, a boolean or a symbol (a string)."""
        return self.symbols.kind(value)

    def mark(self, sop: E.SOp, kind: str) -> E.SOp:
        return self.symbols.mark(sop, kind)

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
        """``left + right`` on symbols: the REPL's string concatenation, as a
        table (:meth:`usim.repl.symbols.SymbolTables.join`), its errors placed at the ``+``."""
        try:
            return self.symbols.join(left, right, self.uses)
        except NewString as error:
            raise NewStrings(self.error(node, str(error))) from None
        except JoinTooLarge as error:  # the one limit that leaves a top-level name unbuilt
            raise self.error(node, str(error), TableTooLarge) from None
        except CannotJoin as error:
            raise self.error(node, str(error)) from None

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
        return exact_power(base, exponent)

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
        result: E.SOp = self.mark(undefined(single=kind != NUMBER), kind)
        for key, value in reversed(pairs):
            hit = self.elementwise(node, "==", index, key)
            result = self.mark(E.where(hit, self._sequence(node, value), result), kind)
        return result

    def _eval_SelectCall(self, node: T.SelectCall, env: Env) -> Any:
        keys = self._sequence(node.keys, self.eval(node.keys, env))
        queries = self._sequence(node.queries, self.eval(node.queries, env))
        kinds = {self.kind(keys), self.kind(queries)}
        if SYMBOL in kinds and kinds != {SYMBOL}:
            if node.predicate in ("==", "!="):  # a symbol never equals a number
                return E.select(keys, queries, E.Predicate.TRUE if node.predicate == "!=" else E.Predicate.FALSE)
            raise self.error(node, f"cannot order symbols against numbers with {node.predicate} (the REPL "
                                   "raises a type error)")
        return E.select(keys, queries, PREDICATES[node.predicate])

    def _eval_AggregateCall(self, node: T.AggregateCall, env: Env) -> Any:
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


def round_half_even(x: E.SOp) -> E.SOp:
    """Python's round on every position, from floor and parity (closed operations).

    t = x + 1/2 and f = floor(t) round half up; where x is exactly half-way
    (t == f) and f is odd, the even neighbour f - 1 is the answer.
    """
    t = x + Fraction(1, 2)
    f = t // 1
    return E.where((t == f) & (f % 2 == 1), f - 1, f)
