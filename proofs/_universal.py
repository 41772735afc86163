"""What the proofs of U share: targets, the two levels of the proof, mutants.

A claim about U (Theorem 6, Corollary 6.1, Theorem 9, Corollary 9.1) is proved
for each size in two levels, plus a direct check where it is affordable.

Level 1, per stage (the obligations ``n x d [x H] x k``, k = 1..m): U is
literally the composition stage_m o ... o stage_1 (``Universal.apply``), each
stage a function of ONE sequence, the workspace W_k. The obligation of stage k
runs that stage's program (the same builder, on ``tokens``) on fresh symbols
for every block of W_k (zeros elsewhere; the header's n and d set to the
bounds), and compares the whole output sequence with W_{k+1}: every block
produced by the stage equals the *meaning* of its step (its kind's meaning in
sympy from the formulas: a product is A*B, softmax is exp(c s_ij) / sum_l
exp(c s_il), layer norm is (z - mu) / sqrt(var + eps) * g + b, ...), every
block carried along is unchanged, every other position is 0. This proves the
blocks (transpose, product, softmax, element-wise) *and* the routing heads of
the stage together: a misplaced block or a swapped operand makes some position
of W_{k+1} differ.

Level 2, the wiring (checked when a claim's obligations are built): composing
the steps of U as terms (product chains flattened, i.e. associativity, and
(M^T)^T = M the only rewriting) gives exactly the claim's formula written by
hand as a term over the same vocabulary (softmax, layernorm, ...). A wrong step
list (Y2 = XT Y1) fails here with an error; it never yields PROVED.

Why the composition is then proved: the value of an expression graph depends
only on the values of its children (one evaluator defines every node), so if
stage k maps every sequence of layout W_k (padding 0) to the sequence of layout
W_{k+1} holding the step meanings (padding 0), then, by induction over k, U
maps its input W_1 to the sequence holding the composition of all step
meanings, which Level 2 identifies with the formula. The header: the stage
obligations fix n = N and d = D (U for exactly these sizes); smaller sizes in
the same U are the hierarchy (:mod:`usim.proofs.hierarchy`).

Part 0 (``n x d x 0``, Theorem 6 only, where affordable): the whole program U,
on the compact layout <scale, X, A, V> with the header filled in, against the
formula directly; no composition argument at all.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any, Callable, Mapping, Sequence

import sympy

from usim.constructions.base import Construction
from usim.constructions.routing import fix
from usim.constructions.universal import (
    HDR_D,
    HDR_N,
    HDR_SCALE,
    HEADER,
    Spec,
    Stage,
    Step,
    Universal,
    build,
    compact_layout,
    simulation_program,
)
from usim.constructions.universal.kinds import add_row, softmax_rows
from usim.encodings.layout import Block, SequenceLayout
from usim.engine.choice import STAGE, WHOLE_PROGRAM
from usim.engine.claim import Claim, Obligation, Shape
from usim.errors import UsimError
from usim.rasp.expr import tokens
from usim.rasp.program import Program

# ----------------------------------------------------------------------------
# Level 2: the wiring, as terms.

Term = tuple


def leaf(name: str) -> Term:
    return ("leaf", name)


def mm(*factors: Term) -> Term:
    """A product chain, flattened (associativity)."""
    flat: list[Term] = []
    for f in factors:
        flat.extend(f[1:] if f[0] == "mm" else (f,))
    return ("mm", *flat)


def tr(m: Term) -> Term:
    return m[1] if m[0] == "T" else ("T", m)


def op(kind: str, *args: Term) -> Term:
    return (kind, *args)


def compose(steps: Sequence[Step], params: Sequence[str]) -> dict[str, Term]:
    """Every step's result as a term over the parameters."""
    env: dict[str, Term] = {p: leaf(p) for p in params}
    for st in steps:
        a = [env[x] for x in st.args]
        if st.kind == "matmul":
            env[st.out] = mm(*a)
        elif st.kind == "transpose":
            env[st.out] = tr(a[0])
        else:
            env[st.out] = op(st.kind, *a)
    return env


def check_wiring(u: Universal, formula: Term) -> None:
    """Raise unless U's steps compose to ``formula`` (Level 2)."""
    params = [HEADER] + [name for name, _ in u.spec.parameter_shapes()]
    env = compose(u.steps, params)
    result = u.stages[-1].output.blocks[0].name
    if env[result] != formula:
        raise UsimError(f"U's steps do not compose to the formula: they give {env[result]}, "
                        f"the claim states {formula}")


# ----------------------------------------------------------------------------
# Level 1: one stage as an obligation.

def _header_positions(layout: SequenceLayout) -> dict[int, int] | None:
    for b in layout.blocks:
        if b.name == HEADER:
            return {b.offset + HDR_N: 0, b.offset + HDR_D: 0}
    return None


def stage_program(u: Universal, stage: Stage) -> Program:
    """Stage k on ``tokens``, the header's n and d set to U's bounds."""
    hdr = _header_positions(stage.input)
    values = tokens
    if hdr is not None:
        n_pos, d_pos = sorted(hdr)
        values = fix(tokens, {n_pos: u.spec.n, d_pos: u.spec.d})
    return Program.of(f"{u.program.name}.stage{stage.index}", {"W": stage.apply(values)},
                      f"stage {stage.index} of U for {u.spec}")


