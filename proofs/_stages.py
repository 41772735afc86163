"""U's stages as families: stage k of U_N for every N, against its steps' meanings.

Stated on zero-padded workspaces (:class:`PaddedFamily`), the stages compose
to the theorem for every N and every n, d <= N: :func:`composed_claim`, the
parts and the chain checked by :func:`composition`.

U_N (:func:`usim.constructions.universal.build` for N x N) is
stage_m o ... o stage_1 (:mod:`usim.proofs._universal`). Built with a
*symbolic* N (:func:`usim.rasp.family.dimension`) the same builder gives U's
family: the schedule's offsets and U's length are integer polynomials in N
(the length the largest of the workspaces' and blocks' lengths, chosen by
:func:`usim.rasp.family.largest` only where one is the largest at every N),
the blocks' heads are head sums over symbolic head indices. Stage k of that
family, on ``tokens`` with the header's sizes that the stage reads (the table
of kinds' ``reads``) set to the symbolic n (and d), is one family over
(N, n, d): a claim for every size proved by the parametric engine
(:mod:`usim.engine.parametric`), for every N >= 1 and every 1 <= n, d <= N.

The statement of stage k, for every N (and n, d <= N) and every real content
of its whole workspace W_k (the scratch past the workspace's blocks too,
where the bounded proof of the stage has zeros): every block the stage makes
equals its step's masked meaning (the one table of kinds, written once for
every size with :mod:`usim.encodings.sized`: the masked softmax at n is
exp(c s_ij) / sum_{l<n} exp(c s_il) on rows and keys below n, 0 elsewhere),
every block carried is unchanged (the header with the sizes the stage set),
every other position of W_{k+1} is 0.

One definition: each stage claim's construction is the family's
:class:`~usim.constructions.base.SizedConstruction`, so its program at every
(N, n, d) is the family's instance, and the tie checks it is the stage of U_N
that :func:`~usim.constructions.universal.build` makes with integers, node
for node with names, up to the bound and past it.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Mapping

import sympy

from usim.constructions.base import SizedConstruction, inside
from usim.constructions.routing import fix
from usim.constructions.universal import (
    HEADER,
    LayerSpec,
    Stage,
    Universal,
    build,
    route_of,
    simulation_program,
)
from usim.constructions.universal.kinds import SIZE_FIELDS
from usim.constructions.universal.schedule import shapes_of
from usim.constructions.universal.terms import Term
from usim.encodings.layout import SequenceLayout
from usim.encodings.sized import both
from usim.engine.claim import Claim, Shape
from usim.engine.declare import claim
from usim.engine.parametric.composed import Chain, ComposedClaim
from usim.engine.parametric.statement import FamilyClaim, shape_key
from usim.errors import UsimError
from usim.proofs._padding import embeddings
from usim.proofs._rectangles import Rectangle, inside_rectangle, kept_in, padded, rectangle, same, unpadded
from usim.proofs._universal import (check_route, header_with, stage_preconditions, stage_program, stage_sizes,
                                   stage_target)
from usim.rasp.expr import indices, tokens, where
from usim.rasp.family import Condition, at_least, dimension
from usim.rasp.fingerprint import fingerprint
from usim.rasp.program import Program
from usim.rasp.rewrite import Replacements

Sizes = tuple[Any, ...]
"""(N,) or (N, n) or (N, n, d): U's bound and the header sizes a stage reads."""


