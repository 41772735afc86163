"""Placing a smaller T into U's input (the hierarchy), in RASP and in numpy.

U built for bounds N, D, ... takes a smaller T zero-padded: every matrix goes
to the top-left corner of U's block of the same name, W_O per head (rows h*d_v
of T's W_O to rows h*D_v of U's), and the scale c into the header; the header's
n and d are T's. :func:`embed_pieces` states that placement once, as routing
pieces; :func:`embed` is it in RASP (the hierarchy's proofs run U on it) and
:func:`embed_arrays` the same placement applied to numpy arrays (``usim
simulate``), both read from the one routing table
(:func:`usim.constructions.routing.routing_arrays`).

Example: U for n = 2, d = 1 given a T with n = 1. Its input holds the header
[n, d, c] = [1, 1, 1], X zero-padded to 2 x 1, A, V, then scratch space; U's
output is T(X) = softmax(c x a x) x v = 3 at row 0 and 0 on the padded row.

>>> import numpy as np
>>> from usim.constructions.universal.schedule import build
>>> from usim.constructions.universal.spec import spec_for
>>> from usim.encodings import run_numeric
>>> u = build(spec_for({"X": (2, 1), "A": (1, 1), "V": (1, 1)}))
>>> small = spec_for({"X": (1, 1), "A": (1, 1), "V": (1, 1)})
>>> sequence = embed_arrays(u, small, {"X": np.array([[1.0]]), "A": np.array([[0.5]]),
...                                    "V": np.array([[3.0]])}, scale=1.0)
>>> sequence.tolist()
[[1.0, 1.0, 1.0, 1.0, 0.0, 0.5, 3.0, 0.0, 0.0]]
>>> u.output_layout.decode_numeric(run_numeric(u.program, sequence)["Y"])[0].tolist()
[[3.0], [0.0]]
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from usim.constructions.routing import Part, Piece, fix, route, routing_arrays
from usim.constructions.universal.schedule import Universal
from usim.constructions.universal.spec import HDR_SCALE, HEADER, LayerSpec
from usim.encodings.layout import SequenceLayout
from usim.encodings.sized import both, matrix_of, when
from usim.errors import ShapeError
from usim.rasp.expr import SOp, tokens
from usim.rasp.family import at_least, is_symbolic
from usim.rasp.program import Program


def compact_layout(spec: LayerSpec, length: int) -> SequenceLayout:
    """<scale (1 x 1), X, T's matrices> at T's own sizes, padded to ``length``.

    Args:
        spec: T's sizes and parts.
        length: the sequence length (U's).

    Returns:
        The layout of T's input written compactly, the scale first.
    """
    return SequenceLayout.of(("scale", (1, 1)), *spec.parameter_shapes(), length=length)


def embed_pieces(u: Universal, small: LayerSpec) -> dict[str, tuple[Piece, ...]]:
    """Where each matrix of ``small`` goes in U's (zero-padded) input blocks.

    Args:
        u: U, built for its LayerSpec's bounds.
        small: T's sizes and parts, within U's bounds.

    Returns:
        U's input block name -> the pieces of the compact layout
        (:func:`compact_layout`) placed there: the scale at the header's c,
        W_O per head, every other matrix whole at the corner.

    Raises:
        ShapeError: T's parts differ from U's, or a size exceeds U's bound.

    With the heads stacked, A = [A_0 | ... | A_{H-1}] and V likewise (the projected
    form's W_Q, W_K, W_V and biases) are placed head by head, as W_O's rows are: one
    piece per head (an integer H).
    """
    big = u.spec
    if small.heads != big.heads or small.form != big.form or small.bias != big.bias or small.stacked != big.stacked \
            or small.encoder != big.encoder or small.out_proj != big.out_proj \
            or (small.encoder and (small.residual, small.norm, small.ffn_bias)
                != (big.residual, big.norm, big.ffn_bias)):
        raise ShapeError("a smaller T must have the same parts as U's (form, heads, bias, encoder, stacking)")
    for what in ("n", "d", "d_k", "d_v", "d_out", "d_ff"):
        bound, size = getattr(big, what), getattr(small, what)
        if not at_least(bound, size) and (not is_symbolic(bound, size) or at_least(size, bound + 1)):
            # symbolic sizes in no order at every size: a family's side condition states it
            raise ShapeError(f"T's {what} = {size} exceeds U's bound {bound}")
    pieces: dict[str, tuple[Piece, ...]] = {HEADER: (Piece("scale", col=HDR_SCALE),)}
    for name, _ in small.parameter_shapes():
        if name == "WO":
            pieces[name] = tuple(Piece("WO", row=h * big.d_v, src_row=h * small.d_v, rows=small.d_v)
                                 for h in range(small.heads))
        elif small.head_width(name) is not None:  # head h's columns h*w .. to columns h*W ..
            width, bound = small.head_width(name), big.head_width(name)
            pieces[name] = tuple(Piece(name, col=h * bound, src_col=h * width, cols=width)
                                 for h in range(small.heads))
        else:
            pieces[name] = (Piece(name, corner=True),)
    return pieces


def placed_blocks(big: LayerSpec, small: LayerSpec, blocks: Mapping[str, Any]) -> dict[str, Any]:
    """U's parameter blocks holding T's as :func:`embed_pieces` places them, 0 elsewhere,
    written once for every size (the head count too may be a symbol):

        corner:              U_B[i, j] = B[i, j] where i < rows(B) and j < cols(B)
        W_O, head by head:   U_WO[k, j] = WO[(k // D_v) d_v + k mod D_v, j] where k mod D_v < d_v, j < d_out
        A, V stacked:        U_A[i, j] = A[i, (j // D) d + j mod D] where i < rows(A) and j mod D < d

    (D, D_v: U's widths; d, d_v: T's; V's columns by d_v and D_v; the projected form's
    W_Q, W_K and b_Q, b_K by d_k and D_k, W_V and b_V by d_v and D_v:
    :meth:`~usim.constructions.universal.spec.LayerSpec.head_width`.) The header is not
    among them: U's header holds T's n, d and the scale.

    Args:
        big: U's LayerSpec (its bounds).
        small: T's, within them.
        blocks: T's matrices by name (sympy matrices, or symbolic ones over symbolic sizes).

    Returns:
        U's parameter blocks (X included) by name, at U's shapes.
    """
    theirs = dict(small.parameter_shapes())

    def placed(name: str, rows: Any, cols: Any) -> Any:
        t, (r, c) = blocks[name], theirs[name]
        if name == "WO":
            big_dv, dv = big.d_v, small.d_v
            return matrix_of(rows, cols, lambda k, j: when(both(k % big_dv < dv, j < c),
                                                           lambda: t[(k // big_dv) * dv + k % big_dv, j], lambda: 0))
        if small.head_width(name) is not None:
            width, bound = small.head_width(name), big.head_width(name)
            return matrix_of(rows, cols, lambda i, j: when(both(i < r, j % bound < width),
                                                           lambda: t[i, (j // bound) * width + j % bound], lambda: 0))
        return matrix_of(rows, cols, lambda i, j: when(both(i < r, j < c), lambda: t[i, j], lambda: 0))

    return {name: placed(name, rows, cols) for name, (rows, cols) in big.parameter_shapes()}


def embed(u: Universal, small: LayerSpec, values: SOp) -> SOp:
    """U's input sequence built from the compact layout of ``small`` (header fixed).

    Args:
        u: U, built for its LayerSpec's bounds.
        small: T's sizes and parts, within U's bounds.
        values: the sequence holding T's input in :func:`compact_layout`.

    Returns:
        U's input: one routing head (:func:`embed_pieces`), then the header's
        n and d fixed to T's.
    """
    layout = compact_layout(small, u.length)
    routed = route([Part(values, layout)], u.input_layout, embed_pieces(u, small), name="embed")
    return fix(routed, u.header(small.n, small.d))


def embed_arrays(u: Universal, small: LayerSpec, arrays: Mapping[str, np.ndarray], scale: float,
                 dtype=np.float64) -> np.ndarray:
    """U's input sequence (1, L) for ``small``'s matrices: the placement of
    :func:`embed`, read from the same routing table, applied to arrays.

    Args:
        u: U, built for its LayerSpec's bounds.
        small: T's sizes and parts, within U's bounds.
        arrays: T's matrices by name, at T's sizes.
        scale: c, the softmax scale (the header's third field).
        dtype: the array's element type.

    Returns:
        An array of shape (1, L), L = U's length (see the module's example).
    """
    layout = compact_layout(small, u.length)
    compact = layout.encode_numeric({"scale": np.array([[scale]]), **arrays})[0].astype(dtype)
    _, source = routing_arrays([layout], u.input_layout, embed_pieces(u, small))
    sequence = np.zeros(u.length, dtype=dtype)
    placed = source >= 0
    sequence[placed] = compact[source[placed]]
    for position, value in u.header(small.n, small.d).items():
        sequence[position] = value
    return sequence[None, :]


def simulation_program(u: Universal, small: LayerSpec | None = None) -> Program:
    """U applied to the embedding of ``small`` (default: U's own sizes).

    Args:
        u: U, built for its LayerSpec's bounds.
        small: T's sizes and parts; None: U's own.

    Returns:
        The program with one output, ``Y``: T(X), reading T's input in
        :func:`compact_layout`.
    """
    small = small or u.spec
    return Program.of(f"{u.program.name}_on_{small.tag}", {"Y": u.apply(embed(u, small, tokens))},
                      f"U for {u.spec.tag} on T of sizes {small.tag}")
