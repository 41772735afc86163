"""The exact interpretation's roots, said in words."""

from __future__ import annotations

from fractions import Fraction

import pytest

from usim.encodings.exact import _exact_root, root_name
from usim.errors import NotExactError


@pytest.mark.parametrize("degree, name", [(2, "square root"), (3, "cube root"), (4, "4th root"),
                                          (11, "11th root"), (21, "21st root"), (22, "22nd root"), (23, "23rd root")])
def test_a_root_is_named_in_words(degree, name) -> None:
    assert root_name(degree) == name


def test_an_irrational_root_says_which_root_in_words() -> None:
    with pytest.raises(NotExactError, match="the cube root of 2 is irrational"):
        _exact_root(Fraction(2), 3)
    assert _exact_root(Fraction(8, 27), 3) == Fraction(2, 3)
