"""Canonical forms: the sympy path and the flint path decide alike.

The flint path (:func:`usim.engine.canonical.compare_flint`) must give the
sympy path's verdict wherever it answers, refuse (None) outside its fragment,
and never call two different things EQUAL. Each test compares both paths on
the same pair, and checks that the flint path really answered, so that
agreement is not the sympy path agreeing with itself.
"""

from __future__ import annotations

import random

import pytest
import sympy

from usim.encodings.symbolic import SymbolicInterpretation
from usim.engine import canonical
from usim.engine.canonical import Atoms, Verdict, compare, compare_flint
from usim.engine.claim import Status
from usim.engine.solvers.sympy_engine import check_sympy
from usim.proofs import get
from usim.engine.replay import expected_sequence, output_of, symbol_matrices

pytest.importorskip("flint")

x, y, z = sympy.symbols("x y z", real=True)
E = sympy.exp


def both(got, expected):
    """(sympy path's verdict, flint path's verdict) on one pair."""
    with canonical.accelerated(False):
        slow = compare(got, expected, Atoms())
    fast = compare_flint(sympy.sympify(got), sympy.sympify(expected))
    return slow, fast


EQUAL_PAIRS = [
    ((x + y) ** 2, x**2 + 2 * x * y + y**2),
    (1 / (x + 1) + 1 / (x - 1), 2 * x / (x**2 - 1)),
    (sympy.Rational(1, 3) * (3 * x + 6) / (x + 2), sympy.Integer(1)),
    # softmax: the same exponent written two ways is one atom
    (E(x * (y + 1)) / (E(x * y + x) + E(z)), E(x + x * y) / (E(z) + E(x * (1 + y)))),
    # a mean times its count is the sum
    (3 * ((E(x) + E(y) + E(z)) / 3), E(x) + E(y) + E(z)),
    # exp inside exp: the inner atoms are canonical too
    (E(E(x + y) * 2), E(2 * E(y + x))),
    (x * E(x) / (E(x) * (x + 1)) * (x + 1), x),
]

UNEQUAL_PAIRS = [
    ((x + y) ** 2, x**2 + y**2),
    (1 / (x + 1) + 1 / (x - 1), 2 / (x**2 - 1)),
    # a softmax with one term left out of the sum
    (E(x) / (E(x) + E(y)), E(x) / (E(x) + E(y) + E(z))),
    # the factor c missing: mean used as sum
    (E(x) / ((E(x) + E(y)) / 2), E(x) / (E(x) + E(y))),
    # exp(a) exp(b) = exp(a + b) is a relation the atoms forget: not EQUAL (sound), in both paths
    (E(x) * E(y), E(x + y)),
    (x * y, y * x + sympy.Rational(1, 10**30)),
]


@pytest.mark.parametrize("got, expected", EQUAL_PAIRS)
def test_both_paths_prove_equal_pairs(got, expected):
    assert both(got, expected) == (Verdict.EQUAL, Verdict.EQUAL)


@pytest.mark.parametrize("got, expected", UNEQUAL_PAIRS)
def test_both_paths_find_unequal_pairs_unequal(got, expected):
    assert both(got, expected) == (Verdict.UNEQUAL, Verdict.UNEQUAL)


OUTSIDE = [
    (sympy.Max(x, y), x),                                  # not a rational function
    (sympy.Piecewise((x, x > 0), (0, True)), x),
    (sympy.sqrt(2) * x, x),                                # an irrational constant
    (sympy.Float("0.5") * x, x / 2),                       # a float
    (sympy.Rational(2718, 1000) ** x, E(x)),               # a symbolic exponent (base 2.718)
    (E(1 / (x + 1)), E(1 / (1 + x))),                      # exp of a rational function
    (1 / ((x + 1) ** 2 - x**2 - 2 * x - 1), x),            # a denominator that is the zero polynomial
    (sympy.E * x, E(1) * x),                               # E is not an exp node
]


@pytest.mark.parametrize("got, expected", OUTSIDE)
def test_outside_the_fragment_flint_refuses_and_compare_falls_back_to_sympy(got, expected):
    assert compare_flint(sympy.sympify(got), sympy.sympify(expected)) is None
    with canonical.accelerated(False):
        slow = compare(got, expected)
    with canonical.accelerated(True):
        assert compare(got, expected) is slow


def _random_expr(rng: random.Random, depth: int) -> sympy.Expr:
    leaves = [x, y, z, sympy.Integer(rng.randint(-3, 3)), sympy.Rational(rng.randint(1, 5), rng.randint(1, 5))]
    if depth == 0:
        return rng.choice(leaves)
    kind = rng.choice(["add", "mul", "pow", "div", "exp", "leaf"])
    a, b = _random_expr(rng, depth - 1), _random_expr(rng, depth - 1)
    if kind == "add":
        return a + b
    if kind == "mul":
        return a * b
    if kind == "pow":
        return a ** rng.randint(2, 3)
    if kind == "div":
        return a / (b + x**2 + 1)  # never the zero polynomial
    if kind == "exp":
        return E(sympy.expand(a))
    return rng.choice(leaves)


