"""U's stages composed by an equation: T of U's width and any number of tokens n <= N.

The stages of a :class:`~usim.proofs._stages.UniversalFamily` (U's whole
workspaces, not zero-padded) are each stated over (N, *extra) and the header's
sizes the stage reads (the head count H of U over stacked heads; n for its
softmax stage). They compose to a theorem about T = ``spec_of(n, N, *extra)``
(d = N where no stage has d as a dimension): the claim's sizes are N, the extra sizes and
the header sizes read by any stage as a dimension of its own (a size set to N,
``at_bound``, is not one), each header size <= N, and

* each stage's statement (:func:`~usim.proofs._stages.stage_claims`): for every
  content W of its workspace, stage_k(set(W)) = target_k(W), where set(W) is W
  with the header's sizes the stage reads set to its sizes, target_k gives each
  new block its step's masked meaning there and carries every other block
  unchanged (the header with those sizes set); a stage stated over fewer sizes
  holds, in particular, at every value of the others;
* the header is carried from U's input to every stage that sets one of its
  sizes, so on U's input, whose header is [n, d, c], every setting is the
  identity: U = stage_m o ... o stage_1 maps the input to target_m(...
  target_1(input)), whose block T's result is U's output;
* **the equation**: that composition of targets equals the claim's formula on
  T's blocks (read in the top-left corners of U's input blocks, T's X its
  first n rows), zero-padded to U's output, entry by entry for every size. It
  is not a matter of terms (the per-head route's Level 2,
  :func:`~usim.proofs._universal.check_route`): over stacked heads it is
  diagonal(stacked_softmax(stack(X A) X^T) (X V)) W_O = [softmax(c X A_h X^T)
  X V_h]_h W_O on the first n rows and 0 below, for every H, a sum over a head
  index with a symbolic count; the parametric engine proves it
  (:func:`~usim.engine.parametric.prove.prove_equation`, the output's rows split
  at n so that the masks' cases inside the products are decided by the facts).

The content of U's input outside T's corners is any: the equation holds for
every input, so U's output does not depend on it (zero padding is one case).
:func:`equation_composition` checks all of that as a
:class:`~usim.engine.parametric.composed.Chain` (the equation among its checks,
proved again by whoever reads the record); :func:`equation_claim` makes the
composed claim.

A family with ``placed`` sizes (T's width d, read by no stage) ranges over them
too: the equation's inputs are then T's blocks, and its left side runs the
stages' targets on them placed into U's input as ``usim simulate`` places them
(:func:`~usim.constructions.universal.embed.placed_blocks`: head h's A_h and V_h at
columns h N .., its rows of W_O at rows h N .., 0 elsewhere), so the content of U's
input outside T's is 0, as on every input ``usim simulate`` builds.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import sympy

from usim.constructions.universal import HDR_SCALE, HEADER, LayerSpec, placed_blocks, route_of
from usim.constructions.universal.kinds import SIZE_FIELDS
from usim.encodings.layout import SequenceLayout
from usim.encodings.notation import shape_label
from usim.encodings.sized import SymbolicMatrix, both, matrix_of, when
from usim.engine.claim import Claim, Obligation, Shape, Status
from usim.engine.parametric.composed import Chain, ComposedClaim, implies
from usim.engine.parametric.prove import prove_equation
from usim.engine.parametric.statement import Equation, FamilyClaim, side_conditions
from usim.errors import ShapeError
from usim.proofs._rectangles import same
from usim.proofs._stages import (UniversalFamily, as_layout, layout_problems, precondition_problems, shape_grid,
                                 within_bound)
from usim.proofs._universal import broken_universal, misplaced_block, stage_preconditions, whole_obligation
from usim.rasp.family import dimension
from usim.rasp.fingerprint import fingerprint

LayerFormula = Callable[[LayerSpec, Mapping[str, Any], Any], Any]
"""T's output from its blocks and the scale (:func:`~usim.proofs._universal.attention_formula`)."""

EQUATION_BUDGET = 300.0
"""The parametric engine's seconds for the equation (a second for Theorem 9 over stacked
heads, about half a minute with the encoder's layer norms)."""


def header_dims(family: UniversalFamily) -> tuple[str, ...]:
    """The header's sizes that are a dimension of some stage of ``family``'s U (n before d;
    not those set to N, ``at_bound``): the claim's last dimensions."""
    read = {f for k in range(1, len(family.symbolic().stages) + 1) for f in family.reads(k)}
    return tuple(f for f in SIZE_FIELDS if f in read)


