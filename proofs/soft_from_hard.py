"""Soft attention from average-hard attention (AHAT), proved under AHAT semantics.

What is proved (see :mod:`usim.constructions.ahat` for the constructions):

``soft_from_hard``
    For every n, d, d_v <= N and all real Q (n x d), K (n x d), V (n x d_v), the
    program :func:`~usim.constructions.ahat.attention_program` built from the
    corrected blocks outputs softmax(Q K^T) V (exact exp) row-major, 0 past it,
    where every aggregate is an average-hard head (``Semantics.AHAT``) with 0/1
    scores (a selector built from ``select``), the rest element-wise maps. No
    selector of it has an empty row, so the result is the same under RASP.
``softmax_published_ahat`` / ``matmul_published_ahat`` (expected REFUTED)
    Lemma 4's and Lemma 5's own programs with every aggregate under AHAT: the
    empty rows they rely on average every position instead of giving 0.
    Shapes r >= 2 for the softmax (with one row there is no empty row).
``softmax_ahat`` / ``matmul_ahat``
    The corrected blocks, standalone, under AHAT: proved.

Targets are written from the formulas with sympy (exp exact).
"""

from __future__ import annotations

import sympy

from usim.constructions.ahat import (
    attention_construction,
    matmul_ahat_construction,
    softmax_ahat_construction,
)
from usim.engine.declare import claim, erratum, every_shape
from usim.proofs.lemma5_matmul import shapes as matmul_shapes
from usim.rasp.expr import Predicate, Semantics, indices, select, where


def row_softmax(s: sympy.Matrix) -> sympy.Matrix:
    e = s.applyfunc(sympy.exp)
    return sympy.Matrix(e.rows, e.cols,
                        lambda i, j: e[i, j] / sum(e[i, k] for k in range(e.cols)))


SOFT_FROM_HARD = claim(
    "soft_from_hard",
    paper="soft attention from average-hard attention",
    title="softmax(Q K^T) V by average-hard heads (0/1 scores) and element-wise maps, under AHAT",
    statement=(
        "For every n, d, d_v <= N and all real Q (n x d), K (n x d), V (n x d_v) laid out "
        "<Q, K, V> (padded to max(n(2d + d_v), n^2 + n d_v)), the program built from the "
        "AHAT-corrected transpose, product and softmax blocks outputs softmax(Q K^T) V "
        "(exact exp) row-major and 0 past it, where every aggregate is an average-hard "
        "head with 0/1 scores under AHAT empty-row semantics; no selector has an empty row."
    ),
    construction=attention_construction,
    target=lambda m: {"Y": row_softmax(m["Q"] * m["K"].T) * m["V"]},
    shapes=every_shape(3),
    mutants={
        # the published product's layer 2: head (0, 0) not masked (relies on an empty row)
        "unmasked-head": lambda s: {"at00": lambda node: node.args[1]},
        # the row-sum head selects every position instead of its own row
        "all-rows": lambda s: {"same_row": lambda node: select(indices, indices, Predicate.TRUE)},
    },
    default_max_n=3,
    ci_max_n=2,
    semantics=Semantics.AHAT,
    notes="The softmax is exact: exp and division are element-wise; attention only routes and averages.",
    category="our statement",
)

SOFTMAX_AHAT = claim(
    "softmax_ahat",
    paper="Lemma 4, corrected for AHAT",
    title="row softmax by one same-row head (never empty): correct under AHAT and RASP",
    statement=(
        "For every r, c <= N and every real r x c matrix S, the corrected softmax (one head "
        "select(row, row, ==), mean times c as the row sum, exp and division element-wise) "
        "with its aggregate under AHAT outputs the row softmax of S. 1 layer, 1 head."
    ),
    construction=lambda r, c: softmax_ahat_construction(r, c, corrected=True),
    target=lambda m: {"softmax(S)": row_softmax(m["S"])},
    shapes=every_shape(2),
    mutants={
        # the row sum taken as (c + 1) times the mean
        "sum-times-c-plus-1": lambda s: {"row_sum": lambda node: node.args[0] * (s[1] + 1)},
        # exp(S) not divided by the row sum
        "no-division": lambda s: {"softmax": lambda node: where(node.args[0], node.args[1].args[0], 0)},
    },
    default_max_n=4,
    ci_max_n=2,
    semantics=Semantics.AHAT,
    category="after correction",
)

SOFTMAX_PUBLISHED_AHAT = erratum(
    SOFTMAX_AHAT,
    "softmax_published_ahat",
    paper="Lemma 4 under AHAT (erratum)",
    title="the published row softmax with AHAT empty rows: wrong for r >= 2",
    statement=(
        "Claim checked (and expected false): Lemma 4's program, with every aggregate under "
        "AHAT semantics, outputs the row softmax of every real r x c matrix, r >= 2. It "
        "fails: head b is empty at the queries of other rows and AHAT averages exp over "
        "every position there, adding to the row sum."
    ),
    construction=lambda r, c: softmax_ahat_construction(r, c, corrected=False),
    shapes=lambda n: [(r, c) for r in range(2, n + 1) for c in range(1, n + 1)],
    default_max_n=3,
    ci_max_n=2,
    notes="an erratum: refuted as it must be; the fix is softmax_ahat",
)

MATMUL_AHAT = claim(
    "matmul_ahat",
    paper="Lemma 5, corrected for AHAT",
    title="product with never-empty layer-2 heads masked element-wise: correct under AHAT",
    statement=(
        "For every r, k, c <= N with r*c <= k(r + c) and all real A (r x k), B (k x c), the "
        "corrected product (layer-2 head (i, j) selects the keys 0..k-1 at every query; "
        "k * sum where(p == i*c + j, head_ij, 0)) with every aggregate under AHAT outputs A B "
        "row-major, 0 past it. 2 layers, r + c and r*c heads."
    ),
    construction=lambda r, k, c: matmul_ahat_construction(r, k, c, corrected=True),
    target=lambda m: {"AB": m["A"] * m["B"]},
    shapes=matmul_shapes,
    mutants={
        "unmasked-head": lambda s: {"at00": lambda node: node.args[1]},
        # head (0, 0) kept at position 1 instead of 0
        "mask-shifted": lambda s: {"at00": lambda node: where(indices == 1, node.args[1], 0)},
    },
    default_max_n=3,
    ci_max_n=2,
    semantics=Semantics.AHAT,
    category="after correction",
)

MATMUL_PUBLISHED_AHAT = erratum(
    MATMUL_AHAT,
    "matmul_published_ahat",
    paper="Lemma 5 under AHAT (erratum)",
    title="the published product with AHAT empty rows: wrong",
    statement=(
        "Claim checked (and expected false): Lemma 5's program, with every aggregate under "
        "AHAT semantics, outputs A B for all real A (r x k), B (k x c). It fails: the "
        "layer-2 head (i, j) is empty at every query but i*c + j, where AHAT averages the "
        "whole product sequence instead of giving 0."
    ),
    construction=lambda r, k, c: matmul_ahat_construction(r, k, c, corrected=False),
    default_max_n=3,
    ci_max_n=2,
    notes="an erratum: refuted as it must be; the fix is matmul_ahat",
)

CLAIMS = (SOFT_FROM_HARD, SOFTMAX_PUBLISHED_AHAT, MATMUL_PUBLISHED_AHAT, SOFTMAX_AHAT, MATMUL_AHAT)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(*(claim.id for claim in CLAIMS))
