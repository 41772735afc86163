"""usim as a library (usim/api.py, exported from usim): the functions the command line is a shell around."""

from __future__ import annotations

import json
from fractions import Fraction
import subprocess
import sys

import pytest

import usim
from usim.errors import UsimError


def test_import_usim_loads_no_solver_until_a_name_is_used():
    code = ("import sys, usim\nbefore = {m.split('.')[0] for m in sys.modules} & {'sympy', 'z3', 'cvc5'}\n"
            "usim.prove\nprint(sorted(before))")
    done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_every_public_name_is_there_and_documented():
    for name in usim.__all__:
        value = getattr(usim, name)
        assert name == "__version__" or value.__doc__, name
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        usim.nothing  # noqa: B018


def test_prove_takes_a_claim_or_its_name_and_refuses_a_bad_bound():
    report = usim.prove("lemma3", max_n=2)
    assert report.status is usim.Status.PROVED and report.max_n == 2
    assert usim.prove(report.claim, max_n=1).status is usim.Status.PROVED
    for bad, message in ((dict(max_n=0), "max_n must be a whole number between 1 and 64, not 0"),
                         (dict(max_n=1.5), "max_n must be a whole number"),
                         (dict(timeout=-1), "timeout must be a positive number of seconds, not -1"),
                         (dict(jobs=0), "jobs must be a whole number of at least 1, not 0"),
                         (dict(engines="z3"), r"engines is a list of names \(\['z3'\]\)"),
                         (dict(engines=["z4"]), "no engine 'z4'")):
        with pytest.raises(UsimError, match=message):
            usim.prove("lemma3", **bad)
    with pytest.raises(UsimError, match="no claim 'nope'"):
        usim.prove("nope")


def test_a_certificate_written_by_the_api_is_verified_by_it(tmp_path):
    report = usim.prove("lemma3", max_n=1)
    path = tmp_path / "lemma3.json"
    usim.write_certificate(path, usim.certificate(report))
    (result,) = usim.verify(path)
    assert result.reproduced and result.status == "PROVED" and result.mismatch is None
    data = json.loads(path.read_text())
    data["claim"]["title"] = "something else"
    from usim.engine.certificate import digest

    data["digest"] = digest(data)  # re-sealed: the digest matches, the statement does not
    path.write_text(json.dumps(data))
    (result,) = usim.verify(path)
    assert not result.reproduced and result.mismatch == "the registry" and result.checked == 0


def test_redeclare_changes_what_is_asked_and_refuses_what_claim_does_not_take():
    claim = usim.claims("lemma3")[0]
    same = usim.redeclare(claim)
    assert same.id == claim.id and same.statement == claim.statement
    with pytest.raises(TypeError, match="takes no argument colour"):
        usim.redeclare(claim, colour="blue")
    made_otherwise = usim.claims("hierarchy")[0]
    if made_otherwise.declaration is None:
        with pytest.raises(TypeError, match="was not made by usim.claim"):
            usim.redeclare(made_otherwise)


def test_check_and_run_a_listing(tmp_path):
    listing = tmp_path / "t.rasp"
    listing.write_text("def transpose_rows(r) { cols = length / r;\n"
                       "  src = (indices % r) * cols + (indices - indices % r) / r;\n"
                       "  return aggregate(select(indices, src, ==), tokens_float); }\n"
                       "def double() { return tokens_float * 2; }\n")
    report = usim.check(listing, "transpose_rows", "transpose", max_n=2)
    assert report.status is usim.Status.PROVED
    assert [float(v) for v in usim.run(listing, "double", [1, Fraction(5, 2)])] == [2.0, 5.0]
    assert usim.run(listing, "double", [1, Fraction(5, 2)], exact=True) == [2, 5]
    with pytest.raises(UsimError, match="holds 2.5: usim runs numbers"):  # a float is not an exact number
        usim.run(listing, "double", [1, 2.5])
