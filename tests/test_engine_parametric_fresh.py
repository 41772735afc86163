"""Each proof for every size in an interpreter of its own: the same verdict as in
this process, about the statement sent and no other, and a child that fails is
an ERROR or UNKNOWN, never a verdict."""

from __future__ import annotations

import dataclasses
import os
import time

import pytest

from usim.engine.claim import Status
from usim.engine.parametric.allsizes import prove_all_sizes
from usim.engine.parametric.fresh import prove_fresh, prove_fresh_each
from usim.errors import UsimError
from usim.proofs import family


def another_family(claim_id: str):
    """Finds the transpose's family under any id (a registry that answers with the wrong statement)."""
    return family("lemma3")


def renamed(claim_id: str):
    """The very statement sent (the same fingerprint), but registered under another
    claim's id: the child's answer is for that claim."""
    fc = family("lemma3")
    return dataclasses.replace(fc, claim=dataclasses.replace(fc.claim, id="lemma3_renamed"))


def crashing(claim_id: str):
    """A registry whose interpreter dies."""
    os._exit(3)


def slow_for_lemma4(claim_id: str):
    """The registry, but finding lemma4 takes ten minutes."""
    if claim_id == "lemma4":
        time.sleep(600)
    return family(claim_id)


class Interrupted(Exception):
    """What a caller interrupted while its proofs run raises."""


def interrupt(index, result):
    raise Interrupted(result.claim_id)


def test_a_family_proved_in_a_fresh_interpreter_has_the_verdict_it_has_here():
    fc = family("lemma3")
    here = prove_all_sizes(fc, tie_bound=1)
    there = prove_fresh(family, fc, tie_bound=1)
    assert here.status is there.status is Status.PROVED
    assert [s.step for s in there.verdict.steps] == [s.step for s in here.verdict.steps]
    assert there.tie.ok and there.witness.status is Status.PROVED


def test_a_broken_variant_is_refuted_there_with_its_replayed_counterexample():
    fc = family("lemma3")
    name = next(iter(fc.mutants))
    there = prove_fresh(family, fc, name, tie_bound=1)
    assert there.status is Status.REFUTED and there.counterexample.status is Status.REFUTED


def test_the_child_proves_only_the_statement_it_was_sent():
    """The id names another statement where the child looks: ERROR, not that statement's PROVED."""
    there = prove_fresh(another_family, family("lemma4"), tie_bound=1)
    assert there.status is Status.ERROR
    assert "not the statement sent" in there.reason


def test_an_answer_for_another_claim_than_the_one_sent_is_an_error_not_its_verdict():
    there = prove_fresh(renamed, family("lemma3"), tie_bound=1)
    assert there.status is Status.ERROR
    assert there.claim_id == "lemma3"
    assert "answered for lemma3_renamed" in there.reason


def test_a_child_that_dies_is_an_error_not_a_verdict():
    there = prove_fresh(crashing, family("lemma3"), tie_bound=1)
    assert there.status is Status.ERROR
    assert "exit 3" in there.reason


def test_what_the_child_refuses_is_refused_here_in_one_line():
    with pytest.raises(UsimError, match="no-such-variant"):
        prove_fresh(family, family("lemma3"), "no-such-variant", tie_bound=1)


def test_a_child_running_another_usim_is_an_error(monkeypatch):
    """A source file edited while a run goes on: the child's usim is not the caller's."""
    from usim.engine.parametric import fresh

    monkeypatch.setattr(fresh, "identity", lambda: (("usim source", "0000000000000000"),))
    there = prove_fresh(family, family("lemma3"), tie_bound=1)
    assert there.status is Status.ERROR
    assert "another usim" in there.reason and "usim source 0000000000000000" in there.reason


def test_families_proved_several_at_once_come_back_in_the_order_sent_with_their_own_verdicts():
    lemma3, lemma4 = family("lemma3"), family("lemma4")
    broken = next(iter(lemma3.mutants))
    ended = []
    found = prove_fresh_each(family, [(lemma4, None), (lemma3, broken), (lemma3, None)], tie_bound=1, jobs=2,
                             done=lambda index, result: ended.append((index, result.claim_id, result.mutant)))
    assert [(r.claim_id, r.mutant, r.status) for r in found] == [
        ("lemma4", None, Status.PROVED), ("lemma3", broken, Status.REFUTED), ("lemma3", None, Status.PROVED)]
    assert sorted(ended) == [(0, "lemma4", None), (1, "lemma3", broken), (2, "lemma3", None)]
    alone = prove_fresh(family, lemma3, tie_bound=1)
    assert [s.step for s in found[2].verdict.steps] == [s.step for s in alone.verdict.steps]


def test_what_a_child_refuses_among_several_is_refused_here():
    with pytest.raises(UsimError, match="no-such-variant"):
        prove_fresh_each(family, [(family("lemma3"), None), (family("lemma3"), "no-such-variant")], tie_bound=1,
                         jobs=2)


def test_an_interrupted_caller_kills_the_proofs_still_running_instead_of_waiting_for_them():
    start = time.perf_counter()
    with pytest.raises(Interrupted, match="lemma3"):
        prove_fresh_each(slow_for_lemma4, [(family("lemma3"), None), (family("lemma4"), None)], tie_bound=1,
                         jobs=2, done=interrupt)
    assert time.perf_counter() - start < 120  # the child finding lemma4 was killed, not waited for


def test_a_name_that_is_no_broken_variant_of_a_family_is_refused_before_any_proof():
    from usim.engine.parametric.composed import prove_verdicts

    with pytest.raises(UsimError, match="no broken variant 'no-such-variant'"):
        prove_verdicts(family("lemma3"), [None, "no-such-variant"], tie_bound=1, locate=crashing, jobs=2)
