"""Soft attention from average-hard attention: published blocks under AHAT, the fix."""

from __future__ import annotations

import numpy as np
import pytest

from usim.constructions.ahat import (
    AHAT_BLOCKS,
    CORRECTED_RASP_BLOCKS,
    PUBLISHED_BLOCKS,
    attention_construction,
    empty_rows,
    is_average_hard,
    matmul_ahat_construction,
    softmax_ahat_construction,
    with_semantics,
)
from usim.constructions.matmul import matmul_program
from usim.constructions.softmax import softmax_program
from usim.constructions.transpose import transpose_program
from usim.encodings.runners import run_exact, run_numeric
from usim.engine.claim import Status
from usim.proofs import get
from usim.engine.runner import check_obligation
from usim.rasp.cost import cost
from usim.rasp.expr import Semantics


def _softmax(s):
    e = np.exp(s)
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("shape", [(1, 1, 1), (2, 1, 3), (3, 2, 2), (4, 3, 1)])
def test_attention_numeric_all_three_block_sets(shape):
    n, d, dv = shape
    rng = np.random.default_rng(n * 10 + d)
    q, k, v = (rng.normal(size=(n, d)), rng.normal(size=(n, d)), rng.normal(size=(n, dv)))
    expected = _softmax(q @ k.T) @ v
    for blocks in (AHAT_BLOCKS, PUBLISHED_BLOCKS, CORRECTED_RASP_BLOCKS):
        c = attention_construction(n, d, dv, blocks)
        y = run_numeric(c.program, c.input_layout.encode_numeric({"Q": q, "K": k, "V": v}))["attention"]
        assert np.allclose(c.output_layout.decode_numeric(y)[0], expected, atol=1e-12)
        assert np.all(y[0, n * dv:] == 0)


@pytest.mark.parametrize("shape", [(1, 1, 1), (2, 2, 1), (3, 1, 2)])
def test_corrected_program_is_average_hard_and_has_no_empty_row(shape):
    c = attention_construction(*shape)
    assert is_average_hard(c.program)
    assert empty_rows(c.program, c.input_layout.length) == {}
    published = attention_construction(*shape, blocks=PUBLISHED_BLOCKS)
    assert not is_average_hard(published.program)
    assert empty_rows(published.program, published.input_layout.length)  # it relies on them


def test_corrected_blocks_cost_no_more_than_published():
    for n, d, dv in [(2, 2, 2), (3, 2, 1)]:
        fixed = cost(attention_construction(n, d, dv).program)
        published = cost(attention_construction(n, d, dv, PUBLISHED_BLOCKS).program)
        assert fixed.layers == published.layers
        assert sum(fixed.heads_per_layer) <= sum(published.heads_per_layer)


def test_published_transpose_has_no_empty_row_so_ahat_agrees():
    program = transpose_program(2)
    assert empty_rows(program, 6) == {}
    seq = [1, 2, 3, 4, 5, 6]
    assert run_exact(with_semantics(program, Semantics.AHAT), seq) == run_exact(program, seq)


def test_published_matmul_under_ahat_exactly_wrong_where_rows_are_empty():
    # A = [1, 2] (1x2), B = [3; 4] (2x1): AB = 11 at position 0, zeros after
    program = matmul_program(1, 1)
    seq = [1, 2, 3, 4]
    assert run_exact(program, seq)["product"] == [11, 0, 0, 0]
    got = run_exact(with_semantics(program, Semantics.AHAT), seq)["product"]
    # layer 2 at query q != 0 is empty: AHAT averages prod over all 4 positions,
    # prod = a0 * b0 = [1*3, 2*4, 1*3, 2*4]: mean 5.5, times k = 2 gives 11
    assert got == [11, 11, 11, 11]


def test_with_semantics_changes_every_aggregate_and_nothing_else():
    program = softmax_program(2)
    ahat = with_semantics(program, Semantics.AHAT)
    from usim.constructions.ahat import aggregates

    assert all(a.semantics is Semantics.AHAT for a in aggregates(ahat))
    assert all(a.semantics is Semantics.RASP for a in aggregates(program))
    assert len(aggregates(ahat)) == len(aggregates(program))


@pytest.mark.parametrize("claim_id", ["softmax_published_ahat", "matmul_published_ahat"])
def test_published_blocks_refuted_under_ahat(claim_id):
    claim = get(claim_id)
    for shape in claim.shapes(2):
        result = check_obligation(claim.obligation(shape), timeout=30)
        assert result.status is Status.REFUTED, (shape, result)
        assert result.counterexample is not None


def test_published_softmax_with_one_row_is_right_under_ahat():
    # with r = 1 no head has an empty row: the refutation needs r >= 2
    rng = np.random.default_rng(3)
    s = rng.normal(size=(1, 4))
    c = softmax_ahat_construction(1, 4, corrected=False)
    y = run_numeric(c.program, s.reshape(1, 4))["softmax"]
    assert np.allclose(y, _softmax(s))


@pytest.mark.parametrize("claim_id", ["soft_from_hard", "softmax_ahat", "matmul_ahat"])
def test_corrected_claims_proved_and_mutants_refuted(claim_id):
    claim = get(claim_id)
    shapes = list(claim.shapes(2))
    for shape in shapes[:: max(1, len(shapes) // 3)]:
        result = check_obligation(claim.obligation(shape), engines=["sympy"], timeout=30)
        assert result.status is Status.PROVED, (shape, result)
        for name, build in claim.mutants.items():
            broken = check_obligation(build(shape), engines=["sympy"], timeout=30)
            assert broken.status is Status.REFUTED, (shape, name, broken)


def test_corrected_standalone_blocks_numeric():
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(3, 2)), rng.normal(size=(2, 2))
    c = matmul_ahat_construction(3, 2, 2, corrected=True)
    y = run_numeric(c.program, c.input_layout.encode_numeric({"A": a, "B": b}))["product"]
    assert np.allclose(c.output_layout.decode_numeric(y)[0], a @ b)
    assert np.all(y[0, 6:] == 0)


@pytest.mark.slow
def test_soft_from_hard_z3_n2():
    claim = get("soft_from_hard")
    for shape in claim.shapes(2):
        if shape[0] == 2:
            assert check_obligation(claim.obligation(shape), engines=["z3"], timeout=60).status is Status.PROVED


def test_a_semantics_is_the_enum_and_text_only_in_the_certificate(tmp_path):
    import dataclasses
    import json

    from usim.cli import main

    ahat = get("softmax_ahat")
    assert ahat.semantics is Semantics.AHAT and get("lemma3").semantics is Semantics.RASP
    assert ahat.obligation((2, 2)).construction.semantics is Semantics.AHAT
    assert get("softmax_published_ahat").semantics is Semantics.AHAT  # an erratum has its claim's
    assert dataclasses.replace(ahat, semantics="rasp").semantics is Semantics.RASP  # text is read once
    with pytest.raises(ValueError):
        dataclasses.replace(ahat, semantics="network")
    path = tmp_path / "c.json"
    assert main(["prove", "softmax_ahat", "--max-n", "1", "--json", str(path)]) == 0
    assert json.loads(path.read_text())["claim"]["semantics"] == "ahat"