class UniversalFamily:
    """U_N for one form of T (``spec_of(n, d)`` gives T; U_N is built for
    ``spec_of(N, N)``, N symbolic or an integer), its stages and their
    statements as functions of (N, n, d).

    ``extra``: sizes of U besides N, each a dimension of every stage (the head
    count ``h`` of a U over stacked heads: ``spec_of(n, d, h)``, U_{N,H} built for
    ``spec_of(N, N, H)``); the stages' sizes are then (N, *extra, n, d).
    ``label``: how the statements name U. ``at_bound``: header sizes that every
    stage reading them sets to N rather than to a dimension of its own (("d",):
    T of U's own width). ``placed``: T's sizes a composition of the stages ranges
    over too, T placed into U's input as ``usim simulate`` places it (("d", "d_v"):
    :func:`~usim.constructions.universal.embed.placed_blocks`)."""

    def __init__(self, spec_of: Callable[..., LayerSpec], extra: tuple[str, ...] = (), label: str = "U_N",
                 at_bound: tuple[str, ...] = (), placed: tuple[str, ...] = ()) -> None:
        self.spec_of, self.extra, self.label = spec_of, extra, label
        self.at_bound, self.placed = at_bound, placed
        self._built: dict[Any, Universal] = {}
        self._targets: dict[tuple, Callable] = {}
        self._embedded: dict[tuple, dict[str, tuple[Rectangle, ...]]] = {}

    def at(self, bound: Any, *extra: Any) -> Universal:
        """U built for ``bound`` x ``bound`` (and the ``extra`` sizes; the builder's own
        result, cached)."""
        key = shape_key(bound, *extra)
        if key not in self._built:
            self._built[key] = build(self.spec_of(bound, bound, *extra))
        return self._built[key]

    def symbolic(self) -> Universal:
        """U built at symbolic N and extra sizes: the family's own U.

        Returns:
            The builder's U at the dimensions N, *extra.
        """
        return self.at(dimension("N"), *(dimension(e) for e in self.extra))

    def built_for(self, sizes: Sizes) -> Universal:
        """U at a stage's sizes.

        Args:
            sizes: (N, *extra, then the header sizes the stage reads).

        Returns:
            U built for N and the extra sizes (the header sizes are the stage's, not U's).
        """
        return self.at(*sizes[:1 + len(self.extra)])

    def small_shapes(self, n: Any, d: Any) -> dict[str, tuple[Any, Any]]:
        """The shape of every block of T at sizes n, d (its parameters' and each step's;
        a family over extra sizes has no T of sizes n, d alone: refused)."""
        if self.extra:
            raise UsimError(f"T's shapes at n, d need the extra sizes {', '.join(self.extra)}: not built")
        small = self.spec_of(n, d)
        return shapes_of(small, route_of(small).steps, self.at(dimension("N")).kinds)

    def stage(self, k: int, *sizes: Any) -> Stage:
        return self.built_for(sizes).stages[k - 1]

    def header_sizes(self, k: int) -> tuple[str, ...]:
        """Every header size stage k reads (n before d)."""
        u = self.symbolic()
        return tuple(f for f in SIZE_FIELDS if f in stage_sizes(u, u.stages[k - 1]))

    def reads(self, k: int) -> tuple[str, ...]:
        """The header's sizes stage k reads that are dimensions of its own (not set to N),
        in the order of its dimensions (n before d)."""
        return tuple(f for f in self.header_sizes(k) if f not in self.at_bound)

    def dims(self, k: int) -> tuple[str, ...]:
        return ("N",) + self.extra + self.reads(k)

    def fixed(self, k: int, sizes: Sizes) -> dict[str, Any]:
        """The header's sizes stage k sets, at its sizes: each its dimension, or N (``at_bound``)."""
        found = dict(zip(self.reads(k), sizes[1 + len(self.extra):]))
        found.update({f: sizes[0] for f in self.header_sizes(k) if f in self.at_bound})
        return found

    def program(self, k: int, *sizes: Any):
        """Stage k of U_N on ``tokens``, its header sizes set (:func:`stage_program`)."""
        u = self.built_for(sizes)
        return stage_program(u, u.stages[k - 1], self.fixed(k, sizes))

    def inputs(self, k: int, *sizes: Any) -> list[tuple[str, tuple[Any, Any]]]:
        """W_k's blocks from position 0, then its scratch (any content) up to U's length."""
        layout = self.stage(k, *sizes).input
        blocks = [(b.name, (b.shape.rows, b.shape.cols)) for b in layout.blocks]
        if not at_least(layout.used, layout.length):
            blocks.append(("scratch", (1, layout.length - layout.used)))
        return blocks

    def outputs(self, k: int, *sizes: Any) -> list[tuple[str, tuple[Any, Any]]]:
        return [(b.name, (b.shape.rows, b.shape.cols)) for b in self.stage(k, *sizes).output.blocks]

    def target(self, k: int, *sizes: Any) -> Callable[[Mapping[str, Any]], dict]:
        """What stage k outputs at (N, n, d): one function per shape (the tie checks
        the claim's obligation holds this very function)."""
        key = (k,) + shape_key(*sizes)
        if key not in self._targets:
            self._targets[key] = self._make_target(k, sizes)
        return self._targets[key]

    def _make_target(self, k: int, sizes: Sizes) -> Callable[[Mapping[str, Any]], dict]:
        u = self.built_for(sizes)
        return stage_target(u, u.stages[k - 1], self.fixed(k, sizes))


