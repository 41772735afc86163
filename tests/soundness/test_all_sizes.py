"""The verdict for every size is never PROVED for a false statement.

Each test feeds the parametric engine something false or unprovable and shows
what it says instead: a vacuous side condition is VACUOUS; an undefined
division (in index arithmetic or among the values) is REFUTED at the size
where the divisor is 0, replayed by the bounded engines; a selection
characterised with the wrong index range (one key too many or too few, or
checked on part of the keys only) fails; a family that is right but is not the
builder's program is an ERROR; a construct outside the engine's fragment is
UNKNOWN; a cached answer is never the answer to another formula; a certificate
cannot be edited into a proof for every size.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
import z3

from usim.cli import main
from usim.engine.certificate import digest
from usim.engine.claim import Status
from usim.engine.parametric import symbolic_sizes as evaluate_module
from usim.engine.parametric.allsizes import prove_all_sizes
from usim.engine.parametric.symbolic_sizes import Context, InputBlock, StepFailed, SymbolicSizeEvaluator
from usim.engine.parametric.integers import Ledger, Prover
from usim.engine.parametric.selection import Interval
from usim.engine.parametric.target import matrix_of
from usim.engine.parametric.terms import ParametricAtoms
from usim.proofs import families
from usim.rasp.expr import Aggregate, Predicate, Semantics, indices, length, select, where
from usim.rasp.family import Parameter

LEMMA3 = families()["lemma3"]


def _variant(fc, name, replacements):
    return dataclasses.replace(fc, mutants={**fc.mutants, name: replacements})


def test_a_vacuous_side_condition_is_vacuous_never_proved():
    for mutant in (None, "off-by-one"):
        fc = dataclasses.replace(LEMMA3, side_condition=lambda r, c: r > r + c)
        result = prove_all_sizes(fc, mutant)
        assert result.status is Status.VACUOUS
        assert "no sizes meet the side conditions" in result.verdict.reason


def test_an_undefined_division_among_the_values_is_refuted_where_the_divisor_is_0():
    fc = _variant(LEMMA3, "times-(c-3)/(c-3)", lambda r, c: {
        "transpose": lambda node: node * ((length // r - 3) / (length // r - 3))})
    result = prove_all_sizes(fc, "times-(c-3)/(c-3)")
    assert result.status is Status.REFUTED
    assert dict(zip(fc.dims, result.shape))["c"] == 3
    assert result.counterexample.definedness.status is Status.REFUTED


def test_an_undefined_division_in_index_arithmetic_is_refuted_where_the_divisor_is_0():
    fc = _variant(LEMMA3, "src-divides-by-c-3", lambda r, c: {
        "transpose_src": lambda node: node + (indices // (length // r - 3)) * 0})
    result = prove_all_sizes(fc, "src-divides-by-c-3")
    assert result.status is Status.REFUTED
    assert dict(zip(fc.dims, result.shape))["c"] == 3
    assert "divisor can be 0" in result.verdict.reason
    assert "division by zero" in result.counterexample.definedness.counterexample.got


def test_a_division_guarded_by_where_is_defined_only_where_it_is_taken():
    fc = _variant(LEMMA3, "guarded", lambda r, c: {
        "transpose_src": lambda node: where(length // r == 3, node, node + (indices // (length // r - 3)) * 0)})
    result = prove_all_sizes(fc, "guarded")
    assert result.verdict.status is Status.PROVED  # the branch that divides by c - 3 is never taken at c = 3


def _evaluator():
    prover = Prover(("r", "c"), 30, Ledger())
    r, c = prover.dims["r"], prover.dims["c"]
    base = [r >= 1, c >= 1]
    evaluator = SymbolicSizeEvaluator([InputBlock("M", r, c, z3.IntVal(0))], r * c, prover, ParametricAtoms(), base,
                                      prover.dims)
    return evaluator, base, r, c


def _row_zero():
    return select(indices // (length // Parameter(LEMMA3.symbols()[0])), 0, Predicate.EQ)


@pytest.mark.parametrize("claimed", ["one key too many", "one key too few", "shifted"])
def test_a_selection_characterised_with_the_wrong_index_range_fails(monkeypatch, claimed):
    evaluator, base, r, c = _evaluator()
    wrong = {"one key too many": Interval(z3.BoolVal(True), z3.IntVal(0), c + 1),
             "one key too few": Interval(z3.BoolVal(True), z3.IntVal(0), c - 1),
             "shifted": Interval(z3.BoolVal(True), z3.IntVal(1), c + 1)}[claimed]
    monkeypatch.setattr(evaluate_module, "infer", lambda *args: [wrong])
    with pytest.raises(StepFailed) as failed:
        evaluator.selection(_row_zero(), z3.Int("q"), {}, Context(tuple(base)))
    assert failed.value.outcome is not None and failed.value.outcome.holds is False


def test_the_right_selection_is_proved_for_every_key(monkeypatch):
    evaluator, base, r, c = _evaluator()
    found = evaluator.selection(_row_zero(), z3.Int("q"), {}, Context(tuple(base)))
    assert z3.simplify(found.hi - c).eq(z3.IntVal(0)) or evaluator.prover.proves(base, found.hi == c, "t").holds


def test_a_selection_is_checked_on_every_key_not_only_near_the_interval(monkeypatch):
    """Row 0 and also the last key n - 1: the row's interval is wrong at the far end."""
    evaluator, base, r, c = _evaluator()
    selector = _row_zero() | select(indices, length - 1, Predicate.EQ)
    monkeypatch.setattr(evaluate_module, "infer", lambda *args: [Interval(z3.BoolVal(True), z3.IntVal(0), c)])
    with pytest.raises(StepFailed):
        evaluator.selection(selector, z3.Int("q"), {}, Context(tuple(base)))


