"""What the proofs of U share: the stages of U_N, the wiring, the hierarchy, mutants.

A claim about U (Theorem 6, Corollary 6.1, Theorem 9, Corollary 9.1) is proved
for a bound N about ONE program: U_N, built for N x N (and H heads), serves
every size n, d <= N, given a smaller T zero-padded with the header
[n, d, c] (the paper's hierarchy; :mod:`usim.proofs._padding`). Nothing is
proved size by size that does not depend on the size.

Level 1, per stage (shapes ``N x n x d x k``, k = 1..m; ``N x H x n x d x k``
with heads): U_N is literally the composition stage_m o ... o stage_1
(``Universal.apply``), each stage a function of ONE sequence, the workspace
W_k. The obligation of stage k runs that stage's program (the same builder,
on ``tokens``) on fresh symbols for every block of W_k (zeros elsewhere) and
compares the whole output sequence with W_{k+1}: every block produced by the
stage equals the *masked meaning* of its step (its kind's meaning given the
header's n and d, in the one table of kinds: a product is A*B, the masked
softmax at n is exp(c s_ij) / sum_{l<n} exp(c s_il) on rows and keys below n
and 0 elsewhere, ...), every block carried along is unchanged (the header
too), every other position is 0. This proves the blocks (transpose, product,
softmax, element-wise) *and* the routing heads of the stage together: a
misplaced block or a swapped operand makes some position of W_{k+1} differ.

Which header fields an obligation fixes: only those the stage's blocks read
(the table's ``reads``). A stage that reads neither n nor d (products,
transposes, sums) is proved ONCE, with n and d fresh symbols like every other
input (shape ``N x 0 x 0 x k``: 0 = every value): its statement then holds
for every header, so for every smaller size. A stage that reads n (softmax:
key and row masks; bias: row mask) is proved per value n = 1..N with d free
(``N x n x 0 x k``); one that reads n and d (layer norm) per (n, d). Leaving a
field free is sound whatever the program does with it: the engines prove the
statement for every real value of the symbol, so a block that did use it
(a select or a ``where`` comparing it, arithmetic on it) against a meaning
that does not is refuted (z3 finds a value) or left UNKNOWN (sympy cannot
decide a Piecewise), never PROVED (``tests/soundness/test_header_fields.py``).

Level 2, the wiring (checked when a claim's obligations are built): composing
the steps of U as terms (product chains flattened, i.e. associativity, and
(M^T)^T = M the only rewriting) gives exactly the claim's formula written by
hand as a term over the same vocabulary (softmax, layernorm, ...), for U_N's
sizes and, at each padding obligation, for T's sizes (whose route must be U_N's
step for step). A wrong step list (Y2 = XT Y1) fails here with an error; it
never yields PROVED.

The padding lemma (shapes ``N x n x d x 0``, one per size): per step and size,
the masked meaning on zero-padded arguments is the zero-padded meaning, checked
exactly (:mod:`usim.proofs._padding`).

Why the composition is then proved: the value of an expression graph depends
only on the values of its children (one evaluator defines every node). Take T
of sizes (n, d) <= N, zero-padded into U_N's input W_1, header [n, d, c]. Each
stage k maps every sequence of layout W_k whose header is [n, d, .] (a stage
proved for every header, or the one proved at this n, or at this (n, d)) to
the sequence of layout W_{k+1} holding its steps' masked meanings at (n, d),
the header carried (padding 0). By induction over k, U_N maps W_1 to the
sequence holding the composition of the masked meanings; by the padding lemma
at (n, d), step by step, every block of it is T's block zero-padded; the last
is T's result in the top-left corner, which Level 2 at T's sizes identifies
with the formula. So U_N outputs the formula at (n, d) zero-padded, for every
n, d <= N. At n = d = N nothing is padded: that is U_N on its own sizes.

A direct check without any composition argument, the whole program U_N' on
every zero-padded size for every N' <= N against the padded formula, is the
claim ``hierarchy`` (:mod:`usim.proofs.hierarchy`), affordable at small N.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any, Callable, Mapping, Sequence

import sympy

from usim.constructions.base import Construction
from usim.constructions.routing import fix
from usim.constructions.routing import Part
from usim.constructions.softmax import softmax_block
from usim.constructions.universal import (
    HDR_SCALE,
    HEADER,
    STEP_KINDS,
    LayerSpec,
    Stage,
    Step,
    Universal,
    build,
    compact_layout,
    simulation_program,
)
from usim.constructions.universal.kinds import (SIZE_FIELDS, StepKind, add_row, header, in_place, layer_norm,
                                                relu_of, softmax_rows)
from usim.constructions.universal.route import route_of
from usim.constructions.universal.terms import Term, leaf, mm, op, tr
from usim.encodings.layout import Block, SequenceLayout
from usim.encodings.sized import matrix_like, matrix_of, size_value, total, when
from usim.encodings.notation import shape_label
from usim.engine.choice import STAGE, WHOLE_PROGRAM
from usim.engine.claim import Claim, Obligation, Shape
from usim.errors import ShapeError, UsimError
from usim.proofs._padding import padding_obligation, stage_preconditions
from usim.rasp.expr import tokens
from usim.rasp.program import Program

# ----------------------------------------------------------------------------
# Level 2: the wiring, as terms (usim.constructions.universal.terms), composed by each step kind.


def compose(steps: Sequence[Step], params: Sequence[str],
            kinds: Mapping[str, StepKind] = STEP_KINDS) -> dict[str, Term]:
    """Every step's result as a term over the parameters, as each step's kind composes it.

    Args:
        steps: the route, in order.
        params: the parameters (leaves).
        kinds: the table of step kinds.

    Returns:
        The term of every parameter and every step's result, by name.
    """
    env: dict[str, Term] = {p: leaf(p) for p in params}
    for st in steps:
        env[st.out] = kinds[st.kind].composed([env[x] for x in st.args], st.sizes)
    return env


def check_route(spec: LayerSpec, steps: Sequence[Step], result: str, formula: Term) -> None:
    """Raise unless ``steps`` (over ``spec``'s parameters) compose to ``formula`` (Level 2)."""
    params = [HEADER] + [name for name, _ in spec.parameter_shapes()]
    env = compose(steps, params)
    if env[result] != formula:
        raise UsimError(f"U's steps do not compose to the formula: they give {env[result]}, "
                        f"the claim states {formula}")


def check_wiring(u: Universal, formula: Term) -> None:
    """Raise unless U's steps compose to ``formula`` (Level 2)."""
    check_route(u.spec, u.steps, u.stages[-1].output.blocks[0].name, formula)


# ----------------------------------------------------------------------------
# Level 1: one stage as an obligation.

Sizes = Mapping[str, int]
"""Values of the header's sizes a stage obligation fixes: {"n": 3}, {"n": 3, "d": 2}, {}."""


def stage_sizes(u: Universal, stage: Stage) -> frozenset[str]:
    """The header's sizes (n, d) the stage's blocks read (the table of kinds says)."""
    return frozenset().union(*(u.kinds[st.kind].reads_sizes for st in stage.steps))


def _at(u: Universal, stage: Stage, at: Sizes | None) -> dict[str, int]:
    """``at``, or U's own sizes for every field the stage reads."""
    if at is None:
        return {f: getattr(u.spec, f) for f in sorted(stage_sizes(u, stage))}
    unknown = set(at) - set(SIZE_FIELDS)
    if unknown:
        raise UsimError(f"the header has no size {sorted(unknown)[0]!r}")
    return dict(at)


def stage_program(u: Universal, stage: Stage, at: Sizes | None = None) -> Program:
    """Stage k on ``tokens``, the header's sizes in ``at`` set to their values (the
    others, and the scale, are read from the input like every entry)."""
    at = _at(u, stage, at)
    values = tokens
    hdr = next((b for b in stage.input.blocks if b.name == HEADER), None)
    if hdr is not None and at:
        values = fix(tokens, {hdr.offset + SIZE_FIELDS[f]: v for f, v in at.items()})
    fixed = ", ".join(f"{f} = {v}" for f, v in at.items()) or "every header"
    return Program.of(f"{u.program.name}.stage{stage.index}", {"W": stage.apply(values)},
                      f"stage {stage.index} of U for {u.spec.tag} ({fixed})")


def header_with(h: Any, sizes: Mapping[str, Any]) -> Any:
    """The header ``h`` with the sizes a stage set (``{"n": 3}``, or a symbolic n),
    its other fields as given; written once for every size (a sympy matrix at
    fixed sizes, symbolic where the parametric engine reads it)."""
    def field(i: Any, j: Any) -> Any:
        out: Callable[[], Any] = lambda: h[i, j]  # noqa: E731
        for name, value in sizes.items():
            out = (lambda at, v, rest: lambda: when(j == at, lambda: size_value(v), rest))(
                SIZE_FIELDS[name], value, out)
        return out()
    return matrix_like(h, 1, 3, field)


def stage_target(u: Universal, stage: Stage, at: Sizes | None = None) -> Callable[[Mapping[str, sympy.Matrix]], dict]:
    """What stage k outputs with the header's sizes in ``at`` set (default: U's own
    for the fields it reads): its steps' masked meanings, the carried blocks and
    the header as they are (the sizes set). At fixed or symbolic sizes alike."""
    at = _at(u, stage, at)

    def target(m: Mapping[str, sympy.Matrix]) -> dict:
        env = dict(m)
        if HEADER in env:
            env[HEADER] = header_with(m[HEADER], at)
        scale = env[HEADER][0, HDR_SCALE] if HEADER in env else 1

        def meaning(st: Step) -> sympy.Matrix:  # from the formula, in the one table of kinds
            return u.kinds[st.kind].meaning_at([env[a] for a in st.args], scale, at.get("n"), at.get("d"),
                                              st.sizes)

        for st in stage.steps:
            env[st.out] = meaning(st)
        made_here = {b.name for b in stage.output.blocks}
        for st in u.steps:  # results assembled by this stage's routing (a concatenation)
            if u.kinds[st.kind].routed and st.out in made_here and st.out not in env:
                env[st.out] = meaning(st)
        return {b.name: env[b.name] for b in stage.output.blocks}
    return target


def _stage_kind(stage: Stage) -> str | None:
    """cvc5 answers a stage unless it takes a square root (layer norm), which
    it cannot state; then the claim's own engines."""
    return None if any(st.kind == "layernorm" for st in stage.steps) else STAGE


def stage_obligation(claim_id: str, shape: Shape, u: Universal, k: int, at: Sizes | None = None,
                     broken: Stage | None = None, mutant: str | None = None) -> Obligation:
    """Stage k of U on fresh symbols for its workspace, the header's sizes in ``at``
    fixed (default: U's own, for the fields the stage reads), against the masked
    meanings of its steps."""
    stage = u.stages[k - 1]
    at = _at(u, stage, at)
    right = Construction(f"U stage {k}", stage_program(u, stage, at), stage.input, stage.output)
    construction = right
    if broken is not None:
        construction = Construction(f"U stage {k} [{mutant}]", stage_program(u, broken, at),
                                    stage.input, stage.output)
    return Obligation(claim_id, shape, construction, stage_target(u, stage, at),
                      preconditions=stage_preconditions(stage.input), reference=right, mutant=mutant,
                      cost_of=u.program, kind=_stage_kind(stage))


# ----------------------------------------------------------------------------
# The whole program against the formula (the claim `hierarchy`, a cross-check).

def whole_obligation(claim_id: str, shape: Shape, u: Universal, formula_target,
                     small: LayerSpec | None = None, broken: Universal | None = None,
                     mutant: str | None = None) -> Obligation:
    small = small or u.spec
    layout = compact_layout(small, u.length)
    right = Construction(f"U {u.spec.n}x{u.spec.d}", simulation_program(u, small), layout, u.output_layout)
    construction = right
    if broken is not None:
        construction = Construction(f"U [{mutant}]", simulation_program(broken, small), layout,
                                    u.output_layout)
    return Obligation(claim_id, shape, construction, formula_target,
                      preconditions=stage_preconditions(layout), reference=right, mutant=mutant,
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


def _unmasked_softmax(step, w, lay):
    """Lemma 4 on c * S in place, without the key and row masks."""
    m = lay.block(step.args[0])
    scale = header(w, lay, HDR_SCALE, "scale")
    soft = softmax_block(w * scale, m.shape.rows, m.shape.cols, offset=m.offset, guard=True)
    return Part(soft, in_place(step.out, m, lay.length))


UNMASKED_SOFTMAX = replace(STEP_KINDS["softmax"], block=_unmasked_softmax)
"""The softmax block without the header's masks: padded keys weigh exp(0) = 1 (erratum E10)."""


def softmax_stages(u: Universal) -> list[int]:
    return [s.index for s in u.stages if any(st.kind == "softmax" for st in s.steps)]


def broken_universal(u: Universal, k: int, stage: Stage) -> Universal:
    stages = list(u.stages)
    stages[k - 1] = stage
    return replace(u, stages=tuple(stages))


@lru_cache(maxsize=64)
def universal(spec: LayerSpec) -> Universal:
    return build(spec)


# ----------------------------------------------------------------------------
# Claims about U, built the same way.

Parts = tuple[int, int, int]
"""(n, d, k) of a shape: k >= 1 stage k at header sizes n, d (0: free); k = 0 the padding lemma at n x d."""


def universal_parts(u: Universal) -> list[Parts]:
    """U_N's parts: each stage once, or per value of the sizes it reads; then the
    padding lemma at every size n, d <= N."""
    bound = u.spec.n
    parts: list[Parts] = []
    for stage in u.stages:
        reads = stage_sizes(u, stage)
        ns = range(1, bound + 1) if "n" in reads else (0,)
        ds = range(1, u.spec.d + 1) if "d" in reads else (0,)
        parts += [(n, d, stage.index) for n in ns for d in ds]
    return parts + [(n, d, 0) for n in range(1, bound + 1) for d in range(1, u.spec.d + 1)]


def universal_claim(claim_id: str, *, spec_of: Callable[[int, int, int], LayerSpec],
                    formula: Callable[[LayerSpec], Term], heads: Callable[[int], Sequence[int]] | None = None,
                    **settings: Any) -> Claim:
    """A claim about U: for bound N (and each H of ``heads(N)``), the one program U_N
    built by ``spec_of(N, N, H)`` simulates T = ``spec_of(n, d, H)`` zero-padded, for
    every n, d <= N: its stages (Level 1, each once or per value of the header sizes it
    reads), its wiring at N and at every (n, d) (Level 2), and the padding lemma at
    every (n, d). See the module docstring for why that proves it.

    A shape is ``(N, n, d, k)``, with ``heads`` ``(N, H, n, d, k)``: k >= 1 stage k
    of U_N with the header's n, d fixed to those values (0: left free, the stage reads
    neither); k = 0 the padding lemma at size n x d. The broken variants, the same for
    every claim about U: a swapped operand, a misplaced block, the softmax without its
    key mask (refuted by the softmax stage at every n < N). ``settings`` are the
    Claim's own fields (paper, title, statement, ...).
    """

    def unpack(shape: Shape) -> tuple[int, int, int, int, int]:
        wanted = 4 if heads is None else 5
        if len(shape) != wanted:
            raise ShapeError(f"{claim_id}: a shape has {wanted} numbers "
                             f"({'N x n x d x k' if heads is None else 'N x H x n x d x k'}), got "
                             f"{shape_label(shape)}")
        if heads is None:
            bound, n, d, k = shape
            return bound, 1, n, d, k
        return tuple(shape)  # type: ignore[return-value]

    def pack(bound: int, h: int, n: int, d: int, k: int) -> Shape:
        return (bound, n, d, k) if heads is None else (bound, h, n, d, k)

    def big(shape: Shape) -> tuple[Universal, int, int, int]:
        bound, h, n, d, k = unpack(shape)
        u = universal(spec_of(bound, bound, h))
        if not (0 <= k <= len(u.stages) and 0 <= n <= bound and 0 <= d <= bound):
            raise ShapeError(f"{claim_id}: no shape {shape_label(shape)} (U for {u.spec.tag} "
                             f"has {len(u.stages)} stages)")
        if k >= 1:
            reads = stage_sizes(u, u.stages[k - 1])
            if ("n" in reads) != (n > 0) or ("d" in reads) != (d > 0):
                read = ", ".join(sorted(reads)) or "no size"
                raise ShapeError(f"{claim_id}: no shape {shape_label(shape)}: stage {k} reads {read} "
                                 "from the header (give a value for each size it reads, 0 for the others)")
        elif n < 1 or d < 1:
            raise ShapeError(f"{claim_id}: the padding lemma needs a size n, d >= 1")
        check_wiring(u, formula(u.spec))
        return u, n, d, k

    def sizes(n: int, d: int) -> dict[str, int]:
        return {f: v for f, v in (("n", n), ("d", d)) if v}

    def obligation(shape: Shape) -> Obligation:
        u, n, d, k = big(shape)
        if k == 0:
            small = spec_of(n, d, u.spec.heads)
            check_route(small, route_of(small).steps, route_of(small).result, formula(small))
            return padding_obligation(claim_id, shape, u, small)
        return stage_obligation(claim_id, shape, u, k, sizes(n, d))

    def broken(name: str, stage_of: Callable[[Universal], tuple[int, Stage] | None]):
        def build(shape: Shape) -> Obligation:
            u, n, d, k = big(shape)
            found = stage_of(u) if k >= 1 else None
            if found is None or found[0] != k:  # a part the broken variant leaves as it is
                return replace(obligation(shape), mutant=name)
            return stage_obligation(claim_id, shape, u, k, sizes(n, d), broken=found[1], mutant=name)
        return build

    def no_key_mask(shape: Shape) -> Obligation:
        u, n, d, k = big(shape)
        if k not in softmax_stages(u):
            return replace(obligation(shape), mutant="no-key-mask")
        return stage_obligation(claim_id, shape, u, k, sizes(n, d), broken=with_kind(u, k, UNMASKED_SOFTMAX),
                                mutant="no-key-mask")

    def shapes(bound: int) -> list[Shape]:
        return [pack(bound, h, *part) for h in (heads(bound) if heads else (1,))
                for part in universal_parts(universal(spec_of(bound, bound, h)))]

    mutants = {"swapped-operand": broken("swapped-operand", swapped_operand),
               "misplaced-block": broken("misplaced-block", lambda u: (1, misplaced_block(u, 1))),
               "no-key-mask": no_key_mask}
    return Claim(id=claim_id, shapes=shapes, obligation=obligation, mutants=mutants, **settings)


def attention_head_term(spec: LayerSpec, h: int) -> Term:
    """One head, as the formula writes it."""
    X = leaf("X")
    name = lambda base: leaf(spec.head(base, h))  # noqa: E731
    if spec.form == "merged":
        return mm(op("softmax", mm(X, name("A"), tr(X))), X, name("V"))
    q, k, v = mm(X, name("WQ")), mm(X, name("WK")), mm(X, name("WV"))
    if spec.bias:
        q, k, v = op("bias", q, name("bQ")), op("bias", k, name("bK")), op("bias", v, name("bV"))
    return mm(op("softmax", mm(q, tr(k))), v)


def attention_term(spec: LayerSpec) -> Term:
    heads = [attention_head_term(spec, h) for h in range(spec.heads)]
    att = heads[0] if spec.heads == 1 else op("concat", *heads)
    if spec.out_proj:
        att = mm(att, leaf("WO"))
        if spec.bias:
            att = op("bias", att, leaf("bO"))
    return att


def encoder_term(spec: LayerSpec) -> Term:
    """LN2(Z + FFN(Z)), Z = LN1(X + Att(X)), FFN(Z) = ReLU(Z W1 + b1) W2 + b2 (all parts on)."""
    z = op("layernorm", op("add", leaf("X"), attention_term(spec)), leaf("g1"), leaf("be1"), leaf("eps1"))
    f = op("bias", mm(op("bias_relu", mm(z, leaf("W1")), leaf("b1")), leaf("W2")), leaf("b2"))
    return op("layernorm", op("add", z, f), leaf("g2"), leaf("be2"), leaf("eps2"))


def encoder_formula(spec: LayerSpec, m: Mapping[str, Any], c: Any) -> Any:
    """The post-norm encoder layer, entry by entry, written once for every size:
    LN2(Z + ReLU(Z W1 + 1 b1) W2 + 1 b2), Z = LN1(X + Att(X)) (all parts on; the
    layer norm, ReLU and bias are their step kinds' own meanings).

    Args:
        spec: T, an encoder with its layer norms and the feed-forward's biases.
        m: T's blocks (X n x d, the attention's, W1, b1, W2, b2, g1, be1, eps1, g2,
            be2, eps2), sympy matrices or symbolic ones over symbolic sizes.
        c: the attention's scale.

    Returns:
        The layer's output (n x d).

    Raises:
        UsimError: an encoder without its layer norms, residuals or the feed-forward's biases.
    """
    if not (spec.encoder and spec.norm and spec.ffn_bias and spec.residual):
        raise UsimError(f"the encoder formula is written with every part on, not for {spec.tag}")
    X, att = m["X"], attention_formula(spec, m, c)
    z = layer_norm(matrix_of(spec.n, spec.d, lambda i, j: X[i, j] + att[i, j]), m["g1"], m["be1"], m["eps1"][0, 0])
    f = add_row(relu_of(add_row(z * m["W1"], m["b1"])) * m["W2"], m["b2"])
    return layer_norm(matrix_of(spec.n, spec.d, lambda i, j: z[i, j] + f[i, j]), m["g2"], m["be2"], m["eps2"][0, 0])


def attention_formula(spec: LayerSpec, m: Mapping[str, sympy.Matrix], c: sympy.Expr) -> sympy.Matrix:
    """Att(X) entry by entry, from the formula (for part-0 and hierarchy targets;
    with the heads stacked, :func:`stacked_attention_formula`)."""
    if spec.stacked:
        return stacked_attention_formula(spec, m, c)
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


def stacked_attention_formula(spec: LayerSpec, m: Mapping[str, Any], c: Any) -> Any:
    """[softmax(c X A_0 X^T) X V_0 | ... | softmax(c X A_{H-1} X^T) X V_{H-1}] W_O, entry
    by entry, written once for every size (the head count too may be a symbol); in
    the projected form [softmax(c Q_0 K_0^T) V_0 | ...] W_O (+ 1 b_O).

    Head g's A_g is A's columns g d .. g d + d - 1 (A = [A_0 | ... | A_{H-1}], d x H d)
    and V_g is V's columns g d_v ..; column g d_v + t of the concatenation is head g's
    column t, which W_O's row g d_v + t multiplies:

        Att[i, j] = sum_{g < H} sum_{t < d_v} O_g[i, t] W_O[g d_v + t, j]  (+ b_O[j]),
        O_g[i, t] = sum_{l < n} exp(c s_g(i, l)) / (sum_{q < n} exp(c s_g(i, q))) v_g(l, t),
        merged:     s_g(i, l) = sum_{b < d} (X A_g)[i, b] X[l, b],  v_g(l, t) = (X V_g)[l, t],
        projected:  s_g(i, l) = sum_{u < d_k} Q_g[i, u] K_g[l, u],  v_g(l, t) = V_g[l, t],
                    Q_g[i, u] = (X W_Q)[i, g d_k + u] (+ b_Q[g d_k + u]), K_g, V_g likewise.

    Args:
        spec: T, its heads stacked (W_O; merged or projected, with or without biases).
        m: T's blocks X, A and V (or W_Q, W_K, W_V and the biases) and WO (sympy
            matrices, or symbolic ones over symbolic sizes).
        c: the scale.

    Returns:
        Att (n x d_out): a sympy matrix at fixed sizes, a symbolic one over symbolic sizes.
    """
    X, WO = m["X"], m["WO"]
    n, d, dk, dv = spec.n, spec.d, spec.d_k, spec.d_v

    def product(i: Any, w: Any, col: Any) -> Any:  # (X W)[i, col], with W's bias where the layer has one
        bias = m["b" + w[1]][0, col] if spec.bias and spec.form == "projected" else 0
        return total(d, lambda q: X[i, q] * m[w][q, col]) + bias

    if spec.form == "merged":
        def score(g: Any, i: Any, l: Any) -> Any:
            return total(d, lambda b: product(i, "A", g * d + b) * X[l, b])

        def value(g: Any, l: Any, t: Any) -> Any:
            return product(l, "V", g * dv + t)
    else:
        def score(g: Any, i: Any, l: Any) -> Any:
            return total(dk, lambda u: product(i, "WQ", g * dk + u) * product(l, "WK", g * dk + u))

        def value(g: Any, l: Any, t: Any) -> Any:
            return product(l, "WV", g * dv + t)

    def head(i: Any, g: Any, t: Any) -> Any:
        return total(n, lambda l: sympy.exp(c * score(g, i, l)) / total(n, lambda q: sympy.exp(c * score(g, i, q)))
                     * value(g, l, t))

    def out(i: Any, j: Any) -> Any:
        bias = m["bO"][0, j] if spec.bias else 0
        return total(spec.heads, lambda g: total(dv, lambda t: head(i, g, t) * WO[g * dv + t, j])) + bias

    return matrix_of(n, spec.d_out, out)
