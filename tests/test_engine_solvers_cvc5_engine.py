"""The optional cvc5 engine: PROVED only on cvc5's unsat, killed at its deadline.

Skipped as a whole when cvc5 is not installed (``pip install cvc5``), except
the test that the engine then says so and proves nothing.
"""

from __future__ import annotations

import time

import pytest
import sympy

from usim.engine.claim import Status
from usim.engine.solvers import cvc5_engine
from usim.engine.solvers.cvc5_engine import check_cvc5, cvc5_available, run_cvc5_script
from usim.engine.solvers.smtlib import SmtLib, SmtLibError
from usim.proofs import get
from usim.engine.runner import check_obligation

needs_cvc5 = pytest.mark.skipif(not cvc5_available(), reason="cvc5 is not installed")


def test_without_cvc5_the_engine_is_unknown_never_proved(monkeypatch):
    monkeypatch.setattr(cvc5_engine, "cvc5_available", lambda: False)
    result = check_cvc5(get("lemma5").obligation((1, 1, 1)), 10)
    assert result.status is Status.UNKNOWN and "not installed" in result.detail


@needs_cvc5
@pytest.mark.parametrize("claim_id, shape", [
    ("lemma3", (2, 3)), ("lemma4", (3, 3)), ("lemma5", (2, 3, 2)), ("hierarchy", (2, 2, 2)),
    ("maxmin", (4,)),
])
def test_cvc5_proves_the_lemmas_and_attention(claim_id, shape):
    result = check_cvc5(get(claim_id).obligation(shape), 60)
    assert result.status is Status.PROVED, result.detail
    assert "unsat" in result.detail


@needs_cvc5
@pytest.mark.parametrize("claim_id, mutant, shape", [
    ("lemma5", "missing-factor-k", (2, 2, 2)),
    ("lemma5", "off-by-one", (2, 3, 2)),
    ("lemma3", "swapped-index", (2, 3)),
])
def test_cvc5_refutes_broken_constructions_with_a_replayed_counterexample(claim_id, mutant, shape):
    ob = get(claim_id).mutants[mutant](shape)
    result = check_cvc5(ob, 30)
    assert result.status is Status.REFUTED, result.detail
    assert result.counterexample is not None and result.counterexample.expected != result.counterexample.got


@needs_cvc5
def test_a_broken_softmax_is_never_proved_by_cvc5():
    # cvc5 rarely answers sat with exp: it times out, and the replayed random witness refutes
    ob = get("lemma4").mutants["missing-factor-c"]((1, 2))
    start = time.perf_counter()
    result = check_cvc5(ob, 3)
    assert result.status is Status.REFUTED, result.detail
    assert time.perf_counter() - start < 30


@needs_cvc5
def test_cvc5_is_killed_at_its_deadline_and_gives_unknown():
    x, y = sympy.symbols("x y", real=True)
    smt = SmtLib()
    # a satisfiable exp query cvc5 does not settle quickly
    left, right = smt.term(sympy.exp(x) * y), smt.term(sympy.exp(y) + x * x + 3)
    query = "".join(smt.definitions_for(left, right)) + f"(assert (= {left} {right}))(check-sat)"
    start = time.perf_counter()
    answers, stopped = run_cvc5_script(smt.script([query]), 1.0)
    elapsed = time.perf_counter() - start
    assert elapsed < 10
    assert stopped is not None and "timeout" in stopped and answers == []


@needs_cvc5
def test_an_engine_timeout_is_unknown_through_the_runner():
    ob = get("lemma4").obligation((2, 2))
    result = check_obligation(ob, ["cvc5"], timeout=1e-6)
    assert result.results[0].status is Status.UNKNOWN
    assert result.status is Status.UNKNOWN


def test_smtlib_states_numbers_exactly_and_refuses_what_it_cannot_state():
    smt = SmtLib()
    assert smt.term(sympy.Rational(-3, 7)) == "(- (/ 3.0 7.0))"
    with pytest.raises(SmtLibError, match="not exact"):  # a float is never rounded into a proof
        smt.term(sympy.Float("0.25"))
    x = sympy.Symbol("A[0,1]", real=True)
    name = smt.term(sympy.exp(2 * x) / (1 + x))
    assert name.startswith("t") and "(declare-const |A[0,1]| Real)" in smt.lines
    with pytest.raises(SmtLibError):
        smt.term(sympy.sin(x))
    with pytest.raises(SmtLibError):
        smt.term(sympy.Piecewise((x, x > 0)))  # no otherwise-branch


def test_each_check_states_the_definitions_it_reads_in_its_own_scope():
    x, y = sympy.symbols("x y", real=True)
    smt = SmtLib()
    smt.assertion(x * y > 1)  # a precondition: global, with its definitions
    shared = x * y + 1
    first = smt.check_differs(shared * x, x * x * y + x)
    second = smt.check_differs(sympy.exp(shared), sympy.exp(y * x + 1))
    globals_ = [line.split()[1] for line in smt.lines if line.startswith("(define-fun")]
    assert globals_ == [smt.names[x * y], smt.names[x * y > 1]]  # the precondition's terms only
    for check in (first, second):  # each defines what it reads beyond them, in its own scope
        assert check.startswith("(push 1)(define-fun") and check.endswith("(check-sat)(pop 1)")
        assert f"(define-fun {smt.names[x * y]} " not in check
        assert f"(define-fun {smt.names[shared]} " in check


@needs_cvc5
def test_checks_with_scoped_definitions_run_in_any_order_and_alone():
    x, y = sympy.symbols("x y", real=True)
    smt = SmtLib()
    smt.assertion(x * y > 1)
    checks = [smt.check_differs((x * y + 1) * x, x * x * y + x), smt.check_differs((x * y + 1) * x, x * x * y),
              smt.check_differs(sympy.exp(x * y + 1), sympy.exp(y * x + 1))]
    answers, stopped = run_cvc5_script(smt.script(checks[::-1]), 30)
    assert stopped is None and answers[0] == "unsat" and answers[1].startswith("sat") and answers[2] == "unsat"
    for check in checks:
        answers, stopped = run_cvc5_script(smt.script([check]), 30)
        assert stopped is None and len(answers) == 1