def claim_dims(family: UniversalFamily) -> tuple[str, ...]:
    """The claim's dimensions: N, U's extra sizes, the header's (:func:`header_dims`),
    then T's sizes placed into U's input that no stage reads (``family.placed``)."""
    read = header_dims(family)
    return ("N",) + family.extra + read + tuple(f for f in family.placed if f not in read)


class _ClaimSizes:
    """The claim's sizes (N, *extra, *header sizes) by name, and each stage's and T's from them."""

    def __init__(self, family: UniversalFamily, sizes: tuple[Any, ...]) -> None:
        self.family, self.sizes = family, sizes
        self.named = dict(zip(claim_dims(family), sizes))

    def of_stage(self, k: int) -> tuple[Any, ...]:
        return tuple(self.named[d] for d in self.family.dims(k))

    def small(self) -> LayerSpec:
        """T: the header's sizes no stage has as a dimension are N; a placed size other
        than n and d (T's value width d_v) is ``spec_of``'s keyword of its name."""
        N = self.named["N"]
        more = {f: self.named[f] for f in self.family.placed if f not in ("n", "d")}
        return self.family.spec_of(self.named.get("n", N), self.named.get("d", N),
                                   *(self.named[e] for e in self.family.extra), **more)

    def big(self) -> LayerSpec:
        return self.family.built_for(self.sizes).spec


def composed_targets(family: UniversalFamily, *sizes: Any) -> Callable[[Mapping[str, Any]], dict]:
    """target_m o ... o target_1 at the claim's ``sizes``: U's input blocks -> the last stage's blocks.

    Args:
        family: U's family.
        *sizes: (N, *extra, *header sizes), symbolic or integers.

    Returns:
        Input matrices (by block name) -> the last stage's output blocks, each
        stage's target, at its own sizes, given the previous one's output.
    """
    at = _ClaimSizes(family, sizes)
    u = family.built_for(sizes)

    def composed(m: Mapping[str, Any]) -> dict:
        env = dict(m)
        for stage in u.stages:
            env = dict(family.target(stage.index, *at.of_stage(stage.index))(env))
        return env
    return composed


def wiring_equation(family: UniversalFamily, formula: LayerFormula) -> Equation:
    """The stages' targets composed equal ``formula`` on T, zero-padded, for every size.

    Args:
        family: U's family.
        formula: T's output from its blocks and the scale.

    Returns:
        The equation over (N, *extra, *header sizes), each header size <= N: U's
        input blocks in, T's result (U's output block) out, its rows and columns
        split at T's.
    """
    dims = claim_dims(family)

    def result(*sizes: Any) -> tuple[str, Any, Any]:
        shape = family.built_for(sizes).output_layout.blocks[0].shape
        return route_of(_ClaimSizes(family, sizes).small()).result, shape.rows, shape.cols

    def inputs(*sizes: Any) -> list[tuple[str, tuple[Any, Any]]]:
        if family.placed:  # T's blocks, placed into U's by the left side
            return [(HEADER, (1, 3)), *_ClaimSizes(family, sizes).small().parameter_shapes()]
        return [(b.name, (b.shape.rows, b.shape.cols)) for b in family.built_for(sizes).input_layout.blocks]

    def outputs(*sizes: Any) -> list[tuple[str, tuple[Any, Any]]]:
        name, rows, cols = result(*sizes)
        return [(name, (rows, cols))]

    def left(*sizes: Any) -> Callable[[Mapping[str, Any]], dict]:
        name = result(*sizes)[0]
        composed = composed_targets(family, *sizes)
        if family.placed:
            at = _ClaimSizes(family, sizes)
            return lambda m: {name: composed({HEADER: m[HEADER], **placed_blocks(at.big(), at.small(), m)})[name]}
        return lambda m: {name: composed(m)[name]}

    def right(*sizes: Any) -> Callable[[Mapping[str, Any]], dict]:
        name, rows, cols = result(*sizes)
        small = _ClaimSizes(family, sizes).small()

        def padded(m: Mapping[str, Any]) -> dict:
            t = formula(small, m, m[HEADER][0, HDR_SCALE])
            return {name: matrix_of(rows, cols, lambda i, j: when(both(i < t.rows, j < t.cols),
                                                                    lambda: t[i, j], lambda: 0))}
        return padded

    def splits(*sizes: Any) -> Callable[[Any, Any], list]:  # T's rows and columns, and the padding's
        small = _ClaimSizes(family, sizes).small()
        return lambda a, b: [a < small.n, b < small.d_out]

    return Equation(f"{family.label}'s stages composed = T's formula, zero-padded", dims, inputs, outputs, left,
                    right, side_condition=lambda N, *rest: within_bound(N, rest[len(family.extra):]),
                    splits=splits, preconditions=stage_preconditions(family.symbolic().input_layout),
                    left_defined=True)  # the stages' meanings: each stage's proof checks its divisions


