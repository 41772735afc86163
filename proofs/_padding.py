"""The padding lemma: U built for N, on a smaller T zero-padded, computes T zero-padded.

A smaller T (sizes n, d <= N; its widths d_k = d_v = d_ff = d_out = d) is
given to U_N zero-padded (:func:`usim.constructions.universal.embed_pieces`)
with the header [n, d, c]. Each block B of T's route then has an *embedding*
into U_N's block of the same name: a set of rectangles (:class:`Piece`) saying
where each entry of T's B sits, every other entry of U_N's B being 0;
pad_B(M) is U_N's block holding M so. The embeddings:

* T's inputs: where U's input puts them (``embed_pieces``): every matrix in
  the top-left corner of U's block, except W_O, whose rows h*d_v .. of head h
  go to rows h*D_v .. (each head's rows at that head's place);
* a concatenation (a kind the table marks ``routed``): its arguments side by
  side at U_N's widths, as U's routing places them (argument h from column
  D_0 + ... + D_{h-1}), each with its own embedding inside;
* every other step's result: the top-left corner.

**The lemma**, per step ``s: out = kind(a_1, ..., a_k)`` of T's route and
size (n, d): for every real a_1, ..., a_k of T's shapes and every c,

    masked_kind(n, d)(pad(a_1), ..., pad(a_k)) = pad_out(meaning_kind(a_1, ..., a_k)),

the masked meaning (what U_N's block computes given the header's n and d,
:mod:`usim.constructions.universal.kinds`) on zero-padded arguments is the
zero-padded meaning. Why it holds for every size, kind by kind (top-left
embeddings unless said otherwise):

* product A B (r x k times k x c, in U_N R x K times K x C): entry (i, j) of
  pad(A) pad(B) is sum_{l<K} pad(A)_il pad(B)_lj; for i >= r or j >= c every
  term has a zero factor; otherwise the terms l >= k vanish and the rest is
  (A B)_ij. It needs A's column embedding to be B's row embedding (for
  [heads] W_O: both per head);
* transpose: pad(A)^T = pad(A^T), entry by entry;
* softmax at n: masked = corner(softmax_rows(S[:n, :n])), and T's S is n x n
  (its rows are T's queries, its columns T's keys), so S[:n, :n] of pad(S) is
  S itself;
* layer norm at (n, d): likewise with T's Z n x d and the gains and biases
  1 x d: the corner read is T's own block;
* bias at n: pad(A) + [i < n] pad(b): on rows i < n the first w columns hold
  A_ij + b_j, the others 0 + 0; rows i >= n hold pad(A)'s zeros, since T's A
  has exactly n rows; bias_relu adds max(0, 0) = 0 there;
* add: entry by entry; relu: max(0, 0) = 0;
* concatenation: [pad(A_0) | pad(A_1) | ...] is pad of [A_0 | A_1 | ...] under
  the side-by-side embedding, by its definition.

So the lemma holds exactly when the shapes and embeddings fit as said; it is
*checked*, exactly, for every step and size an obligation names:
:func:`padding_obligation` states both sides with fresh symbols for every
argument, and its target is their difference, entry by entry. sympy reduces
each difference to 0 as it builds it (the same sum or quotient on both sides;
no floating point, no simplification heuristics); the obligation's program is
the constant 0, so the engines prove "0 = difference" (any other value is
refuted with a replayed input), with its definedness and a witness like every
obligation.

**What it gives** (with the stage proofs and Level 2 of
:mod:`usim.proofs._universal`): U_N's steps are T's steps (the same names,
kinds and arguments: checked), so on T's input zero-padded, by induction over
the steps, every block of U_N holds pad_B of T's block B; the last one is T's
output in the corner, which is the formula at (n, d) by Level 2 at T's sizes.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import sympy

from usim.constructions.base import Construction
from usim.constructions.routing import Piece
from usim.constructions.universal import LayerSpec, Universal, embed_pieces
from usim.constructions.universal.route import route_of
from usim.constructions.universal.schedule import shapes_of
from usim.encodings.layout import SequenceLayout
from usim.encodings.written import remembered
from usim.engine.claim import Obligation, Shape
from usim.errors import UsimError
from usim.rasp.expr import indices
from usim.rasp.program import Program

Embedding = tuple[Piece, ...]


def pad(m: sympy.Matrix, shape: tuple[int, int], embedding: Embedding) -> sympy.Matrix:
    """U's block of ``shape`` holding ``m`` where ``embedding`` places it, 0 elsewhere."""
    out = sympy.zeros(*shape)
    for piece in embedding:
        rows = m.rows - piece.src_row if piece.rows is None else piece.rows
        cols = m.cols - piece.src_col if piece.cols is None else piece.cols
        out[piece.row: piece.row + rows, piece.col: piece.col + cols] = \
            m[piece.src_row: piece.src_row + rows, piece.src_col: piece.src_col + cols]
    return out


