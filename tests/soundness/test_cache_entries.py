"""A verdict cache entry is used only if it checks out (issue 22).

Reproduced before the fix: rewriting the REFUTED entries of the erratum
``maxmin_published`` as PROVED made ``usim prove maxmin_published --max-n 2``
report both obligations PROVED, "8 of 8 answers from the cache", and the
Markdown report and the site never said that anything came from the cache.
Now an entry carries an HMAC tag under the user's key (kept outside the cache
folder) and is bound to its statement, engine, source and versions; a cached
REFUTED is replayed again before it is used; an entry that does not check out
is ignored, counted, and its task run again; every report marks reused answers.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from usim.cli import main
from usim.engine import cache as verdicts
from usim.engine import identity as this_usim
from usim.engine.cache import VerdictCache, default_folder
from usim.engine.certificate import certificate, read_certificates
from usim.engine.claim import Counterexample, EngineResult, Status
from usim.engine.runner import prove_claim
from usim.proofs import all_claims, get
from usim.render import markdown
from usim.site import build_site

ERRATUM = ["prove", "maxmin_published", "--max-n", "2", "--quiet"]


def _entries(folder: Path) -> list[Path]:
    return sorted((folder / "verdicts").rglob("*.json"))


def _refuted_as_proved(path: Path, plain_sha: bool) -> bool:
    """Rewrite a REFUTED entry as PROVED (its counterexample dropped); with
    ``plain_sha`` also put a freshly computed sha256 of the edited entry in its
    tag, as anyone without the key could. True if the entry was a REFUTED."""
    entry = json.loads(path.read_text())
    if entry["result"]["status"] != "REFUTED":
        return False
    entry["result"].update(status="PROVED", counterexample=None, detail="proved")
    if plain_sha:
        body = {k: v for k, v in entry.items() if k != "tag"}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"))
        entry["tag"] = "hmac-sha256:" + hashlib.sha256(text.encode()).hexdigest()
    path.write_text(json.dumps(entry))
    return True


@pytest.mark.parametrize("plain_sha", [False, True], ids=["tag-left-as-it-was", "tag-a-recomputed-sha256"])
def test_an_erratums_refutations_rewritten_as_proved_are_ignored_and_it_is_refuted_again(
        plain_sha, tmp_path, capsys):
    assert main(ERRATUM) == 0
    edited = sum(_refuted_as_proved(path, plain_sha) for path in _entries(default_folder()))
    assert edited == 4  # sympy and z3 at both shapes
    capsys.readouterr()
    assert main([*ERRATUM, "--json", str(tmp_path / "c.json")]) == 0  # REFUTED, as an erratum must be
    last = [line for line in capsys.readouterr().out.splitlines() if "claim(s)" in line][-1]
    assert "1 erratum(s) REFUTED as expected" in last
    assert "4 of 8 answers from the cache" in last and "4 cache entries ignored and recomputed" in last, last
    assert verdicts.TAG in last
    (cert,) = read_certificates(str(tmp_path / "c.json"))
    assert cert.status is Status.REFUTED
    assert cert.data["verdict_cache"] == {"read": True, "reused": 4, "ignored": 4,
                                          "ignored_why": {verdicts.TAG: 4}}
    assert all(not e.cached for ob in cert.obligations for e in ob.results)  # recomputed, not reused


def test_a_cache_folder_copied_without_its_key_is_ignored_entry_by_entry(tmp_path, monkeypatch):
    claim = get("maxmin_published")
    mine = VerdictCache(tmp_path / "cache", tmp_path / "mine.key")
    prove_claim(claim, 2, cache=mine)
    theirs = VerdictCache(tmp_path / "cache", tmp_path / "theirs.key")  # the same folder, another user's key
    report = prove_claim(claim, 2, cache=theirs)
    assert report.status is Status.REFUTED and report.cached == 0
    assert report.cache_use.ignored == (verdicts.TAG,) * 8


def _move(cache: VerdictCache, source: Path, statement: str, engine: str) -> None:
    target = cache.path(statement, engine)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(source, target)


def test_an_entry_of_another_source_digest_moved_under_this_ones_name_is_ignored(tmp_path, monkeypatch):
    claim = get("maxmin_published")
    cache = VerdictCache(tmp_path / "cache")
    real = this_usim.source_digest()
    monkeypatch.setattr(this_usim, "source_digest", lambda: "f" * 64)  # an older usim, with the same key
    old = prove_claim(claim, 2, cache=cache)
    olds = {(row.fingerprint, a.engine): cache.path(row.fingerprint, a.engine)
            for row in old.results for a in (*row.results, row.definedness, row.witness)}
    monkeypatch.setattr(this_usim, "source_digest", lambda: real)
    for (statement, engine), path in olds.items():
        _move(cache, path, statement, engine)
    report = prove_claim(claim, 2, cache=cache)
    assert report.status is Status.REFUTED and report.cached == 0
    assert report.cache_use.ignored == (verdicts.SOURCE,) * 8


def test_an_entry_of_another_engine_moved_under_this_engines_name_is_ignored(tmp_path):
    claim = get("lemma3")
    cache = VerdictCache(tmp_path / "cache")
    first = prove_claim(claim, 1, cache=cache)
    statement = first.results[0].fingerprint
    _move(cache, cache.path(statement, "sympy"), statement, "z3")  # sympy's PROVED where z3's is read
    report = prove_claim(claim, 1, cache=cache)
    assert report.status is Status.PROVED
    assert report.cache_use.ignored == (verdicts.ENGINE,)
    z3 = next(a for a in report.results[0].results if a.engine == "z3")
    assert not z3.cached  # z3 ran again


def _forged_refutation(cache: VerdictCache, statement: str, engine: str, inputs: dict) -> None:
    """A REFUTED that checks out as an entry (written with the key) but whose
    counterexample is not one."""
    cx = Counterexample(inputs, 0, "y[0,0]", "1", "0", "exact")
    assert cache.put(statement, engine, EngineResult(engine, Status.REFUTED, 0.1, "forged", cx))


def test_a_cached_refutation_of_a_true_statement_that_does_not_replay_is_ignored_and_it_is_proved(tmp_path):
    claim = get("lemma3")
    cache = VerdictCache(tmp_path / "cache")
    statement = prove_claim(claim, 1, cache=cache).results[0].fingerprint
    _forged_refutation(cache, statement, "sympy", {"M": [["5"]]})
    _forged_refutation(cache, statement, "definedness", {"M": [["5"]]})
    report = prove_claim(claim, 1, cache=cache)
    assert report.status is Status.PROVED
    assert report.cache_use.ignored == (verdicts.NO_REPLAY, verdicts.NO_REPLAY)


def test_a_cached_refutation_whose_counterexample_is_not_the_one_it_gives_is_ignored(tmp_path):
    claim = get("maxmin_published")  # right on non-negative inputs: x = [1] refutes nothing
    cache = VerdictCache(tmp_path / "cache")
    first = prove_claim(claim, 1, cache=cache)
    statement = first.results[0].fingerprint
    _forged_refutation(cache, statement, "z3", {"x": [["1"]]})
    report = prove_claim(claim, 1, cache=cache)
    assert report.status is Status.REFUTED and report.cache_use.ignored == (verdicts.NO_REPLAY,)
    z3 = next(a for a in report.results[0].results if a.engine == "z3")
    assert not z3.cached and z3.counterexample.inputs != {"x": [["1"]]}


@pytest.fixture
def cached_certificates(tmp_path) -> Path:
    """maxmin_published's certificate from a second run: every answer from the cache."""
    folder = tmp_path / "certificates"
    folder.mkdir()
    cache = VerdictCache(tmp_path / "cache")
    prove_claim(get("maxmin_published"), 2, cache=cache)
    report = prove_claim(get("maxmin_published"), 2, cache=cache)
    (folder / "maxmin_published.json").write_text(json.dumps(certificate(report, 60.0)))
    return folder


