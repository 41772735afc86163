"""Matrices of symbolic sizes: sums and products only of shapes that agree at every size."""

from __future__ import annotations

import pytest
from sympy.matrices.exceptions import ShapeError

from usim.encodings.sized import SymbolicMatrix
from usim.rasp.family import dimension

r, c = dimension("r"), dimension("c")


def ones(rows, cols) -> SymbolicMatrix:
    return SymbolicMatrix(rows, cols, lambda i, j: 1)


def test_matrices_whose_shapes_agree_add_and_multiply():
    assert (ones(r, c) + ones(r, c)).shape == (r, c)
    assert (ones(r, c) * ones(c, 3)).shape == (r, 3)
    assert (ones(r, c) + ones(r, c))[0, 0] == 2


@pytest.mark.parametrize("left, right", [((r, c), (c, r)), ((r, c), (r, c + 1)), ((r, 3), (r, c))],
                         ids=["transposed", "one-column-more", "equal-only-at-c-3"])
def test_a_sum_of_shapes_that_differ_at_some_size_is_refused(left, right):
    with pytest.raises(ShapeError, match="not the same at every size"):
        ones(*left) + ones(*right)


def test_a_product_whose_inner_sizes_differ_is_refused():
    with pytest.raises(ShapeError, match="a product of a r x c and a r x c matrix"):
        ones(r, c) * ones(r, c)