PLACEMENT_SAMPLES = ((3, 2, 2, 2, 1, 2), (2, 3, 1, 2, 2, 1))
"""Sizes (N, then U's extra sizes and T's, in the claim's order, each cut to the claim's
number of sizes) where the placement the equation reads T through is compared with
``usim simulate``'s."""


def placement_problems(family: UniversalFamily) -> list[str]:
    """Where :func:`placed_blocks` (the placement written for every size, read by the
    equation's left side) differs from ``embed_arrays`` (what ``usim simulate`` runs U
    on, read from the routing table of ``embed_pieces``), at :data:`PLACEMENT_SAMPLES`
    on integer inputs: the tie that makes the claim about the program people run.

    Args:
        family: U's family, with ``placed`` sizes.

    Returns:
        One problem per block that differs, naming the sizes.
    """
    import numpy as np

    from usim.constructions.universal import embed_arrays

    dims = claim_dims(family)
    problems = []
    for sample in PLACEMENT_SAMPLES:
        sizes = sample[:len(dims)]
        at = _ClaimSizes(family, sizes)
        u, small = family.built_for(sizes), at.small()
        rng = np.random.default_rng(sum(sizes))
        arrays = {name: rng.integers(-5, 6, size=shape).astype(float) for name, shape in small.parameter_shapes()}
        sequence = embed_arrays(u, small, arrays, scale=0.5)
        placed = placed_blocks(u.spec, small, {k: sympy.Matrix(v) for k, v in arrays.items()})
        for name, matrix in placed.items():
            if np.array(matrix, dtype=float).tolist() != u.input_layout.decode_numeric(sequence, name)[0].tolist():
                problems.append(f"at {shape_label(sizes)} T's {name} is placed where usim simulate does not place it")
    return problems