def embeddings(u: Universal, small: LayerSpec) -> dict[str, Embedding]:
    """Where each block of ``small``'s route sits in U's (see the module docstring)."""
    placed = embed_pieces(u, small)  # refuses a T with other parts or larger sizes than U's
    small_shapes = shapes_of(small, u.steps, u.kinds)
    out: dict[str, Embedding] = {name: placed.get(name, (Piece(name),)) for name, _ in small.parameter_shapes()}
    for st in u.steps:
        if not u.kinds[st.kind].routed:
            out[st.out] = (Piece(st.out),)
            continue
        pieces, col, src_col = [], 0, 0  # side by side at U's widths, as U's routing places them
        for a in st.args:
            for p in out[a]:
                rows = small_shapes[a][0] - p.src_row if p.rows is None else p.rows
                cols = small_shapes[a][1] - p.src_col if p.cols is None else p.cols
                pieces.append(Piece(st.out, row=p.row, col=col + p.col, src_row=p.src_row,
                                    src_col=src_col + p.src_col, rows=rows, cols=cols))
            col += u.shapes[a][1]
            src_col += small_shapes[a][1]
        out[st.out] = tuple(pieces)
    return out


def same_steps(u: Universal, small: LayerSpec) -> None:
    """Raise unless U's steps are ``small``'s route's (names, kinds, arguments)."""
    route = route_of(small)
    if tuple(route.steps) != tuple(u.steps):
        raise UsimError(f"U for {u.spec.tag} computes other steps than T at {small.tag}: the hierarchy "
                        "needs the same route at every size")


def _arguments(u: Universal) -> list[str]:
    """Every block some step reads, in the order first read."""
    names: list[str] = []
    for st in u.steps:
        names += [a for a in st.args if a not in names]
    return names


def stage_preconditions(layout: SequenceLayout) -> Callable[[Mapping[str, Any]], list] | None:
    """The preconditions of a workspace: every layer norm's eps > 0 (None without one).

    Args:
        layout: the workspace (its blocks named ``eps...`` are the layer norms' eps).

    Returns:
        Input matrices -> the relations eps[0, 0] > 0, or None.
    """
    eps = [b.name for b in layout.blocks if b.name.startswith("eps")]
    if not eps:
        return None
    return lambda m: [m[name][0, 0] > 0 for name in eps]


def padding_obligation(claim_id: str, shape: Shape, u: Universal, small: LayerSpec) -> Obligation:
    """The padding lemma for every step of U at ``small``'s sizes (see the module docstring):
    inputs are fresh symbols for every argument of every step at T's shapes and the
    scale c; the target is, per step, masked meaning on the padded arguments minus the
    padded meaning, in U's shape; the program is 0."""
    same_steps(u, small)
    emb = embeddings(u, small)
    small_shapes = shapes_of(small, u.steps, u.kinds)
    n, d = small.n, small.d
    arguments = [("scale", (1, 1))] + [(a, small_shapes[a]) for a in _arguments(u)]
    blocks = [(st.out, u.shapes[st.out]) for st in u.steps]
    length = max(SequenceLayout.of(*arguments).used, SequenceLayout.of(*blocks).used)
    input_layout = SequenceLayout.of(*arguments, length=length)
    output_layout = SequenceLayout.of(*blocks, length=length)
    program = Program.of(f"padding_{u.spec.tag}_at_{small.tag}", {"difference": (indices * 0).named("zero")},
                         f"the padding lemma of U for {u.spec.tag} at {small.tag}: 0 at every position")

    @remembered(maxsize=4)
    def differences(key: tuple[tuple[str, sympy.ImmutableMatrix], ...]) -> dict[str, sympy.ImmutableMatrix]:
        m = dict(key)
        c = m["scale"][0, 0]
        out = {}
        for st in u.steps:
            kind = u.kinds[st.kind]
            args = [m[a] for a in st.args]
            padded = [pad(a, u.shapes[name], emb[name]) for a, name in zip(args, st.args)]
            unpadded = kind.meaning_of(st, args, c)
            if kind.masked is None and all(p == a for p, a in zip(padded, args)):
                masked = unpadded  # the same function of equal matrices (T at U's own size)
            else:
                masked = kind.meaning_at(padded, c, n, d, st.sizes)
            meaning = pad(unpadded, u.shapes[st.out], emb[st.out])
            # structurally equal sides differ by exactly 0 (sympy would expand each entry's
            # subtraction: seconds per product at n = d = 32)
            out[st.out] = sympy.ImmutableMatrix.zeros(*meaning.shape) if masked == meaning \
                else sympy.ImmutableMatrix(masked - meaning)
        return out

    def target(m: Mapping[str, sympy.Matrix]) -> dict:
        # the same inputs give the same differences: computed once per input (the
        # runner builds the statement, then each engine and check asks again)
        return dict(differences(tuple((k, sympy.ImmutableMatrix(v)) for k, v in sorted(m.items()))))

    construction = Construction(f"padding lemma of U {u.spec.n}x{u.spec.d} at {n}x{d}", program,
                                input_layout, output_layout)
    return Obligation(claim_id, shape, construction, target, preconditions=stage_preconditions(input_layout),
                      cost_of=u.program)
