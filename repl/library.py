"""The REPL's starting environment: base sequences, its library, and usim's additions.

The REPL starts with ``tokens``, ``indices``, ``length``, the functions ``select``,
``aggregate`` and ``selector_width``, and the library ``RASP_support/rasplib.rasp``.
:data:`PRELUDE` defines the same helpers in usim's own RASP (the names and the
values of the REPL's; the code is usim's, not the library's text), run by the
same elaborator as a user's file:

    full_s                        every query selects every key
    has_focus(sel)                the query selects at least one key
    count(seq, a)                 how many positions hold a
    contains(seq, a)              some position holds a
    max(a, b), min(a, b)          element-wise
    average(seq)                  the mean over all positions
    (and in the REPL's library, ``tokens = tokens_str``: usim's ``tokens`` are the
    input as numbers, or as symbols when a file is read with symbols)
    load_from_location(seq, i)    the value at position i[q] for every query q
    shift(seq, n, filler)         the value n positions back, filler before the start
    mark_last_instance(seq, v)    seq == v and no later position holds v
    mark_first_instance(seq, v)   seq == v and no earlier position holds v
    select_from_last/first(seq, v)  the selector onto that marked position
    sort(seq, key)                seq sorted by key (ties by position)
    select_next_identical(seq)    each position selects the next one with its value

The library as the REPL's repository holds it had two bugs, fixed upstream in
tech-srl/RASP pull request #4 (2022): ``average`` named an undefined variable,
and ``mark_first_instance`` selected later keys (so it marked the last
instance). usim's definitions have the fixed meanings.

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
from usim.repl import tree as T
from usim.repl.symbols import SYMBOL
from usim.repl.elaborate import Elaborator
from usim.repl.values import BuiltinFunction, Env, LambdaValue, RaspFunction, describe, is_number, normal

PRELUDE_NAME = "<rasp library>"

PRELUDE = """
# usim's own definitions of the REPL library's helpers: the same names and values as
# tech-srl/RASP RASP_support/rasplib.rasp (with its PR #4 fixes), and the same heads
# and layers as the REPL's analyser counts for them; the code is usim's.
full_s = select(indices, indices, <=) or select(indices, indices, >);

def has_focus(sel) {
    selected_any = aggregate(sel, 1, 0);
    return selected_any > 0;
}

def count(seq, atom) {
    share = aggregate(full_s, indicator(seq == atom));
    return round(share * length);
}

def contains(seq, atom) {
    share = aggregate(full_s, indicator(seq == atom));
    return share != 0;
}

def max(a, b) {
    return b if b >= a else a;
}

def min(a, b) {
    return b if b <= a else a;
}

def average(seq) {
    return aggregate(full_s, seq);
}

def load_from_location(seq, location) {
    at_location = select(indices, location, ==);
    return aggregate(at_location, seq);
}

def shift(seq, n, filler) {
    n_back = select(indices, indices - n, ==);
    return aggregate(n_back, seq, filler);
}

def mark_last_instance(seq, val) {
    found_after = has_focus(select(seq, val, ==) and select(indices, indices, >));
    return (seq == val) and not found_after;
}

def mark_first_instance(seq, val) {
    found_before = has_focus(select(seq, val, ==) and select(indices, indices, <));
    return (seq == val) and not found_before;
}

def select_from_last(seq, val) {
    marked = mark_last_instance(seq, val);
    return select(marked, True, ==);
}

def select_from_first(seq, val) {
    marked = mark_first_instance(seq, val);
    return select(marked, True, ==);
}

def sort(seq, key) {
    ahead = select(key, key, <=) and (select(key, key, <) or select(indices, indices, <));
    place = selector_width(ahead);
    return aggregate(select(place, indices, ==), seq);
}

