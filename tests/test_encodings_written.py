"""The divisions and roots a target writes, recorded before sympy cancels them."""

from __future__ import annotations

import sympy

from usim.encodings.written import cancelled_powers, piecewise, remembered, written_conditions, written_powers

x, y, v = sympy.symbols("x y v")


def test_a_division_sympy_cancels_is_recorded_as_written():
    with written_powers() as powers:
        value = x * y / y
    assert value == x and powers == {(y, -1)}
    assert cancelled_powers(powers, [value]) == {(y, -1)}
    assert written_conditions(cancelled_powers(powers, [value])) == [sympy.Ne(y, 0)]


def test_a_division_taken_away_again_is_recorded():
    with written_powers() as powers:
        value = x + 1 / y - 1 / y
    assert value == x and cancelled_powers(powers, [value]) == {(y, -1)}


def test_a_division_the_value_keeps_is_the_values_own():
    with written_powers() as powers:
        value = x / y
    assert cancelled_powers(powers, [value]) == set()


def test_a_square_root_and_its_reciprocal_are_accounted_for_by_the_negative_root():
    with written_powers() as powers:
        value = x / sympy.sqrt(y)
    assert {(y, sympy.Rational(1, 2)), (y, -1)} <= powers  # 1/sqrt(y) recorded as a division by y
    assert cancelled_powers(powers, [value]) == set()  # y**(-1/2) needs y > 0: both covered


def test_constants_and_powers_built_inside_another_are_not_recorded():
    with written_powers() as powers:
        sympy.Integer(3) / 4
        1 / (x * y)  # sympy writes x**-1 and y**-1 while building (x*y)**-1
    assert powers == {(x * y, -1)}


def test_sympys_questions_about_an_expression_write_nothing():
    p = sympy.Piecewise((x + 1, x > 0), (sympy.exp(x), True))
    with written_powers() as powers:
        p / p  # sympy pushes 1/p into the branches and asks each piece whether it is real
    assert powers == {(p, -1)}


def test_a_branch_keeps_its_own_division_where_it_is_taken_and_passes_on_a_cancelled_one():
    with written_powers() as powers:
        kept = piecewise(v > 0, lambda: 1 / v, lambda: 0)
    assert kept == sympy.Piecewise((1 / v, v > 0), (0, True))
    (condition,) = written_conditions(cancelled_powers(powers, [kept]))  # 1/v required where v > 0 only
    assert [condition.subs(v, value) for value in (2, 0, -3)] == [sympy.true, sympy.true, sympy.true]
    with written_powers() as powers:
        piecewise(v >= 0, lambda: 1 / v, lambda: 0)  # taken at v = 0: undefined there
    assert [c.subs(v, 0) for c in written_conditions(powers)] == [sympy.false]
    with written_powers() as powers:
        piecewise(v > 0, lambda: x * y / y, lambda: 0)
    assert powers == {(y, -1)}


def test_a_division_in_a_branch_of_a_branch_is_required_where_both_are_taken():
    w = sympy.Symbol("w")
    with written_powers() as powers:
        nested = piecewise(v > 0, lambda: piecewise(w > 0, lambda: 1 / v, lambda: 0), lambda: 0)
    (condition,) = written_conditions(cancelled_powers(powers, [0 * nested]))  # cancelled as a whole
    assert condition.subs({v: 0, w: 1}) is sympy.true  # the outer branch is not taken at v = 0
    with written_powers() as powers:
        piecewise(v >= 0, lambda: piecewise(w > 0, lambda: 1 / v, lambda: 0), lambda: 0)
    (condition,) = written_conditions(powers)
    assert condition.subs({v: 0, w: 1}) is sympy.false and condition.subs({v: 0, w: -1}) is sympy.true


def test_sympys_piecewise_leaves_a_division_in_a_branch_required_everywhere():
    with written_powers() as powers:
        value = sympy.Piecewise((1 / v, v > 0), (0, True))
    assert cancelled_powers(powers, [value]) == {(v, -1)}


def test_a_remembered_value_writes_its_powers_again_from_the_cache():
    calls = []

    @remembered(maxsize=2)
    def cancelled(a):
        calls.append(a)
        return a * y / y
    with written_powers() as first:
        cancelled(x)
    with written_powers() as second:
        cancelled(x)
    assert calls == [x] and first == second == {(y, -1)}


def test_no_record_open_leaves_sympy_as_it_was():
    built = sympy.Pow.__dict__["__new__"]
    with written_powers():
        with written_powers():
            pass
        assert sympy.Pow.__dict__["__new__"] is not built
    assert sympy.Pow.__dict__["__new__"] is built
    assert piecewise(v > 0, lambda: 1 / v, lambda: 0) == sympy.Piecewise((1 / v, v > 0), (0, True))


def test_a_log_and_a_mod_are_recorded_as_the_powers_of_their_domains():
    with written_powers() as powers:
        x + sympy.log(y) - sympy.log(y)
        sympy.Mod(x, v)
        sympy.Mod(x, 2)  # a constant divisor: sympy's own
    assert powers == {(y, sympy.Rational(-1, 2)), (v, -1)}
    assert written_conditions(powers) == [sympy.Ne(v, 0), y > 0]
