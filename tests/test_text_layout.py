"""usim's terminal text (usim/text_layout.py): tables and explanations fit 100 columns."""

from __future__ import annotations

from usim.cli import main
from usim.text_layout import LINE_WIDTH, fitted, table


def test_a_table_given_a_width_wraps_its_widest_column_under_itself() -> None:
    rows = [["lemma3", "Lemma 3", "transpose of an r x c matrix: 1 layer, 1 head " * 3]]
    text = table(rows, ["claim", "paper", "statement"], width=40)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 40
    start = lines[0].index("statement")
    assert all(line[:start].strip() == "" for line in lines[3:])  # continuations sit under the column
    assert " ".join(line[start:] for line in lines[2:]).split() == rows[0][2].split()  # no word lost


def test_a_table_without_a_width_keeps_each_row_on_one_line() -> None:
    rows = [["a", "x" * 150]]
    assert table(rows, ["k", "v"]).splitlines()[2] == "a  " + "x" * 150


def test_fitted_lines_keep_their_indent_and_hang_list_items() -> None:
    line = "    - " + "word " * 40
    wrapped = fitted([line, "short"], width=50)
    assert wrapped[-1] == "short" and all(len(w) <= 50 for w in wrapped)
    assert wrapped[0].startswith("    - word") and all(w.startswith("      word") for w in wrapped[1:-1])


def test_usim_prove_list_fits_100_columns(capsys) -> None:
    """It printed lines of 170 and more characters (issue 28)."""
    assert main(["prove", "--list"]) == 0
    out = capsys.readouterr().out
    assert LINE_WIDTH == 100 and max(len(line) for line in out.splitlines()) <= LINE_WIDTH
    assert "lemma3" in out and "theorem6" in out