def stage_target(u: Universal, stage: Stage) -> Callable[[Mapping[str, sympy.Matrix]], dict]:
    def target(m: Mapping[str, sympy.Matrix]) -> dict:
        env = dict(m)
        if HEADER in env:
            env[HEADER] = sympy.Matrix([[u.spec.n, u.spec.d, m[HEADER][0, HDR_SCALE]]])
        scale = env[HEADER][0, HDR_SCALE] if HEADER in env else 1

        def meaning(st: Step) -> sympy.Matrix:  # from the formula, in the one table of kinds
            return u.kinds[st.kind].meaning([env[a] for a in st.args], scale)

        for st in stage.steps:
            env[st.out] = meaning(st)
        made_here = {b.name for b in stage.output.blocks}
        for st in u.steps:  # results assembled by this stage's routing (a concatenation)
            if u.kinds[st.kind].routed and st.out in made_here and st.out not in env:
                env[st.out] = meaning(st)
        return {b.name: env[b.name] for b in stage.output.blocks}
    return target


def _preconditions(layout: SequenceLayout):
    eps = [b.name for b in layout.blocks if b.name.startswith("eps")]
    if not eps:
        return None
    return lambda m: [m[name][0, 0] > 0 for name in eps]


def _stage_kind(stage: Stage) -> str | None:
    """cvc5 answers a stage unless it takes a square root (layer norm), which
    it cannot state; then the claim's engines (sympy and z3)."""
    return None if any(st.kind == "layernorm" for st in stage.steps) else STAGE


def stage_obligation(claim_id: str, shape: Shape, u: Universal, k: int,
                     broken: Stage | None = None, mutant: str | None = None) -> Obligation:
    stage = u.stages[k - 1]
    right = Construction(f"U stage {k}", stage_program(u, stage), stage.input, stage.output)
    construction = right
    if broken is not None:
        construction = Construction(f"U stage {k} [{mutant}]", stage_program(u, broken),
                                    stage.input, stage.output)
    return Obligation(claim_id, shape, construction, stage_target(u, stage),
                      preconditions=_preconditions(stage.input), reference=right, mutant=mutant,
                      cost_of=u.program, kind=_stage_kind(stage))


# ----------------------------------------------------------------------------
# Part 0: the whole program against the formula.

def whole_obligation(claim_id: str, shape: Shape, u: Universal, formula_target,
                     small: Spec | None = None, broken: Universal | None = None,
                     mutant: str | None = None) -> Obligation:
    small = small or u.spec
    layout = compact_layout(small, u.length)
    right = Construction(f"U {u.spec.n}x{u.spec.d}", simulation_program(u, small), layout, u.output_layout)
    construction = right
    if broken is not None:
        construction = Construction(f"U [{mutant}]", simulation_program(broken, small), layout,
                                    u.output_layout)
    return Obligation(claim_id, shape, construction, formula_target,
                      preconditions=_preconditions(layout), reference=right, mutant=mutant,
                      cost_of=u.program, kind=WHOLE_PROGRAM)


# ----------------------------------------------------------------------------
# Deliberately broken routings.

# A broken stage is built, not hooked into the right one: its program is made
# from the broken stage, while the obligation keeps the right stage's layouts
# and target (stage_obligation, whole_obligation).

def swapped_operand(u: Universal) -> tuple[int, Stage] | None:
    """The first product whose two operands have the same shape, computed as B A."""
    for stage in u.stages:
        for i, st in enumerate(stage.steps):
            if st.kind == "matmul" and u.shapes[st.args[0]] == u.shapes[st.args[1]]:
                steps = list(stage.steps)
                steps[i] = Step(st.out, st.kind, (st.args[1], st.args[0]))
                return stage.index, replace(stage, steps=tuple(steps))
    return None


def misplaced_block(u: Universal, k: int = 1) -> Stage:
    """Stage k routes its first block one position too far (the last entry falls
    onto the next block's first)."""
    stage = u.stages[k - 1]
    blocks = list(stage.output.blocks)
    first = blocks[0]
    blocks[0] = Block(first.name, first.shape, first.offset + 1)
    return replace(stage, output=SequenceLayout(tuple(blocks), stage.output.length))


def with_kind(u: Universal, k: int, kind: Any) -> Stage:
    """Stage k with one entry of its table of step kinds replaced (a broken block)."""
    stage = u.stages[k - 1]
    return replace(stage, kinds={**stage.kinds, kind.name: kind})


def broken_universal(u: Universal, k: int, stage: Stage) -> Universal:
    stages = list(u.stages)
    stages[k - 1] = stage
    return replace(u, stages=tuple(stages))


@lru_cache(maxsize=64)
def universal(spec: Spec) -> Universal:
    return build(spec)


# ----------------------------------------------------------------------------
# Claims about U, built the same way.

