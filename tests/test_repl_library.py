"""The REPL's library (RASP_support/rasplib.rasp) as usim restates it
(usim.repl.library): every function against outputs computed by hand
from the REPL's definitions, on numbers and on symbols."""

from __future__ import annotations

from fractions import Fraction

import pytest

from usim.errors import UsimError
from usim.repl import load_text

NUMBERS = [3, 1, 3, 2]
WORD = list("bcab")


def run(expression: str, tokens=NUMBERS):
    symbols = all(isinstance(t, str) for t in tokens)
    f = load_text(f"x = {expression};", "lib.rasp", symbols=symbols,
                  inputs=sorted(set(tokens)) if symbols else None)
    return f.run("x", tokens, exact=True)


@pytest.mark.parametrize("expression, expected", [
    # has_focus(sel): some key is selected. select(tokens, tokens, <) at query q: keys below x_q
    ("has_focus(select(tokens, tokens, <))", [True, False, True, True]),
    # count(seq, atom): length * (share of positions holding atom), rounded
    ("count(tokens, 3)", [2, 2, 2, 2]),
    ("count(tokens, 7)", [0, 0, 0, 0]),
    ("contains(tokens, 2)", [True] * 4),
    ("contains(tokens, 5)", [False] * 4),
    ("max(tokens, indices)", [3, 1, 3, 3]),
    ("min(tokens, indices)", [0, 1, 2, 2]),
    ("average(tokens)", [Fraction(9, 4)] * 4),
    # load_from_location(seq, loc): the value at position loc[q]
    ("load_from_location(tokens, 3 - indices)", [2, 3, 1, 3]),
    # shift(seq, n, filler): the value n positions back, filler before the start
    ("shift(tokens, 1, 0)", [0, 3, 1, 3]),
    ("shift(tokens, 2, -1)", [-1, -1, 3, 1]),
    # mark_last_instance(seq, v): holds v and no later position does
    ("mark_last_instance(tokens, 3)", [False, False, True, False]),
    # mark_first_instance(seq, v): holds v and no earlier position does (the REPL's 2022 fix)
    ("mark_first_instance(tokens, 3)", [True, False, False, False]),
    ("aggregate(select_from_last(tokens, 3), indices)", [2, 2, 2, 2]),
    ("aggregate(select_from_first(tokens, 3), indices)", [0, 0, 0, 0]),
    # sort(seq, key): seq in the order of key, ties by position
    ("sort(tokens, tokens)", [1, 2, 3, 3]),
    ("sort(indices, tokens)", [1, 3, 0, 2]),
    ("sort(tokens, 0 - tokens)", [3, 3, 2, 1]),
    # select_next_identical(seq): each position selects the next one with its value
    ("aggregate(select_next_identical(tokens), indices, -1)", [2, -1, -1, -1]),
    ("selector_width(select(tokens, tokens, ==))", [2, 1, 2, 1]),
    ("selector_width(full_s)", [4, 4, 4, 4]),
])
def test_library_functions_on_numbers(expression, expected):
    assert run(expression) == expected


@pytest.mark.parametrize("expression, expected", [
    ("sort(tokens, tokens)", list("abbc")),
    ("mark_first_instance(tokens, \"b\")", [True, False, False, False]),
    ("mark_last_instance(tokens, \"b\")", [False, False, False, True]),
    ("count(tokens, \"b\")", [2, 2, 2, 2]),
    ("contains(tokens, \"c\")", [True] * 4),
    ("contains(tokens, \"z\")", [False] * 4),
    ("load_from_location(tokens, length - 1 - indices)", list("bacb")),
    ("shift(tokens, 1, \"_\")", list("_bca")),
    ("aggregate(select_from_first(tokens, \"b\"), indices)", [0, 0, 0, 0]),
    ("aggregate(select_next_identical(tokens), indices, -1)", [3, -1, -1, -1]),
])
def test_library_functions_on_symbols(expression, expected):
    assert run(expression, WORD) == expected


def test_the_library_averages_numbers_only():
    # load_from_location with a location that two keys share would average them
    with pytest.raises(UsimError, match="averages numbers only"):
        run("aggregate(full_s, tokens)", WORD)


@pytest.mark.parametrize("text, expected", [
    ("s = Map(lambda x: x + 1, tokens + 1);", [3, 4, 5]),                       # issue 26: refused before
    ("s = SequenceMap(lambda x, y: x * y, tokens + 1, indices);", [0, 3, 8]),
    ("a = aggregate(select(indices, indices, <=), tokens);\ns = Map(lambda x: 2 * x, a);", [2, 3, 4]),
    ("def sq(v) { return v * v; }\ns = SequenceMap(lambda x, y: x + y, Map(sq, tokens), tokens - 1);",
     [1, 5, 11]),
])
def test_map_and_sequence_map_take_computed_sequences(text, expected):
    """tracr's make_sort and make_nary_sequencemap map over computed sequences: only the function
    must be element-wise, not what its arguments are computed from."""
    assert load_text(text, "m.rasp").run("s", [1, 2, 3], exact=True) == expected


def test_a_function_that_reads_more_than_its_arguments_is_still_no_map():
    with pytest.raises(UsimError, match="not element-wise: its result uses .* besides its arguments"):
        load_text("def f(x) { return x + indices; }\ns = Map(f, tokens + 1);", "m.rasp")
    with pytest.raises(UsimError, match="not element-wise"):
        load_text("def f(x) { return aggregate(select(indices, indices, ==), x); }\n"
                  "s = Map(f, tokens + 1);", "m.rasp")
