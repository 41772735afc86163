"""Header sizes left free, masked meanings, the padding lemma: what must never be PROVED.

The claims about U prove a stage that reads neither n nor d ONCE, with the
header's n and d fresh symbols (:mod:`usim.proofs._universal`); which fields a
stage reads comes from the table of kinds. So:

* a block that reads n without saying so (a ``where`` or a select comparing
  it), proved with n free against a meaning that does not depend on n, must
  not be PROVED by any engine: the statement is "for every real n", and it is
  false for some n;
* a masked meaning that is wrong (a softmax that forgets its key mask) is
  refuted by the stage at n < N;
* a table that is wrong consistently (block and meaning both without masks)
  passes every stage, and the padding lemma is what refutes it.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from usim.constructions.routing import Part
from usim.constructions.universal import HDR_N, STEP_KINDS, LayerSpec, Route, Step, StepKind, build
from usim.constructions.universal.kinds import corner, header, in_place, softmax_rows
from usim.engine.claim import Status
from usim.engine.solvers.cvc5_engine import cvc5_available
from usim.engine.runner import check_obligation
from usim.errors import ShapeError
from usim.proofs._padding import padding_obligation
from usim.proofs._universal import UNMASKED_SOFTMAX, softmax_stages, stage_obligation, universal
from usim.rasp.expr import Predicate, aggregate, indices, select, where

ENGINES = ["sympy", "z3"] + (["cvc5"] if cvc5_available() else [])


def _row(m):
    return ((indices - m.offset) // m.shape.cols).named("row")


def _rows_by_where(step, w, lay):
    """Rows i >= n of the argument set to 0 by an element-wise comparison with n."""
    m = lay.block(step.args[0])
    n = header(w, lay, HDR_N, "n")
    return Part(where(_row(m) < n, w, 0).named("kept"), in_place(step.out, m, lay.length))


def _rows_by_select(step, w, lay):
    """The same by a head: at p it selects key p when row(p) < n (else nothing: 0)."""
    m = lay.block(step.args[0])
    n = header(w, lay, HDR_N, "n")
    selector = select(indices, indices, Predicate.EQ) & select(_row(m), n, Predicate.LT)
    return Part(aggregate(selector, w).named("kept"), in_place(step.out, m, lay.length))


def _rows_below(a, c, n, d):
    return corner(a[0][:n, :], a[0].rows, a[0].cols)


BLOCKS = {"where": _rows_by_where, "select": _rows_by_select}


def _u(block, **declared) -> object:
    kind = StepKind("keep_rows", meaning=lambda a, c: a[0], block=block, **declared)
    return build(LayerSpec(2, 2), Route((Step("D", "keep_rows", ("X",)),), "D"), {**STEP_KINDS, "keep_rows": kind})


@pytest.mark.parametrize("how", sorted(BLOCKS))
@pytest.mark.parametrize("engine", ENGINES)
def test_a_block_that_reads_n_undeclared_is_never_proved_with_n_free(how, engine):
    u = _u(BLOCKS[how])  # declares no field: the stage is stated for every header
    ob = stage_obligation("toy", (2, 0, 0, 1), u, 1)
    result = check_obligation(ob, engines=[engine], timeout=60)
    assert result.results[0].status is not Status.PROVED, result.results[0].detail
    assert result.status is not Status.PROVED


@pytest.mark.parametrize("how", sorted(BLOCKS))
def test_the_same_block_declared_is_refuted_free_and_proved_at_each_n(how):
    # the control: with n free the statement is false (n = 0 keeps no row), so it is refuted
    # with a replayed input; declared, the stage is stated at each n and proved there
    assert check_obligation(stage_obligation("toy", (2, 0, 0, 1), _u(BLOCKS[how]), 1), engines=["z3"],
                            timeout=60).status is Status.REFUTED
    u = _u(BLOCKS[how], reads={"n"}, masked=_rows_below)
    for n in (1, 2):
        result = check_obligation(stage_obligation("toy", (2, n, 0, 1), u, 1, {"n": n}), timeout=60)
        assert result.status is Status.PROVED, [r.detail for r in result.results]


def test_a_masked_softmax_that_forgets_its_key_mask_is_refuted_below_n():
    forgets = replace(STEP_KINDS["softmax"],  # rows i < n, but every key of the row
                      masked=lambda a, c, n, d: corner(softmax_rows(a[0][:n, :], c), a[0].rows, a[0].cols))
    u = build(LayerSpec(3, 3), kinds={**STEP_KINDS, "softmax": forgets})
    k = softmax_stages(u)[0]
    for n in (1, 2):
        result = check_obligation(stage_obligation("toy", (3, n, 0, k), u, k, {"n": n}), engines=["sympy"],
                                  timeout=60)
        assert result.status is Status.REFUTED and result.counterexample is not None
    # at n = N nothing is masked: the two meanings agree
    assert check_obligation(stage_obligation("toy", (3, 3, 0, k), u, k, {"n": 3}),
                            engines=["sympy"], timeout=60).status is Status.PROVED


def test_a_table_wrong_in_block_and_meaning_alike_is_refuted_by_the_padding_lemma():
    # the softmax block without masks, and its meaning without masks (it reads no size):
    # every stage of U_3 is proved, U_3 is right at n = d = 3, and wrong on every smaller T
    unmasked = replace(UNMASKED_SOFTMAX, reads={"scale"}, masked=None)
    u = build(LayerSpec(3, 3), kinds={**STEP_KINDS, "softmax": unmasked})
    for k in range(1, len(u.stages) + 1):
        assert check_obligation(stage_obligation("toy", (3, 0, 0, k), u, k), engines=["sympy"],
                                timeout=60).status is Status.PROVED
    assert check_obligation(padding_obligation("toy", (3, 3, 3, 0), u, LayerSpec(3, 3)),
                            timeout=60).status is Status.PROVED
    result = check_obligation(padding_obligation("toy", (3, 2, 3, 0), u, LayerSpec(2, 3)), timeout=60)
    assert result.status is Status.REFUTED
    assert result.counterexample.entry.startswith("P[")  # the softmax step's padded keys
    # the right table at the same size
    assert check_obligation(padding_obligation("toy", (3, 2, 3, 0), universal(LayerSpec(3, 3)), LayerSpec(2, 3)),
                            timeout=60).status is Status.PROVED


def _layer_norm_masking_rows_only(step, w, lay):
    """The layer norm of each row over ALL its columns, rows i >= n set to 0 (reads n, not d)."""
    from usim.constructions.base import gather, inside
    from usim.constructions.universal.kinds import _column, broadcast
    from usim.rasp.expr import sqrt

    z, gamma, beta, eps = (lay.block(a) for a in step.args)
    p, (r, c, o) = indices, (z.shape.rows, z.shape.cols, z.offset)
    row = where(inside(o, o + r * c), (p - o) // c, -1 - p).named("ln_row")
    n = header(w, lay, HDR_N, "n")
    g = gather(w, gamma.offset + _column(z)).named("gamma")
    be = gather(w, beta.offset + _column(z)).named("beta")
    keep = ((p - o) // c < n).named("kept_entry")
    same_row = select(row, row, Predicate.EQ)
    mean = aggregate(same_row, where(keep, w, 0)).named("mu")
    dev = where(keep, w - mean, 0)
    var = aggregate(same_row, dev * dev).named("var")
    out = where(keep, dev / sqrt(var + broadcast(w, eps.offset, "eps")) * g + be, 0)
    return Part(out, in_place(step.out, z, lay.length))


def test_a_masked_meaning_that_uses_a_size_its_kind_does_not_declare_is_never_proved():
    # found in review: the kind declares it reads n only, its masked meaning (the real one)
    # also cuts at d, and its block normalises over every column. The stage proofs fix n
    # only; had the padding lemma been given d, both would be PROVED for a U that is
    # wrong at d < N. The masked meaning gets only the declared sizes, and needs d.
    kind = replace(STEP_KINDS["layernorm"], block=_layer_norm_masking_rows_only, reads={"n"})
    u = build(LayerSpec(2, 2, encoder=True), kinds={**STEP_KINDS, "layernorm": kind})
    stages = [s.index for s in u.stages if any(st.kind == "layernorm" for st in s.steps)]
    for k in stages:
        with pytest.raises(ShapeError, match="needs d from the header"):
            check_obligation(stage_obligation("toy", (2, 1, 0, k), u, k, {"n": 1}), engines=["sympy"], timeout=60)
    with pytest.raises(ShapeError, match="needs d from the header"):
        check_obligation(padding_obligation("toy", (2, 2, 1, 0), u, LayerSpec(2, 1, encoder=True)),
                         engines=["sympy"], timeout=60)
    # declared, the same block is refuted where it normalises over padded columns
    declared = replace(kind, reads={"n", "d"})
    u = build(LayerSpec(2, 2, encoder=True), kinds={**STEP_KINDS, "layernorm": declared})
    result = check_obligation(stage_obligation("toy", (2, 1, 1, stages[0]), u, stages[0], {"n": 1, "d": 1}),
                              engines=["sympy"], timeout=60)
    assert result.status is Status.REFUTED and result.counterexample is not None


def test_a_kind_with_a_masked_meaning_but_no_size_read_is_refused():
    with pytest.raises(ValueError, match="reads no size"):
        replace(STEP_KINDS["softmax"], reads={"scale"})
