"""Linear-attention variants from the same blocks: Linformer and kernelised attention.

Both are single RASP programs built from the transpose, product and softmax
blocks and element-wise maps (:class:`usim.constructions.ahat.Blocks`: the
published blocks under RASP semantics by default; ``AHAT_BLOCKS`` gives the
same programs for average-hard attention). Routing between blocks is done by
gather heads: ``Blocks.pair`` keeps one block at [0, a) and moves another to
[a, a + b), so that the product block can read <A, B> from one sequence.
The input is padded with zeros so that every intermediate fits.

**Linformer** (Wang et al. 2020), one head:
    Y = softmax( Q (E K)^T / sqrt(d) ) (F V)
with Q, K (n x d), V (n x d_v), and E, F (k x n) projecting along the
sequence. Input <Q, K, V, E, F>.
  1. EK = E K (k x d) by the product block reading E and K in place.
  2. (EK)^T (d x k) by the transpose block.
  3. S = Q (EK)^T (n x k): product of <Q, (EK)^T>.
  4. S / sqrt(d) element-wise; P = row softmax (exact exp).
  5. FV = F V (k x d_v); Y = P (FV): product of <P, FV>.
Depth: 9 attention layers (products are 2 each, transpose and the moves 1).

**Kernelised linear attention** (Katharopoulos et al. 2020; the Performer of
Choromanski et al. 2021 is the same computation with a random-feature map):
    Y[i] = phi(q_i) (phi(K)^T V) / phi(q_i) (phi(K)^T 1)
with phi applied element-wise. ``phi="elu1"``: elu(x) + 1 = x + 1 for x > 0,
exp(x) otherwise (Katharopoulos et al.); ``phi="exp"``: exp(x). Both are
positive, so the normaliser is positive. Performer's FAVOR+ map
exp(W x - |x|^2 / 2) / sqrt(m) is not element-wise (it needs a product with the
random W and a row norm); it is not built here.
Input <Q, K, V>.
  1. phi of every token (element-wise).
  2. phi(K)^T (d x n) by the transpose block.
  3. [V | 1] (n x (d_v + 1)): one gather head moves V's rows apart, an
     element-wise map writes the column of ones.
  4. M = phi(K)^T [V | 1] (d x (d_v + 1)): product of <phi(K)^T, [V | 1]>.
  5. R = phi(Q) M (n x (d_v + 1)): product of <phi(Q), M> (phi(Q) is already
     at [0, n*d)); R[i][j] is the numerator for j < d_v and R[i][d_v] the
     normaliser phi(q_i) . (phi(K)^T 1).
  6. Two gather heads fetch R[i][j] and R[i][d_v] at i*d_v + j; divide.
The linear-attention order (phi(K)^T V first: d x d_v, never n x n) is the
point of the method; the target is written in the other order, the n x n
matrix phi(Q) phi(K)^T normalised by rows, so the claim checks associativity
as well as the routing.
"""

from __future__ import annotations

from usim.constructions.ahat import PUBLISHED_BLOCKS, Blocks
from usim.constructions.base import Construction, inside
from usim.encodings.layout import SequenceLayout
from usim.errors import ShapeError
from usim.rasp.expr import SOp, constant, exp, indices, sqrt, tokens, where
from usim.rasp.program import Program

FEATURE_MAPS = ("elu1", "exp")


# ----------------------------------------------------------------------------
# Linformer.


def linformer_length(n: int, d: int, k: int, dv: int) -> int:
    """The Linformer program's sequence length: room for its input and every intermediate.

    Args:
        n: the rows of Q, K, V (the sequence projected).
        d: the columns of Q and K.
        k: the rows of the projections E and F.
        dv: the columns of V.

    Returns:
        The largest of the input <Q, K, V, E, F>, <Q, (EK)^T> and <P, FV>.
    """
    return max(2 * n * d + n * dv + 2 * k * n, n * d + d * k, n * k + k * dv)


def linformer_program(n: int, d: int, k: int, dv: int, blocks: Blocks = PUBLISHED_BLOCKS) -> Program:
    """Linformer's softmax(Q (E K)^T / sqrt(d)) (F V), steps 1-5 of the module's docstring.

    Args:
        n: the rows of Q, K, V.
        d: the columns of Q and K.
        k: the rows of E and F.
        dv: the columns of V.
        blocks: the blocks it is built from (the published ones under RASP by
            default; ``AHAT_BLOCKS`` for average-hard attention).

    Returns:
        The program with one output, ``linformer``: Y (n x dv) row-major.
    """
    k_at, v_at = n * d, 2 * n * d  # Q sits at position 0
    e_at = v_at + n * dv
    f_at = e_at + k * n
    ek = blocks.matmul(tokens, k, n, d, a_offset=e_at, b_offset=k_at).named("ek")
    ek_t = blocks.transpose(ek, k, d)
    scores = blocks.matmul(blocks.pair(tokens, n * d, ek_t, d * k), n, d, k)
    scaled = (scores / sqrt(constant(d))).named("scaled")
    weights = blocks.softmax(scaled, n, k)
    f_offset = constant(f_at).named("f_offset")  # named, so a mutant can mis-route it
    fv = blocks.matmul(tokens, k, n, dv, a_offset=f_offset, b_offset=v_at).named("fv")
    out = blocks.matmul(blocks.pair(weights, n * k, fv, k * dv), n, k, dv)
    return Program.of(f"linformer_{n}_{d}_{k}_{dv}", {"linformer": out.named("linformer")},
                      f"softmax(Q (E K)^T / sqrt(d)) (F V) for n={n}, d={d}, k={k}, d_v={dv}")


