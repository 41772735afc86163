"""Cost as the RASP interpreter counts it, and the paper's figures for every shape 1..6.

Transpose: 1 layer, 1 head; softmax: 1 layer, r heads; product: 2 layers with
r + c and r*c heads. Counting the layer that computes ``length`` adds one layer
below, with one head (``length`` itself).
"""

from __future__ import annotations

from itertools import product as cartesian

import pytest

from usim.constructions.matmul import matmul_construction, matmul_fits
from usim.constructions.softmax import PAPER_BASE, softmax_construction
from usim.constructions.transpose import transpose_construction
from usim.rasp import (
    Predicate,
    Program,
    aggregate,
    cost,
    indices,
    length,
    select,
    selector_width,
    tokens,
)

DIMS = range(1, 7)


@pytest.mark.parametrize("r, c", list(cartesian(DIMS, DIMS)))
def test_transpose_costs_one_layer_one_head(r: int, c: int) -> None:
    figures = transpose_construction(r, c).cost
    assert (figures.layers, figures.heads_per_layer) == (1, (1,))
    assert (figures.layers_with_length, figures.heads_per_layer_with_length) == (2, (1, 1))
    assert figures.heads_with_length[0] == ("length",)


@pytest.mark.parametrize("r, c", list(cartesian(DIMS, DIMS)))
@pytest.mark.parametrize("base", [None, PAPER_BASE])
def test_softmax_costs_one_layer_r_heads(r: int, c: int, base) -> None:
    figures = softmax_construction(r, c, base=base).cost
    assert (figures.layers, figures.heads_per_layer) == (1, (r,))
    assert (figures.layers_with_length, figures.heads_per_layer_with_length) == (2, (1, r))
    assert figures.width == r


@pytest.mark.parametrize("r, k, c", [s for s in cartesian(DIMS, DIMS, DIMS) if matmul_fits(*s)])
def test_product_costs_two_layers_r_plus_c_and_r_times_c_heads(r: int, k: int, c: int) -> None:
    figures = matmul_construction(r, k, c).cost
    assert (figures.layers, figures.heads_per_layer) == (2, (r + c, r * c))
    assert (figures.layers_with_length, figures.heads_per_layer_with_length) == (3, (1, r + c, r * c))
    assert figures.width == max(r + c, r * c)
    layer1 = set(figures.heads[0])
    assert layer1 == {f"a{i}" for i in range(r)} | {f"b{j}" for j in range(c)}


def test_nesting_depth_and_heads_per_layer() -> None:
    first = aggregate(select(indices, indices, Predicate.LE), tokens).named("first")
    second = aggregate(select(indices, indices, Predicate.EQ), tokens).named("second")
    width = selector_width(select(first, second, Predicate.LT)).named("width")  # above both
    top = aggregate(select(width, indices, Predicate.EQ), first + width).named("top")
    figures = cost(Program.of("p", {"out": top * 2}))
    assert figures.heads == (("first", "second"), ("width",), ("top",))
    assert figures.layers == 3 and not figures.uses_length
    assert figures.layers_with_length == 3  # no length: the same count
    assert figures.maps == 2  # first + width, top * 2


def test_length_moves_what_depends_on_it_up_one_layer() -> None:
    rev = aggregate(select(indices, length - 1 - indices, Predicate.EQ), tokens).named("rev")
    beside = aggregate(select(indices, indices, Predicate.EQ), tokens).named("beside")
    figures = cost(Program.of("p", {"a": rev, "b": beside}))
    assert figures.heads == (("rev", "beside"),)
    assert figures.heads_with_length == (("length", "beside"), ("rev",))
    assert figures.uses_length
    assert figures.maps == 2  # length - 1, that - indices
    assert "counting the length layer: 2 layer(s) [2, 1]" in figures.summary()
    assert figures.as_dict()["heads_per_layer_with_length"] == [2, 1]


def test_maps_only_cost_no_layer() -> None:
    figures = cost(Program.of("p", {"out": (tokens + 1) * tokens - indices}))
    assert figures.layers == 0 and figures.heads == () and figures.maps == 3
    assert figures.width == 0