STAGE_REPLAY = 2048
"""The longest workspace a stage's counterexample is replayed on when the stage has
a broken variant wrong only past N = 16: it fails first at N = 17, whose
workspaces have 3 + 3N^2 = 870 positions, and z3 may name a larger N (26 is 2031
positions; the exact evaluation of one stage at N = 20 takes about a second)."""


def stage_claims(claim_id: str, family: UniversalFamily, *, paper: str, what: str,
                 mutants: Mapping[int, Mapping[str, Callable[..., Replacements]]] | None = None,
                 bounded_mutants: Mapping[int, Mapping[str, Callable[..., Replacements]]] | None = None,
                 all_sizes_mutants: Mapping[int, Mapping[str, Callable[..., Replacements]]] | None = None,
                 replay_positions: int = STAGE_REPLAY,
                 **settings: Any) -> tuple[list[Claim], list[FamilyClaim]]:
    """One claim per stage of ``family``'s U, each with its statement for every size.

    Args:
        claim_id: the prefix of the claims' ids (``theorem6`` gives
            ``theorem6_stage1``, ...).
        family: U's family for the form of T.
        paper: where the paper states U.
        what: what T is, in words (for the titles).
        mutants: stage -> broken variant name -> (the stage's dimensions ->
            named node -> its replacement); each is a bounded broken variant
            of the stage's claim and one for every size.
        bounded_mutants: the same, for the bounded claim only (a variant the
            proof for every size does not yet refute with a replayed input).
        all_sizes_mutants: the same, for the statement for every size only (a
            variant every bounded proof misses, wrong only past N = 16; its
            counterexample is replayed on the stage alone, up to
            ``replay_positions`` positions).
        replay_positions: the longest workspace such a counterexample is
            replayed on (:data:`STAGE_REPLAY` unless the first size where the
            variant fails that z3 names is longer).
        **settings: the claims' own fields (engines, bounds, category).

    Returns:
        The bounded claims and their statements for every size.
    """
    claims, families = [], []
    symbolic = family.symbolic()
    extra = family.extra
    for stage in symbolic.stages:
        k = stage.index
        dims = family.dims(k)
        steps = "; ".join(st.describe(symbolic.kinds) for st in stage.steps)
        construction = SizedConstruction(
            name=(lambda k: lambda *sizes: f"U stage {k} at " + ", ".join(
                f"{d} = {v}" for d, v in zip(family.dims(k), sizes)))(k),
            dims=dims,
            program=(lambda k: lambda *sizes: family.program(k, *sizes))(k),
            inputs=(lambda k: lambda *sizes: family.inputs(k, *sizes))(k),
            outputs=(lambda k: lambda *sizes: family.outputs(k, *sizes))(k))
        broken = dict((mutants or {}).get(k, {}))
        bounded_broken = {**broken, **(bounded_mutants or {}).get(k, {})}
        reads = family.reads(k)
        positive = stage_preconditions(stage.input)  # a layer norm's eps > 0 (one function: the tie checks it)
        shapes = (lambda reads: lambda bound: [s for s in shape_grid(bound, len(reads), len(extra))])(reads)
        at_n = [f for f in family.header_sizes(k) if f not in reads]
        header = (f", the header's {' and '.join(reads)} set to the sizes {', '.join(reads)} <= N" if reads
                  else "" if at_n else ", for every header") + (f", its {' and '.join(at_n)} set to N" if at_n else "")
        if extra:
            every = f"For every N, {', '.join(extra)} (each >= 1)" + "".join(
                f" and every {r} with 1 <= {r} <= N" for r in reads)
        else:
            every = f"For every N{''.join(f', {r}' for r in reads)} (each >= 1{', <= N' if reads else ''})"
        bounded = claim(
            f"{claim_id}_stage{k}", paper=paper,
            title=f"stage {k} of {family.label} for {what} ({steps}), for every N"
                  + "".join(f" and {e}" for e in extra),
            statement=(f"{every}: stage {k} of {family.label} ({steps}), run on its workspace W_{k} (every block "
                       f"and the scratch after them any real values{header}), outputs W_{k + 1}: each new block "
                       "its step's masked meaning, each carried block unchanged, 0 elsewhere."),
            construction=construction, shapes=shapes,
            target_for=(lambda k: lambda shape: family.target(k, *shape))(k),
            mutants={name: (lambda make: lambda shape: make(*shape))(make) for name, make in bounded_broken.items()},
            preconditions=positive, **settings)
        claims.append(bounded)
        past = dict((all_sizes_mutants or {}).get(k, {}))
        families.append(FamilyClaim(bounded, construction, target=None,
                                    side_condition=(lambda n: (lambda N, *s: within_bound(N, s[len(extra):])) if n
                                                    else None)(reads),
                                    mutants={**broken, **past},
                                    target_for=(lambda k: lambda *sizes: family.target(k, *sizes))(k),
                                    replay_positions=replay_positions if past else None,
                                    preconditions=positive))
    return claims, families


