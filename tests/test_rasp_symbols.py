"""Programs over symbols (the REPL's strings), proved over a finite alphabet
for every length up to N, and refuted when broken; the REPL's rules for
symbols, booleans and numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from usim.cli import main
from usim.engine.claim import Status
from usim.engine.listing import check
from usim.errors import UsimError
from usim.proofs.specs import spec
from usim.rasp.syntax import load_text

LISTING = Path(__file__).resolve().parent.parent / "examples" / "rasp" / "symbols.rasp"

CASES = [
    ("reverse", "reverse", "reverse_shifted"),
    ("histogram", "histogram", "histogram_others"),
    ("sort_symbols", "sort", "sort_unstable"),
    ("most_frequent", "most_frequent", "most_frequent_last"),
]


@pytest.mark.parametrize("function, name, broken", CASES, ids=[c[1] for c in CASES])
def test_a_program_over_symbols_is_proved_for_every_length_and_refuted_when_broken(function, name, broken):
    report = check(str(LISTING), function, spec(name), max_n=3, alphabet=("a", "b", "c"), timeout=60)
    assert [s.label for s in report.shapes] == ["1", "2", "3"]
    assert report.ok, [(s.label, s.status) for s in report.shapes]
    for shape in report.shapes:  # every input over the alphabet, exhaustively
        assert any(r.engine == "exhaustive" and r.status is Status.PROVED for r in shape.result.results)
    wrong = check(str(LISTING), broken, spec(name), shapes=[(3,)], alphabet=("a", "b", "c"), timeout=60)
    (shape,) = wrong.shapes
    assert shape.status is Status.REFUTED
    text = wrong.counterexample_text(shape)
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
    ("z = tokens + \"a\";", r"cannot apply \+ to symbols"),
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
