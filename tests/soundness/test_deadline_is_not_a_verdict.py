"""A statement that does not build within the deadline decides nothing, and
says so where it happens: ``usim verify`` reports the obligation as not checked
again (the certificate is NOT reproduced), and the search for a counterexample
at a size goes on without it. When check_obligation began to build the
statement under the deadline (issue 30, part 3), its DeadlineError reached
verify and the all-sizes search uncaught: a command error instead of "not
reproduced", a whole family's search ended by one slow size."""

from __future__ import annotations

from types import SimpleNamespace

from usim.cli import main
from usim.engine import verify as verify_module
from usim.engine.parametric import allsizes
from usim.errors import DeadlineError


def _past_the_deadline(*args, **kwargs):
    raise DeadlineError("building the target and preconditions took longer than the 1 s timeout")


def test_verify_says_an_obligation_past_the_deadline_is_not_reproduced(tmp_path, capsys, monkeypatch):
    path = str(tmp_path / "lemma3.json")
    assert main(["prove", "lemma3", "--max-n", "2", "--no-cache", "--json", path, "-q"]) == 0
    capsys.readouterr()
    monkeypatch.setattr(verify_module, "check_obligation", _past_the_deadline)
    assert main(["verify", path, "-q"]) == 1
    out = capsys.readouterr().out
    assert "NOT reproduced" in out and "not checked again: building the target" in out


def test_a_size_past_the_deadline_refutes_nothing(monkeypatch):
    monkeypatch.setattr(allsizes, "instance_obligation", lambda fc, shape, mutant: object())
    monkeypatch.setattr(allsizes, "check_obligation", _past_the_deadline)
    family = SimpleNamespace(claim=SimpleNamespace(engines=("sympy", "z3")))
    assert allsizes._refute(family, None, (3, 2), None, 1.0) is None