def shape_grid(bound: int, reads: int, extra: int = 0) -> list[Shape]:
    """The shapes of a stage's bounded claim.

    Args:
        bound: the claim's bound.
        reads: how many header sizes (n, d) the stage reads.
        extra: how many extra sizes of U (the head count) it has.

    Returns:
        (N, *extra, n[, d]) for N and each extra size <= bound, each header size <= N.
    """
    out: list[Shape] = []
    for big in range(1, bound + 1):
        for more in itertools.product(range(1, bound + 1), repeat=extra):
            for rest in itertools.product(range(1, big + 1), repeat=reads):
                out.append((big,) + more + rest)
    return out


def within_bound(bound: Any, sizes: Sizes) -> Condition | bool:
    """The condition that every header size in ``sizes`` is at most U's ``bound``."""
    found: Condition | bool = True
    for size in sizes:
        found = both(found, size <= bound)
    return found


class PaddedFamily(UniversalFamily):
    """U_N's stages on zero-padded workspaces, for every N and every n, d <= N.

    Stage k of this family is U_N's stage k applied to its workspace with every
    block zeroed outside where T's block of the same name sits at (n, d) (the
    scratch zeroed too), the header's sizes the stage reads set to n and d:

        stage_k(fix(where(kept(p), w, 0)))

    where kept(p) says that p is in the header or in one rectangle of its
    block's embedding (:meth:`embeddings`): the top-left corner for most
    blocks; W_O head by head (head h's d rows at rows h N ..); a concatenation
    of heads side by side at U's widths (head h's n x d at columns h N ..).
    The statement reads T's blocks from those rectangles and writes each
    result into its own, 0 elsewhere.
    On a workspace that is zero-padded already (U's input is; every stage's
    output is, by the statement) the zeroing is the identity, so the
    statement (each new block the zero-padded meaning of its step on T's
    blocks, the carried blocks as they were, 0 elsewhere) is what composes:
    U_N maps the zero-padded input with header [n, d, c] to T's output
    zero-padded, for every n, d <= N, with the padding inside each stage's
    statement rather than in a lemma apart.
    """

    def __init__(self, spec_of: Callable[..., LayerSpec]) -> None:
        super().__init__(spec_of)  # over N, n, d only: no extra sizes (T's blocks at n, d need them)

    def reads(self, k: int) -> tuple[str, ...]:
        return tuple(SIZE_FIELDS)  # the padding depends on n and d at every stage

    def fixed(self, k: int, sizes: Sizes) -> dict[str, Any]:
        u = self.at(dimension("N"))
        wanted = stage_sizes(u, u.stages[k - 1])
        return {f: v for f, v in zip(SIZE_FIELDS, sizes[1:]) if f in wanted}

    def embeddings(self, bound: Any, n: Any, d: Any) -> dict[str, tuple[Rectangle, ...]]:
        """Where each block of T at sizes n x d sits in U_bound's block of the same name
        (:func:`usim.proofs._padding.embeddings`: the corner, W_O head by head, a
        concatenation's arguments side by side at U's widths), as rectangles."""
        key = shape_key(bound, n, d)
        if key not in self._embedded:
            shapes = self.small_shapes(n, d)
            self._embedded[key] = {name: tuple(rectangle(p, shapes[name]) for p in pieces)
                                   for name, pieces in embeddings(self.at(bound), self.spec_of(n, d)).items()}
        return self._embedded[key]

    def program(self, k: int, *sizes: Any) -> Program:
        bound, n, d = sizes
        u = self.at(bound)
        stage = u.stages[k - 1]
        placed = self.embeddings(bound, n, d)
        kept: Any = False
        for block in reversed(stage.input.blocks):
            o, cols = block.offset, block.shape.cols
            here: Any = inside(o, block.end)
            if block.name != HEADER:
                row, col = (indices - o) // cols, (indices - o) % cols
                here = kept_in(here, [inside_rectangle(r, row, col) for r in placed[block.name]])
            kept = here if kept is False else where(inside(o, block.end), here, kept)
        values = where(kept, tokens, 0).named("padded")
        fixed = self.fixed(k, sizes)
        if fixed:
            hdr = stage.input.block(HEADER)
            values = fix(values, {hdr.offset + SIZE_FIELDS[f]: v for f, v in fixed.items()})
        return Program.of(f"{u.program.name}.padded_stage{k}", {"W": stage.apply(values)},
                          f"stage {k} of U for {u.spec.tag} on a workspace zero-padded to n x d")

    def _make_target(self, k: int, sizes: Sizes) -> Callable[[Mapping[str, Any]], dict]:
        bound, n, d = sizes
        u = self.at(bound)
        stage = u.stages[k - 1]
        fixed = self.fixed(k, sizes)
        small = self.small_shapes(n, d)
        placed = self.embeddings(bound, n, d)
        routed = [st for st in u.steps if u.kinds[st.kind].routed
                  and st.out in {b.name for b in stage.output.blocks}]

        def target(m: Mapping[str, Any]) -> dict:
            env = {name: unpadded(matrix, small[name], placed[name])  # T's blocks, read where U holds them
                   for name, matrix in m.items() if name in small}
            scale = 1
            if HEADER in m:
                env[HEADER] = header_with(m[HEADER], fixed)
                scale = m[HEADER][0, 2]
            for st in stage.steps:
                env[st.out] = u.kinds[st.kind].meaning_of(st, [env[a] for a in st.args], scale)
            for st in routed:  # assembled by this stage's routing (a concatenation)
                if st.out not in env:
                    env[st.out] = u.kinds[st.kind].meaning_of(st, [env[a] for a in st.args], scale)
            out = {}
            model = m[stage.input.blocks[0].name]
            for block in stage.output.blocks:
                if block.name == HEADER:
                    out[block.name] = env[HEADER]
                    continue
                out[block.name] = padded(model, env[block.name], block.shape.rows, block.shape.cols,
                                          placed[block.name])
            return out
        return target


