"""A theorem over several head counts, for every size: one composed claim per H, side by side.

U's route has one list of steps per head, so there is one program U_{N,H} per
number of heads H, and a claim over every H <= H_max (Theorem 9) is the
conjunction of one composed claim per H (:func:`over_heads`).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from usim.constructions.universal import LayerSpec
from usim.constructions.universal.terms import Term
from usim.engine.claim import Claim
from usim.engine.parametric.composed import Chain, ComposedClaim
from usim.engine.parametric.statement import FamilyClaim
from usim.proofs._stages import PaddedFamily, composition
from usim.rasp.family import dimension
from usim.rasp.program import Program


def over_heads(bounded: Claim, spec_of: Callable[[Any, Any, int], LayerSpec],
               members: Mapping[int, tuple[PaddedFamily, ComposedClaim]],
               formula: Callable[[LayerSpec], Term], heads: Sequence[int]) -> ComposedClaim:
    """The theorem for every size and every H among ``members``' keys: ``bounded``
    (whose U_{N,H} is ``spec_of(N, N, H)``, its bounded proof the cross-check) proved
    as one composed claim per H, U_{N,H}'s padded stages and their chain.

    There is one program U_{N,H} per H (U's route has one list of steps per head),
    so this is the conjunction of the members: PROVED when every part of every
    member is PROVED and every member's chain holds. Its parts are the members'
    parts, in order of H; its chain checks that the members are exactly ``heads``
    (every H the claim states at some N), that member H's family is that of
    ``spec_of(n, d, H)`` at symbolic n, d, and, for each member, the
    :func:`composition` of that family's stages from the member's own parts to
    ``formula`` (derived again: a member registered with another family's parts,
    or another formula, breaks it); its program is the members' programs side by
    side (output ``H{h}.{name}``); its broken variants are the members', named
    ``H{h}.{name}``.

    Args:
        bounded: the bounded claim (its statement names the H it covers).
        spec_of: T's LayerSpec at sizes n, d and H heads, as ``bounded`` builds it.
        members: H -> (U_{N,H}'s padded family, its composed claim).
        formula: T's result as a term of its LayerSpec (the claim's formula).
        heads: every H the claim states, at some N.

    Returns:
        The claim for every size, in parts.
    """
    order = sorted(members)
    parts: list[FamilyClaim] = []
    mutants: dict[str, tuple[int, str]] = {}
    for h in order:
        member = members[h][1]
        mutants.update({f"H{h}.{name}": (len(parts) + index, broken)
                        for name, (index, broken) in member.mutants.items()})
        parts.extend(member.parts)

    def chain() -> Chain:
        n, d = dimension("n"), dimension("d")
        checks = [f"the parts are those of U_{{N,H}} for H = {', '.join(map(str, order))} in turn, each member "
                  "the padded family of T's LayerSpec with H heads at symbolic n, d"]
        problems = []
        if order != sorted(heads):
            problems.append(f"the members are H = {order}, the claim states H = {sorted(heads)}")
        for h in order:
            family, member = members[h]
            if family.spec_of(n, d) != spec_of(n, d, h):
                problems.append(f"H = {h}: the member is U for {family.spec_of(n, d).tag}, not for "
                                f"{spec_of(n, d, h).tag}")
            found = composition(family, list(member.parts), formula)
            checks += [f"H = {h}: {check}" for check in found.checks]
            problems += [f"H = {h}: {problem}" for problem in found.problems]
        return Chain(tuple(checks), tuple(problems))

    def program() -> Program:
        outputs = {f"H{h}.{name}": sop for h in order for name, sop in members[h][1].program().outputs}
        return Program.of(bounded.id, outputs, f"U_{{N,H}} for H = {', '.join(map(str, order))}")

    return ComposedClaim(bounded, tuple(parts), chain=chain, program=program, mutants=mutants,
                         layers=tuple(members[h][0].spec_of for h in order))
