"""U's routing heads (Theorems 6 and 9): a gather head moves whole blocks, and
concatenates, stacks and picks the blocks of any number of heads, for every size.

Every stage of U ends with routing (:func:`usim.constructions.routing.route`):
one gather head per source sequence, src(p) a chain of ``where`` over the
destination blocks. Theorem 6's route moves whole blocks only (a block result
from position 0 to its place in the next workspace, carried blocks from their
old places to new ones), at offsets that are polynomials in n and d.

Claim ``routing``, for every r, c, w, g <= N (and, with ``--all-sizes``, for
every r, c, w, g >= 1): the head that routes <G (1 x g), X (r x c), Y (1 x w)>
into <Y, X> from position 0 (two moves in one head, their old and new places
overlapping, G dropped) outputs Y, then X, then zeros, for all real inputs.
The offsets g, g + r*c (old) and 0, w (new) stand for any two blocks of a
workspace: what a routing head computes depends on the blocks' offsets and
sizes only, and here they are symbolic.

Claim ``head_concatenation``, for every n, H <= N (and, with ``--all-sizes``,
for every n, H >= 1): the head that places H stacked n x n blocks
S = [S_0; ...; S_{H-1}] side by side outputs C = [S_0 | ... | S_{H-1}]
(Theorem 9's concatenation), for all real inputs. Its source position is one
formula in H (:func:`~usim.constructions.routing.concatenate_heads_program`),
so one family covers every number of heads: the building block of a U whose
head count is a symbol (U_{N,H} today has one program per H, its
concatenation one rectangle per head). Its broken variant ``heads-mod-8``
takes the head index modulo 8: right for every H <= 8, so every bounded check
up to N = 8 passes it, and refuted for every size at H = 9.

Claims ``head_slicing`` and ``head_diagonal_blocks``, for every r, c, H <= N
(and, with ``--all-sizes``, for every r, c, H >= 1): the other two heads of a U
whose heads are stacked, over r x c blocks (U's are N x d and N x d_v). The
slicing head stacks H side-by-side blocks, T = [Q_0; ...; Q_{H-1}] from
Q = [Q_0 | ... | Q_{H-1}] (one product X [A_0 | ... | A_{H-1}] gives every head's
X A_h, stacked for the next product with X^T). The diagonal-blocks head places
the diagonal blocks of Z (H r x H c) side by side: with Z = P Y, P the heads'
softmaxes stacked and Y = X [V_0 | ... | V_{H-1}], the blocks of Z are P_g Y_h and
C = [P_0 Y_0 | ... | P_{H-1} Y_{H-1}], the concatenation of the heads' outputs from
one product. Each has the broken variant ``heads-mod-8``, refuted for every size
at H = 9, and ``square-blocks-only`` (the head index read as if r = c), right on
every square block and refuted on a rectangle.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from usim.constructions.routing import (concatenate_heads_construction, diagonal_blocks_construction,
                                       move_blocks_construction, slice_heads_construction)
from usim.constructions.universal.kinds import diagonal_of, stack_of
from usim.engine.declare import claim, every_shape
from usim.engine.parametric.statement import FamilyClaim, one_per_shape
from usim.engine.parametric.target import matrix_of
from usim.rasp.expr import Aggregate, Predicate, indices, select


def moved(m):
    """Y first, then X, then zeros where G was."""
    return {"Y": m["Y"], "X": m["X"], "Z": matrix_of(1, m["G"].cols, lambda i, j: 0)}


def _source(change):
    """A broken head: its source position changed by ``change``."""
    return lambda node: Aggregate(select(node.selector.keys, change(node.selector.queries), Predicate.EQ),
                                  node.values)


CLAIM = claim(
    "routing",
    paper="Theorem 6 (U's routing heads)",
    title="one routing head moves two whole blocks to new places: 1 layer, 1 head",
    statement=(
        "For every r, c, w, g <= N and all real G (1 x g), X (r x c), Y (1 x w) laid out as <G, X, Y>, "
        "U's routing (one gather head) outputs Y, then X, then zeros: each block moved whole to its "
        "new place, the rest dropped."
    ),
    construction=move_blocks_construction,
    target=moved,
    shapes=every_shape(4),
    mutants={"off-by-one": lambda s: {"move": _source(lambda src: src + 1)}},
    default_max_n=4,
    ci_max_n=2,
    category="our statement",
)

ALL_SIZES = FamilyClaim(
    CLAIM,
    move_blocks_construction,
    target=moved,
    mutants={
        # source positions taken mod 128: right on every sequence shorter than 129 positions
        "source-mod-128": lambda r, c, w, g: {"move": _source(lambda src: src % 128)},
        "off-by-one": lambda r, c, w, g: {"move": _source(lambda src: src + 1)},
    },
)
"""U's routing head for every r, c, w, g >= 1 (usim prove routing --all-sizes)."""


