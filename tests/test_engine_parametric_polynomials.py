"""z3 integer terms as polynomials: what a term holds, and the memos that answer for the very term asked."""

from __future__ import annotations

import sympy
import z3

from usim.engine.parametric import polynomials

a, b, c = z3.Ints("a b c")


def test_remembered_polynomials_and_constants_never_answer_for_another_term(monkeypatch):
    """z3 gives a freed term's id to the next term it makes: a memo by id that did
    not keep its terms alive would answer for the wrong term here."""
    for k in range(300):
        x = z3.Int(f"x{k}")
        term = 2 * x + k
        assert polynomials.to_polynomial(term) == 2 * sympy.Symbol(f"x{k}", integer=True) + k
        assert polynomials.free_constants(z3.If(term > 0, term, b)) == {f"x{k}", "b"}
        del x, term
    monkeypatch.setattr(polynomials, "KEPT_TERMS", 3)  # the memos start again every three terms
    for k in range(30):
        assert polynomials.free_constants(z3.Int(f"y{k}") + a) == {f"y{k}", "a"}


def test_a_polynomial_asked_with_symbols_gets_them_after_it_was_asked_without():
    inner = a * b + 1
    assert str(polynomials.to_polynomial(inner)) == "a*b + 1"
    renamed = sympy.Symbol("X")
    assert polynomials.to_polynomial(inner, {"a": renamed}) == renamed * sympy.Symbol("b", integer=True) + 1
    assert polynomials.free_constants(z3.If(inner > c, inner, 0)) == {"a", "b", "c"}  # the inner term remembered
    assert polynomials.to_polynomial(inner / c) is None  # a quotient is not a polynomial
    assert polynomials.to_polynomial(z3.If(a > 0, a, b) + 1) is None


def test_a_quotient_over_a_polynomial_of_opaque_parts_is_found_and_the_parts_kept():
    """(N (l // N) + a) = (l // N) N + a: the quotient l // N is a part like a constant."""
    import z3

    from usim.engine.parametric.polynomials import quotient_remainder

    l, N, a = z3.Ints("l N a")
    q, r = quotient_remainder(N * (l / N) + a, N)
    assert z3.simplify(q).eq(z3.simplify(l / N)) and z3.simplify(r).eq(a)
    assert quotient_remainder(l / N, N) is None  # an opaque part alone: nothing to divide
    solver = z3.Solver()  # the identity a = q b + r holds at every value
    solver.add(z3.Not(N * (l / N) + a == q * N + r))
    assert solver.check() == z3.unsat
