"""The REPL's language where usim used to differ: a set example spanning lines,
# inside a string, select (aggregate, range, zip, len) as names, as RASP.g4 has them."""

from __future__ import annotations

import pytest

from usim.repl import RaspSyntaxError, load_text
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


def test_a_table_indexed_by_a_sequence_as_the_repls_golden_indexing_test():
    """tests/in/indexing.txt of the REPL, with the outputs its tests/tgt records."""
    f = load_text('set example "12345"\nd = {"1": 1, "2": 2, "3": 3, "4": 5, "5": 4};\n'
                  'a = "qwertyuioplkjhgfdsazxcvbnm";\nb = [5, 8, 2, 9, 4, 7, 5];\n'
                  "x = d[tokens];\ny = a[indices];\nz = a[indices * 3];\nw = b[indices];\n"
                  "missing = d[indices];\n", "indexing.rasp", symbols=True)
    word = list("12345")
    assert f.run("x", word) == [1, 2, 3, 5, 4]
    assert f.run("y", word) == list("qwert")
    assert f.run("z", word) == list("qrupj")
    assert f.run("w", word) == [5, 8, 2, 9, 4]
    assert f.get("d")["4"] == 5 and f.get("a")[6] == "u" and f.get("b")[5] == 7
    with pytest.raises(UsimError, match="undefined"):  # the REPL: index [ 0 ] not in dict
        f.run("missing", word)
    with pytest.raises(UsimError, match="a sequence is indexed by an integer"):
        load_text("t = tokens[indices];")


def test_lists_concatenate_as_in_python():
    assert load_text("x = [1, 2] + [3];").get("x") == [1, 2, 3]