def layout_problems(what: str, a: SequenceLayout, b: SequenceLayout) -> list[str]:
    """Where two layouts differ at some size (names, offsets, shapes, length).

    Args:
        what: the two layouts, in words (each problem begins with it).
        a: one layout.
        b: the other.

    Returns:
        One line per difference (none: the same polynomials in the sizes).
    """
    if [blk.name for blk in a.blocks] != [blk.name for blk in b.blocks]:
        return [f"{what}: the blocks {[blk.name for blk in a.blocks]} and {[blk.name for blk in b.blocks]}"]
    problems = []
    for x, y in zip(a.blocks, b.blocks):
        if not (same(x.offset, y.offset) and same(x.shape.rows, y.shape.rows)
                and same(x.shape.cols, y.shape.cols)):
            problems.append(f"{what}: block {x.name} at {x.offset} ({x.shape}) and at {y.offset} ({y.shape})")
    if not same(a.length, b.length):
        problems.append(f"{what}: length {a.length} and {b.length}")
    return problems


def as_layout(blocks: list[tuple[str, tuple[Any, Any]]]) -> SequenceLayout:
    """Blocks one after another from position 0, as a layout.

    Args:
        blocks: (name, (rows, cols)) in order.

    Returns:
        Their layout, as long as the blocks.
    """
    return SequenceLayout.of(*blocks)


class _Reads(dict):
    """Input matrices that record which blocks a precondition reads (each entry a symbol)."""

    def __missing__(self, name: str) -> Any:
        self[name] = sympy.Matrix(1, 1, [sympy.Symbol(f"{name}[0,0]")])  # a layer norm's eps is 1 x 1
        return self[name]


def precondition_text(preconditions: Callable[[Mapping[str, Any]], Any] | None) -> set[str]:
    """The relations ``preconditions`` states, as text, each block read as one symbol
    (its entry [0, 0]: a layer norm's eps is 1 x 1).

    Args:
        preconditions: input matrices -> relations, or None.

    Returns:
        The relations' text (none without preconditions).
    """
    return {str(r) for r in preconditions(_Reads())} if preconditions is not None else set()


