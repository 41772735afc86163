"""A RASP session: statements typed one by one, shown on the running example,
redefined, refused without changing anything, and read as one file."""

from __future__ import annotations

import pytest

from usim.errors import UsimError
from usim.repl.session import (
    DRAWING,
    MAX_DRAWN_HEADS,
    ERROR,
    EXAMPLE,
    FUNCTION,
    SELECTOR,
    SEQUENCE,
    VALUE,
    Session,
    example_literal,
)


def _one(session: Session, line: str):
    reply = session.feed(line)
    assert len(reply.shown) == 1, reply
    return reply.shown[0]


def test_a_sequence_is_shown_on_the_running_example_hello() -> None:
    shown = _one(Session(), 'x = tokens == "l";')
    assert (shown.what, shown.name, shown.kind) == (SEQUENCE, "x", "boolean")
    assert shown.value == [False, False, True, True, False]
    assert shown.example == tuple("hello")


def test_an_example_of_numbers_reads_tokens_as_numbers() -> None:
    session = Session()
    assert _one(session, "set example [4, 7, 10]").value == (4, 7, 10)
    shown = _one(session, "y = tokens * indices;")
    assert (shown.kind, shown.value) == ("number", [0, 7, 20])


def test_a_selector_is_shown_as_which_keys_each_query_selects() -> None:
    shown = _one(Session(["a", "b", "c"]), "prev = select(indices, indices, <);")
    assert shown.what == SELECTOR
    assert shown.value == [[False, False, False], [True, False, False], [True, True, False]]


def test_a_definition_spanning_lines_waits_for_its_end() -> None:
    session = Session([1, 2])
    assert session.feed("def double(s) {").pending
    assert session.feed("  return s * 2;").pending
    shown = _one(session, "}")
    assert (shown.what, shown.name, shown.value) == (FUNCTION, "double", ("s",))
    assert _one(session, "double(tokens + 1);").value == [4, 6]


def test_a_redefinition_wins_and_what_was_built_before_keeps_its_meaning() -> None:
    session = Session([1, 2, 3])
    session.feed("a = tokens + 1;")
    session.feed("b = a * 10;")
    assert _one(session, "a = tokens - 1;").value == [0, 1, 2]
    assert _one(session, "b;").value == [20, 30, 40]  # b was built from the first a, as in a file


def test_a_failed_statement_changes_nothing_and_the_session_goes_on() -> None:
    session = Session([1, 2])
    error = _one(session, "a = g;")
    assert error.what == ERROR and "unknown name g" in error.value
    assert "<session>" not in error.value  # the session's own line numbers are not shown
    assert "a" not in session.names()
    assert _one(session, "g = 3;").value == 3
    assert _one(session, "a = g;").value == 3
    assert session.statements == ["g = 3;", "a = g;"]


def test_a_syntax_error_is_one_reply_and_the_next_line_starts_afresh() -> None:
    session = Session([1])
    assert _one(session, "x = ;").what == ERROR
    assert not session.pending
    assert _one(session, "x = 1;").value == 1


def test_an_example_the_session_cannot_read_is_refused_naming_the_statement() -> None:
    session = Session()
    session.feed('x = tokens == "l";')
    error = _one(session, "set example [1, 2, 3]")
    assert error.what == ERROR and '`x = tokens == "l";`' in error.value
    assert session.example == tuple("hello")


def test_examples_off_shows_definitions_without_values() -> None:
    session = Session([1, 2])
    session.feed("examples off")
    shown = _one(session, "x = tokens + 1;")
    assert shown.what == SEQUENCE and shown.value is None
    session.feed("examples on")
    assert _one(session, "x;").value == [2, 3]


def test_show_example_and_a_value_that_is_not_a_sequence() -> None:
    session = Session([5, 6])
    assert _one(session, "show example").what == EXAMPLE
    shown = _one(session, 'd = {"a": 1};')
    assert shown.what == VALUE and shown.value == {"a": 1}


def test_draw_gives_each_head_its_selection_and_result_on_the_input() -> None:
    session = Session([1, 2, 3])
    session.feed("flip = select(length - indices - 1, indices, ==);")
    session.feed("rev = aggregate(flip, tokens);")
    shown = _one(session, "draw(rev, [7, 8]);")
    assert shown.what == DRAWING and shown.example == (7, 8)
    assert shown.value.total == 1
    (head,) = shown.value.heads
    assert head.selector == "flip" and head.result == (8, 7)
    assert head.selection == ((False, True), (True, False))


def test_new_symbols_in_an_input_widen_the_alphabet_for_that_input() -> None:
    session = Session(list("ab"))
    session.feed("flip = select(length - indices - 1, indices, ==);")
    session.feed("rev = aggregate(flip, tokens);")
    assert session.reading_for(list("xyz")).run("rev", list("xyz")) == ["z", "y", "x"]
    assert session.file.run("rev", list("ba")) == ["a", "b"]