def linformer_construction(n: int, d: int, k: int, dv: int,
                           blocks: Blocks = PUBLISHED_BLOCKS) -> Construction:
    """:func:`linformer_program` with its layouts.

    Args:
        n: the rows of Q, K, V.
        d: the columns of Q and K.
        k: the rows of E and F.
        dv: the columns of V.
        blocks: the blocks it is built from.

    Returns:
        The construction reading <Q, K, V, E, F> and writing Y (n x dv), in a
        sequence of :func:`linformer_length`.
    """
    length = linformer_length(n, d, k, dv)
    return Construction(
        name=f"linformer n={n} d={d} k={k} dv={dv}",
        program=linformer_program(n, d, k, dv, blocks),
        input_layout=SequenceLayout.of(("Q", (n, d)), ("K", (n, d)), ("V", (n, dv)),
                                       ("E", (k, n)), ("F", (k, n)), length=length),
        output_layout=SequenceLayout.of(("Y", (n, dv)), length=length),
        semantics=blocks.semantics,
    )


# ----------------------------------------------------------------------------
# Kernelised linear attention.


def feature_map(x: SOp, phi: str) -> SOp:
    """phi element-wise: ``elu1`` is elu(x) + 1, ``exp`` is exp(x).

    Args:
        x: the sequence.
        phi: the feature map's name, one of :data:`FEATURE_MAPS`.

    Returns:
        The element-wise map ``phi`` of ``x`` (positive everywhere).

    Raises:
        ShapeError: ``phi`` is not a feature map's name.
    """
    if phi == "elu1":
        return where(x > 0, x + 1, exp(x)).named("phi")
    if phi == "exp":
        return exp(x).named("phi")
    raise ShapeError(f"unknown feature map {phi!r}; choose one of {', '.join(FEATURE_MAPS)}")


def performer_length(n: int, d: int, dv: int) -> int:
    """The kernelised program's sequence length: room for its input and every intermediate.

    Args:
        n: the rows of Q, K, V.
        d: the columns of Q and K.
        dv: the columns of V.

    Returns:
        The largest of the input <Q, K, V>, <phi(K)^T, [V | 1]>, <phi(Q), M>
        and R.
    """
    return max(n * (2 * d + dv), d * n + n * (dv + 1), n * d + d * (dv + 1), n * (dv + 1))


def performer_program(n: int, d: int, dv: int, phi: str = "elu1",
                      blocks: Blocks = PUBLISHED_BLOCKS) -> Program:
    """Kernelised linear attention phi(Q)(phi(K)^T V) / phi(Q)(phi(K)^T 1), steps 1-6
    of the module's docstring.

    Args:
        n: the rows of Q, K, V.
        d: the columns of Q and K.
        dv: the columns of V.
        phi: the feature map (:func:`feature_map`).
        blocks: the blocks it is built from.

    Returns:
        The program with one output, ``linear_attention``: Y (n x dv) row-major.
    """
    features = feature_map(tokens, phi)
    phi_k_t = blocks.transpose(features, n, d, offset=n * d)
    width = dv + 1
    row, col = indices // width, indices % width
    in_v1 = inside(0, n * width)
    v_entry = blocks.gather(tokens, 2 * n * d + row * dv + col, in_v1 & (col < dv))
    v_ones = (v_entry + where(in_v1 & (col == dv), 1, 0)).named("v_ones")
    kv = blocks.matmul(blocks.pair(phi_k_t, d * n, v_ones, n * width), d, n, width).named("kv")
    r = blocks.matmul(blocks.pair(features, n * d, kv, d * width), n, d, width).named("r")
    valid = inside(0, n * dv).named("valid")
    i, j = indices // dv, indices % dv
    numerator = blocks.gather(r, i * width + j, valid).named("numerator")
    normaliser = blocks.gather(r, i * width + dv, valid).named("normaliser")
    out = where(valid, numerator / where(valid, normaliser, 1), 0)
    return Program.of(f"linear_attention_{phi}_{n}_{d}_{dv}", {"linear_attention": out.named("linear_attention")},
                      f"phi(Q)(phi(K)^T V) / phi(Q)(phi(K)^T 1), phi={phi}, n={n}, d={d}, d_v={dv}")


def performer_construction(n: int, d: int, dv: int, phi: str = "elu1",
                           blocks: Blocks = PUBLISHED_BLOCKS) -> Construction:
    """:func:`performer_program` with its layouts.

    Args:
        n: the rows of Q, K, V.
        d: the columns of Q and K.
        dv: the columns of V.
        phi: the feature map (:func:`feature_map`).
        blocks: the blocks it is built from.

    Returns:
        The construction reading <Q, K, V> and writing Y (n x dv), in a
        sequence of :func:`performer_length`.
    """
    length = performer_length(n, d, dv)
    return Construction(
        name=f"linear attention ({phi}) n={n} d={d} dv={dv}",
        program=performer_program(n, d, dv, phi, blocks),
        input_layout=SequenceLayout.of(("Q", (n, d)), ("K", (n, d)), ("V", (n, dv)), length=length),
        output_layout=SequenceLayout.of(("Y", (n, dv)), length=length),
        semantics=blocks.semantics,
    )
