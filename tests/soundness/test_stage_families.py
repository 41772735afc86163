"""What lets U's stages be proved for every size cannot prove a wrong stage.

Found while extending the parametric engine to U (issue 24), each checked
before the extension was trusted: a header size is a symbolic integer only
where the program itself sets it; a masked row sum is split only at a key
z3 proves to be its threshold; a size comparison the builder makes is
answered only where it has one answer at every size; an entry given by cases
is proved case by case; a quotient is read off a polynomial division only
where its remainder is proved in range.
"""

from __future__ import annotations

import dataclasses

import pytest

from usim.constructions.base import SizedConstruction
from usim.constructions.universal import LayerSpec, build
from usim.engine.claim import Status
from usim.engine.parametric.prove import prove_family
from usim.engine.parametric.statement import FamilyClaim
from usim.proofs._stages import PaddedFamily, stage_claims
from usim.proofs._universal import stage_program
from usim.proofs.theorem6_stages import CLAIMS, FAMILY
from usim.rasp.expr import indices, tokens, where
from usim.rasp.family import FamilyError, dimension, largest, same_size
from usim.rasp.program import Program
from usim.rasp.rewrite import substitute

SOFTMAX = 3


def _family(program, name: str = "broken") -> FamilyClaim:
    """Stage 3 of U_N with another program, against the true stage's statement."""
    construction = SizedConstruction(name=lambda *s: name, dims=FAMILY.dims(SOFTMAX), program=program,
                                     inputs=lambda *s: FAMILY.inputs(SOFTMAX, *s),
                                     outputs=lambda *s: FAMILY.outputs(SOFTMAX, *s))
    return FamilyClaim(CLAIMS[SOFTMAX - 1], construction, target=None,
                       side_condition=lambda N, n: n <= N,
                       target_for=lambda *s: FAMILY.target(SOFTMAX, *s))


def _masked(replacement):
    def program(N, n):
        right = FAMILY.program(SOFTMAX, N, n)
        names = {node.name for node in right.nodes() if node.has_name}
        return substitute(right, {name: replacement for name in names if name.endswith("key_ok")})
    return program


def test_the_true_stage_is_proved_so_each_broken_one_fails_for_its_own_fault():
    assert prove_family(_family(lambda N, n: FAMILY.program(SOFTMAX, N, n))).status is Status.PROVED


def test_a_mask_keeping_one_key_too_many_is_not_proved():
    """col <= n keeps n + 1 keys: the row sum's split at the proved threshold is
    at n + 1, and the stage differs from the masked softmax."""
    verdict = prove_family(_family(_masked(lambda node: node.args[0] <= node.args[1])))
    assert verdict.status is not Status.PROVED
    assert verdict.hints  # sizes where it fails


def test_a_mask_that_is_not_a_prefix_of_the_row_is_not_proved():
    verdict = prove_family(_family(_masked(lambda node: node.args[0] != 0)))
    assert verdict.status is not Status.PROVED


def test_a_header_size_read_from_the_input_is_not_a_symbolic_integer():
    """Without the stage setting n, the header's n is an input entry: the key
    mask compares positions with a token, which the engine does not decide."""
    def program(N, n):
        u = FAMILY.at(N)
        return stage_program(u, u.stages[SOFTMAX - 1], {})
    verdict = prove_family(_family(program))
    assert verdict.status is Status.UNKNOWN
    assert "tokens" in verdict.reason


def test_the_mask_replaced_by_always_true_is_refuted_where_keys_are_padded():
    verdict = prove_family(_family(_masked(lambda node: indices >= 0)))
    assert verdict.status is not Status.PROVED
    assert any(h["n"] < h["N"] for h in verdict.hints)


def test_sizes_compared_by_the_builder_have_one_answer_at_every_size_or_none():
    N = dimension("N")
    assert same_size(N * N, 0) is False  # N * N >= 1 at every N
    with pytest.raises(FamilyError):
        same_size(N * N, N)  # equal at N = 1 only
    with pytest.raises(FamilyError):
        largest(N * N, 2 * N)  # 2N at N = 1, N^2 at N = 3
    assert str(largest(N * N, N)) == "N * N"
    with pytest.raises(FamilyError):
        largest(N * N - 1, N)  # 0 < 1 at N = 1: not the largest everywhere


