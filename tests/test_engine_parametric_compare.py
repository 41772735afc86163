"""The comparison of two values over symbolic sizes: nested sums re-indexed and entries
identified by proof. Here on the identity that composes U's stacked route to Theorem 9's
formula for every N and H (the meanings of its steps, composed, against the heads
concatenated), and on two wrong versions of it that it must not show equal."""

from __future__ import annotations

import sympy

from usim.constructions.universal.kinds import diagonal_of, softmax_rows, stack_of
from usim.encodings.sized import matrix_of, total
from usim.engine.canonical import Verdict
from usim.engine.parametric.compare import Comparison
from usim.engine.parametric.integers import Ledger, Prover
from usim.engine.parametric.target import SymbolicMatrix, TargetContext, active
from usim.engine.parametric.terms import ParametricAtoms
from usim.rasp.family import dimension, index_symbol

N, H = dimension("N"), dimension("h")
INPUTS = {"X": (N, N), "A": (N, H * N), "V": (N, H * N), "WO": (H * N, N), "c": (1, 1)}


def stacked_route(m, stack=stack_of):
    """Att = diagonal((stacked softmax of stack(X A) X^T) (X V)) W_O, from the kinds' meanings."""
    X, c = m["X"], m["c"][0, 0]
    P = softmax_rows(stack([X * m["A"]], c, H, N, N) * X.T, c)
    return diagonal_of([P * (X * m["V"])], c, H, N, N) * m["WO"]


def heads_concatenated(m, head_of=lambda g: g):
    """[softmax(c X A_g X^T) X V_g]_g W_O, entry by entry, A_g the columns g N .. of A."""
    X, A, V, WO, c = m["X"], m["A"], m["V"], m["WO"], m["c"][0, 0]

    def score(g, i, j):
        return total(N, lambda b: total(N, lambda l: X[i, l] * A[l, head_of(g) * N + b]) * X[j, b])

    def output(i, k):  # column k of the concatenation: head k // N, its column k mod N
        g = k // N
        return total(N, lambda l: sympy.exp(c * score(g, i, l)) / total(N, lambda q: sympy.exp(c * score(g, i, q)))
                     * total(N, lambda q: X[l, q] * V[q, g * N + k % N]))
    return matrix_of(N, N, lambda i, j: total(H * N, lambda k: output(i, k) * WO[k, j]))


def compare(left, right) -> Verdict:
    """Entry (a, b) of both, for every N, H >= 1 and 0 <= a, b < N."""
    prover = Prover(("N", "h"), 120.0, Ledger())
    dims = prover.dims
    base = [d >= 1 for d in dims.values()]
    atoms = ParametricAtoms()
    context = TargetContext(atoms, dict(dims), prover.fresh, lambda t: prover.proves(base, t > 0, "signs").holds,
                            lambda facts, goal: prover.proves(facts, goal, "reads").holds is True)
    m = {name: SymbolicMatrix.input(name, rows, cols) for name, (rows, cols) in INPUTS.items()}
    a, b = index_symbol("a"), index_symbol("b")
    za, zb = prover.fresh("a"), prover.fresh("b")
    facts = tuple(base) + (za >= 0, za < dims["N"], zb >= 0, zb < dims["N"])
    context.env = {a.args[0]: za, b.args[0]: zb}
    context.facts = list(facts)
    with active(context):
        got, want = left(m)[a, b], right(m)[a, b]
    assert all(prover.proves(f, goal, "reads").holds for f, goal, _ in context.obligations)
    return Comparison(atoms, prover, dims).equal(sympy.sympify(got), sympy.sympify(want), facts).verdict


def test_the_stacked_route_composes_to_the_heads_concatenated_for_every_n_and_h():
    assert compare(stacked_route, heads_concatenated) is Verdict.EQUAL


def test_scores_of_head_0_for_every_head_are_not_shown_equal():
    assert compare(stacked_route, lambda m: heads_concatenated(m, head_of=lambda g: 0)) is not Verdict.EQUAL


def test_a_stack_of_head_0_only_is_not_shown_equal():
    def head_0_only(a, c, heads, rows, cols):
        return matrix_of(heads * rows, cols, lambda i, j: a[0][i % rows, j])

    assert compare(lambda m: stacked_route(m, stack=head_0_only), heads_concatenated) is not Verdict.EQUAL
