"""The REPL's starting environment: base sequences, its library, and usim's additions.

The REPL starts with ``tokens``, ``indices``, ``length``, the functions ``select``,
``aggregate`` and ``selector_width``, and the library ``RASP_support/rasplib.rasp``.
:data:`PRELUDE` restates that library in RASP, helper by helper with the REPL's
meaning, and is run by the same evaluator as a user's file:

    full_s                        every query selects every key (select(1,1,==))
    has_focus(sel)                the query selects at least one key
    count(seq, a)                 how many positions hold a (length * mean, rounded)
    contains(seq, a)              some position holds a
    max(a, b), min(a, b)          element-wise, by ``x if c else y``
    average(seq)                  the mean over all positions (the REPL's own names an
                                  undefined variable and fails when called; this is
                                  its evident meaning)
    (and in the REPL's library, ``tokens = tokens_str``: usim's ``tokens`` are the
    input as numbers, or as symbols when a file is read with symbols)
    load_from_location(seq, i)    the value at position i[q] for every query q
    shift(seq, n, filler)         the value n positions back, filler before the start
    mark_last_instance(seq, v)    seq == v and no later position holds v
    mark_first_instance(seq, v)   seq == v and no earlier position holds v (the REPL's
                                  library before its 2022 fix selected later keys here
                                  too, making it mark_last_instance; usim follows the fix)
    select_from_last/first(seq, v)  the selector onto that marked position
    sort(seq, key)                seq sorted by key (ties by position)
    select_next_identical(seq)    each position selects the next one with its value

``selector_width`` is usim's own attention primitive: the REPL library computes the
same values with two aggregates in one layer (a BOS-style trick), so the REPL counts
two heads where usim counts one; :mod:`usim.commands.check` reports both.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

from usim.rasp import expr as E
from usim.rasp.program import topological_order
from usim.rasp.syntax import tree as T
from usim.rasp.syntax.evaluator import (
    BuiltinFunction,
    Env,
    Evaluator,
    LambdaValue,
    RaspFunction,
    describe,
    is_number,
    normal,
)

PRELUDE_NAME = "<rasp library>"

PRELUDE = """
# The REPL library, restated (see usim.rasp.syntax.library).
full_s = select(1, 1, ==);

def has_focus(sel) {
    return aggregate(sel, 1, 0) > 0;
}

def count(seq, atom) {
    return round(length * aggregate(full_s, indicator(seq == atom)));
}

def contains(seq, atom) {
    return aggregate(full_s, indicator(seq == atom)) > 0;
}

def max(a, b) {
    return a if a > b else b;
}

def min(a, b) {
    return a if a < b else b;
}

def average(seq) {
    return aggregate(full_s, seq);
}

def load_from_location(seq, location) {
    return aggregate(select(indices, location, ==), seq);
}

def shift(seq, n, filler) {
    return aggregate(select(indices + n, indices, ==), seq, filler);
}

def mark_last_instance(seq, val) {
    later_holding_val = select(seq, val, ==) and select(indices, indices, >);
    return (seq == val) and not has_focus(later_holding_val);
}

def mark_first_instance(seq, val) {
    earlier_holding_val = select(seq, val, ==) and select(indices, indices, <);
    return (seq == val) and not has_focus(earlier_holding_val);
}

def select_from_last(seq, val) {
    return select(mark_last_instance(seq, val), True, ==);
}

def select_from_first(seq, val) {
    return select(mark_first_instance(seq, val), True, ==);
}

def sort(seq, key) {
    goes_before = select(key, key, <) or (select(key, key, ==) and select(indices, indices, <));
    place = selector_width(goes_before);
    return aggregate(select(place, indices, ==), seq);
}

