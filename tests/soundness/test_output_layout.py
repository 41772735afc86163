"""Hole 2: a target entry past the program's sequence was never compared.

Lemma 5's program for A (3x1) times B (1x3) has 6 positions and the product 9
entries; with a 3x3 output layout every engine compared only the first 6 and
proved it. Now a layout that does not fit, or a target whose blocks are not the
layout's, is refused when the obligation is built or run, with the sizes.
"""

from __future__ import annotations

import pytest
import sympy

from usim.constructions.base import Construction
from usim.constructions.matmul import matmul_program
from usim.encodings.layout import SequenceLayout
from usim.engine.claim import Obligation
from usim.engine.runner import check_obligation
from usim.errors import ShapeError


def test_an_output_layout_longer_than_the_sequence_is_refused_with_the_sizes():
    with pytest.raises(ShapeError, match="needs 9 positions, but the program's sequence has 6"):
        Construction("AB", matmul_program(3, 3), SequenceLayout.of(("A", (3, 1)), ("B", (1, 3))),
                     SequenceLayout.of(("AB", (3, 3))))


def _obligation(target):
    construction = Construction("AB", matmul_program(2, 2), SequenceLayout.of(("A", (2, 1)), ("B", (1, 2))),
                                SequenceLayout.of(("AB", (2, 2))))
    return Obligation("user", (2, 1, 2), construction, target)


def test_a_target_block_of_another_shape_is_refused():
    with pytest.raises(ShapeError, match="shape 2x1"):
        check_obligation(_obligation(lambda m: {"AB": (m["A"] * m["B"])[:, :1]}))


def test_a_target_with_other_blocks_is_refused():
    with pytest.raises(ShapeError, match="the target gives the blocks"):
        check_obligation(_obligation(lambda m: {"AB": m["A"] * m["B"], "extra": sympy.Matrix([[0]])}))