@pytest.mark.parametrize("seed", range(6))
def test_random_rational_exp_expressions_get_the_same_verdict_in_both_paths(seed):
    rng = random.Random(seed)
    answered = 0
    for _ in range(25):
        e = _random_expr(rng, 3)
        # expand may turn exp(x)**2 into exp(2x), a relation atoms forget: then
        # only agreement is asserted, not EQUAL
        rewritten = sympy.together(sympy.expand(e))
        for other, truth in ((rewritten, None if e.has(sympy.exp) else Verdict.EQUAL),
                             (e + (x - y) / 7, Verdict.UNEQUAL),
                             (e * (1 + x**2), None)):
            slow, fast = both(e, other)
            assert fast is None or fast is slow
            if fast is not None:
                answered += 1
            if truth is not None and slow is not Verdict.UNDECIDED:
                assert slow is truth
    assert answered >= 50  # the flint path did the deciding in most cases


def _sides(ob):
    layout = ob.construction.input_layout
    matrices = symbol_matrices(layout, ob.domain)
    return (output_of(ob, SymbolicInterpretation(), layout.encode(matrices)),
            expected_sequence(ob, matrices))


OBLIGATIONS = [
    ("lemma4", None, (2, 3)), ("lemma5", None, (2, 3, 2)),
    ("lemma4", "missing-factor-c", (2, 3)), ("lemma4", "row-left-out", (2, 2)),
    ("lemma5", "missing-factor-k", (2, 2, 2)), ("lemma5", "off-by-one", (2, 3, 2)),
    ("hierarchy", None, (2, 2, 2)), ("hierarchy", "swapped-operand", (2, 2, 2)),
]


@pytest.mark.parametrize("claim_id, mutant, shape", OBLIGATIONS)
def test_both_paths_decide_every_position_of_an_obligation_alike(claim_id, mutant, shape):
    claim = get(claim_id)
    ob = claim.mutants[mutant](shape) if mutant else claim.obligation(shape)
    got, expected = _sides(ob)
    with canonical.accelerated(False):
        slow = [compare(g, e) for g, e in zip(got, expected)]
    with canonical.accelerated(True):
        fast = [compare(g, e) for g, e in zip(got, expected)]
    assert fast == slow
    # a broken construction is not EQUAL somewhere (row-left-out divides by 0: UNDECIDED)
    assert any(v is not Verdict.EQUAL for v in slow) == (mutant is not None)
    if mutant != "row-left-out":  # the flint path itself decided every non-identical position
        assert all(compare_flint(sympy.sympify(g), sympy.sympify(e)) is not None
                   for g, e in zip(got, expected) if sympy.sympify(g) != sympy.sympify(e))


@pytest.mark.parametrize("claim_id, mutant, shape", [
    ("lemma4", "missing-factor-c", (2, 3)), ("lemma5", "missing-factor-k", (2, 2, 2)),
    ("hierarchy", "swapped-operand", (2, 2, 2)),
])
def test_the_sympy_engine_on_the_flint_path_refutes_broken_constructions(claim_id, mutant, shape):
    with canonical.accelerated(True) as on:
        assert on
        result = check_sympy(get(claim_id).mutants[mutant](shape), 60)
    assert result.status is Status.REFUTED
    assert result.counterexample is not None


def test_the_sympy_engine_on_the_flint_path_proves_attention():
    with canonical.accelerated(True):
        result = check_sympy(get("hierarchy").obligation((3, 3, 3)), 60)
    assert result.status is Status.PROVED, result.detail


def test_switching_the_accelerated_path_off_keeps_flint_out(monkeypatch):
    def boom(got, expected):
        raise AssertionError("the flint path ran")

    monkeypatch.setattr(canonical, "compare_flint", boom)
    with canonical.accelerated(False):
        assert compare((x + 1) ** 2, x**2 + 2 * x + 1) is Verdict.EQUAL
    with canonical.accelerated(True), pytest.raises(AssertionError):
        compare((x + 1) ** 2, x**2 + 2 * x + 1)


def test_an_undefined_value_is_never_equal_even_to_itself():
    import sympy

    from usim.engine.canonical import Verdict, compare

    x = sympy.Symbol("x", real=True)
    assert compare(sympy.zoo, sympy.zoo) is Verdict.UNDECIDED
    assert compare(x / 0, x / 0) is Verdict.UNDECIDED