def universal_claim(claim_id: str, *, spec_of: Callable[[Shape], Spec], sizes: Callable[[int], Sequence[Shape]],
                    formula: Callable[[Spec], Term], whole_target: Callable[[Spec], Callable] | None = None,
                    **settings: Any) -> Claim:
    """A claim about U: for every size, U built by ``spec_of(size)`` computes
    ``formula`` (its wiring, Level 2), stage by stage (Level 1).

    A shape is a size and a part: 0 the whole program (only when
    ``whole_target`` is given), k >= 1 stage k. The broken variants are the
    same for every claim about U: a swapped operand, a misplaced block.
    ``settings`` are the Claim's own fields (paper, title, statement, ...).
    """

    def parts(size: Shape) -> list[int]:
        u = universal(spec_of(size))
        first = 0 if whole_target is not None else 1
        return list(range(first, len(u.stages) + 1))

    def shapes_for(sizes: Sequence[Shape]) -> list[Shape]:
        return [tuple(size) + (k,) for size in sizes for k in parts(size)]

    def obligation(shape: Shape) -> Obligation:
        spec = spec_of(shape[:-1])
        u = universal(spec)
        check_wiring(u, formula(spec))
        k = shape[-1]
        if k == 0:
            return whole_obligation(claim_id, shape, u, whole_target(spec))
        return stage_obligation(claim_id, shape, u, k)

    def swapped(shape: Shape) -> Obligation:
        spec = spec_of(shape[:-1])
        u = universal(spec)
        k = shape[-1]
        found = swapped_operand(u)
        if found is None or k not in (0, found[0]):
            return replace(obligation(shape), mutant="swapped-operand")
        index, stage = found
        if k == 0:
            return whole_obligation(claim_id, shape, u, whole_target(spec),
                                    broken=broken_universal(u, index, stage), mutant="swapped-operand")
        return stage_obligation(claim_id, shape, u, k, broken=stage, mutant="swapped-operand")

    def misplaced(shape: Shape) -> Obligation:
        spec = spec_of(shape[:-1])
        u = universal(spec)
        k = shape[-1]
        if k not in (0, 1):
            return replace(obligation(shape), mutant="misplaced-block")
        stage = misplaced_block(u, 1)
        if k == 0:
            return whole_obligation(claim_id, shape, u, whole_target(spec),
                                    broken=broken_universal(u, 1, stage), mutant="misplaced-block")
        return stage_obligation(claim_id, shape, u, 1, broken=stage, mutant="misplaced-block")

    return Claim(id=claim_id, shapes=lambda n: shapes_for(sizes(n)), obligation=obligation,
                 mutants={"swapped-operand": swapped, "misplaced-block": misplaced}, **settings)


def attention_head_term(spec: Spec, h: int) -> Term:
    """One head, as the formula writes it."""
    X = leaf("X")
    name = lambda base: leaf(spec.head(base, h))  # noqa: E731
    if spec.form == "merged":
        return mm(op("softmax", mm(X, name("A"), tr(X))), X, name("V"))
    q, k, v = mm(X, name("WQ")), mm(X, name("WK")), mm(X, name("WV"))
    if spec.bias:
        q, k, v = op("bias", q, name("bQ")), op("bias", k, name("bK")), op("bias", v, name("bV"))
    return mm(op("softmax", mm(q, tr(k))), v)


def attention_term(spec: Spec) -> Term:
    heads = [attention_head_term(spec, h) for h in range(spec.heads)]
    att = heads[0] if spec.heads == 1 else op("concat", *heads)
    if spec.out_proj:
        att = mm(att, leaf("WO"))
        if spec.bias:
            att = op("bias", att, leaf("bO"))
    return att


def encoder_term(spec: Spec) -> Term:
    """LN2(Z + FFN(Z)), Z = LN1(X + Att(X)), FFN(Z) = ReLU(Z W1 + b1) W2 + b2 (all parts on)."""
    z = op("layernorm", op("add", leaf("X"), attention_term(spec)), leaf("g1"), leaf("be1"), leaf("eps1"))
    f = op("bias", mm(op("bias_relu", mm(z, leaf("W1")), leaf("b1")), leaf("W2")), leaf("b2"))
    return op("layernorm", op("add", z, f), leaf("g2"), leaf("be2"), leaf("eps2"))


def attention_formula(spec: Spec, m: Mapping[str, sympy.Matrix], c: sympy.Expr) -> sympy.Matrix:
    """Att(X) entry by entry, from the formula (for part-0 and hierarchy targets)."""
    X = m["X"]
    heads = []
    for h in range(spec.heads):
        g = lambda base: m[spec.head(base, h)]  # noqa: E731
        if spec.form == "merged":
            heads.append(softmax_rows(X * g("A") * X.T, c) * X * g("V"))
        else:
            q, k, v = X * g("WQ"), X * g("WK"), X * g("WV")
            if spec.bias:
                q, k, v = add_row(q, g("bQ")), add_row(k, g("bK")), add_row(v, g("bV"))
            heads.append(softmax_rows(q * k.T, c) * v)
    att = sympy.Matrix.hstack(*heads)
    if spec.out_proj:
        att = att * m["WO"]
        if spec.bias:
            att = add_row(att, m["bO"])
    return att
