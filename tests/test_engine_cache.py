"""The verdict cache: what it keeps, when it gives it back, and that a reused
answer is the answer a fresh run gives."""

from __future__ import annotations

import dataclasses
import json
import stat

import pytest

from usim.cli import main
from usim.engine import identity as this_usim
from usim.engine.cache import (
    MALFORMED,
    TAG,
    CacheUse,
    Lookup,
    VerdictCache,
    default_folder,
    default_key_file,
    user_key,
)
from usim.engine.claim import EngineResult, Status, Witness
from usim.engine.runner import check_obligation, prove_claim
from usim.proofs import get

STATEMENT = "0" * 64


def test_the_folder_is_usim_cache_else_the_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.setenv("USIM_CACHE", str(tmp_path / "mine"))
    assert default_folder() == tmp_path / "mine"
    monkeypatch.delenv("USIM_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_folder() == tmp_path / "xdg" / "usim"


@pytest.fixture(scope="module")
def refuted():
    """A real refutation: lemma3's off-by-one variant at 1x1, its obligation and sympy's answer."""
    ob = get("lemma3").mutants["off-by-one"]((1, 1))
    answer = next(a for a in check_obligation(ob, ["sympy"]).results if a.engine == "sympy")
    assert answer.status is Status.REFUTED and answer.counterexample is not None
    return ob, answer


def test_a_proved_answer_comes_back_as_it_was_with_its_witness(tmp_path, refuted):
    ob, _ = refuted
    cache = VerdictCache(tmp_path)
    answer = EngineResult("witness", Status.PROVED, 1.5, "why",
                          witness=Witness({"X": [["0"]]}, "random search", "exact"))
    assert cache.put(STATEMENT, "witness", answer)
    back = cache.lookup(ob, STATEMENT, "witness")
    assert back == Lookup(dataclasses.replace(answer, cached=True))
    assert back.answer.as_dict()["cached"] is True and "cached" not in answer.as_dict()


def test_a_refutation_comes_back_with_its_counterexample_replayed_again(tmp_path, refuted):
    ob, answer = refuted
    cache = VerdictCache(tmp_path)
    assert cache.put(STATEMENT, "sympy", answer)
    kept = dataclasses.replace(answer, seconds=round(answer.seconds, 4), cached=True)  # times kept to 0.1 ms
    assert cache.lookup(ob, STATEMENT, "sympy") == Lookup(kept)


@pytest.mark.parametrize("status", [Status.UNKNOWN, Status.ERROR, Status.VACUOUS])
def test_answers_that_depend_on_time_or_luck_are_never_kept(tmp_path, refuted, status):
    cache = VerdictCache(tmp_path)
    assert not cache.put(STATEMENT, "z3", EngineResult("z3", status, 60.0, "timeout"))
    assert cache.lookup(refuted[0], STATEMENT, "z3") == Lookup() and not (tmp_path / "verdicts").exists()


def test_an_answer_is_only_given_back_for_the_same_statement_and_engine(tmp_path, refuted):
    ob, _ = refuted
    cache = VerdictCache(tmp_path)
    cache.put(STATEMENT, "z3", EngineResult("z3", Status.PROVED, 1.0))
    assert cache.lookup(ob, "1" + STATEMENT[1:], "z3") == Lookup()
    assert cache.lookup(ob, STATEMENT, "sympy") == Lookup()
    assert not cache.put(STATEMENT, "sympy", EngineResult("z3", Status.PROVED, 1.0))  # not its engine


def test_another_usim_or_solver_version_finds_nothing(tmp_path, monkeypatch, refuted):
    cache = VerdictCache(tmp_path)
    cache.put(STATEMENT, "z3", EngineResult("z3", Status.PROVED, 1.0))
    ours = this_usim.identity()
    monkeypatch.setattr(this_usim, "identity", lambda: tuple((k, "9.9" if k == "z3" else v) for k, v in ours))
    assert cache.lookup(refuted[0], STATEMENT, "z3") == Lookup()


def test_a_damaged_or_edited_entry_is_ignored_and_says_why_never_a_verdict(tmp_path, refuted):
    ob, answer = refuted
    cache = VerdictCache(tmp_path)
    cache.put(STATEMENT, "sympy", answer)
    path = cache.path(STATEMENT, "sympy")
    entry = json.loads(path.read_text())
    for edit in ({"statement": "1" * 64}, {"engine": "z3"}, {"format": 1}, {"source": "0" * 64},
                 {"result": {**entry["result"], "status": "PROVED"}},
                 {"result": {**entry["result"], "seconds": "fast"}}):
        path.write_text(json.dumps({**entry, **edit}))
        assert cache.lookup(ob, STATEMENT, "sympy") == Lookup(ignored=TAG), edit
    path.write_text(json.dumps({**entry, "tag": "hmac-sha256:\u00e9"}))  # not even ASCII
    assert cache.lookup(ob, STATEMENT, "sympy") == Lookup(ignored=TAG)
    untagged = json.dumps({k: v for k, v in entry.items() if k != "tag"}).encode()
    for data in (b"{not json", b"[]", untagged, b"\xff\xfe not UTF-8"):
        path.write_bytes(data)
        assert cache.lookup(ob, STATEMENT, "sympy") == Lookup(ignored=MALFORMED), data


def test_the_key_is_made_once_for_the_user_alone_outside_the_cache_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("USIM_CACHE_KEY")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert default_key_file() == tmp_path / "config" / "usim" / "cache.key"
    cache = VerdictCache(tmp_path / "cache")
    assert cache.put(STATEMENT, "z3", EngineResult("z3", Status.PROVED, 1.0))
    key = tmp_path / "config" / "usim" / "cache.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and len(bytes.fromhex(key.read_text())) == 32
    assert user_key(key) == user_key(key)  # made once, read after
    assert not list((tmp_path / "cache").rglob("*.key"))


@pytest.mark.parametrize("problem", ["others may read it", "not a key"])
def test_a_key_others_may_read_or_that_is_no_key_leaves_the_cache_unused(tmp_path, problem, refuted):
    key = tmp_path / "cache.key"
    VerdictCache(tmp_path / "cache", key).put(STATEMENT, "z3", EngineResult("z3", Status.PROVED, 1.0))
    if problem == "others may read it":
        key.chmod(0o644)
    else:
        key.write_text("not hexadecimal")
    cache = VerdictCache(tmp_path / "cache", key)
    assert cache.problem is not None and str(key) in cache.problem
    assert cache.lookup(refuted[0], STATEMENT, "z3") == Lookup()
    assert not cache.put(STATEMENT, "sympy", EngineResult("sympy", Status.PROVED, 1.0))


def test_usim_prove_says_why_it_does_not_use_the_cache_and_still_proves(tmp_path, monkeypatch, capsys):
    key = tmp_path / "cache.key"
    key.write_text("0" * 64 + "\n")
    key.chmod(0o666)
    monkeypatch.setenv("USIM_CACHE_KEY", str(key))
    assert main(["prove", "lemma3", "--max-n", "1", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "the verdict cache was not used" in captured.err and "chmod 600" in captured.err
    assert not (default_folder() / "verdicts").exists()


def test_a_cached_refutation_that_replays_is_reused_with_its_counterexample(tmp_path):
    claim = get("maxmin_published")
    cache = VerdictCache(tmp_path / "cache")
    first = prove_claim(claim, 1, cache=cache)
    again = prove_claim(claim, 1, cache=cache)
    assert again.cached == len(again.answers()) and again.cache_use == CacheUse(True, ())
    assert again.results[0].counterexample == first.results[0].counterexample


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