def test_a_right_family_that_is_not_the_builders_program_is_an_error_not_proved():
    from usim.constructions.base import fresh, gather
    from usim.rasp.expr import tokens
    from usim.rasp.program import Program

    def other(r, c):  # a correct transpose that reads c as a parameter instead of from length
        source = fresh((indices % r) * c + indices // r, "transpose_src")
        return Program.of("transpose_other", {"transpose": gather(tokens, source).named("transpose")})

    result = prove_all_sizes(dataclasses.replace(LEMMA3, construction=dataclasses.replace(LEMMA3.construction, program=other)))
    assert result.verdict.status is Status.PROVED
    assert result.status is Status.ERROR and "not the builder's program" in result.note


def test_a_construct_outside_the_fragment_is_unknown_never_proved():
    fc = _variant(LEMMA3, "ahat", lambda r, c: {
        "transpose": lambda node: Aggregate(node.selector, node.values, semantics=Semantics.AHAT)})
    result = prove_all_sizes(fc, "ahat", search_seconds=2)
    assert result.status is Status.UNKNOWN  # right at every size (no row is empty), but not proved
    assert "ahat semantics" in result.verdict.reason


def test_a_target_that_reads_outside_its_input_is_never_proved():
    def reads_past(m):
        s = m["M"]
        return {"MT": matrix_of(s.cols, s.rows, lambda i, j: s[j, i + 1])}

    result = prove_all_sizes(dataclasses.replace(LEMMA3, target=reads_past), search_seconds=2)
    assert result.status is not Status.PROVED
    assert "reads" in result.verdict.reason


def test_a_cached_answer_answers_only_the_formula_it_was_asked():
    """z3 reuses the id of a freed term: a cache keyed by ids alone answered a
    new formula with an old one's verdict."""
    prover = Prover(("r",), 60, Ledger())
    x = prover.dims["r"]
    hypotheses = [x >= 1]
    for i in range(1, 400):  # x*x + i > x holds for x >= 1, x*x + i < x does not
        goal = (x * x + i > x) if i % 2 else (x * x + i < x)
        assert prover.proves(hypotheses, goal, "cache").holds is (i % 2 == 1), i
        del goal  # its id is free for the next formula (with ids alone as keys, 155 of 399 came out wrong)


def _certificate(tmp_path, capsys, *args):
    path = tmp_path / "cert.json"
    main(["prove", "lemma3", "--all-sizes", "--max-n", "2", "-q", "-j", "1", "--json", str(path), *args])
    capsys.readouterr()
    return json.loads(path.read_text())


def _refused(tmp_path, capsys, data) -> str:
    data["digest"] = digest(data)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    assert main(["report", str(path)]) == 2
    return capsys.readouterr().err


def test_a_certificate_edited_to_prove_a_refuted_variant_for_every_size_is_refused(tmp_path, capsys):
    data = _certificate(tmp_path, capsys, "--mutants")
    mutant = data["all_sizes"]["mutants"][0]
    mutant["counterexample"] = None
    assert "is not what its parts say" in _refused(tmp_path, capsys, data)


def test_a_certificate_claiming_all_sizes_without_the_tie_is_refused(tmp_path, capsys):
    data = _certificate(tmp_path, capsys)
    data["all_sizes"]["result"]["tie"]["problems"] = ["2x2: the family instantiated is not the builder's program"]
    assert "is not what its parts say" in _refused(tmp_path, capsys, data)


def test_a_proof_for_every_size_beside_a_bounded_refutation_is_an_error(tmp_path, capsys):
    data = _certificate(tmp_path, capsys)
    from usim.engine.certificate import all_sizes_status

    assert all_sizes_status(data["all_sizes"], Status.PROVED, "lemma3", "") is Status.PROVED
    data["all_sizes"]["status"] = "ERROR"
    data["all_sizes"]["cross_check"]["status"] = "REFUTED"
    assert all_sizes_status(data["all_sizes"], Status.REFUTED, "lemma3", "") is Status.ERROR


def test_a_target_helper_that_means_something_else_for_all_sizes_breaks_the_tie(monkeypatch):
    """The target is one function for both: over symbolic matrices its .T must
    mean sympy's transpose. A .T that does not transpose is caught at the
    first non-square shape, before anything is called proved."""
    from usim.engine.parametric import target as target_module
    from usim.engine.parametric.allsizes import tie

    monkeypatch.setattr(target_module.SymbolicMatrix, "T",
                        property(lambda self: target_module.SymbolicMatrix(self.cols, self.rows,
                                                                          lambda i, j: self[i, j])))
    found = tie(LEMMA3, 2)
    assert not found.ok
    assert any("not the claim's target" in p for p in found.problems)
    assert prove_all_sizes(LEMMA3, tie_bound=2).status is not Status.PROVED


def test_a_target_doing_arithmetic_on_cases_is_unknown_not_a_crash():
    """An entry given by cases (when) times another, in a target a user writes, is
    outside the target fragment: the verdict says so (it raised a TypeError before)."""
    from usim.encodings.sized import when

    def cased(m):
        s = m["M"]
        return {"MT": matrix_of(s.cols, s.rows, lambda i, j: when(i < 1, lambda: s[j, i], lambda: s[j, i])
                                 * when(j < 1, lambda: 1, lambda: 1))}

    result = prove_all_sizes(dataclasses.replace(LEMMA3, target=cased), search_seconds=2)
    assert result.status is not Status.PROVED
    assert "given by cases" in result.verdict.reason