def equation_composition(family: UniversalFamily, parts: list[FamilyClaim], formula: LayerFormula,
                         equation: Equation | None = None) -> Chain:
    """Why the stages compose to ``formula`` on T (the module docstring), each
    reason checked at symbolic sizes.

    Args:
        family: U's family (not zero-padded).
        parts: its stages' statements for every size, in order.
        formula: T's output from its blocks and the scale.
        equation: the composed claim's equation (:func:`wiring_equation`; made here if None).

    Returns:
        The checks made and every problem found.
    """
    checks, problems = [], []
    dims = claim_dims(family)
    sizes = tuple(dimension(d) for d in dims)
    at = _ClaimSizes(family, sizes)
    u = family.built_for(sizes)
    m = len(u.stages)
    checks.append(f"the {m} parts are stages 1 to {m} of {family.label}'s family, in order: each one's program, "
                  "layouts and target the stage's at its symbolic sizes, each header size it reads <= N; each "
                  "part's preconditions (a layer norm's eps > 0) read only blocks of U's input that every stage "
                  "before it carries unchanged, and are the equation's")
    if len(parts) != m:
        problems.append(f"{len(parts)} parts for {m} stages")
    for k, part in enumerate(parts[:m], start=1):
        mine = at.of_stage(k)
        if part.dims != family.dims(k):
            problems.append(f"part {k} ({part.id}) is stated over {part.dims}, not {family.dims(k)}")
            continue
        if fingerprint(part.family()) != fingerprint(family.program(k, *mine)):
            problems.append(f"part {k} ({part.id}) is not stage {k} of the family")
        if layout_problems(f"part {k}'s input", as_layout(part.inputs(*mine)), as_layout(family.inputs(k, *mine))) \
                or layout_problems(f"part {k}'s output", as_layout(part.outputs(*mine)),
                                   as_layout(family.outputs(k, *mine))):
            problems.append(f"part {k} ({part.id}) is not stated on stage {k}'s workspaces")
        if part.target_at(*mine) is not family.target(k, *mine):
            problems.append(f"part {k} ({part.id}) does not state stage {k}'s meanings")
        wanted = [within_bound(sizes[0], mine[1 + len(family.extra):])] if family.reads(k) else []
        if [str(c) for c in part.conditions()] != [str(c) for c in wanted]:
            problems.append(f"part {k} ({part.id}) is stated under {part.describe_conditions()}")
        problems += precondition_problems(u, k, part)
    checks.append("U's input layout is stage 1's, and each stage's output layout is the next stage's input "
                  "(names, offsets, shapes and length the same polynomials)")
    problems += layout_problems("U's input and stage 1's", u.input_layout, u.stages[0].input)
    for k in range(1, m):
        problems += layout_problems(f"stage {k}'s output and stage {k + 1}'s input",
                                    u.stages[k - 1].output, u.stages[k].input)
    small, big = at.small(), at.big()
    theirs, ours = small.parameter_shapes(), big.parameter_shapes()
    problems += layout_problems("U's input blocks and U's parameters",
                                SequenceLayout.of(*((b.name, b.shape) for b in u.input_layout.blocks)),
                                SequenceLayout.of((HEADER, (1, 3)), *ours))
    if [name for name, _ in theirs] != [name for name, _ in ours]:
        problems.append(f"T's blocks {[name for name, _ in theirs]} are not U's {[name for name, _ in ours]}")
    if family.placed:
        checks.append("the equation's left side runs U's stages on T's blocks placed into U's input as usim simulate "
                      "places them (placed_blocks: each of U's parameter blocks at its shape, 0 outside T's), the "
                      "header as given")
        blocks = placed_blocks(big, small, {name: SymbolicMatrix(*shape, lambda i, j: 0) for name, shape in theirs})
        problems += layout_problems("U's parameters and T's placed", SequenceLayout.of(*ours),
                                    SequenceLayout.of(*((name, blocks[name].shape) for name, _ in ours)))
        checks.append("that placement is usim simulate's (embed_arrays, read from the routing table) at sizes "
                      + " and ".join(shape_label(p[:len(dims)]) for p in PLACEMENT_SAMPLES))
        problems += placement_problems(family)
    else:
        checks.append("U's input is the header and T's blocks, in T's order, each T's block in the top-left corner "
                      "of U's of the same name (a size of T that is not U's is a header size, <= N)")
        header_sizes = [at.named[f] for f in header_dims(family)]
        for (name, t), (_, o) in zip(theirs, ours):
            for a, b in zip(t, o):
                if not same(a, b) and not (any(same(a, s) for s in header_sizes) and same(b, sizes[0])):
                    problems.append(f"T's {name} ({t}) does not sit in the corner of U's ({o})")
    checks.append("the header is carried unchanged from U's input to every stage that sets one of its sizes (in "
                  "each earlier stage's output, made by none of its steps): on U's input, whose header holds the "
                  "claim's sizes, each setting is the identity")
    for stage in u.stages:
        fixed = family.fixed(stage.index, at.of_stage(stage.index))
        earlier = u.stages[:stage.index - 1]
        if fixed and (any(HEADER not in {b.name for b in layout.blocks}
                          for layout in [u.input_layout] + [s.output for s in earlier])
                      or any(st.out == HEADER for s in earlier for st in s.steps)):
            problems.append(f"stage {stage.index} sets the header's {', '.join(fixed)}, and the header is not "
                            "carried to it unchanged from U's input")
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
    equation = equation if equation is not None else wiring_equation(family, formula)
    widest = max(parts, key=lambda p: len(p.dims)) if parts else None
    if family.placed:
        checks.append(f"the equation is stated over the claim's sizes and conditions: its widest part's, and "
                      f"{', '.join(family.placed)} <= N")
        more = tuple(f for f in family.placed if widest is None or f not in widest.dims)
        bounds = side_conditions(lambda *s: within_bound(s[0], s[len(s) - len(more):]), equation.dims) if more else []
        if widest is None or equation.dims != widest.dims + more \
                or not implies(equation.dims, equation.conditions(), widest.conditions() + bounds) \
                or not implies(equation.dims, widest.conditions() + bounds, equation.conditions()):
            problems.append(f"the equation is stated for every {equation.describe_conditions()}, its widest part "
                            f"for every {widest.describe_conditions() if widest else '(no part)'}")
    else:
        checks.append("the equation is stated over the claim's sizes and conditions (its widest part's)")
        if widest is None or equation.dims != widest.dims \
                or equation.describe_conditions() != widest.describe_conditions():
            problems.append(f"the equation is stated for every {equation.describe_conditions()}, the claim for "
                            f"every {widest.describe_conditions() if widest else '(no part)'}")
    checks.append(f"the equation {equation.name}, entry by entry for every {equation.describe_conditions()}: "
                  "proved by the parametric engine (a product's term on its left side is 0 where its right factor "
                  "is: the stages' meanings give real numbers, each part's proof checking its divisions)")
    undecided: list[str] = []
    if problems:  # the claim is an ERROR whatever the equation says: not proved, to save its time
        return Chain(tuple(checks), tuple(problems + ["the equation is not tried: the chain has problems"]))
    verdict = prove_equation(equation, EQUATION_BUDGET)
    if verdict.status is Status.UNKNOWN and not verdict.hints:  # a timeout, or outside the fragment
        undecided.append(f"the equation {equation.name} is not decided: {verdict.reason}")
    elif verdict.status is not Status.PROVED:
        problems.append(f"the equation {equation.name} is not proved: {verdict.status.value} ({verdict.reason})")
    return Chain(tuple(checks), tuple(problems), tuple(undecided))


