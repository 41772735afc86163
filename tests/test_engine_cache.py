"""The verdict cache: what it keeps, when it gives it back, and that a reused
answer is the answer a fresh run gives."""

from __future__ import annotations

import dataclasses
import json

import pytest

from usim.cli import main
from usim.engine import identity as this_usim
from usim.engine.cache import VerdictCache, default_folder
from usim.engine.claim import Counterexample, EngineResult, Status, Witness
from usim.engine.runner import prove_claim
from usim.proofs import get

STATEMENT = "0" * 64


def test_the_folder_is_usim_cache_else_the_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.setenv("USIM_CACHE", str(tmp_path / "mine"))
    assert default_folder() == tmp_path / "mine"
    monkeypatch.delenv("USIM_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_folder() == tmp_path / "xdg" / "usim"


@pytest.mark.parametrize("status", [Status.PROVED, Status.REFUTED])
def test_a_definitive_answer_comes_back_as_it_was_with_its_counterexample_and_witness(tmp_path, status):
    cache = VerdictCache(tmp_path)
    answer = EngineResult("z3", status, 1.5, "why",
                          Counterexample({"X": [["1", "1/2"]]}, 3, "Y[0,1]", "1", "2", "exact", "node 7"),
                          Witness({"X": [["0"]]}, "random search", "exact"))
    assert cache.put(STATEMENT, "z3", answer)
    back = cache.get(STATEMENT, "z3")
    assert back == dataclasses.replace(answer, cached=True)
    assert back.as_dict()["cached"] is True and "cached" not in answer.as_dict()


@pytest.mark.parametrize("status", [Status.UNKNOWN, Status.ERROR, Status.VACUOUS])
def test_answers_that_depend_on_time_or_luck_are_never_kept(tmp_path, status):
    cache = VerdictCache(tmp_path)
    assert not cache.put(STATEMENT, "z3", EngineResult("z3", status, 60.0, "timeout"))
    assert cache.get(STATEMENT, "z3") is None and not (tmp_path / "verdicts").exists()


def test_an_answer_is_only_given_back_for_the_same_statement_and_engine(tmp_path):
    cache = VerdictCache(tmp_path)
    cache.put(STATEMENT, "z3", EngineResult("z3", Status.PROVED, 1.0))
    assert cache.get("1" + STATEMENT[1:], "z3") is None
    assert cache.get(STATEMENT, "sympy") is None
    assert not cache.put(STATEMENT, "sympy", EngineResult("z3", Status.PROVED, 1.0))  # not its engine


def test_another_usim_or_solver_version_finds_nothing(tmp_path, monkeypatch):
    cache = VerdictCache(tmp_path)
    cache.put(STATEMENT, "z3", EngineResult("z3", Status.PROVED, 1.0))
    ours = this_usim.identity()
    monkeypatch.setattr(this_usim, "identity", lambda: tuple((k, "9.9" if k == "z3" else v) for k, v in ours))
    assert cache.get(STATEMENT, "z3") is None


def test_a_damaged_or_edited_entry_is_a_miss_never_a_verdict(tmp_path):
    cache = VerdictCache(tmp_path)
    cache.put(STATEMENT, "z3", EngineResult("z3", Status.REFUTED, 1.0))
    (path,) = (tmp_path / "verdicts").rglob("*.json")
    entry = json.loads(path.read_text())
    for edit in ({"statement": "1" * 64}, {"engine": "sympy"}, {"format": 0},
                 {"result": {**entry["result"], "status": "UNKNOWN"}},
                 {"result": {**entry["result"], "seconds": "fast"}}):
        path.write_text(json.dumps({**entry, **edit}))
        assert cache.get(STATEMENT, "z3") is None, edit
    path.write_text("{not json")
    assert cache.get(STATEMENT, "z3") is None


def test_a_folder_that_cannot_be_written_loses_the_entry_not_the_run(tmp_path):
    (tmp_path / "verdicts").write_text("a file where the folder should be")
    assert not VerdictCache(tmp_path).put(STATEMENT, "z3", EngineResult("z3", Status.PROVED, 1.0))


def test_a_second_run_reuses_every_answer_and_reports_the_same_verdicts(tmp_path):
    cache = VerdictCache(tmp_path)
    first = prove_claim(get("lemma5"), 2, jobs=2, mutants=True, cache=cache)
    again = prove_claim(get("lemma5"), 2, jobs=2, mutants=True, cache=cache)
    assert first.cached == 0 and again.cached == len(again.answers()) > 0
    strip = lambda r: [dataclasses.replace(a, seconds=0, cached=False) for a in r.answers()]  # noqa: E731
    assert strip(first) == strip(again)
    assert again.status is Status.PROVED and again.mutants_refuted


def test_engines_are_reported_in_the_claims_order_whichever_finished_first():
    report = prove_claim(get("lemma3"), 2, jobs=2)
    for row in report.results:
        assert [r.engine for r in row.results] == list(get("lemma3").engines)


def test_usim_prove_says_how_many_answers_came_from_the_cache_and_no_cache_reads_none(capsys, tmp_path):
    assert main(["prove", "lemma3", "--quick", "--quiet"]) == 0
    assert "from the cache" not in capsys.readouterr().out
    assert main(["prove", "lemma3", "--quick", "--quiet"]) == 0
    assert "answers from the cache" in capsys.readouterr().out.splitlines()[-1]
    assert main(["prove", "lemma3", "--quick", "--quiet", "--no-cache"]) == 0
    assert "from the cache" not in capsys.readouterr().out
