"""U's stages as families: stage k of U_N for every N, against its steps' meanings.

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

from usim.constructions.base import SizedConstruction, inside
from usim.constructions.routing import fix
from usim.constructions.universal import HEADER, LayerSpec, Stage, Universal, build, route_of
from usim.constructions.universal.kinds import SIZE_FIELDS
from usim.constructions.universal.schedule import shapes_of
from usim.encodings.sized import both, matrix_like, when
from usim.engine.claim import Claim, Shape
from usim.engine.declare import claim
from usim.engine.parametric.statement import FamilyClaim
from usim.proofs._universal import header_with, stage_program, stage_sizes, stage_target
from usim.rasp.expr import indices, tokens, where
from usim.rasp.family import Condition, SymbolicInt, at_least, dimension
from usim.rasp.program import Program
from usim.rasp.rewrite import Replacements

Sizes = tuple[Any, ...]
"""(N,) or (N, n) or (N, n, d): U's bound and the header sizes a stage reads."""


def _key(value: Any) -> Any:
    return ("symbol", str(value)) if isinstance(value, SymbolicInt) else value


class UniversalFamily:
    """U_N for one form of T (``spec_of(n, d)`` gives T; U_N is built for
    ``spec_of(N, N)``, N symbolic or an integer), its stages and their
    statements as functions of (N, n, d)."""

    def __init__(self, spec_of: Callable[[Any, Any], LayerSpec]) -> None:
        self.spec_of = spec_of
        self._built: dict[Any, Universal] = {}
        self._targets: dict[tuple, Callable] = {}

    def at(self, bound: Any) -> Universal:
        """U built for ``bound`` x ``bound`` (the builder's own result, cached)."""
        key = _key(bound)
        if key not in self._built:
            self._built[key] = build(self.spec_of(bound, bound))
        return self._built[key]

    def small_shapes(self, n: Any, d: Any) -> dict[str, tuple[Any, Any]]:
        """The shape of every block of T at sizes n, d (its parameters' and each step's)."""
        small = self.spec_of(n, d)
        return shapes_of(small, route_of(small).steps, self.at(dimension("N")).kinds)

    def stage(self, k: int, bound: Any) -> Stage:
        return self.at(bound).stages[k - 1]

    def reads(self, k: int) -> tuple[str, ...]:
        """The header's sizes stage k reads, in the order of its dimensions (n before d)."""
        u = self.at(dimension("N"))
        return tuple(f for f in SIZE_FIELDS if f in stage_sizes(u, u.stages[k - 1]))

    def dims(self, k: int) -> tuple[str, ...]:
        return ("N",) + self.reads(k)

    def fixed(self, k: int, sizes: Sizes) -> dict[str, Any]:
        return dict(zip(self.reads(k), sizes[1:]))

    def program(self, k: int, *sizes: Any):
        """Stage k of U_N on ``tokens``, its header sizes set (:func:`stage_program`)."""
        u = self.at(sizes[0])
        return stage_program(u, u.stages[k - 1], self.fixed(k, sizes))

    def inputs(self, k: int, *sizes: Any) -> list[tuple[str, tuple[Any, Any]]]:
        """W_k's blocks from position 0, then its scratch (any content) up to U's length."""
        layout = self.stage(k, sizes[0]).input
        blocks = [(b.name, (b.shape.rows, b.shape.cols)) for b in layout.blocks]
        if not at_least(layout.used, layout.length):
            blocks.append(("scratch", (1, layout.length - layout.used)))
        return blocks

    def outputs(self, k: int, *sizes: Any) -> list[tuple[str, tuple[Any, Any]]]:
        return [(b.name, (b.shape.rows, b.shape.cols)) for b in self.stage(k, sizes[0]).output.blocks]

    def target(self, k: int, *sizes: Any) -> Callable[[Mapping[str, Any]], dict]:
        """What stage k outputs at (N, n, d): one function per shape (the tie checks
        the claim's obligation holds this very function)."""
        key = (k,) + tuple(_key(s) for s in sizes)
        if key not in self._targets:
            self._targets[key] = self._make_target(k, sizes)
        return self._targets[key]

    def _make_target(self, k: int, sizes: Sizes) -> Callable[[Mapping[str, Any]], dict]:
        u = self.at(sizes[0])
        return stage_target(u, u.stages[k - 1], self.fixed(k, sizes))


