"""The options usim prove and usim check share (usim/commands/options.py), and help that loads no solver."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from usim.cli import COMMANDS, main
from usim.commands.options import CHECK_LARGEST_N, PROVE_LARGEST_N, check_max_n, check_timeout
from usim.engine.options import MAX_BOUND
from usim.errors import UsimError

ROOT = Path(__file__).resolve().parent.parent
MATMUL = ["check", str(ROOT / "examples" / "rasp" / "matmul.rasp"), "--function", "matmul", "--spec", "matmul"]


def test_every_help_loads_no_solver_and_no_parser_of_listings():
    code = ("import sys\nfrom usim.cli import COMMANDS, main\n"
            "for argv in [['--help']] + [[c, '--help'] for c in COMMANDS]:\n"
            "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'sympy', 'z3', 'cvc5', 'flint', 'lark', 'torch'}))")
    done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


def test_each_command_keeps_its_own_largest_bound():
    assert (PROVE_LARGEST_N, CHECK_LARGEST_N) == (MAX_BOUND, None)
    check_max_n(MAX_BOUND + 1, CHECK_LARGEST_N)  # usim check sets no largest bound of its own
    with pytest.raises(UsimError, match=rf"^--max-n must be between 1 and {MAX_BOUND}, not {MAX_BOUND + 1}$"):
        check_max_n(MAX_BOUND + 1, PROVE_LARGEST_N)
    for largest, message in ((PROVE_LARGEST_N, "--max-n must be between 1 and 64, not 0"),
                             (CHECK_LARGEST_N, "--max-n must be at least 1")):
        with pytest.raises(UsimError, match=f"^{message}$"):
            check_max_n(0, largest)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf"), 0.0, -1.0])
def test_a_timeout_that_is_not_a_finite_positive_number_is_refused(value):
    with pytest.raises(UsimError, match="^--timeout must be a positive number of seconds, not "):
        check_timeout(value)


def test_a_timeout_longer_than_any_wait_is_refused_by_its_option_name():
    """A budget of 1e9 s would overflow the clock's wait when a proof's interpreter is started."""
    with pytest.raises(UsimError, match=r"^--all-sizes-timeout must be at most 1e\+06 seconds, not 1e\+09$"):
        check_timeout(1e9, "--all-sizes-timeout")
    check_timeout(1e6)


@pytest.mark.parametrize("argv, message", [
    (["--max-n", "0"], "usim check: error: --max-n must be at least 1"),
    (["--timeout", "nan"], "usim check: error: --timeout must be a positive number of seconds, not nan"),
    (["--timeout", "0"], "usim check: error: --timeout must be a positive number of seconds, not 0"),
])
def test_usim_check_refuses_a_bad_bound_or_timeout_in_one_line(argv, message, capsys):
    assert main(MATMUL + argv) == 2
    captured = capsys.readouterr()
    assert captured.err.strip() == message and captured.out == ""


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_every_help_is_plain_text_within_100_columns(command, monkeypatch, capsys) -> None:
    """--help shows no reST (``x``, :mod:`x`) and, at 100 columns, no line wider (show's was 250)."""
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit):
        main([command, "--help"] if command else ["--help"])
    out = capsys.readouterr().out
    assert "``" not in out and not re.search(r":(mod|func|class|data|meth):`", out)
    assert max(len(line) for line in out.splitlines()) <= 100


def test_help_text_reads_rest_roles_as_plain_words() -> None:
    from usim.commands.options import help_text

    assert help_text("see :mod:`usim.engine.verify` and ``--max-n`` (:data:`~usim.engine.options.MAX_BOUND`)") == (
        "see usim.engine.verify and --max-n (MAX_BOUND)")