def test_load_brings_a_files_names(tmp_path, monkeypatch) -> None:
    (tmp_path / "lib.rasp").write_text("def inc(s) { return s + 1; }\n_hidden = 1;\n")
    monkeypatch.chdir(tmp_path)
    session = Session([1, 2])
    shown = _one(session, 'load "lib";')
    assert "inc" in shown.value and "_hidden" not in session.names()
    assert _one(session, "inc(tokens);").value == [2, 3]


def test_exit_ends_the_session_after_the_statements_before_it() -> None:
    reply = Session([1]).feed("a = 1; exit")
    assert reply.ended and reply.shown[0].value == 1


def test_the_source_is_the_file_of_the_session_and_reads_back_the_same() -> None:
    from usim.repl import load_text

    session = Session([1, 2])
    session.feed("x = tokens + 1;")
    session.feed("bad = nope;")
    session.feed("x;")
    assert session.source == "set example [1, 2]\nx = tokens + 1;\n"
    again = load_text(session.source, "saved.rasp")
    assert again.run("x", [1, 2], exact=True) == [2, 3]


@pytest.mark.parametrize("values, text", [
    (tuple("hello"), '"hello"'),
    ((1, 2), "[1, 2]"),
    (("ab", "c"), '["ab", "c"]'),
])
def test_an_example_is_written_as_it_would_be_typed(values, text) -> None:
    assert example_literal(values) == text


def test_a_drawing_says_how_many_heads_it_leaves_out() -> None:
    session = Session([1, 2])
    session.feed("s = select(indices, indices, ==);")
    session.feed("x = tokens;")
    for _ in range(MAX_DRAWN_HEADS + 2):
        session.feed("x = aggregate(s, x);")
    drawing = _one(session, "draw(x);").value
    assert (len(drawing.heads), drawing.total) == (MAX_DRAWN_HEADS, MAX_DRAWN_HEADS + 2)


@pytest.mark.parametrize("example, why", [
    ("[tokens]", "not the sequence tokens"),
    ('[1, "a"]', "not both"),
    ('[["a"], ["b"]]', "not a list"),
    ("[]", "non-empty"),
    ("3", "non-empty list or string"),
])
def test_an_example_that_is_not_an_input_is_refused(example, why) -> None:
    session = Session([1, 2])
    error = _one(session, f"set example {example}")
    assert error.what == ERROR and why in error.value
    assert session.example == (1, 2)


def test_an_example_the_sessions_file_could_not_write_is_refused() -> None:
    with pytest.raises(UsimError, match="no quote or backslash"):
        Session(['a"b', "c"])


def test_a_loaded_file_is_kept_as_it_was_loaded(tmp_path, monkeypatch) -> None:
    """The session (and its checks) read what was loaded, not what the disk holds later:
    a file edited or deleted after its load changes nothing the session says."""
    lib = tmp_path / "lib.rasp"
    lib.write_text("def rev(s) { return aggregate(select(length - indices - 1, indices, ==), s); }\n")
    monkeypatch.chdir(tmp_path)
    session = Session(list("ab"))
    session.feed('load "lib";')
    lib.write_text("def rev(s) { return s; }\n")
    assert _one(session, "r = rev(tokens);").value == ["b", "a"]
    lib.unlink()
    assert _one(session, "q = r;").value == ["b", "a"]
    assert set(session.files) == {"lib.rasp"}


def test_a_saved_session_loads_its_files_from_where_it_is_saved(tmp_path, monkeypatch) -> None:
    from usim.repl import load_file

    (tmp_path / "lib.rasp").write_text("def inc(s) { return s + 1; }\n")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    session = Session([1, 2])
    session.feed('load "lib";')
    session.feed("y = inc(tokens);")
    saved = session.saved("sub")
    assert 'load "../lib";' in saved
    (tmp_path / "sub" / "mine.rasp").write_text(saved)
    monkeypatch.chdir(tmp_path / "sub")
    assert load_file("mine.rasp").run("y", [1, 2], exact=True) == [2, 3]


def test_an_input_the_session_cannot_read_names_the_statement() -> None:
    session = Session([1, 2, 3])
    session.feed("n = tokens * 2;")
    with pytest.raises(UsimError, match=r"`n = tokens \* 2;` cannot be read with it"):
        session.reading_for(["a", "b"])


def test_a_statement_joining_too_many_strings_is_refused_and_the_session_goes_on() -> None:
    session = Session()
    session.feed('set example "abcdefghijklmn"')
    errors = session.feed("x = tokens + tokens;").errors
    assert len(errors) == 1 and "a table of more than 128 strings" in errors[0]
    assert "x" not in session.names()
    assert session.feed("y = indices + 1;").errors == ()