def select_next_identical(seq) {
    rank = selector_width(select(seq, seq, ==) and select(indices, indices, <));
    return select(seq, seq, ==) and select(rank - 1, rank, ==);
}
"""


def _one(elaborator: Elaborator, node: T.Call, args: list[Any], name: str) -> Any:
    if len(args) != 1:
        raise elaborator.error(node, f"{name} takes 1 argument, got {len(args)}")
    return args[0]


def _selector_width(elaborator: Elaborator, node: T.Call, args: list[Any]) -> Any:
    selector = _one(elaborator, node, args, "selector_width")
    if not isinstance(selector, E.Selector):
        raise elaborator.error(node, f"selector_width needs a selector, got {describe(selector)}")
    return E.selector_width(selector)


def _elementwise(name: str, op: E.Op, exact):
    """exp / sqrt / abs: a map on a sequence; on a number, exact when rational."""

    def build(elaborator: Elaborator, node: T.Call, args: list[Any]) -> Any:
        x = _one(elaborator, node, args, name)
        if isinstance(x, E.SOp):
            if elaborator.kind(x) == SYMBOL:  # a code is no number (the REPL: a type error)
                raise elaborator.error(node, f"cannot apply {name} to a sequence of symbols")
            return E.Map(op, x)
        if is_number(x) or isinstance(x, bool):
            value = exact(Fraction(x))
            return E.Map(op, E.Constant(x)) if value is None else value
        raise elaborator.error(node, f"{name} needs a number or a sequence, got {describe(x)}")

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
    def build(elaborator: Elaborator, node: T.Call, args: list[Any]) -> Any:
        return _one(elaborator, node, args, name)  # Tracr's numerical/categorical: no-ops
    return build


def _map(name: str, arity: int | None):
    """Map(f, s) / SequenceMap(f, s1, s2, ...): f applied element-wise.

    f (a lambda, a RASP function or exp/sqrt/abs) is called once with the argument
    sequences themselves: its body builds usim's element-wise nodes. The result must
    depend on the arguments only through element-wise maps and constants; anything
    else (an aggregate, indices, another input) is not a map and is rejected.
    """

    def build(elaborator: Elaborator, node: T.Call, args: list[Any]) -> Any:
        if len(args) < 2 or (arity is not None and len(args) != arity + 1):
            wanted = f"{arity + 1}" if arity is not None else "at least 2"
            raise elaborator.error(node, f"{name} takes {wanted} arguments (a function and sequences)")
        function, sequences = args[0], args[1:]
        if not isinstance(function, (LambdaValue, RaspFunction, BuiltinFunction)):
            raise elaborator.error(node, f"{name} needs a function first, got {describe(function)}")
        for s, arg_node in zip(sequences, node.args[1:]):
            if not isinstance(s, E.SOp):
                raise elaborator.error(arg_node, f"{name} maps sequences, got {describe(s)}")
        result = elaborator.call(node, function, list(sequences))
        if isinstance(result, (bool, int, Fraction)):
            return E.Constant(result)
        if not isinstance(result, E.SOp):
            raise elaborator.error(node, f"the function given to {name} must give a number per position, "
                                        f"got {describe(result)}")
        # element-wise: from the result down to the arguments, only maps and constants. The walk
        # stops at an argument: what an argument is computed from (tokens + 1, an aggregate) is
        # not the function's business (tracr's make_sort maps over computed sequences)
        allowed = {s.id for s in sequences}
        stack, seen = [result], set()
        while stack:
            part = stack.pop()
            if part.id in allowed or part.id in seen:
                continue
            seen.add(part.id)
            if not isinstance(part, (E.Map, E.Constant)):
                raise elaborator.error(
                    node,
                    f"the function given to {name} is not element-wise: its result uses "
                    f"{part.kind} {part.name} besides its arguments",
                )
            stack.extend(part.children())
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
    from usim.repl.parser import parse

    return parse(PRELUDE, PRELUDE_NAME)


def base_env(elaborator: Elaborator) -> Env:
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
    uses = set(elaborator.uses)
    elaborator.run_module(_prelude_tree(), library)
    elaborator.uses = uses  # the library's own uses are not the file's
    return library
