"""The engines an obligation gets: chosen by its kind, recorded, never forced."""

from __future__ import annotations

import dataclasses

from usim.engine import choice
from usim.engine.certificate import certificate, check
from usim.engine.choice import STAGE, WHOLE_PROGRAM, choose
from usim.engine.runner import prove_claim
from usim.proofs import get


def test_an_obligation_of_no_listed_kind_gets_its_claims_engines():
    assert choose(None, ("sympy", "z3")) == (["sympy", "z3"], None)
    assert choose("no such kind", ("sympy",)) == (["sympy"], None)


def test_the_whole_program_of_u_gets_cvc5_not_z3_and_the_note_says_why(monkeypatch):
    monkeypatch.setattr(choice, "cvc5_available", lambda: True)
    names, note = choose(WHOLE_PROGRAM, ("sympy", "z3"))
    assert names == ["sympy", "cvc5"] and "z3 is not run" in note


def test_without_cvc5_a_stage_falls_back_to_z3_and_the_whole_program_to_sympy_alone(monkeypatch):
    monkeypatch.setattr(choice, "cvc5_available", lambda: False)
    assert choose(STAGE, ("sympy", "z3"))[0] == ["sympy", "z3"]
    names, note = choose(WHOLE_PROGRAM, ("sympy", "z3"))
    assert names == ["sympy"] and note.endswith("(cvc5 not installed)")


def test_engines_named_by_the_user_always_win_over_the_choice():
    report = prove_claim(get("theorem6"), 1, engines=["z3"])
    assert report.engines == ["z3"]
    assert all([r.engine for r in row.results] == ["z3"] and row.engine_choice is None for row in report.results)


def test_the_choice_is_written_in_the_certificate_and_read_back(monkeypatch):
    monkeypatch.setattr(choice, "cvc5_available", lambda: False)  # the same on every machine
    for claim_id, kind in (("hierarchy", WHOLE_PROGRAM), ("theorem6", STAGE)):
        report = prove_claim(get(claim_id), 1)
        assert any(row.engine_choice is not None and kind in row.engine_choice for row in report.results)
        cert = check(certificate(report, 60), "here")
        assert [r.engine_choice for r in cert.obligations] == [r.engine_choice for r in report.results]


def test_a_kind_changes_no_verdict_only_who_gives_it():
    claim = get("theorem6")
    ob = claim.obligation((2, 0, 0, 1))
    plain = dataclasses.replace(claim, obligation=lambda s: dataclasses.replace(claim.obligation(s), kind=None))
    assert [r.status for r in prove_claim(plain, 2, shapes=[(2, 0, 0, 1)]).results] == \
        [r.status for r in prove_claim(claim, 2, shapes=[(2, 0, 0, 1)]).results]
    assert ob.kind == STAGE
