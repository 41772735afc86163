"""U's stages composed at full size: T of U's own sizes (n = d = N), for every N and every extra size.

A :class:`~usim.proofs._stages.UniversalFamily` with ``full_size`` states each
stage of U over (N, *extra) alone (the head count H of U over stacked heads),
the header's sizes the stage reads set to N. Its stages compose to a theorem
about T at n = d = N:

* U's input is T's blocks in full (no padding), after the header [N, N, c];
* each stage's statement (:func:`~usim.proofs._stages.stage_claims`): for every
  content W of its workspace, stage_k(set(W)) = target_k(W), where set(W) is W
  with the header's sizes the stage reads set to N, target_k gives each new
  block its step's masked meaning at n = N and carries every other block
  unchanged (the header with those sizes set);
* the header is in every stage's workspace and carried, so on U's input
  (header n = d = N) every setting is the identity: U = stage_m o ... o
  stage_1 maps the input to target_m(... target_1(input)), whose last block is
  U's output;
* **the equation**: that composition of targets equals the claim's formula,
  entry by entry, for every N and extra size. This is not a matter of terms
  (the per-head route's Level 2, :func:`~usim.proofs._universal.check_route`):
  over stacked heads it is diagonal(stacked_softmax(stack(X A) X^T) (X V)) W_O
  = [softmax(c X A_h X^T) X V_h]_h W_O for every H, a sum over a head index
  with a symbolic count, and the parametric engine proves it
  (:func:`~usim.engine.parametric.prove.prove_equation`: reads, divisors, the
  cases the masks make at n = N decided by the facts, canonical forms with the
  index bijections proved by z3).

:func:`full_size_composition` checks all of that as a
:class:`~usim.engine.parametric.composed.Chain` (the equation among its checks,
proved again by whoever reads the record); :func:`full_size_claim` makes the
composed claim. The padding (every n, d <= N) is not stated here.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from usim.constructions.universal import HDR_SCALE, HEADER, LayerSpec, route_of
from usim.encodings.layout import SequenceLayout
from usim.engine.claim import Claim, Status
from usim.engine.parametric.composed import Chain, ComposedClaim
from usim.engine.parametric.prove import prove_equation
from usim.engine.parametric.statement import Equation, FamilyClaim
from usim.proofs._rectangles import same
from usim.proofs._stages import UniversalFamily, as_layout, layout_problems
from usim.rasp.family import dimension
from usim.rasp.fingerprint import fingerprint

Formula = Callable[[LayerSpec, Mapping[str, Any], Any], Any]
"""T's output from its blocks and the scale (:func:`~usim.proofs._universal.attention_formula`)."""

EQUATION_BUDGET = 120.0
"""The parametric engine's seconds for the equation (it takes under a second)."""


def composed_targets(family: UniversalFamily, *sizes: Any) -> Callable[[Mapping[str, Any]], dict]:
    """target_m o ... o target_1 at ``sizes``: U's input blocks -> the last stage's blocks.

    Args:
        family: U's family at full size.
        *sizes: (N, *extra), symbolic or integers.

    Returns:
        Input matrices (by block name) -> the last stage's output blocks, each
        stage's target given the previous one's output.
    """
    u = family.built_for(sizes)

    def composed(m: Mapping[str, Any]) -> dict:
        env = dict(m)
        for stage in u.stages:
            env = dict(family.target(stage.index, *sizes)(env))
        return env
    return composed


def wiring_equation(family: UniversalFamily, formula: Formula) -> Equation:
    """The stages' targets composed equal ``formula`` on T at full size, for every N and extra size.

    Args:
        family: U's family at full size.
        formula: T's output from its blocks and the scale.

    Returns:
        The equation over (N, *extra): U's input blocks in, U's result block out.
    """
    def spec(*sizes: Any) -> LayerSpec:
        return family.spec_of(sizes[0], sizes[0], *sizes[1:])

    def inputs(*sizes: Any) -> list[tuple[str, tuple[Any, Any]]]:
        return [(b.name, (b.shape.rows, b.shape.cols)) for b in family.built_for(sizes).input_layout.blocks]

    def outputs(*sizes: Any) -> list[tuple[str, tuple[Any, Any]]]:  # T's result, as U's output holds it
        shape = family.built_for(sizes).output_layout.blocks[0].shape
        return [(route_of(spec(*sizes)).result, (shape.rows, shape.cols))]

    def left(*sizes: Any) -> Callable[[Mapping[str, Any]], dict]:
        name = outputs(*sizes)[0][0]
        composed = composed_targets(family, *sizes)
        return lambda m: {name: composed(m)[name]}

    def right(*sizes: Any) -> Callable[[Mapping[str, Any]], dict]:
        name = outputs(*sizes)[0][0]
        return lambda m: {name: formula(spec(*sizes), m, m[HEADER][0, HDR_SCALE])}

    return Equation(f"{family.label}'s stages composed = T's formula at n = d = N", ("N",) + family.extra,
                    inputs, outputs, left, right)