def precondition_problems(u: Universal, k: int, part: FamilyClaim) -> list[str]:
    """Why part k's preconditions might not hold at its input though they hold at U's
    (none: they read only blocks of U's input that every stage before part k carries,
    and state nothing beyond U's input's): a block not in U's input, or made or not
    carried by a stage before part k, or a relation beyond U's (eps1 > 100, not > 0).

    Args:
        u: U at symbolic sizes.
        k: the part's stage.
        part: its statement for every size.

    Returns:
        One line per problem.
    """
    reads = _Reads()
    try:
        if part.preconditions is not None:
            part.preconditions(reads)
    except (IndexError, KeyError, TypeError) as error:  # reads more than a 1 x 1 block's entry
        return [f"part {k} ({part.id}) has preconditions the chain cannot read ({error}): only entries [0, 0] "
                "of carried blocks are checked"]
    problems = []
    for name in sorted(reads):
        makers = [stage.index for stage in u.stages[:k - 1] if name in {st.out for st in stage.steps}
                  or name not in {b.name for b in stage.output.blocks}]
        if name not in {b.name for b in u.input_layout.blocks} or makers:
            problems.append(f"part {k} ({part.id}) has a precondition on {name}, which is not in U's input or "
                            f"not carried unchanged (stages {makers})")
    if not precondition_text(part.preconditions) <= precondition_text(stage_preconditions(u.input_layout)):
        problems.append(f"part {k} ({part.id}) assumes preconditions beyond U's input's (a layer norm's eps > 0)")
    return problems


