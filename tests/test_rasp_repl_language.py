"""The REPL's language where usim used to differ: a set example spanning lines,
# inside a string, select (aggregate, range, zip, len) as names, as RASP.g4 has them."""

from __future__ import annotations

import pytest

from usim.rasp.syntax import RaspSyntaxError, load_text
from usim.errors import UsimError


def test_set_example_may_span_lines_and_keep_its_comments_out():
    f = load_text("set example [1, 2,  # the first two\n    3, 4]  # and two more\nx = 1;\n")
    assert [(e.line, e.values) for e in f.examples] == [(1, (1, 2, 3, 4))]
    assert f.get("x") == 1


def test_a_hash_inside_a_string_is_not_a_comment():
    f = load_text('s = "a#b";\nset example "x#y" # a comment\n')
    assert f.get("s") == "a#b"
    assert f.examples[0].values == ("x", "#", "y")


def test_select_and_the_other_builtins_are_names_without_their_parenthesis():
    f = load_text("select = 3;\naggregate = 4;\nrange = select + aggregate;\n"
                  "s = aggregate(select(indices, 0, ==), indices);\nr = range(2);\n")
    assert f.get("select") == 3 and f.get("range") == 7 and f.get("r") == [0, 1]


def test_select_with_a_space_is_not_the_selector_as_in_the_repl():
    # RASP.g4's token is `select(`: with a space, == is a bare argument, which is no expression
    with pytest.raises(RaspSyntaxError, match="unexpected '=='"):
        load_text("s = select (indices, 0, ==);")
    with pytest.raises(UsimError, match="unknown name select"):
        load_text("s = select (indices);")


def test_an_unclosed_example_list_is_a_syntax_error_with_its_line():
    with pytest.raises(RaspSyntaxError) as caught:
        load_text("set example [1, 2,\nx = 3;\n", "e.rasp")
    assert "e.rasp:1:" in str(caught.value)
