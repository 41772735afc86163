"""``usim run``: every bad input is one line on stderr and exit status 2.

Nothing is printed on stdout (the run stops before it starts), nothing hangs
(``1e999999999`` is refused before a billion-digit integer is built), nothing is
allocated for an absurd shape. Inputs at the limits are still accepted.
"""

from __future__ import annotations

import re

import pytest

from soundness_statements import refused as refused_command
from usim.cli import main
from usim.commands.run import MAX_POSITIONS, MAX_POWER_DIGITS
from usim.encodings.notation import MAX_DIGITS


def refused(capsys, argv: list[str]) -> str:
    """Run ``usim run ARGV``: one line, exit 2 (soundness_statements.refused)."""
    return refused_command(capsys, ["run", *argv])


HUGE_INTEGER = "7" * (MAX_DIGITS + 1)


@pytest.mark.parametrize("argv, message", [
    # values: too large, too small, too many digits, unreadable
    (["transpose", "--shape", "1x1", "--values", "1e400"], r"'1e400' is out of range.*1e-300 to 1e300"),
    (["transpose", "--shape", "1x1", "--values", "1e999999999"], r"'1e999999999' is out of range"),
    (["transpose", "--shape", "1x1", "--values=-1e-400"], r"'-1e-400' is out of range"),
    (["transpose", "--shape", "1x1", "--values", "1e-999999999"], r"out of range"),
    (["transpose", "--shape", "1x1", "--values", f"1/{HUGE_INTEGER}"], rf"has {MAX_DIGITS + 2} digits"),
    (["transpose", "--shape", "1x1", "--values", HUGE_INTEGER], rf"has {MAX_DIGITS + 1} digits: usim reads at most"),
    (["transpose", "--shape", "1x2", "--values", "1/2/3 4"], r"cannot read '1/2/3'"),
    (["transpose", "--shape", "1x2", "--values", "1/0 4"], r"cannot read '1/0'"),
    (["transpose", "--shape", "1x2", "--values", "0x10 4"], r"cannot read '0x10'"),
    (["transpose", "--shape", "1x2", "--values", "snan 4"], r"cannot read 'snan'"),
    (["transpose", "--shape", "1x2", "--values", "1,NaN"], r"'NaN' is not finite"),
    # how many values
    (["transpose", "--shape", "2x2", "--values", ""], r"--values is empty"),
    (["transpose", "--shape", "2x2", "--values", " , ;"], r"--values is empty"),
    (["transpose", "--shape", "2x2", "--values", "1 2 3 4 5"], r"M \(2x2\) needs 4 values, got 5"),
    (["matmul", "--shape", "1x2x1", "--values", "1 2 3"], r"A \(1x2\) and B \(2x1\) need 4 values, got 3"),
    # shapes: refused before anything is allocated
    (["transpose", "--shape", "100000x100000"], rf"10000000000 positions, above usim run's limit of {MAX_POSITIONS}"),
    (["softmax", "--shape", "33x32"], r"1056 positions"),
    (["matmul", "--shape", "1x100000x1"], r"200000 positions"),
    (["transpose", "--shape", "99999999999999999999x1"], r"above usim run's limit"),
    (["transpose", "--shape=-2x2"], r"cannot read the shape"),
    (["transpose", "--shape", "2x2", "--seed", "abc"], r"argument --seed: invalid int value: 'abc'"),
    (["transpose"], r"usim run transpose needs --shape"),
    (["rotate", "--shape", "2x2"], r"no block 'rotate': give one of det3, inverse3, matmul, softmax, transpose, or a .rasp file"),
    (["transpose", "--shape", "2x2", "--random", "--values", "1,2,3,4"], r"not allowed with argument --random"),
    # bases: the base stands for e
    (["softmax", "--shape", "1x2", "--base", "1"], r"base must be above 1, got 1: .*1/C"),
    (["softmax", "--shape", "1x2", "--base", "0.5"], r"base must be above 1, got 0.5: .*reverses"),
    (["softmax", "--shape", "1x2", "--base=-2"], r"base must be positive, got -2"),
    (["softmax", "--shape", "1x2", "--base", "inf"], r"'inf' is not finite"),
    (["softmax", "--shape", "1x2", "--base", "nan"], r"'nan' is not finite"),
    (["softmax", "--shape", "1x2", "--base", "101"], r"base must be at most 100, got 101"),
    (["softmax", "--shape", "1x2", "--base", "1e300"], r"base must be at most 100"),
    (["softmax", "--shape", "1x2", "--base", "1e999999999"], r"out of range"),
    (["softmax", "--shape", "1x2", "--base", "e"], r"cannot read 'e'"),
    # exact powers: integer exponents, and not absurdly many digits
    (["softmax", "--shape", "1x2", "--exact", "--base", "2.718", "--values", "1000000,0"],
     rf"about 7000000 digits.*at most {MAX_POWER_DIGITS}"),
    (["softmax", "--shape", "1x2", "--exact", "--base", "2.718", "--values", "1e300,0"], r"digits"),
    (["softmax", "--shape", "1x2", "--exact", "--base", "2", "--values", "1/2,0"], r"needs integer entries"),
    # seeds
    (["transpose", "--shape", "2x2", "--seed", "-1"], r"--seed must be a whole number from 0 to 2\*\*64 - 1, got -1"),
    (["transpose", "--shape", "2x2", "--seed", str(2**64)], r"--seed must be a whole number"),
    (["transpose", "--shape", "2x2", "--seed", "3", "--values", "1,2,3,4"], r"--seed applies to random values"),
    # a numeric run beyond every float type
    (["softmax", "--shape", "1x2", "--values", "1e300,0"], r"leaves the range of float64"),
])
def test_a_bad_input_is_one_line_and_exit_2(capsys, argv: list[str], message: str) -> None:
    line = refused(capsys, argv)
    assert re.search(message, line), line


def test_an_exact_value_with_a_huge_exponent_is_never_built(monkeypatch, capsys) -> None:
    def never(*args, **kwargs):
        raise AssertionError("a Fraction was built from an out-of-range value")

    monkeypatch.setattr("usim.commands.run.Fraction", never)
    line = refused(capsys, ["transpose", "--shape", "1x1", "--values", "1e999999999"])
    assert "out of range" in line


@pytest.mark.parametrize("argv", [
    ["transpose", "--shape", "1x2", "--values", "0e999999999 1e300"],  # zero with any exponent; the largest
    ["transpose", "--shape", "1x2", "--values", "1e-300 -1e-300"],  # the smallest magnitudes
    ["transpose", "--shape", "1x1", "--values", "9" * MAX_DIGITS],  # the most digits
    ["transpose", "--shape", "32x32"],  # the most positions
    ["matmul", "--shape", "2x256x2"],
    ["softmax", "--shape", "1x2", "--base", "100"],  # the largest base
    ["transpose", "--shape", "2x2", "--seed", str(2**64 - 1)],  # the largest seed
    ["det3", "--shape", "3x3", "--values", "1e300 0 0 0 1e300 0 0 0 1e300"],  # a determinant of 1e900
])
def test_inputs_at_the_limits_run(capsys, argv: list[str]) -> None:
    assert main(["run", *argv]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "largest difference: 0" in captured.out


def test_a_value_too_long_to_show_is_rounded_and_marked(capsys) -> None:
    assert main(["run", "det3", "--shape", "3x3", "--values", "1e300 0 0 0 1e300 0 0 0 1e300"]) == 0
    out = capsys.readouterr().out
    assert "~1e+900" in out  # not 901 digits, not a crash converting to float
    assert "largest difference: 0 (exact)" in out
