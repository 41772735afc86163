"""The universal simulator U (Theorem 6, Corollary 6.1, Theorem 9, Corollary 9.1): ONE RASP program.

U is given, in one input sequence, the description of an attention layer or
encoder layer T (its parameter matrices) and T's input X, and it outputs T(X)
row-major from position 0 (zeros after). No Python runs between its blocks:
U is one expression graph; every intermediate is placed where the next block
reads it by routing heads (:mod:`usim.constructions.routing`).

Input layout (the paper leaves it open; usim settles it)
-------------------------------------------------------
U is built for bounds: sequence length N, model width D, H heads, per-head
widths D_k, D_v, feed-forward width F, output width D_out. Its input is

    < hdr (1 x 3) = [n, d, c],  X (N x D),  T's matrices in a fixed order >

one block after another, each row-major (entry (i, j) of an r x c block at
offset + i*c + j), then zeros up to U's length L (scratch space for
intermediates; :attr:`Universal.length`). The matrices, per form:

* ``merged`` (the paper's form): per head h, A_h (D x D) the merged query-key
  matrix and V_h (D x D_v); T(X) = concat_h softmax(c X A_h X^T) X V_h, then
  (optional) W_O (H*D_v x D_out) and b_O (1 x D_out).
* ``projected`` (the form users write, torch's MultiheadAttention): per head
  WQ_h, WK_h (D x D_k), WV_h (D x D_v) and, with ``bias``, bQ_h, bK_h (1 x D_k),
  bV_h (1 x D_v); Q = X WQ + 1 bQ etc.; head h = softmax(c Q K^T) V.
  The users' 1/sqrt(d_k) is the scale c read from the header (see below).
* ``encoder``: then W1 (D x F), b1 (1 x F), W2 (F x D), b2 (1 x D) of the
  feed-forward part and, with ``norm``, g1, be1 (1 x D), eps1 (1 x 1), g2, be2,
  eps2 of the two layer norms.

Block names carry the head as a suffix (``A_0``, ``A_1``) when H > 1.

The header and why it is there: the shapes are fixed by U's bounds; a smaller
T (n <= N, d <= D, smaller widths) is given zero-padded to the bounds, and the
header tells U the true n and d. Zero padding is exact for every width except
two places that average over a dimension: the softmax over keys (a padded key
has score 0 and would weigh exp(0) = 1) and the layer norm's mean over the d
features. There U masks with n and d from the header: keys j >= n are left out
of the softmax, query rows i >= n are set to 0, feature columns j >= d are left
out of the layer norm and set to 0, and biases are added on rows i < n only, so
every padded row stays 0 through the whole layer. c is the softmax scale: scores are
c * X A X^T (the paper's form is c = 1; the users' form has c = 1/sqrt(d_k)).
Reading c from the input rather than fixing it in U keeps U universal and lets
the proofs treat c as a real symbol, so they cover c = 1/sqrt(d_k) exactly for
every d_k (no rational approximation of an irrational scale). A header that
U decodes for the shapes themselves (offsets depending on n) would make every
routing head data-dependent; the fixed layout keeps all routing static (decided
by positions alone), which is what lets the proofs scale.

How U computes: the package
---------------------------
=============== ==============================================================
``spec``        :class:`LayerSpec`: the bounds and parts of T; its input blocks
``route``       the paper's routes: T as :class:`Step` s over named matrices
                (Theorem 6: XT = X^T; Y1 = X A; Y2 = Y1 XT; P = softmax(c Y2);
                Y4 = X V; O = P Y4)
``kinds``       :data:`STEP_KINDS`, ONE table: each kind of step's RASP block
                (Lemmas 3, 4, 5 and the element-wise steps), its meaning in
                sympy, its shape, whether it reads the header
``schedule``    stages by dependency depth, workspaces, :func:`build` -> U
``embed``       a smaller T placed into U's input (RASP, numpy, and as a formula for every size)
``simulate``    what ``usim simulate`` does: a layer's arrays checked, placed
                into U's input, U run once (numeric, checked)
=============== ==============================================================

U = stage_m o ... o stage_1, each stage a function of ONE sequence (its
workspace): every stage can be proved on its own (:mod:`usim.proofs._universal`).

Cost (asserted in tests/test_constructions_universal.py): the number of attention layers
depends on which parts T has, never on n, d or the widths; heads per layer grow
with the sizes (a product block has r + c and r*c heads).

No row maximum is subtracted before exp (as in the paper): the numeric
interpretation overflows for scores above about 709.
"""

from usim.constructions.universal.embed import (
    compact_layout,
    embed,
    embed_arrays,
    embed_pieces,
    placed_blocks,
    simulation_program,
)
from usim.constructions.universal.kinds import STEP_KINDS, Step, StepKind
from usim.constructions.universal.route import (
    Route,
    encoder_route,
    route_of,
    theorem6_route,
    theorem9_route,
)
from usim.constructions.universal.schedule import Stage, Universal, build
from usim.constructions.universal.spec import FORMS, HDR_D, HDR_N, HDR_SCALE, HEADER, LayerSpec, spec_for

__all__ = [
    "FORMS", "HDR_D", "HDR_N", "HDR_SCALE", "HEADER", "STEP_KINDS", "LayerSpec", "Route", "Stage", "Step",
    "StepKind", "Universal", "build", "compact_layout", "embed", "embed_arrays", "embed_pieces",
    "encoder_route", "placed_blocks", "route_of", "simulation_program", "spec_for", "theorem6_route", "theorem9_route",
]
