"""The float cross-check evaluates a target's terms with numpy, as lambdify would."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from usim.engine import measure

x, y, z = sympy.symbols("x y z", real=True)
COLUMNS = {x: np.array([0.5, -1.25, 2.0]), y: np.array([3.0, 0.75, -0.5]), z: np.array([1.0, 2.0, 4.0])}

TERMS = [
    x * y + 3 * z, x ** 2 - y / z, sympy.exp(x * y) / (1 + sympy.exp(z)), sympy.sqrt(z) * sympy.Abs(x),
    sympy.Max(x, y, 0) - sympy.Min(z, 1), sympy.log(z) + sympy.E * sympy.pi, z ** sympy.Rational(3, 2),
    (x + y) ** -2, sympy.Rational(-7, 3), sympy.Integer(0),
]


def test_numpy_evaluation_equals_lambdify_on_sums_products_powers_and_exp():
    ours = measure._evaluated(TERMS, COLUMNS)
    theirs = measure._lambdified(TERMS, list(COLUMNS))(*COLUMNS.values())
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(np.broadcast_to(a, (3,)), np.broadcast_to(b, (3,)), rtol=1e-15)


@pytest.mark.parametrize("term", [sympy.Piecewise((x, y > 0), (z, True)), sympy.floor(x), sympy.Symbol("w") + x,
                                  sympy.zoo * x])
def test_what_it_has_no_rule_for_is_left_to_lambdify(term):
    with pytest.raises(measure._Unsupported):
        measure._evaluated([term], COLUMNS)