def select_next_identical(seq) {
    same_before = select(seq, seq, ==) and select(indices, indices, <);
    seen = selector_width(same_before);
    return select(seq, seq, ==) and select(seen, seen + 1, ==);
}
"""


def _one(evaluator: Evaluator, node: T.Call, args: list[Any], name: str) -> Any:
    if len(args) != 1:
        raise evaluator.error(node, f"{name} takes 1 argument, got {len(args)}")
    return args[0]


def _selector_width(evaluator: Evaluator, node: T.Call, args: list[Any]) -> Any:
    selector = _one(evaluator, node, args, "selector_width")
    if not isinstance(selector, E.Selector):
        raise evaluator.error(node, f"selector_width needs a selector, got {describe(selector)}")
    return E.selector_width(selector)


def _elementwise(name: str, op: E.Op, exact):
    """exp / sqrt / abs: a map on a sequence; on a number, exact when rational."""

    def build(evaluator: Evaluator, node: T.Call, args: list[Any]) -> Any:
        x = _one(evaluator, node, args, name)
        if isinstance(x, E.SOp):
            return E.Map(op, x)
        if is_number(x) or isinstance(x, bool):
            value = exact(Fraction(x))
            return E.Map(op, E.Constant(x)) if value is None else value
        raise evaluator.error(node, f"{name} needs a number or a sequence, got {describe(x)}")

    return build


def _exact_sqrt(x: Fraction):
    if x < 0:
        return None
    a, b = math.isqrt(x.numerator), math.isqrt(x.denominator)
    if a * a == x.numerator and b * b == x.denominator:
        value = Fraction(a, b)
        return int(value) if value.denominator == 1 else value
    return None


def _annotation(name: str):
    def build(evaluator: Evaluator, node: T.Call, args: list[Any]) -> Any:
        return _one(evaluator, node, args, name)  # Tracr's numerical/categorical: no-ops
    return build


def _map(name: str, arity: int | None):
    """Map(f, s) / SequenceMap(f, s1, s2, ...): f applied element-wise.

    f (a lambda, a RASP function or exp/sqrt/abs) is called once with the argument
    sequences themselves: its body builds usim's element-wise nodes. The result must
    depend on the arguments only through element-wise maps and constants; anything
    else (an aggregate, indices, another input) is not a map and is rejected.
    """

    def build(evaluator: Evaluator, node: T.Call, args: list[Any]) -> Any:
        if len(args) < 2 or (arity is not None and len(args) != arity + 1):
            wanted = f"{arity + 1}" if arity is not None else "at least 2"
            raise evaluator.error(node, f"{name} takes {wanted} arguments (a function and sequences)")
        function, sequences = args[0], args[1:]
        if not isinstance(function, (LambdaValue, RaspFunction, BuiltinFunction)):
            raise evaluator.error(node, f"{name} needs a function first, got {describe(function)}")
        for s, arg_node in zip(sequences, node.args[1:]):
            if not isinstance(s, E.SOp):
                raise evaluator.error(arg_node, f"{name} maps sequences, got {describe(s)}")
        result = evaluator.call(node, function, list(sequences))
        if isinstance(result, (bool, int, Fraction)):
            return E.Constant(result)
        if not isinstance(result, E.SOp):
            raise evaluator.error(node, f"the function given to {name} must give a number per position, "
                                        f"got {describe(result)}")
        allowed = {s.id for s in sequences}
        for part in topological_order([result]):
            if part.id in allowed or isinstance(part, (E.Map, E.Constant)):
                continue
            raise evaluator.error(
                node,
                f"the function given to {name} is not element-wise: its result uses "
                f"{part.kind} {part.name} besides its arguments",
            )
        return result

    return build


def _builtins() -> dict[str, BuiltinFunction]:
    table = {
        "selector_width": BuiltinFunction("selector_width", _selector_width),
        "exp": BuiltinFunction("exp", _elementwise("exp", E.Op.EXP, lambda x: 1 if x == 0 else None), True),
        "sqrt": BuiltinFunction("sqrt", _elementwise("sqrt", E.Op.SQRT, _exact_sqrt), True),
        "abs": BuiltinFunction("abs", _elementwise("abs", E.Op.ABS, lambda x: normal(abs(x))), True),
        "numerical": BuiltinFunction("numerical", _annotation("numerical"), True),
        "categorical": BuiltinFunction("categorical", _annotation("categorical"), True),
        "Map": BuiltinFunction("Map", _map("Map", 1), True),
        "SequenceMap": BuiltinFunction("SequenceMap", _map("SequenceMap", None), True),
    }
    return table


@functools.lru_cache(maxsize=1)
def _prelude_tree() -> T.Module:
    from usim.rasp.syntax.parser import parse

    return parse(PRELUDE, PRELUDE_NAME)


def base_env(evaluator: Evaluator) -> Env:
    """A fresh starting environment (fresh nodes: assignments name them)."""
    constants = Env(name="constants")
    for name in ("tokens_asis", "tokens_str", "tokens_int", "tokens_float"):
        constants.set(name, E.tokens)
    constants.set("tokens_bool", E.tokens != 0)
    constants.set("indices", E.indices)
    constants.set("True", True)
    constants.set("False", False)
    library = Env(constants, name="library")
    library.set("tokens", E.tokens)
    library.set("length", E.length)
    for name, builtin in _builtins().items():
        library.set(name, builtin)
    uses = set(evaluator.uses)
    evaluator.run_module(_prelude_tree(), library)
    evaluator.uses = uses  # the library's own uses are not the file's
    return library
