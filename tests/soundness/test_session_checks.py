"""A check inside ``usim repl`` is about the program the session shows.

Two bugs found in review (2026-12-02), each shown here to give a wrong verdict
before its fix:

* the options after ``check F SPEC`` were passed on to ``usim check``, and a
  later ``--function`` replaced F: ``check same reverse --function rev`` proved
  ``rev`` and printed the verdict under nothing that named it;
* a ``load`` was read from disk again at every check: after the loaded file was
  edited, a check refuted (or proved) a program the session never showed.
"""

from __future__ import annotations

from usim.commands.repl import Shell
from usim.repl.session import Session

REVERSE = "def reverse_of(s) { return aggregate(select(length - indices - 1, indices, ==), s); }\n"


def _shell(lines: list[str], capsys) -> tuple[Shell, str]:
    written: list[str] = []
    shell = Shell(Session(list("ab")), written.append)
    for line in lines:
        shell.line(line)
    return shell, "\n".join(written) + capsys.readouterr().out


def test_check_refuses_a_second_function_instead_of_proving_it(capsys) -> None:
    shell, out = _shell(["rev = aggregate(select(length - indices - 1, indices, ==), tokens);",
                         "same = tokens;", "check same reverse --max-n 2 --function rev"], capsys)
    assert "--function cannot be given again" in out
    assert "PROVED" not in out and shell.failures == 1


def test_check_proves_the_loaded_file_the_session_read_not_the_one_on_disk_now(tmp_path, monkeypatch, capsys) -> None:
    lib = tmp_path / "lib.rasp"
    lib.write_text(REVERSE)
    monkeypatch.chdir(tmp_path)
    shell, _ = _shell(['load "lib";', "rev = reverse_of(tokens);"], capsys)
    lib.write_text("def reverse_of(s) { return s; }\n")  # edited after the load
    shell.line("check rev reverse --max-n 3")
    out = capsys.readouterr().out
    assert "summary: 3 shape(s): 3 PROVED, 0 REFUTED, 0 UNKNOWN" in out  # what the session shows: a reverse
    assert shell.failures == 0
