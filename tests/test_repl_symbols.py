"""Programs over symbols (the REPL's strings), proved over a finite alphabet
for every length up to N, and refuted when broken; the REPL's rules for
symbols, booleans and numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from usim.cli import main
from usim.engine.claim import Status
from usim.listings.check import CheckRequest, check
from usim.errors import UsimError
from usim.listings.specs import spec
from usim.repl import load_text

LISTING = Path(__file__).resolve().parent.parent / "examples" / "rasp" / "symbols.rasp"

CASES = [
    ("reverse", "reverse", "reverse_shifted"),
    ("histogram", "histogram", "histogram_others"),
    ("sort_symbols", "sort", "sort_unstable"),
    ("most_frequent", "most_frequent", "most_frequent_last"),
    ("histogram_doubled", "histogram", "histogram_bigrams"),  # strings joined with +
]


@pytest.mark.parametrize("function, name, broken", CASES, ids=[c[0] for c in CASES])
def test_a_program_over_symbols_is_proved_for_every_length_and_refuted_when_broken(function, name, broken):
    report = check(CheckRequest(str(LISTING), function, spec(name), max_n=3, alphabet=("a", "b", "c"), timeout=60))
    assert [s.label for s in report.shapes] == ["1", "2", "3"]
    assert report.ok, [(s.label, s.status) for s in report.shapes]
    for shape in report.shapes:  # every input over the alphabet, exhaustively
        assert any(r.engine == "exhaustive" and r.status is Status.PROVED for r in shape.result.results)
    wrong = check(CheckRequest(str(LISTING), broken, spec(name), shapes=[(3,)], alphabet=("a", "b", "c"), timeout=60))
    (shape,) = wrong.shapes
    assert shape.status is Status.REFUTED
    text = wrong.counterexample(shape).describe()
    assert "input x = ['" in text  # shown as symbols, not codes


def test_the_alphabet_defaults_to_the_symbols_of_the_examples(capsys):
    assert main(["check", str(LISTING), "-f", "reverse", "--spec", "reverse", "--max-n", "2"]) == 0
    out = capsys.readouterr().out
    assert "the input ranges over 'e', 'h', 'l', 'o'" in out
    assert "['h', 'e', 'l', 'l', 'o'] as 5 -> ['o', 'l', 'l', 'e', 'h']: agrees with the spec" in out


def test_usim_run_reads_a_string_as_symbols(capsys):
    assert main(["run", str(LISTING), "-f", "sort_symbols", "--input", '"hello"']) == 0
    assert capsys.readouterr().out.strip() == "[e, h, l, l, o]"
    assert main(["run", str(LISTING), "-f", "histogram", "--input", '["b", "a", "b"]']) == 0
    assert capsys.readouterr().out.strip() == "[2, 1, 2]"


def _values(text: str, name: str, tokens: str) -> list:
    return load_text(text, "t.rasp", symbols=True, inputs=sorted(set(tokens))).run(name, list(tokens))


def test_a_symbol_is_never_equal_to_a_number_whatever_its_code():
    # "a" has code 0 here: comparing codes with 0 would say True
    assert _values("z = tokens == 0; w = tokens != 0;", "z", "ab") == [False, False]
    assert _values("z = tokens == 0; w = tokens != 0;", "w", "ab") == [True, True]
    assert _values("c = selector_width(select(tokens, 0, ==));", "c", "ab") == [0, 0]


@pytest.mark.parametrize("text, message", [
    ("z = tokens < 1;", "cannot order a symbol and a number"),
    ("z = tokens + 1;", r"cannot apply \+ to symbols and numbers"),
    ("z = tokens - tokens;", r"cannot apply - to symbols \(only \+ joins strings\)"),
    ("z = tokens if indices == 0 else 1;", "one branch gives symbols and the other numbers"),
    ("z = select(tokens, indices, <);", "cannot order symbols against numbers"),
    ("z = -tokens;", "cannot apply - to a sequence of symbols"),
    ("z = round(tokens);", "cannot apply round to a sequence of symbols"),
    ("z = tokens_int + 1;", "tokens_int reads the input as numbers"),
])
def test_what_the_repl_refuses_for_symbols_is_one_clear_error(text, message):
    with pytest.raises(UsimError, match=message):
        load_text(text, "t.rasp", symbols=True, inputs=["a", "b"])


def test_an_aggregate_of_symbols_or_booleans_moves_one_value_and_never_averages():
    text = ("one = aggregate(select(indices, 0, ==), tokens);\n"
            "many = aggregate(select(tokens, tokens, ==), tokens);\n"
            "none = aggregate(select(indices, indices + 1, ==), tokens);\n"
            "filled = aggregate(select(indices, indices + 1, ==), tokens, \"-\");\n"
            "flags = aggregate(full_s, tokens == \"a\");\n"
            "flag = aggregate(select(indices, 0, ==), tokens == \"a\", False);\n")
    assert _values(text, "one", "ab") == ["a", "a"]
    assert _values(text, "filled", "ab") == ["b", "-"]
    assert _values(text, "flag", "ab") == [True, True]
    assert _values(text, "many", "ab") == ["a", "b"]  # one key per row here
    for name, tokens in (("many", "aa"), ("none", "ab"), ("flags", "ab")):
        with pytest.raises(UsimError, match="undefined"):
            _values(text, name, tokens)


def test_averaging_booleans_is_an_error_as_in_the_repl():
    f = load_text("m = aggregate(full_s, tokens > 0);", "t.rasp")
    with pytest.raises(UsimError, match="averages numbers only"):
        f.run("m", [1, 2], exact=True)
    assert f.run("m", [1], exact=True) == [True]  # one key: moved, not averaged


def test_a_certificate_over_symbols_records_its_alphabet_and_is_verified(tmp_path, capsys):
    cert = tmp_path / "hist.json"
    assert main(["check", str(LISTING), "-f", "histogram", "--spec", "histogram", "--alphabet", "ab",
                 "--max-n", "2", "--json", str(cert)]) == 0
    import json

    assert json.loads(cert.read_text())["source"]["alphabet"] == ["a", "b"]
    capsys.readouterr()
    assert main(["verify", str(cert), "-q"]) == 0
    assert "reproduced (2 obligation(s), status PROVED)" in capsys.readouterr().out


# -- strings made at run time: + on symbols ------------------------------------------

JOINS = """
previous = aggregate(select(indices, indices - 1, ==), tokens, "^");
pair = previous + tokens;
shout = tokens + "!";
closes = pair in ["()", "[]"];
def collected(flags) {
    out = "";
    for name in flags {
        out = out + (name if flags[name] else "");
    }
    return out;
}
seen = collected({"a": tokens == "a", "b": selector_width(select(tokens, "b", ==)) > 0});
order = selector_width(select(pair, pair, <));
"""


@pytest.mark.parametrize("name, tokens, expected", [
    ("pair", "ab(", ["^a", "ab", "b("]),
    ("shout", "ab", ["a!", "b!"]),
    ("closes", "()[)", [False, True, False, False]),
    ("seen", "ab", ["ab", "b"]),     # as the REPL's loop over a dict builds them
    ("seen", "cc", ["", ""]),
    ("order", "ba", [0, 1]),          # "^b" < "ba": joined strings order as strings
])
def test_plus_on_symbols_joins_strings_as_the_repl_does(name, tokens, expected):
    f = load_text(JOINS, "t.rasp", symbols=True, inputs=["(", ")", "[", "]", "a", "b", "c"])
    assert f.run(name, list(tokens)) == expected
    assert "string concatenation" in f.uses


def test_a_plus_in_a_function_the_reading_never_ran_widens_the_alphabet_when_called():
    text = "def stutter() { return tokens + tokens + tokens; }"
    f = load_text(text, "t.rasp", symbols=True, inputs=["a", "b"])
    assert "aaa" not in f.alphabet.symbols  # the body runs only when called
    assert f.run("stutter", list("ab")) == ["aaa", "bbb"]
    assert {"aa", "aaa", "bbb"} <= set(f.alphabet.symbols)
    assert list(f.alphabet.symbols) == sorted(f.alphabet.symbols)  # codes still in string order


def test_a_run_outside_the_symbols_the_joins_were_made_for_is_refused():
    # "c" has a code (the file writes it), but the table of z was made for a and b only
    f = load_text('z = tokens + tokens; w = tokens == "c";', "t.rasp", symbols=True, inputs=["a", "b"])
    assert f.run("w", list("ac")) == [False, True]
    with pytest.raises(UsimError, match="the input holds 'c', outside the symbols it ranges over"):
        f.run("z", list("ac"))


def test_a_join_with_too_many_strings_is_one_clear_error_when_it_is_run():
    text = "x = tokens; " + " ".join("x = x + x;" for _ in range(4))
    rasp = load_text(text, "t.rasp", symbols=True, inputs=list("abcdefghij"))
    with pytest.raises(UsimError, match="a table of more than 128 strings"):
        rasp.run("x", list("ab"))


def test_a_file_applying_a_join_to_its_own_input_loads_and_runs(capsys, tmp_path):
    listing = tmp_path / "app.rasp"
    listing.write_text('z = tokens + "!";\nz("cd");\ndef f() { return tokens + "?"; }\n')
    assert main(["run", str(listing), "-f", "f", "--input", '"ab"']) == 0
    assert capsys.readouterr().out.strip() == "[a?, b?]"


@pytest.mark.parametrize("text, name, expected", [
    ('def g() { return not tokens; }', "g", [False, False]),            # "" is no symbol here
    ('def g() { return not (tokens + ""); }', "g", [False, False]),
])
def test_not_on_symbols_is_true_only_for_the_empty_string(text, name, expected):
    assert _values(text, name, "ab") == expected


def test_numbers_functions_refuse_symbols():
    with pytest.raises(UsimError, match="cannot apply abs to a sequence of symbols"):
        _values('def f() { return "pqrs"[abs(tokens)]; }', "f", "ab")


def test_a_name_joining_too_many_strings_is_refused_where_it_is_read():
    text = "x = tokens; " + " ".join(f'x = x + "{c}";' for c in "abcdefghij") + " y = x + x;"
    rasp = load_text(text, "t.rasp", symbols=True, inputs=list("abcdefghijklmn"))
    assert rasp.run("x", list("ab")) == ["aabcdefghij", "babcdefghij"]
    with pytest.raises(UsimError, match="more than 128 strings"):
        rasp.run("y", list("ab"))


def test_an_example_string_gives_its_characters_not_a_symbol_of_its_own() -> None:
    from usim.repl import load_text

    rasp = load_text('set example "(x)()"\ny = tokens == "x";\n', symbols=True)
    assert rasp.alphabet.symbols == ("(", ")", "x")


def test_a_join_too_large_leaves_only_its_own_names_unbuilt() -> None:
    """paper_examples.rasp's dyck2_ptf joins 15 strings to 14 on a 14-symbol input, and
    hist_bos, defined earlier and joining nothing, could not run (issue 28)."""
    text = ("hist = selector_width(select(tokens, tokens, ==));\n"
            "x = tokens; x = x + x; x = x + x;\n"
            "after = indices + 1;\n"
            "uses_x = x == \"a\";\n")
    rasp = load_text(text, "t.rasp", symbols=True, inputs=list("abcdefghijklmn"))
    assert rasp.run("hist", list("abca")) == [2, 1, 1, 2]
    assert rasp.run("after", list("ab")) == [1, 2]
    for name in ("x", "uses_x"):  # the join itself, and what reads it, are refused at the +
        with pytest.raises(UsimError, match=r"t\.rasp:2:\d+: error: this \+ joins .* a table of more than 128"):
            rasp.run(name, list("ab"))