def test_the_markdown_report_marks_every_answer_that_came_from_the_cache(cached_certificates):
    (cert,) = read_certificates(str(cached_certificates / "maxmin_published.json"))
    text = markdown(cert)
    assert "**Verdict cache:** 8 of 8 answers from the cache" in text
    rows = [line for line in text.splitlines() if line.startswith("| 1 |") or line.startswith("| 2 |")]
    assert len(rows) == 2
    for row in rows:
        assert row.count("(cached") == 4, row  # sympy, z3, definedness, witness


def test_the_site_marks_a_claim_whose_answers_came_from_the_cache(cached_certificates, tmp_path):
    index = build_site(all_claims(), cached_certificates, tmp_path / "site", pictures=False)
    page = index.read_text()
    assert 'data-claim="maxmin_published" data-status="REFUTED" data-cached="8"' in page
    assert "8 of 8 answers from the cache" in page
    assert "cached, replayed again in its run" in page  # its counterexample came from the cache


def test_an_entry_that_is_a_fifo_or_a_link_is_ignored_without_being_read(tmp_path):
    """Found in review: an entry replaced by a FIFO made lookup block in
    read_text (a link to /dev/zero would fill memory)."""
    import os

    from usim.engine.cache import MALFORMED, Lookup, VerdictCache

    cache = VerdictCache(tmp_path / "cache")
    statement = "f" * 64
    path = cache.path(statement, "z3")
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    assert cache.lookup(None, statement, "z3") == Lookup(ignored=MALFORMED)
    path.unlink()
    path.symlink_to("/dev/zero")
    assert cache.lookup(None, statement, "z3") == Lookup(ignored=MALFORMED)
