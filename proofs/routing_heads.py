"""U's routing heads (Theorems 6 and 9): a gather head moves whole blocks, and
concatenates any number of heads, for every size.

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
"""

from __future__ import annotations

from usim.constructions.routing import concatenate_heads_construction, move_blocks_construction
from usim.engine.declare import claim, every_shape
from usim.engine.parametric.statement import FamilyClaim
from usim.engine.parametric.target import matrix_of
from usim.rasp.expr import Aggregate, Predicate, select


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

CLAIMS = (CLAIM, CONCATENATION)
FAMILIES = (ALL_SIZES, CONCATENATION_ALL_SIZES)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id, CONCATENATION.id)
