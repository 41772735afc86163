"""The 3x3 cofactor/determinant/inverse construction and the Leibniz determinant."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import numpy as np
import pytest

from usim.constructions.determinant import (
    det3_program,
    determinant3,
    invert3,
    leibniz_determinant,
    leibniz_program,
    permutation_of_index,
)
from usim.encodings.evaluate import evaluate
from usim.encodings.exact import EXACT
from usim.encodings.runners import run_exact, run_numeric
from usim.engine.claim import Status
from usim.engine.runner import check_obligation
from usim.errors import InputError, ShapeError, UsimError
from usim.proofs import get
from usim.rasp.cost import cost
from usim.rasp.expr import indices
from usim.rasp.program import Program


def _det(m: list[list[Fraction]]) -> Fraction:
    """Leibniz by itertools (independent of the construction's Lehmer decoding)."""
    n = len(m)
    total = Fraction(0)
    for perm in itertools.permutations(range(n)):
        inversions = sum(perm[a] > perm[b] for a in range(n) for b in range(a + 1, n))
        term = Fraction(-1) ** inversions
        for i in range(n):
            term *= m[i][perm[i]]
        total += term
    return total


def _cofactor(m, i, j):
    minor = [[m[a][b] for b in range(3) if b != j] for a in range(3) if a != i]
    return (-1) ** (i + j) * _det(minor)


def _random_matrix(rng: random.Random, n: int) -> list[list[Fraction]]:
    return [[Fraction(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(n)] for _ in range(n)]


def test_cofactors_and_det_on_random_rationals():
    rng = random.Random(5)
    for _ in range(40):
        a = _random_matrix(rng, 3)
        without_inverse = Program.of("p", {k: v for k, v in det3_program().outputs if k != "inverse"})
        out = run_exact(without_inverse, [x for r in a for x in r])
        assert out["cofactor"] == [_cofactor(a, i, j) for i in range(3) for j in range(3)]
        assert out["det"] == [_det(a)] + [0] * 8
        assert determinant3(a) == _det(a)


def test_inverse_times_matrix_is_identity():
    rng = random.Random(7)
    checked = 0
    while checked < 30:
        a = _random_matrix(rng, 3)
        if _det(a) == 0:
            continue
        inv = invert3(a)
        for i in range(3):
            for j in range(3):
                assert sum(a[i][m] * inv[m][j] for m in range(3)) == (1 if i == j else 0)
        checked += 1


def test_singular_matrix_is_a_clear_error():
    with pytest.raises(InputError, match="singular"):
        invert3([[1, 2, 3], [2, 4, 6], [0, 0, 1]])
    with pytest.raises(InputError, match="singular"):
        invert3([[0] * 3] * 3)
    with pytest.raises(ShapeError, match="3x3"):
        invert3([[1, 2], [3, 4]])
    with pytest.raises(UsimError):
        invert3([[1, 2, "x"], [0, 1, 0], [0, 0, 1]])


def test_numeric_agrees_with_numpy():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(16, 3, 3))
    out = run_numeric(det3_program(), a.reshape(16, 9))
    assert np.allclose(out["det"][:, 0], np.linalg.det(a))
    assert np.allclose(out["inverse"].reshape(16, 3, 3), np.linalg.inv(a))


def test_cost_of_published_construction():
    c = cost(det3_program())
    assert c.heads_per_layer == (4, 2)
    assert not c.uses_length


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_permutation_decoding_enumerates_every_permutation_once(n):
    import math

    perm, sign = permutation_of_index(indices, n)
    count = math.factorial(n)
    program = Program.of("perm", {f"s{i}": p for i, p in enumerate(perm)} | {"sign": sign})
    out = evaluate(program, EXACT, [0] * count)
    seen = set()
    for p in range(count):
        s = tuple(out[f"s{i}"][p] for i in range(n))
        inversions = sum(s[a] > s[b] for a in range(n) for b in range(a + 1, n))
        assert out["sign"][p] == (-1) ** inversions
        seen.add(s)
    assert seen == set(itertools.permutations(range(n)))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_leibniz_determinant_exact(n):
    rng = random.Random(n)
    for _ in range(5):
        a = _random_matrix(rng, n)
        assert leibniz_determinant(a) == _det(a)


def test_leibniz_cost_is_constant_depth():
    for n in range(1, 6):
        assert cost(leibniz_program(n)).heads_per_layer == (n, 1)


@pytest.mark.parametrize("claim_id", ["cofactor3", "det3", "inverse3", "inverse3_identity", "det_leibniz"])
def test_claims_proved_and_mutants_refuted(claim_id):
    claim = get(claim_id)
    engines = ["sympy"] if claim_id == "inverse3_identity" else None
    for shape in claim.shapes(min(claim.ci_max_n, 3)):
        result = check_obligation(claim.obligation(shape), engines=engines, timeout=30,
                                  claim_engines=claim.engines)
        assert result.status is Status.PROVED, result
        for name, build in claim.mutants.items():
            broken = check_obligation(build(shape), engines=engines, timeout=30,
                                      claim_engines=claim.engines)
            assert broken.status is Status.REFUTED, (name, broken)
            assert broken.counterexample is not None