def stage_claims(claim_id: str, family: UniversalFamily, *, paper: str, what: str,
                 mutants: Mapping[int, Mapping[str, Callable[..., Replacements]]] | None = None,
                 bounded_mutants: Mapping[int, Mapping[str, Callable[..., Replacements]]] | None = None,
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
        **settings: the claims' own fields (engines, bounds, category).

    Returns:
        The bounded claims and their statements for every size.
    """
    claims, families = [], []
    symbolic = family.at(dimension("N"))
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
        shapes = (lambda reads: lambda bound: [s for s in _grid(bound, len(reads))])(reads)
        header = (f", the header's {' and '.join(reads)} set to the sizes {', '.join(reads)} <= N"
                  if reads else ", for every header")
        bounded = claim(
            f"{claim_id}_stage{k}", paper=paper,
            title=f"stage {k} of U_N for {what} ({steps}), for every N",
            statement=(f"For every N{''.join(f', {r}' for r in reads)} (each >= 1{', <= N' if reads else ''}): stage "
                       f"{k} of U_N ({steps}), run on its workspace W_{k} (every block and the scratch after them "
                       f"any real values{header}), outputs W_{k + 1}: each new block its step's masked meaning, "
                       "each carried block unchanged, 0 elsewhere."),
            construction=construction, shapes=shapes,
            target_for=(lambda k: lambda shape: family.target(k, *shape))(k),
            mutants={name: (lambda make: lambda shape: make(*shape))(make) for name, make in bounded_broken.items()},
            **settings)
        claims.append(bounded)
        families.append(FamilyClaim(bounded, construction, target=None,
                                    side_condition=(lambda n: (lambda N, *s: _within(N, s)) if n else None)(reads),
                                    mutants=broken,
                                    target_for=(lambda k: lambda *sizes: family.target(k, *sizes))(k)))
    return claims, families


def _grid(bound: int, reads: int) -> list[Shape]:
    """(N,) for N <= bound, or (N, n[, d]) with each size <= N."""
    out: list[Shape] = []
    for big in range(1, bound + 1):
        for rest in itertools.product(range(1, big + 1), repeat=reads):
            out.append((big,) + rest)
    return out


def _within(bound: Any, sizes: Sizes) -> Condition | bool:
    """Every header size at most U's bound."""
    found: Condition | bool = True
    for size in sizes:
        found = both(found, size <= bound)
    return found


class PaddedFamily(UniversalFamily):
    """U_N's stages on zero-padded workspaces, for every N and every n, d <= N.

    Stage k of this family is U_N's stage k applied to its workspace with every
    block zeroed outside its top-left corner of T's sizes at (n, d) (the
    scratch zeroed too), the header's sizes the stage reads set to n and d:

        stage_k(fix(where(kept(p), w, 0)))

    where kept(p) says that p is in the header or in the corner of its block.
    On a workspace that is zero-padded already (U's input is; every stage's
    output is, by the statement) the zeroing is the identity, so the
    statement (each new block the zero-padded meaning of its step on T's
    blocks, the carried blocks as they were, 0 elsewhere) is what composes:
    U_N maps the zero-padded input with header [n, d, c] to T's output
    zero-padded, for every n, d <= N, with the padding inside each stage's
    statement rather than in a lemma apart.
    """

    def reads(self, k: int) -> tuple[str, ...]:
        return tuple(SIZE_FIELDS)  # the padding depends on n and d at every stage

    def fixed(self, k: int, sizes: Sizes) -> dict[str, Any]:
        u = self.at(dimension("N"))
        wanted = stage_sizes(u, u.stages[k - 1])
        return {f: v for f, v in zip(SIZE_FIELDS, sizes[1:]) if f in wanted}

    def program(self, k: int, *sizes: Any) -> Program:
        bound, n, d = sizes
        u = self.at(bound)
        stage = u.stages[k - 1]
        small = self.small_shapes(n, d)
        kept: Any = False
        for block in reversed(stage.input.blocks):
            o, cols = block.offset, block.shape.cols
            here: Any = inside(o, block.end)
            if block.name != HEADER:
                rows_kept, cols_kept = small[block.name]
                here = here & ((indices - o) // cols < rows_kept) & ((indices - o) % cols < cols_kept)
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

        def target(m: Mapping[str, Any]) -> dict:
            env = {name: (lambda M, shape: matrix_like(M, *shape, lambda i, j: M[i, j]))(matrix, small[name])
                   for name, matrix in m.items() if name in small}  # T's blocks: the corners of U's
            scale = 1
            if HEADER in m:
                env[HEADER] = header_with(m[HEADER], fixed)
                scale = m[HEADER][0, 2]
            for st in stage.steps:
                env[st.out] = u.kinds[st.kind].meaning([env[a] for a in st.args], scale)
            out = {}
            model = m[stage.input.blocks[0].name]
            for block in stage.output.blocks:
                if block.name == HEADER:
                    out[block.name] = env[HEADER]
                    continue
                out[block.name] = _padded(model, env[block.name], block.shape.rows, block.shape.cols,
                                          *small[block.name])
            return out
        return target


def _padded(model: Any, value: Any, rows: Any, cols: Any, kept_rows: Any, kept_cols: Any) -> Any:
    """``value`` (kept_rows x kept_cols) in the corner of a rows x cols zero matrix."""
    return matrix_like(model, rows, cols, lambda i, j: when(both(i < kept_rows, j < kept_cols),
                                                            lambda: value[i, j], lambda: 0))
