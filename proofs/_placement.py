"""The hierarchy's placement for every size: T's compact input placed into U_N's input.

:func:`placement_claims` states, for every N and every n, d <= N, what the one
routing head of :func:`usim.constructions.universal.embed` makes of T's input
written compactly (<c, X, T's matrices> at T's sizes): U's input, T's matrices
in the corners of U's blocks. It is the first part of the claim ``hierarchy``
for every size (:mod:`usim.proofs.theorem6_stages`), before U's stages
(:mod:`usim.proofs._stages`).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from usim.constructions.base import SizedConstruction
from usim.constructions.universal import HEADER, Universal, compact_layout, embed
from usim.constructions.universal.kinds import SIZE_FIELDS
from usim.encodings.sized import matrix_like, size_value, when
from usim.engine.claim import Claim
from usim.engine.declare import claim
from usim.engine.parametric.statement import FamilyClaim, one_per_shape
from usim.proofs._rectangles import Rectangle, padded
from usim.proofs._stages import UniversalFamily, shape_grid, within_bound
from usim.rasp.expr import tokens
from usim.rasp.program import Program
from usim.rasp.rewrite import Replacements


PLACEMENT_REPLAY = 4096
"""The longest input a counterexample of the placement is replayed on: one
routing head and a fix, whose exact replay is cheap (N = 36 is 3 + 3N^2 = 3891)."""


def placement_claims(claim_id: str, family: UniversalFamily, *, paper: str,
                     mutants: Mapping[str, Callable[..., Replacements]],
                     all_sizes_mutants: Mapping[str, Callable[..., Replacements]] | None = None,
                     **settings: Any) -> tuple[Claim, FamilyClaim]:
    """The hierarchy's placement for every size: T's input written compactly,
    <c, X, T's matrices> at T's sizes n x d, into U_N's input (one routing head
    of corner pieces and the header's n, d fixed:
    :func:`usim.constructions.universal.embed`).

    The statement, for every N and every n, d <= N and every real content of
    the compact input (its scratch too): U's input block by block, the header
    [n, d, c], every matrix of T in the top-left corner of its N x N block and
    0 in the rest of the block, 0 after the blocks.

    Args:
        claim_id: the claim's id.
        family: U's family for the form of T.
        paper: where the paper states the hierarchy.
        mutants: broken variant name -> (N, n, d -> named node -> its replacement).
        all_sizes_mutants: the same, for the statement for every size only (a
            variant every bounded proof misses, wrong only past N = 16).
        **settings: the claims' own fields (engines, bounds, category).

    Returns:
        The bounded claim and its statement for every size.
    """
    def program(bound: Any, n: Any, d: Any) -> Program:
        u = family.at(bound)
        return Program.of(f"{u.program.name}.placement", {"W": embed(u, family.spec_of(n, d), tokens)},
                          f"T's input at n x d placed in U's input for {u.spec.tag}")

    def inputs(bound: Any, n: Any, d: Any) -> list[tuple[str, tuple[Any, Any]]]:
        u = family.at(bound)
        layout = compact_layout(family.spec_of(n, d), u.length)
        return [(b.name, (b.shape.rows, b.shape.cols)) for b in layout.blocks] + \
            [("scratch", (1, layout.length - layout.used))]

    def outputs(bound: Any, n: Any, d: Any) -> list[tuple[str, tuple[Any, Any]]]:
        return [(b.name, (b.shape.rows, b.shape.cols)) for b in family.at(bound).input_layout.blocks]

    @one_per_shape
    def target_for(bound: Any, n: Any, d: Any) -> Callable[[Mapping[str, Any]], dict]:
        return _placement_target(family.at(bound), n, d)

    construction = SizedConstruction(name=lambda *sizes: f"placement of T into U at N, n, d = {sizes}",
                                     dims=("N", "n", "d"), program=program, inputs=inputs, outputs=outputs)
    bounded = claim(
        claim_id, paper=paper,
        title="T's compact input placed into U_N's input, for every N and every n, d <= N",
        statement=("For every N and every n, d <= N (each >= 1): the placement of T's input <c, X, T's "
                   "matrices> (T's sizes n x d, then scratch with any real values) into U_N's input gives "
                   "the header [n, d, c], every matrix of T in the top-left corner of its block of U_N and "
                   "0 in the rest, and 0 after the blocks."),
        construction=construction, shapes=lambda bound: shape_grid(bound, 2),
        target_for=lambda shape: target_for(*shape),
        mutants={name: (lambda make: lambda shape: make(*shape))(make) for name, make in mutants.items()},
        **settings)
    statement = FamilyClaim(bounded, construction, target=None, side_condition=lambda N, n, d: within_bound(N, (n, d)),
                            mutants={**mutants, **(all_sizes_mutants or {})}, target_for=target_for,
                            replay_positions=PLACEMENT_REPLAY)
    return bounded, statement


def _placement_target(u: Universal, n: Any, d: Any) -> Callable[[Mapping[str, Any]], dict]:
    blocks = {b.name: b for b in u.input_layout.blocks}

    def target(m: Mapping[str, Any]) -> dict:
        c = m["scale"]
        sizes = {SIZE_FIELDS["n"]: n, SIZE_FIELDS["d"]: d}

        def field(i: Any, j: Any) -> Any:
            out: Callable[[], Any] = lambda: c[0, 0]  # noqa: E731
            for at, v in sizes.items():
                out = (lambda at, v, rest: lambda: when(j == at, lambda: size_value(v), rest))(at, v, out)
            return out()

        out = {HEADER: matrix_like(c, 1, 3, field)}
        for name, block in blocks.items():
            if name != HEADER:
                small = m[name]
                out[name] = padded(small, small, block.shape.rows, block.shape.cols,
                                    (Rectangle(0, 0, small.rows, small.cols),))
        return out
    return target