def concatenated(m):
    """C = [S_0 | ... | S_{H-1}]: entry (i, j) is entry (i, j % n) of head j // n's block."""
    s = m["S"]
    n = s.cols
    return {"C": matrix_of(n, s.rows, lambda i, j: s[(j // n) * n + i, j % n])}


CONCATENATION = claim(
    "head_concatenation",
    paper="Theorem 9 (the heads' concatenation)",
    title="one routing head places H stacked n x n blocks side by side: 1 layer, 1 head",
    statement=(
        "For every n, H <= N and all real S (H n x n), the H blocks S_h = S[h n : (h + 1) n] stacked, "
        "one routing head outputs C = [S_0 | S_1 | ... | S_{H-1}] (n x H n): entry (i, j) of C is "
        "entry (i, j mod n) of S_{floor(j / n)}."
    ),
    construction=concatenate_heads_construction,
    target=concatenated,
    shapes=every_shape(2),
    mutants={"off-by-one": lambda s: {"concat": _source(lambda src: src + 1)}},
    default_max_n=4,
    ci_max_n=2,
    category="our statement",
)

CONCATENATION_ALL_SIZES = FamilyClaim(
    CONCATENATION,
    concatenate_heads_construction,
    target=concatenated,
    mutants={
        # the head index modulo 8: right for every H <= 8
        "heads-mod-8": lambda n, h: {"head": lambda node: node % 8},
        "off-by-one": lambda n, h: {"concat": _source(lambda src: src + 1)},
    },
)
"""The concatenation of H heads for every n, H >= 1 (usim prove head_concatenation --all-sizes)."""


@one_per_shape
def sliced_for(r: Any, c: Any, h: Any) -> Callable[[Mapping[str, Any]], dict]:
    """The target at (r, c, H): T = [Q_0; ...; Q_{H-1}], entry (a, b) of T being entry
    (a mod r, floor(a / r) c + b) of Q (c is no input's dimension alone: Q is r x H c).

    Args:
        r: each block's rows (an integer, or a symbolic size for every size).
        c: each block's columns.
        h: H, the number of blocks.

    Returns:
        The target function, one per shape (:func:`one_per_shape`).
    """
    def sliced(m: Mapping[str, Any]) -> dict:
        return {"T": stack_of([m["Q"]], 0, h, r, c)}  # U's step kind stack: its meaning
    return sliced


SLICING = claim(
    "head_slicing",
    paper="Theorem 9 (the heads' blocks stacked)",
    title="one routing head stacks H side-by-side r x c blocks: 1 layer, 1 head",
    statement=(
        "For every r, c, H <= N and all real Q (r x H c), the H blocks Q_h = Q[:, h c : (h + 1) c] side by "
        "side, one routing head outputs T = [Q_0; Q_1; ...; Q_{H-1}] (H r x c): entry (a, b) of T is "
        "entry (a mod r, floor(a / r) c + b) of Q."
    ),
    construction=slice_heads_construction,
    target_for=lambda shape: sliced_for(*shape),
    shapes=every_shape(3),
    mutants={"off-by-one": lambda s: {"slice": _source(lambda src: src + 1)}},
    default_max_n=4,
    ci_max_n=2,
    category="our statement",
)

SLICING_ALL_SIZES = FamilyClaim(
    SLICING,
    slice_heads_construction,
    target=None,
    target_for=sliced_for,
    mutants={
        # the head index modulo 8: right for every H <= 8
        "heads-mod-8": lambda r, c, h: {"head": lambda node: node % 8},
        # the head index read with c rows per block: right on square blocks (every r = c)
        "square-blocks-only": lambda r, c, h: {"head": lambda node: (indices // c) // c},
        "off-by-one": lambda r, c, h: {"slice": _source(lambda src: src + 1)},
    },
)
"""The H heads' blocks stacked for every r, c, H >= 1 (usim prove head_slicing --all-sizes)."""


@one_per_shape
def diagonal_for(r: Any, c: Any, h: Any) -> Callable[[Mapping[str, Any]], dict]:
    """The target at (r, c, H): C = [Z_00 | ... | Z_{H-1,H-1}], entry (i, j) of C being
    entry (floor(j / c) r + i, j) of Z (r and c are no input's dimension alone: Z is
    H r x H c).

    Args:
        r: each block's rows (an integer, or a symbolic size for every size).
        c: each block's columns.
        h: H, the number of blocks along each side of Z.

    Returns:
        The target function, one per shape (:func:`one_per_shape`).
    """
    def diagonal(m: Mapping[str, Any]) -> dict:
        return {"C": diagonal_of([m["Z"]], 0, h, r, c)}  # U's step kind diagonal: its meaning
    return diagonal


DIAGONAL_BLOCKS = claim(
    "head_diagonal_blocks",
    paper="Theorem 9 (the heads' outputs from one product)",
    title="one routing head places the H diagonal r x c blocks side by side: 1 layer, 1 head",
    statement=(
        "For every r, c, H <= N and all real Z (H r x H c), its blocks Z_gh = Z[g r : (g + 1) r, "
        "h c : (h + 1) c], one routing head outputs C = [Z_00 | Z_11 | ... | Z_{H-1,H-1}] (r x H c), then "
        "zeros: entry (i, j) of C is entry (floor(j / c) r + i, j) of Z. With Z = P Y, P = [P_0; ...; P_{H-1}] "
        "stacked and Y = [Y_0 | ... | Y_{H-1}] side by side, C = [P_0 Y_0 | ... | P_{H-1} Y_{H-1}]."
    ),
    construction=diagonal_blocks_construction,
    target_for=lambda shape: diagonal_for(*shape),
    shapes=every_shape(3),
    mutants={"off-by-one": lambda s: {"diagonal": _source(lambda src: src + 1)}},
    default_max_n=4,
    ci_max_n=2,
    category="our statement",
)

DIAGONAL_BLOCKS_ALL_SIZES = FamilyClaim(
    DIAGONAL_BLOCKS,
    diagonal_blocks_construction,
    target=None,
    target_for=diagonal_for,
    mutants={
        # the head index modulo 8: right for every H <= 8
        "heads-mod-8": lambda r, c, h: {"head": lambda node: node % 8},
        # the head index read with r columns per block: right on square blocks (every r = c)
        "square-blocks-only": lambda r, c, h: {"head": lambda node: (indices % (h * c)) // r},
        "off-by-one": lambda r, c, h: {"diagonal": _source(lambda src: src + 1)},
    },
)
"""The H diagonal blocks side by side for every r, c, H >= 1 (usim prove head_diagonal_blocks --all-sizes)."""

CLAIMS = (CLAIM, CONCATENATION, SLICING, DIAGONAL_BLOCKS)
FAMILIES = (ALL_SIZES, CONCATENATION_ALL_SIZES, SLICING_ALL_SIZES, DIAGONAL_BLOCKS_ALL_SIZES)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id, CONCATENATION.id, SLICING.id, DIAGONAL_BLOCKS.id)