def whole_claim(claim_id: str, family: UniversalFamily, formula: LayerFormula, **settings: Any) -> Claim:
    """The bounded claim of a theorem composed by an equation: U as one program on T
    (its compact input placed into U's, T's X zero-padded) against ``formula``,
    zero-padded to U's output, at every shape up to the bound.

    Args:
        claim_id: the claim's id.
        family: U's family.
        formula: T's output from its blocks and the scale.
        **settings: the Claim's own fields (paper, title, statement, engines, bounds, ...).

    Returns:
        The claim: shapes (N, *extra, *header sizes), each extra size <= the bound and
        each header size <= N; its broken variant ``misplaced-result`` is U with its
        last stage writing its result one position too far (wrong at every shape, so
        refuted at the smallest: a broken route inside U is its stages' to refute).
    """
    dims = claim_dims(family)

    def obligation(shape: Shape, mutant: str | None = None) -> Obligation:
        if len(shape) != len(dims) or not all(1 <= s for s in shape) or \
                not all(s <= shape[0] for s in shape[1 + len(family.extra):]):
            raise ShapeError(f"{claim_id}: a shape is {' x '.join(dims)}, each header size <= N, got "
                             f"{shape_label(shape)}")
        at = _ClaimSizes(family, tuple(shape))
        u, small = family.built_for(tuple(shape)), at.small()
        out = u.output_layout.blocks[0]

        def target(m: Mapping[str, Any]) -> dict:
            padded = sympy.zeros(out.shape.rows, out.shape.cols)
            t = formula(small, m, m["scale"][0, 0])
            padded[:t.rows, :t.cols] = t
            return {out.name: padded}
        last = len(u.stages)
        broken = broken_universal(u, last, misplaced_block(u, last)) if mutant else None
        return whole_obligation(claim_id, shape, u, target, small=small, broken=broken, mutant=mutant)

    def shapes(bound: int) -> list[Shape]:
        return shape_grid(bound, len(dims) - 1 - len(family.extra), len(family.extra))

    return Claim(id=claim_id, shapes=shapes, obligation=obligation,
                 mutants={"misplaced-result": lambda shape: obligation(shape, "misplaced-result")}, **settings)


def equation_claim(bounded: Claim, family: UniversalFamily, parts: list[FamilyClaim],
                   formula: LayerFormula) -> ComposedClaim:
    """The theorem for every size: ``bounded`` (its bounded proof the cross-check)
    proved as ``family``'s stages ``parts`` and their :func:`equation_composition`;
    its broken variants are the parts', named ``stage{k}:{name}``.

    Args:
        bounded: the bounded claim (whole U against the formula).
        family: U's family.
        parts: its stages' statements for every size, in order.
        formula: T's output from its blocks and the scale.

    Returns:
        The composed claim. With ``placed`` sizes (T of every width d <= N, placed as
        ``usim simulate`` places it) it names its layer, ``family.spec_of``: the
        program ``usim simulate --bound N`` runs for a layer of that form is U_N,
        which it proves; without, it names none (``layers`` empty): it is about T at
        U's width only, not about every T a U_N runs.
    """
    mutants = {f"stage{k}:{name}": (k - 1, name) for k, part in enumerate(parts, start=1) for name in part.mutants}
    equation = wiring_equation(family, formula)  # the one the chain proves and, with placed sizes, the claim's sizes
    return ComposedClaim(bounded, tuple(parts), chain=lambda: equation_composition(family, parts, formula, equation),
                         program=lambda: family.symbolic().program, mutants=mutants,
                         over=equation if family.placed else None,
                         layers=(family.spec_of,) if family.placed else ())