def full_size_composition(family: UniversalFamily, parts: list[FamilyClaim], formula: Formula) -> Chain:
    """Why the stages at full size compose to ``formula`` on T at n = d = N (the
    module docstring), each reason checked at symbolic N and extra sizes.

    Args:
        family: U's family at full size.
        parts: its stages' statements for every size, in order.
        formula: T's output from its blocks and the scale.

    Returns:
        The checks made and every problem found.
    """
    checks, problems = [], []
    if not family.full_size:
        return Chain(("the family is stated at full size",), ("the family sets no header size to N",))
    sizes = (dimension("N"),) + tuple(dimension(e) for e in family.extra)
    dims = ("N",) + family.extra
    u = family.built_for(sizes)
    m = len(u.stages)
    checks.append(f"the {m} parts are stages 1 to {m} of {family.label}'s family, in order: each one's program, "
                  f"layouts and target the stage's at symbolic {', '.join(dims)}, with no side condition")
    if len(parts) != m:
        problems.append(f"{len(parts)} parts for {m} stages")
    for k, part in enumerate(parts[:m], start=1):
        if part.dims != dims:
            problems.append(f"part {k} ({part.id}) is stated over {part.dims}, not {dims}")
            continue
        if fingerprint(part.family()) != fingerprint(family.program(k, *sizes)):
            problems.append(f"part {k} ({part.id}) is not stage {k} of the family")
        if layout_problems(f"part {k}'s input", as_layout(part.inputs(*sizes)), as_layout(family.inputs(k, *sizes))) \
                or layout_problems(f"part {k}'s output", as_layout(part.outputs(*sizes)),
                                   as_layout(family.outputs(k, *sizes))):
            problems.append(f"part {k} ({part.id}) is not stated on stage {k}'s workspaces")
        if part.target_at(*sizes) is not family.target(k, *sizes):
            problems.append(f"part {k} ({part.id}) does not state stage {k}'s meanings")
        if part.conditions() or part.preconditions is not None:
            problems.append(f"part {k} ({part.id}) is stated under {part.describe_conditions()} or with "
                            "preconditions")
    checks.append("U's input layout is stage 1's, and each stage's output layout is the next stage's input "
                  "(names, offsets, shapes and length the same polynomials)")
    problems += layout_problems("U's input and stage 1's", u.input_layout, u.stages[0].input)
    for k in range(1, m):
        problems += layout_problems(f"stage {k}'s output and stage {k + 1}'s input",
                                    u.stages[k - 1].output, u.stages[k].input)
    small = family.spec_of(sizes[0], sizes[0], *sizes[1:])
    checks.append("U's input is the header and T's blocks at n = d = N in full, in T's order (no padding)")
    wanted = SequenceLayout.of((HEADER, (1, 3)), *small.parameter_shapes())
    problems += layout_problems("U's input blocks and T's at full size",
                                SequenceLayout.of(*((b.name, b.shape) for b in u.input_layout.blocks)), wanted)
    checks.append("each stage sets header sizes only to N, and the header is carried from U's input to every "
                  "stage that sets one (in each earlier stage's output): on U's input, whose header is [N, N, c], "
                  "each setting is the identity")
    for stage in u.stages:
        fixed = family.fixed(stage.index, sizes)
        if any(not same(v, sizes[0]) for v in fixed.values()):
            problems.append(f"stage {stage.index} sets a header size to something other than N")
        if fixed and any(HEADER not in {b.name for b in layout.blocks}
                         for layout in [u.input_layout] + [s.output for s in u.stages[:stage.index - 1]]):
            problems.append(f"stage {stage.index} sets the header's {', '.join(fixed)}, and the header is not "
                            "carried to it from U's input")
    result = route_of(small).result
    last = u.stages[-1].output
    checks.append(f"U's output is the last stage's only block {result}, from position 0, in a sequence of U's "
                  "length (0 after it)")
    if [b.name for b in last.blocks] != [result]:
        problems.append(f"the last stage outputs {[b.name for b in last.blocks]}, not T's result {result} alone")
    else:
        problems += layout_problems("U's output and the last stage's result",
                                    SequenceLayout.of((result, u.output_layout.blocks[0].shape),
                                                      length=u.output_layout.length),
                                    SequenceLayout(last.blocks[:1], last.length))
    equation = wiring_equation(family, formula)
    checks.append(f"the equation {equation.name}, entry by entry for every {', '.join(dims)} >= 1: proved by the "
                  "parametric engine")
    verdict = prove_equation(equation, EQUATION_BUDGET)
    if verdict.status is not Status.PROVED:
        problems.append(f"the equation {equation.name} is not proved: {verdict.status.value} ({verdict.reason})")
    return Chain(tuple(checks), tuple(problems))


def full_size_claim(bounded: Claim, family: UniversalFamily, parts: list[FamilyClaim],
                    formula: Formula) -> ComposedClaim:
    """The theorem at full size for every N and extra size: ``bounded`` (its bounded
    proof the cross-check) proved as ``family``'s stages ``parts`` and their
    :func:`full_size_composition`; its broken variants are the parts', named
    ``stage{k}:{name}``.

    Args:
        bounded: the bounded claim (whole U against the formula at n = d = N).
        family: U's family at full size.
        parts: its stages' statements for every size, in order.
        formula: T's output from its blocks and the scale.

    Returns:
        The composed claim. It names no layer (``layers`` empty): it is about T at
        n = d = N only, not about every T a U_N runs.
    """
    mutants = {f"stage{k}:{name}": (k - 1, name) for k, part in enumerate(parts, start=1) for name in part.mutants}
    return ComposedClaim(bounded, tuple(parts), chain=lambda: full_size_composition(family, parts, formula),
                         program=lambda: family.symbolic().program, mutants=mutants)
