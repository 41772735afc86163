"""A theorem over several head counts, for every size: one composed claim per H, side by side.

U's route has one list of steps per head, so there is one program U_{N,H} per
number of heads H, and a claim over every H <= H_max (Theorem 9) is the
conjunction of one composed claim per H (:func:`over_heads`). U over stacked
heads has one list of steps for every H: given as the conjunction's
:class:`EveryHead` member, it extends the claim to every H, the head count a
dimension of the claim (the per-head programs stay proved for H <= H_max: they
are what ``usim simulate`` runs for such a layer given head by head).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from usim.constructions.universal import LayerSpec
from usim.constructions.universal.terms import Term
from usim.engine.claim import Claim
from usim.engine.parametric.composed import Chain, ComposedClaim
from usim.engine.parametric.statement import FamilyClaim
from usim.proofs._stage_equation import LayerFormula, equation_composition, wiring_equation
from usim.proofs._stages import PaddedFamily, UniversalFamily, composition
from usim.rasp.family import dimension
from usim.rasp.program import Program


STACKED = "stacked"
"""The prefix of the :class:`EveryHead` member's broken variants and outputs."""


@dataclass(frozen=True)
class EveryHead:
    """The member of :func:`over_heads` for every H: U_{N,H} over stacked heads
    (one list of steps for every H, :mod:`usim.proofs._stage_equation`).

    ``family``: its family (``family.spec_of(n, d, h)``: T's layer with its heads
    stacked); ``claim``: its composed claim (its parts and broken variants are read
    from it; its chain, equation, program and layers are made again from ``family`` and
    ``formula``); ``formula``: T's result from its blocks, as the equation reads it.
    """

    family: UniversalFamily
    claim: ComposedClaim
    formula: LayerFormula


def over_heads(bounded: Claim, spec_of: Callable[[Any, Any, int], LayerSpec],
               members: Mapping[int, tuple[PaddedFamily, ComposedClaim]],
               formula: Callable[[LayerSpec], Term], heads: Sequence[int],
               every_h: EveryHead | None = None) -> ComposedClaim:
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

    With ``every_h``, the claim holds for every H too: its parts follow the members',
    its chain also checks that the member's family is T's layer with H heads (H
    symbolic) stacked and derives again the :func:`equation_composition` of that
    family's stages from the member's parts to ``every_h.formula``; the claim's
    sizes and conditions are that equation's (:func:`wiring_equation`, made here from
    the family and the formula, the one the chain proves: the head count among them),
    its program includes the family's (``stacked.{name}``), its broken variants the
    member's, and its layers the family's, so that ``usim simulate`` names this claim
    for U over stacked heads too.

    Args:
        bounded: the bounded claim (its statement names the H it covers).
        spec_of: T's LayerSpec at sizes n, d and H heads, as ``bounded`` builds it.
        members: H -> (U_{N,H}'s padded family, its composed claim).
        formula: T's result as a term of its LayerSpec (the claim's formula).
        heads: every H the per-head members state, at some N.
        every_h: U_{N,H} over stacked heads, for every H (None: the members' H only).

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
    equation = wiring_equation(every_h.family, every_h.formula) if every_h is not None else None
    if every_h is not None:
        mutants.update({f"{STACKED}.{name}": (len(parts) + index, broken)
                        for name, (index, broken) in every_h.claim.mutants.items()})
        parts.extend(every_h.claim.parts)

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
        undecided: tuple[str, ...] = ()
        if every_h is not None:
            h = dimension("h")
            stacked = dataclasses.replace(spec_of(n, d, 1), heads=h, stacked=True)
            checks.append("every H: the member is U over stacked heads, T's LayerSpec with H heads (H symbolic) "
                          "stacked, its parts those of its composed claim")
            if every_h.family.spec_of(n, d, h) != stacked:
                problems.append(f"every H: the member is U for {every_h.family.spec_of(n, d, h).tag}, not for "
                                f"{stacked.tag}")
            found = equation_composition(every_h.family, list(every_h.claim.parts), every_h.formula, equation)
            checks += [f"every H: {check}" for check in found.checks]
            problems += [f"every H: {problem}" for problem in found.problems]
            undecided = tuple(f"every H: {what}" for what in found.undecided)
        return Chain(tuple(checks), tuple(problems), undecided)

    def program() -> Program:
        outputs = {f"H{h}.{name}": sop for h in order for name, sop in members[h][1].program().outputs}
        title = f"U_{{N,H}} for H = {', '.join(map(str, order))}"
        if every_h is not None:
            outputs.update({f"{STACKED}.{name}": sop for name, sop in every_h.family.symbolic().program.outputs})
            title += ", and over stacked heads for every H"
        return Program.of(bounded.id, outputs, title)

    layers = tuple(members[h][0].spec_of for h in order) + ((every_h.family.spec_of,) if every_h is not None else ())
    return ComposedClaim(bounded, tuple(parts), chain=chain, program=program, mutants=mutants, layers=layers,
                         over=equation)
