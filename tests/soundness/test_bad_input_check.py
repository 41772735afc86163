"""``usim check`` and ``usim run FILE.rasp``: every bad input is one line and exit 2.

Before: a recursive function ended in a RecursionError traceback, and a negative
number raised to ``^ 0.5`` in a "complex to float" traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from usim.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "rasp"


def one_line(capsys, argv: list[str], status: int = 2) -> str:
    assert main(argv) == status
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert "Traceback" not in captured.err
    assert len(lines) == 1, captured.err
    return lines[0]


@pytest.mark.parametrize("text, message", [
    ("def f(x) { return f(x); }\ndef g() { return f(tokens); }\n", "calls nested more than 100 deep"),
    ("def f(x) { return f(x + 1) + f(x - 1); }\ng = f(1);\n", "calls nested more than 100 deep"),
    ("x = (-8) ^ 0.5;\ndef g() { return tokens; }\n", "undefined"),
])
def test_a_file_that_cannot_be_run_is_one_line(tmp_path, capsys, text, message):
    listing = tmp_path / "bad.rasp"
    listing.write_text(text)
    line = one_line(capsys, ["check", str(listing), "-f", "g", "--spec", "relu", "--max-n", "1"])
    assert message in line and f"{listing}:" in line


def test_a_negative_base_to_a_root_in_a_listing_is_checked_not_a_traceback(tmp_path, capsys):
    listing = tmp_path / "root.rasp"
    listing.write_text("def g() { return (tokens - 10) ^ 0.5; }\n")
    status = main(["check", str(listing), "-f", "g", "--spec", "relu", "--max-n", "2"])
    captured = capsys.readouterr()
    assert status == 1 and "Traceback" not in captured.err
    assert "REFUTED" in captured.out and "undefined where it is negative" in captured.out


def test_a_size_read_through_a_root_of_a_negative_number_is_one_line(tmp_path, capsys):
    listing = tmp_path / "size.rasp"
    listing.write_text("def g() { n = (length - 10) ^ 0.5; return tokens * n; }\n")
    line = one_line(capsys, ["check", str(listing), "-f", "g", "--spec", "transpose", "--max-n", "2"])
    assert "is meant for no transpose shape" in line


@pytest.mark.parametrize("argv, message", [
    (["-f", "transpose", "--input", "[1, 2, x]"], "unknown name x"),
    (["-f", "transpose", "--input", "[]"], "the input is empty"),
    (["-f", "transpose", "--input", "5"], "write a list such as [1, 2, 3]"),
    (["-f", "transpose", "--input", "[1, 2"], "syntax error"),
    (["-f", "transpose_rows", "--input", "[1, 2]"], "write the call itself, e.g. transpose_rows(...)"),
    (["-f", "nothing", "--input", "[1, 2]"], "defines no 'nothing'"),
    (["-f", "transpose", "--input", "[1]", "--shape", "1x1"], "--shape applies to the blocks of the paper"),
    (["--input", "[1]"], "needs --function F and --input"),
    (["-f", "transpose", "--input", "[" + ", ".join(["1"] * 4097) + "]"], "above usim run's limit of 4096"),
])
def test_usim_run_on_a_listing_refuses_bad_input_in_one_line(capsys, argv, message):
    line = one_line(capsys, ["run", str(EXAMPLES / "transpose.rasp"), *argv])
    assert message in line, line


def test_usim_run_on_a_listing_reports_an_undefined_output_in_one_line(capsys):
    line = one_line(capsys, ["run", str(EXAMPLES / "det3.rasp"), "-f", "inverse", "--input",
                             "[1, 2, 3, 4, 5, 6, 7, 8, 9]"])
    assert "the output inverse is undefined" in line


def test_a_folder_given_as_the_listing_is_one_line(tmp_path, capsys):
    line = one_line(capsys, ["check", str(tmp_path), "--function", "f", "--spec", "transpose"])
    assert "cannot read" in line and str(tmp_path) in line
    line = one_line(capsys, ["run", str(tmp_path), "--function", "f", "--input", "[1]"])
    assert "cannot read" in line