def test_u_for_two_free_sizes_is_refused_rather_than_scheduled_by_a_guess():
    with pytest.raises(FamilyError):
        build(LayerSpec(dimension("n"), dimension("d")))


class _OneRowTooMany(PaddedFamily):
    """Stage programs that keep (and tell the softmax) one row more than T has."""

    def program(self, k, *sizes):
        bound, n, d = sizes
        return super().program(k, bound, n + 1, d)


def test_a_padded_stage_that_keeps_one_row_too_many_is_not_proved():
    """The case split outside a sum (a row >= n is a case of the context, the
    same at every key) and the split of the padded sum at d cannot hide a
    program that pads to the wrong size."""
    claims, fams = stage_claims("wrong", _OneRowTooMany(lambda n, d: LayerSpec(n, d)), paper="x", what="x",
                                engines=("sympy",), default_max_n=2, ci_max_n=2, category="our statement")
    softmax = fams[SOFTMAX - 1]
    verdict = prove_family(dataclasses.replace(softmax, side_condition=lambda N, n, d: (n + 1 <= N) & (d <= N)))
    assert verdict.status is not Status.PROVED


def _division_family(shift: int) -> FamilyClaim:
    """O[p] = M[p] where (p + c + shift) // c == 1, else 0, for a 1 x c block M."""
    def program(c):
        return Program.of("division", {"O": where((indices + c + shift) // c == 1, tokens, 0)})
    construction = SizedConstruction(name=lambda c: "division", dims=("c",), program=program,
                                     inputs=lambda c: [("M", (1, c))], outputs=lambda c: [("O", (1, c))])
    return FamilyClaim(CLAIMS[0], construction, target=lambda m: {"O": m["M"]})


def test_a_quotient_is_read_off_only_where_its_remainder_is_proved_in_range():
    """(p + c) // c is 1 for p < c (remainder p, proved in [0, c)); (p + c + 1) // c
    is 2 at p = c - 1, where the remainder p + 1 is c: not simplified, and refuted."""
    assert prove_family(_division_family(0)).status is Status.PROVED
    verdict = prove_family(_division_family(1))
    assert verdict.status is not Status.PROVED
    assert verdict.hints


def _prover():
    from usim.engine.parametric.integers import Ledger, Prover
    return Prover(("N",), timeout=30, ledger=Ledger())


def test_a_branch_is_taken_out_only_where_the_facts_decide_its_condition():
    """What a case already decides is simplified away; what it does not is kept,
    so a condition true only at some sizes never loses its other branch."""
    import z3
    N, a, b = z3.Ints("N a b")
    facts = [N >= 1, a >= 0, a < N, b >= 0, b < N]
    prover = _prover()
    position = z3.If(z3.And(0 <= a * N + b, a * N + b < N * N), b * N + a, -1)
    assert z3.eq(prover.simplify(facts, position, "test"), z3.simplify(b * N + a))
    undecided = z3.If(a < 1, a, b)
    simplified = prover.simplify(facts, undecided, "test")
    assert z3.is_app_of(simplified, z3.Z3_OP_ITE)


def test_a_quotient_is_taken_out_only_where_its_remainder_is_proved_in_range():
    """(b N + a) // N is b for 0 <= a < N; for a <= N the remainder may be N and
    the quotient b + 1: kept as a division."""
    import z3
    N, a, b = z3.Ints("N a b")
    prover = _prover()
    inside = [N >= 1, a >= 0, a < N, b >= 0]
    assert z3.eq(prover.simplify(inside, (b * N + a) / N, "test"), b)
    assert z3.eq(prover.simplify(inside, (b * N + a) % N, "test"), a)
    one_more = [N >= 1, a >= 0, a <= N, b >= 0]
    kept = prover.simplify(one_more, (b * N + a) / N, "test")
    assert z3.is_app_of(kept, z3.Z3_OP_IDIV)


def test_a_quotient_one_off_the_polynomial_one_is_taken_only_where_its_remainder_is_proved_in_range():
    """(N v + b - N) // N is v where N <= b < 2N (the polynomial quotient v - 1 with
    the remainder b, one divisor too large); where b may be below N it is kept."""
    import z3
    N, v, b = z3.Ints("N v b")
    prover = _prover()
    past = [N >= 1, v >= 0, b >= N, b < 2 * N]
    assert z3.eq(prover.simplify(past, (N * v + b - N) / N, "test", small=True), v)
    assert z3.eq(prover.simplify(past, (N * v + b) % N, "test", small=True), z3.simplify(b - N))
    either = [N >= 1, v >= 0, b >= 0, b < 2 * N]
    assert z3.is_app_of(prover.simplify(either, (N * v + b - N) / N, "test", small=True), z3.Z3_OP_IDIV)
    assert z3.is_app_of(prover.simplify(either, (N * v + b) % N, "test", small=True), z3.Z3_OP_MOD)


def test_a_quotient_several_blocks_off_the_polynomial_one_is_taken_only_where_its_remainder_is_in_range():
    """(N v + b - 3N) // N is v where 3N <= b < 4N (head 3's columns of a concatenation
    of four heads: the polynomial quotient v - 3); where b may lie in another block it
    is kept, and a shift past the window of tried ones is not guessed."""
    import z3
    N, v, b = z3.Ints("N v b")
    prover = _prover()
    fourth = [N >= 1, v >= 0, b >= 3 * N, b < 4 * N]
    assert z3.eq(prover.simplify(fourth, (N * v + b - 3 * N) / N, "test", small=True), v)
    assert z3.eq(prover.simplify(fourth, (N * v + b) % N, "test", small=True), z3.simplify(b - 3 * N))
    open_block = [N >= 1, v >= 0, b >= 2 * N, b < 4 * N]
    assert z3.is_app_of(prover.simplify(open_block, (N * v + b - 3 * N) / N, "test", small=True), z3.Z3_OP_IDIV)
    far = [N >= 1, v >= 0, b >= 9 * N, b < 10 * N]
    assert z3.is_app_of(prover.simplify(far, (N * v + b) / N, "test", small=True), z3.Z3_OP_IDIV)


def test_a_condition_inside_a_sum_is_decided_as_the_facts_state_it_and_only_so():
    """Inside a sum's body a padding's condition with remainders is decided through its
    simplified form where that form is proved; a condition the facts leave open is
    still a case split inside a sum (UNKNOWN), not a side taken."""
    import z3
    from usim.engine.parametric.steps import Context, SplitInSum
    from usim.engine.parametric.symbolic_sizes import SymbolicSizeEvaluator
    N, d, j, l = z3.Ints("N d j l")
    prover = _prover()
    evaluator = SymbolicSizeEvaluator.__new__(SymbolicSizeEvaluator)
    evaluator.prover = prover
    body = Context((N >= 1, d >= 1, d <= N, j >= d, j < N, l >= 0, l < N), forkable=False)
    condition = (N * (l % N) + N * N + j - N * N) % N < d
    assert evaluator.decide(body, condition, "test") == [(body, False)]
    open_case = Context((N >= 1, d >= 1, d <= N, j >= 0, j < N, l >= 0, l < N), forkable=False)
    with pytest.raises(SplitInSum):
        evaluator.decide(open_case, condition, "test")


class _OneColumnTooMany(PaddedFamily):
    """Stage programs that keep (and tell the stage) one column more than T has."""

    def program(self, k, *sizes):
        bound, n, d = sizes
        return super().program(k, bound, n, d + 1)


def test_a_padded_transpose_stage_that_keeps_one_column_too_many_is_not_proved():
    """Stage 1 (X^T and the products) is proved for every size only with the
    positions its routing heads read simplified in each case: the
    simplification cannot hide a program that pads X to the wrong width."""
    claims, fams = stage_claims("wrong", _OneColumnTooMany(lambda n, d: LayerSpec(n, d)), paper="x", what="x",
                                engines=("sympy",), default_max_n=2, ci_max_n=2, category="our statement")
    verdict = prove_family(dataclasses.replace(fams[0], side_condition=lambda N, n, d: (n <= N) & (d + 1 <= N)))
    assert verdict.status is not Status.PROVED
