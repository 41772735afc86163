""""PROVED for every size" is about the program that runs, at every size.

Found in review (issue 22, part 1): the tie between a family and the claim's
program was checked only up to the bound (--max-n), and three programs that
are right up to the bound and wrong past it were PROVED for every size while
the claim's own obligation at the larger size is REFUTED:

(a) the claim's construction is a separate function, right for r <= 4 and off
    by one from r = 5, while the family's builder is right;
(b) one builder that branches on ``same_size(rows, 9)``, which answered False
    for a symbolic r (the family took the right path, the program at r = 9 the
    wrong one);
(c) one builder that branches on ``isinstance(rows, int) and rows > 6``.

Each test shows the bounded engines refute the program at a size past the
bound, and that the verdict for every size is not PROVED.
"""

from __future__ import annotations

import pytest

from usim.constructions.base import Construction, SizedConstruction, fresh, gather
from usim.engine.claim import Status
from usim.engine.declare import claim, every_shape
from usim.engine.parametric.allsizes import tie
from usim.engine.parametric.composed import prove_claim_all_sizes
from usim.engine.parametric.statement import FamilyClaim
from usim.engine.runner import check_obligation
from usim.encodings.layout import SequenceLayout
from usim.rasp.expr import indices, length, tokens
from usim.rasp.family import FamilyError, dimension, same_size
from usim.rasp.program import Program

BOUND = 3


def _transpose(rows, wrong: bool) -> Program:
    """Lemma 3's transpose; ``wrong``: the source one position too far."""
    cols = (length // rows).named("cols")
    source = (indices % rows) * cols + indices // rows
    source = fresh(source + 1 if wrong else source, "transpose_src")
    return Program.of("transpose_user", {"transpose": gather(tokens, source).named("transpose")})


def _sized(builder) -> SizedConstruction:
    return SizedConstruction(name=lambda r, c: f"user transpose {r}x{c}", dims=("r", "c"), program=builder,
                             inputs=lambda r, c: [("M", (r, c))], outputs=lambda r, c: [("MT", (c, r))])


def _plain(builder):
    """A construction that calls ``builder`` with the integer sizes (no family)."""
    def construction(r: int, c: int) -> Construction:
        layouts = _sized(builder)
        return Construction(f"user transpose {r}x{c}", builder(r, c), SequenceLayout.of(*layouts.inputs(r, c)),
                            SequenceLayout.of(*layouts.outputs(r, c)))
    return construction


def _target(m):
    return {"MT": m["M"].T}


def _claims(construction, family: SizedConstruction) -> FamilyClaim:
    bounded = claim("user_transpose", paper="(a user's claim)", title="a user's transpose",
                    statement="the transpose of every r x c matrix", construction=construction,
                    target=_target, shapes=every_shape(2), default_max_n=BOUND, ci_max_n=BOUND)
    return FamilyClaim(bounded, family, target=_target)


def _refuted_at(fc: FamilyClaim, shape) -> bool:
    return check_obligation(fc.claim.obligation(shape), ("sympy", "z3"), 30, ("sympy", "z3")).status \
        is Status.REFUTED


def test_a_claim_whose_construction_is_not_the_family_is_never_proved_for_every_size():
    """(a): the claim's construction, written apart from the family, is wrong from r = 5."""
    fc = _claims(_plain(lambda rows, cols: _transpose(rows, rows >= 5)),
                 _sized(lambda rows, cols: _transpose(rows, False)))
    assert not fc.one_definition
    assert _refuted_at(fc, (5, 2))
    report = prove_claim_all_sizes(fc, BOUND, timeout=30)
    assert report.result.verdict.status is Status.PROVED  # the family itself is right
    assert report.status is not Status.PROVED


def test_a_separate_construction_that_is_right_is_still_only_about_the_family():
    right = _sized(lambda rows, cols: _transpose(rows, False))
    fc = _claims(lambda r, c: right(r, c), right)  # the same programs, but not one definition
    report = prove_claim_all_sizes(fc, BOUND, timeout=30)
    assert report.result.status is Status.PROVED
    assert report.status is Status.UNKNOWN and report.about == "the family alone"


def _branches_on_same_size(rows, cols):
    """(b): the wrong program where r is 9."""
    return _transpose(rows, same_size(rows, 9))


def test_same_size_raises_where_the_answer_depends_on_the_sizes():
    r, c = dimension("r"), dimension("c")
    assert same_size(r * c + 1, 1 + c * r) and not same_size(r + 2, r + 1)
    with pytest.raises(FamilyError):
        same_size(r, 9)


def test_a_builder_branching_on_same_size_is_never_proved_for_every_size():
    family = _sized(_branches_on_same_size)
    fc = _claims(family, family)
    assert _refuted_at(_claims(_plain(lambda rows, cols: _transpose(rows, rows == 9)), family), (9, 1))
    with pytest.raises(FamilyError, match="r and 9"):  # the family cannot be built: nothing is proved
        prove_claim_all_sizes(fc, BOUND, timeout=30)


def _branches_on_the_type(rows, cols):
    """(c): the wrong program for integer sizes above 6."""
    return _transpose(rows, isinstance(rows, int) and rows > 6)


def test_a_builder_inspecting_the_type_of_a_size_is_caught_past_the_bound():
    family = _sized(_branches_on_the_type)
    fc = _claims(_plain(_branches_on_the_type), family)
    assert _refuted_at(fc, (7, 1))
    found = tie(fc, BOUND)
    assert not found.ok and any(p.startswith("7x") or "x7" in p for p in found.problems)
    report = prove_claim_all_sizes(fc, BOUND, timeout=30)
    assert report.status is not Status.PROVED


def test_one_definition_runs_the_family_even_where_the_builder_would_branch():
    """With one definition the claim runs the family's instance at every size:
    the builder's integer branch is never taken by the claim, and the tie
    reports the builder's difference past the bound (an ERROR, not PROVED)."""
    family = _sized(_branches_on_the_type)
    fc = _claims(family, family)
    assert fc.one_definition
    assert check_obligation(fc.claim.obligation((7, 1)), ("sympy", "z3"), 30, ("sympy", "z3")).status \
        is Status.PROVED
    report = prove_claim_all_sizes(fc, BOUND, timeout=30)
    assert report.status is Status.ERROR
    assert "not the builder's program" in report.result.note


def test_the_papers_blocks_are_one_definition_and_tied_past_the_bound():
    from usim.proofs import families

    for fc in families().values():
        assert fc.one_definition, fc.id
        found = tie(fc, 2)
        assert found.ok, (fc.id, found.problems)
        assert found.beyond and all(max(s) > 2 for s in found.beyond)


def test_a_proof_for_every_size_beside_a_cross_check_that_did_not_prove_is_never_a_plain_proved():
    import dataclasses

    from usim.proofs import families
    from usim.render_all_sizes import all_sizes_markdown, all_sizes_verdict

    report = prove_claim_all_sizes(families()["lemma3"], 1, timeout=30)
    assert report.status is Status.PROVED and "cross-check" not in all_sizes_verdict(report)
    unknown = dataclasses.replace(report, bounded=dataclasses.replace(report.bounded, results=[]))
    assert "the bounded cross-check up to N=1 is UNKNOWN, not PROVED" in all_sizes_verdict(unknown)
    section = unknown.as_dict()
    assert section["cross_check"] == {"max_n": 1, "status": "UNKNOWN"}
    assert any("UNKNOWN, not PROVED" in line for line in all_sizes_markdown(section))
