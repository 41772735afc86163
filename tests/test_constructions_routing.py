"""Routing heads: a block placed in the corner of a larger one is one family over
both sizes, and moves the same entries as the whole block where the sizes agree;
H stacked heads are placed side by side by one head, one family over H."""

from __future__ import annotations

import numpy as np
import pytest

from usim.constructions.routing import Part, Piece, concatenate_heads_construction, route, routing_table
from usim.encodings import run_exact
from usim.encodings.layout import SequenceLayout
from usim.rasp.expr import tokens
from usim.rasp.family import FamilyError, dimension
from usim.rasp.fingerprint import canonical_text
from usim.rasp.program import Program


def _layouts(n, d, big):
    source = SequenceLayout.of(("X", (n, d)), length=big * big + 1)
    target = SequenceLayout.of(("G", (1, 1)), ("X", (big, big)))
    return source, target


def _program(n, d, big, corner):
    source, target = _layouts(n, d, big)
    return Program.of("place", {"W": route([Part(tokens, source)], target, {"X": (Piece("X", corner=corner),),
                                                                           "G": ()})})


@pytest.mark.parametrize("n, d, big", [(1, 2, 2), (2, 2, 2), (2, 1, 3)])
def test_a_corner_piece_places_the_block_top_left_and_zeros_the_rest(n, d, big):
    values = list(range(1, n * d + 1)) + [0] * (big * big + 1 - n * d)
    out = run_exact(_program(n, d, big, corner=True), values)["W"]
    expected = [0] + [values[i * d + j] if i < n and j < d else 0 for i in range(big) for j in range(big)]
    assert out == expected
    source, target = _layouts(n, d, big)
    table = routing_table([source], target, {"X": (Piece("X", corner=True),), "G": ()})
    assert [values[e[1]] if e else 0 for e in table] == expected


def test_where_the_sizes_agree_a_corner_moves_what_the_whole_block_moves_by_another_formula():
    whole, corner = _program(2, 2, 2, corner=False), _program(2, 2, 2, corner=True)
    values = [5, 6, 7, 8, 0]
    assert run_exact(whole, values) == run_exact(corner, values)
    assert canonical_text(whole) != canonical_text(corner)  # the rectangle's formula, not a shift


def test_a_corner_is_one_family_over_both_sizes_where_a_whole_move_cannot_choose():
    n, d, big = dimension("n"), dimension("d"), dimension("N")
    _program(n, d, big, corner=True)  # builds: no question about the sizes is asked
    with pytest.raises(FamilyError):
        _program(n, d, big, corner=False)  # whole or not depends on whether n = N


def test_the_routing_table_places_each_rectangle_where_its_moves_formula_does_and_refuses_overlaps():
    """routing_arrays (numpy, what usim simulate places T by) against Move.source_of
    position by position, and two pieces writing one position refused."""

    from usim.constructions.routing import Part as P, plan_moves, routing_arrays
    from usim.errors import ShapeError

    source = SequenceLayout.of(("A", (3, 4)), ("B", (2, 2)), length=40)
    target = SequenceLayout.of(("G", (1, 2)), ("C", (4, 5)), length=40)
    pieces = {"C": (Piece("A", row=1, col=1, src_row=1, rows=2, cols=2), Piece("B", row=0, col=3)), "G": ()}
    part, src = routing_arrays([source], target, pieces)
    expected = np.full(40, -1)
    for _, move in plan_moves([P(tokens, source)], target, pieces):
        for p in range(40):
            s = move.source_of(p)
            if s is not None:
                expected[p] = s
    assert src.tolist() == expected.tolist() and (part[src >= 0] == 0).all() and (part[src < 0] == -1).all()
    overlapping = {"C": (Piece("A", rows=2, cols=2), Piece("B", row=1, col=1)), "G": ()}
    with pytest.raises(ShapeError, match="two pieces write position 8 of C"):
        routing_arrays([source], target, overlapping)


@pytest.mark.parametrize("n, heads", [(1, 1), (1, 4), (2, 3), (3, 2), (2, 9)])
def test_the_heads_stacked_come_out_side_by_side_as_numpy_concatenates_them(n, heads):
    stacked = np.arange(1, heads * n * n + 1).reshape(heads * n, n)
    built = concatenate_heads_construction(n, heads)
    out = run_exact(built.program, stacked.ravel().tolist())["W"]
    assert out == np.concatenate(np.split(stacked, heads), axis=1).ravel().tolist()


def test_the_concatenation_is_one_family_for_every_number_of_heads():
    """One graph, its head index a formula in H: the instance at H = 9 has as many
    nodes as at H = 1, where a concatenation of pieces has one rectangle per head."""
    one, nine = (concatenate_heads_construction(2, h).program for h in (1, 9))
    assert len(list(one.nodes())) == len(list(nine.nodes()))
