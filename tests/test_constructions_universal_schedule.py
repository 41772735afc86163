"""The schedule over a symbolic size: U's family, whose instance at N is U_N."""

from __future__ import annotations

import pytest

from usim.constructions.universal import LayerSpec, build
from usim.errors import ShapeError
from usim.rasp.family import FamilyError, dimension, instantiate
from usim.rasp.fingerprint import canonical_text


def test_u_built_for_a_symbolic_n_has_a_polynomial_length():
    u = build(LayerSpec(dimension("N"), dimension("N")))
    assert str(u.length) == "3 + N * N + N * N + N * N" and len(u.stages) == 4


@pytest.mark.parametrize("bound", [1, 2, 3, 5, 17])
def test_the_family_of_u_instantiated_is_u_built_with_integers_node_for_node(bound):
    family = build(LayerSpec(dimension("N"), dimension("N"))).program
    built = build(LayerSpec(bound, bound)).program
    assert canonical_text(instantiate(family, {"N": bound}), names=True) == canonical_text(built, names=True)


def test_a_schedule_whose_longest_workspace_depends_on_the_sizes_is_refused():
    """For n x d the longest of U's workspaces is not the same polynomial at
    every n, d: the builder cannot choose, and says so."""
    with pytest.raises(FamilyError, match="largest depends on the sizes"):
        build(LayerSpec(dimension("n"), dimension("d")))


def test_several_heads_over_a_symbolic_width_need_their_widths():
    with pytest.raises(ShapeError, match="give d_k and d_v"):
        LayerSpec(dimension("N"), dimension("N"), heads=2)


@pytest.mark.parametrize("bound", [1, 2, 5])
def test_u_for_two_heads_with_w_o_over_a_symbolic_n_instantiates_to_u_built_with_integers(bound):
    """Theorem 9's U_N for two merged heads (d_v = N each) and W_O: the heads' blocks,
    the concatenation at columns 0 and N, and W_O's 2N rows are polynomials in N."""
    spec_of = lambda n: LayerSpec(n, n, heads=2, d_v=n, out_proj=True)  # noqa: E731
    family = build(spec_of(dimension("N")))
    assert str(family.stages[-2].pieces["C"][1].col) == "N"
    built = build(spec_of(bound)).program
    assert canonical_text(instantiate(family.program, {"N": bound}), names=True) == \
        canonical_text(built, names=True)
