"""Every registered claim, at its representative bound: the shape of the registry.

Each claim's own test module proves it in depth; this module makes sure no
claim is left without the basics: its smallest obligation ends as the claim
expects (PROVED, or REFUTED for an erratum), every claim that is not an erratum
has deliberately broken variants, and each variant is refuted at some shape of
the claim's CI bound with a replayed counterexample.
"""

from __future__ import annotations

import pytest

from usim.engine.claim import Status
from usim.proofs import all_claims
from usim.engine.runner import check_obligation

CLAIMS = {claim.id: claim for claim in all_claims()}


@pytest.mark.parametrize("claim_id", sorted(CLAIMS))
def test_the_smallest_obligation_ends_as_the_claim_expects(claim_id):
    claim = CLAIMS[claim_id]
    shapes = list(claim.shapes(claim.ci_max_n))
    assert shapes, f"{claim_id} has no shape at its CI bound"
    results = [check_obligation(claim.obligation(s), timeout=60, claim_engines=claim.engines)
               for s in shapes[: 3 if claim.is_erratum else 1]]
    statuses = {r.status for r in results}
    if claim.is_erratum:
        assert Status.REFUTED in statuses and Status.ERROR not in statuses
    else:
        assert statuses == {Status.PROVED}, [r.as_dict() for r in results]


@pytest.mark.parametrize("claim_id", sorted(c.id for c in CLAIMS.values() if not c.is_erratum))
def test_every_claim_has_broken_variants(claim_id):
    assert CLAIMS[claim_id].mutants, f"{claim_id} has no deliberately broken variant"


MUTANTS = sorted((c.id, m) for c in CLAIMS.values() for m in c.mutants)
MUTANT_TIMEOUT = 15
"""Seconds per engine on a broken variant: one engine's replayed counterexample
refutes it; cvc5 rarely finds a model where exp is involved and would spend its
whole deadline (then a random input, replayed, refutes it as well)."""


@pytest.mark.parametrize("claim_id, mutant", MUTANTS)
def test_every_broken_variant_is_refuted_at_some_shape(claim_id, mutant):
    claim = CLAIMS[claim_id]
    for shape in claim.shapes(claim.ci_max_n):
        broken = claim.mutants[mutant](shape)
        if broken is None:  # the variant breaks nothing at this shape
            continue
        result = check_obligation(broken, timeout=MUTANT_TIMEOUT, claim_engines=claim.engines)
        assert result.status in (Status.REFUTED, Status.PROVED), result.as_dict()
        if result.status is Status.REFUTED:
            assert result.counterexample is not None
            return
    pytest.fail(f"{claim_id}: the broken variant {mutant} was not refuted at any shape up to "
                f"N={claim.ci_max_n}")


def test_the_statements_for_every_size_about_a_layer_are_those_whose_family_has_it_at_its_sizes():
    from usim.constructions.universal import LayerSpec
    from usim.proofs import about_layer

    def ids(layer):
        return [claim_id for claim_id, _ in about_layer(layer)]

    assert ids(LayerSpec(3, 2)) == ["theorem6", "hierarchy"]  # n != d: T of the family at (3, 2)
    assert ids(LayerSpec(4, 4, heads=2, d_v=4, out_proj=True)) == ["theorem9_two_heads", "theorem9"]
    assert ids(LayerSpec(3, 3, heads=3, d_v=3, out_proj=True, encoder=True)) == \
        ["corollary9_1_three_heads", "corollary9_1"]
    assert ids(LayerSpec(3, 3, heads=5, d_v=3, out_proj=True, stacked=True)) == ["theorem9", "theorem9_stacked"]
    assert ids(LayerSpec(3, 3, heads=5, d_v=3, out_proj=True)) == []  # five heads one by one: no program holds it
    assert ids(LayerSpec(3, 3, heads=2)) == []  # d_v = d // H: no family has it
    assert ids(LayerSpec(3, 3, encoder=True, d_ff=5)) == []  # a feed-forward width other than d
    for claim_id, spec_of in about_layer(LayerSpec(2, 2, form="projected", bias=True)):
        assert spec_of(2, 2) == LayerSpec(2, 2, form="projected", bias=True) and claim_id == "theorem6_users"
