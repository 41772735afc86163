"""The exhaustive engine evaluates the target exactly at each input without
writing it as Python source (issue 30, part 4: lambdify printed a target
nested deeper than Python's parser allows, "too many nested parentheses", and
the one engine that could decide the check answered ERROR)."""

from __future__ import annotations

import itertools

import sympy

from usim.engine.solvers.exhaustive import values_at

x, y = sympy.symbols("x y", real=True)


def _nested(depth: int) -> sympy.Basic:
    term = x
    for k in range(depth):
        term = sympy.Piecewise((term + 1, y > k % 3), (term - 1, True))
    return term


def test_a_target_nested_past_pythons_parser_and_recursion_limit_is_evaluated_exactly():
    deep = _nested(1500)  # Python's parser stops at 200 nested parentheses, its recursion at 1000 frames
    for vx, vy in itertools.product((0, 1, sympy.Rational(-3, 2)), (0, 1, 2, 5)):
        expected = vx + sum(1 if vy > k % 3 else -1 for k in range(1500))
        assert values_at([deep], {x: vx, y: vy}) == [expected]


def test_values_are_sympys_own_at_the_point():
    terms = [x / y, sympy.Max(x, y) ** 2, sympy.Abs(x - 3 * y), sympy.floor(x / 2), sympy.Mod(x, 3),
             sympy.Piecewise((1 / x, x > 0), (0, True))]
    for vx, vy in itertools.product((-2, 0, sympy.Rational(5, 3)), (-1, 2)):
        point = {x: sympy.sympify(vx), y: sympy.sympify(vy)}
        assert values_at(terms, point) == [t.xreplace(point) for t in terms]