def composition(family: PaddedFamily, parts: list[FamilyClaim], formula: Callable[[LayerSpec], Term],
                placement: FamilyClaim | None = None) -> Chain:
    """Why the padded stages compose to the theorem, each reason checked at
    symbolic sizes (N for U, n and d for T).

    On U's input (T's blocks zero-padded, header [n, d, c], zeros after) the
    zeroing and the header fix that each padded stage's statement begins with
    are the identity, and each stage's statement gives the next workspace in
    that form; so U_N = stage_m o ... o stage_1 maps the input to the
    composition of the steps' zero-padded meanings. That needs, checked here:
    the parts are the family's stages in order; U's input layout is stage 1's
    and each stage's output layout is the next stage's input, at every N; U's
    output is the last stage's, with T's result first, from position 0; U's
    steps are T's route at symbolic n, d step for step (so the chain of
    meanings is T's); and that route composes, as terms, to the claim's
    formula at symbolic n, d (Level 2 of :mod:`usim.proofs._universal`).
    With a ``placement`` first (the hierarchy: T's compact input placed into
    U's, :func:`placement_claims`), its output layout must be U's input layout:
    its statement then gives U's input in the form stage 1 takes.
    """
    N, n, d = dimension("N"), dimension("n"), dimension("d")
    u = family.at(N)
    checks, problems = [], []
    if placement is not None:
        checks.append("the placement's output layout is U's input layout (the same polynomials in N)")
        placed = placement.outputs(N, n, d)
        mine = [(b.name, (b.shape.rows, b.shape.cols)) for b in u.input_layout.blocks]
        if [name for name, _ in placed] != [name for name, _ in mine] or any(
                not (same(a[0], b[0]) and same(a[1], b[1])) for (_, a), (_, b) in zip(placed, mine)):
            problems.append(f"the placement outputs {[name for name, _ in placed]}, not U's input blocks")
    m = len(u.stages)
    checks.append(f"the {m} parts are stages 1 to {m} of U_N's family on zero-padded workspaces, in order: "
                  "each one's program, layouts and target the padded stage's at symbolic N, n, d, and its "
                  "side conditions n, d <= N")
    if len(parts) != m:
        problems.append(f"{len(parts)} parts for {m} stages")
    wanted = [within_bound(N, (n, d))]
    for k, part in enumerate(parts, start=1):
        if part.dims != ("N", "n", "d") or k > m:
            problems.append(f"part {k} ({part.id}) is stated over {part.dims}, not N, n, d, or past the last stage")
            continue
        if fingerprint(part.family()) != fingerprint(family.program(k, N, n, d)):
            problems.append(f"part {k} ({part.id}) is not stage {k} of the family")
        if layout_problems(f"part {k}'s input", as_layout(part.inputs(N, n, d)),
                           as_layout(family.inputs(k, N, n, d))) \
                or layout_problems(f"part {k}'s output", as_layout(part.outputs(N, n, d)),
                                   as_layout(family.outputs(k, N, n, d))):
            problems.append(f"part {k} ({part.id}) is not stated on stage {k}'s workspaces")
        if part.target_at(N, n, d) is not family.target(k, N, n, d):
            problems.append(f"part {k} ({part.id}) does not state stage {k}'s zero-padded meanings")
        if [str(c) for c in part.conditions()] != [str(c) for c in wanted]:
            problems.append(f"part {k} ({part.id}) is stated under {part.describe_conditions()}")
    if any(part.preconditions is not None for part in parts):
        checks.append("each part's preconditions (a layer norm's eps > 0) read only blocks of U's input that "
                      "every stage before the part carries unchanged, so they hold at the part's input where "
                      "they hold at U's")
        for k, part in enumerate(parts[:m], start=1):
            problems += precondition_problems(u, k, part)
    checks.append("U's input layout is stage 1's, and each stage's output layout is the next stage's input "
                  "(names, offsets, shapes and length the same polynomials in N)")
    problems += layout_problems("U's input and stage 1's", u.input_layout, u.stages[0].input)
    for k in range(1, m):
        problems += layout_problems(f"stage {k}'s output and stage {k + 1}'s input",
                                     u.stages[k - 1].output, u.stages[k].input)
    small = family.spec_of(n, d)
    route = route_of(small)
    last = u.stages[-1].output
    checks.append(f"U's output Y is the last stage's only block {route.result}, from position 0, in a sequence "
                  "of U's length (0 after it)")
    if [b.name for b in last.blocks] != [route.result]:
        problems.append(f"the last stage outputs {[b.name for b in last.blocks]}, not T's result {route.result} "
                        "alone")
    else:
        problems += layout_problems("U's output and the last stage's result",
                                     SequenceLayout.of((route.result, u.output_layout.blocks[0].shape),
                                                       length=u.output_layout.length),
                                     SequenceLayout(last.blocks[:1], last.length))
        placed = family.embeddings(N, n, d)[route.result]  # the formula zero-pads T's result in the corner
        rows, cols = family.small_shapes(n, d)[route.result]
        if len(placed) != 1 or not all(same(a, b) for a, b in (
                (placed[0].row, 0), (placed[0].col, 0), (placed[0].src_row, 0), (placed[0].src_col, 0),
                (placed[0].rows, rows), (placed[0].cols, cols))):
            problems.append(f"T's result {route.result} sits in U's block as {placed}, not in its top-left corner")
    checks.append("U's steps are T's route at symbolic n, d, step for step (names, kinds, arguments)")
    if tuple(u.steps) != tuple(route.steps):
        problems.append("U's steps are not T's route")
    checks.append("T's route composes, as terms, to the claim's formula at symbolic n, d")
    try:
        check_route(small, route.steps, route.result, formula(small))
    except UsimError as error:
        problems.append(str(error))
    return Chain(tuple(checks), tuple(problems))


def composed_claim(bounded: Claim, family: PaddedFamily, parts: list[FamilyClaim],
                   formula: Callable[[LayerSpec], Term], placement: FamilyClaim | None = None) -> ComposedClaim:
    """The theorem for every size: ``bounded`` (its bounded proof the cross-check)
    proved as ``family``'s padded stages ``parts`` (after the ``placement``, if
    given) and their :func:`composition`; its broken variants are the parts',
    named ``stage{k}:{name}`` (``placement:{name}``)."""
    first = [placement] if placement is not None else []
    mutants = {f"placement:{name}": (0, name) for name in (placement.mutants if placement else {})}
    mutants.update({f"stage{k}:{name}": (len(first) + k - 1, name) for k, part in enumerate(parts, start=1)
                    for name in part.mutants})
    def program() -> Program:  # U_N's program, after the placement of a T of symbolic sizes n x d
        u = family.at(dimension("N"))
        return simulation_program(u, family.spec_of(dimension("n"), dimension("d"))) if placement else u.program

    return ComposedClaim(bounded, tuple(first + list(parts)),
                         chain=lambda: composition(family, parts, formula, placement),
                         program=program, mutants=mutants, layers=(family.spec_of,))
