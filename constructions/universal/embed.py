"""Placing a smaller T into U's input (the hierarchy), in RASP and in numpy.

U built for bounds N, D, ... takes a smaller T zero-padded: every matrix goes
to the top-left corner of U's block of the same name, W_O per head (rows h*d_v
of T's W_O to rows h*D_v of U's), and the scale c into the header; the header's
n and d are T's. :func:`embed_pieces` states that placement once, as routing
pieces; :func:`embed` is it in RASP (the hierarchy's proofs run U on it) and
:func:`embed_arrays` the same placement applied to numpy arrays (``usim
simulate``), both read from the one routing table
(:func:`usim.constructions.routing.routing_table`).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from usim.constructions.routing import Part, Piece, fix, route, routing_table
from usim.constructions.universal.schedule import Universal
from usim.constructions.universal.spec import HDR_SCALE, HEADER, Spec
from usim.encodings.layout import SequenceLayout
from usim.errors import ShapeError
from usim.rasp.expr import SOp, tokens
from usim.rasp.program import Program


def compact_layout(spec: Spec, length: int) -> SequenceLayout:
    """<scale (1 x 1), X, T's matrices> at T's own sizes, padded to ``length``."""
    return SequenceLayout.of(("scale", (1, 1)), *spec.parameter_shapes(), length=length)


def embed_pieces(u: Universal, small: Spec) -> dict[str, tuple[Piece, ...]]:
    """Where each matrix of ``small`` goes in U's (zero-padded) input blocks."""
    big = u.spec
    if small.heads != big.heads or small.form != big.form or small.bias != big.bias \
            or small.encoder != big.encoder or small.out_proj != big.out_proj \
            or (small.encoder and (small.residual, small.norm, small.ffn_bias)
                != (big.residual, big.norm, big.ffn_bias)):
        raise ShapeError("a smaller T must have the same parts as U's (form, heads, bias, encoder)")
    for what in ("n", "d", "d_k", "d_v", "d_out", "d_ff"):
        if getattr(small, what) > getattr(big, what):
            raise ShapeError(f"T's {what} = {getattr(small, what)} exceeds U's bound {getattr(big, what)}")
    pieces: dict[str, tuple[Piece, ...]] = {HEADER: (Piece("scale", col=HDR_SCALE),)}
    for name, _ in small.parameter_shapes():
        if name == "WO":
            pieces[name] = tuple(Piece("WO", row=h * big.d_v, src_row=h * small.d_v, rows=small.d_v)
                                 for h in range(small.heads))
        else:
            pieces[name] = (Piece(name),)
    return pieces


def embed(u: Universal, small: Spec, values: SOp) -> SOp:
    """U's input sequence built from the compact layout of ``small`` (header fixed)."""
    layout = compact_layout(small, u.length)
    routed = route([Part(values, layout)], u.input_layout, embed_pieces(u, small), name="embed")
    return fix(routed, u.header(small.n, small.d))


def embed_arrays(u: Universal, small: Spec, arrays: Mapping[str, np.ndarray], scale: float,
                 dtype=np.float64) -> np.ndarray:
    """U's input sequence (1, L) for ``small``'s matrices: the placement of
    :func:`embed`, read from the same routing table, applied to arrays."""
    layout = compact_layout(small, u.length)
    compact = layout.encode_numeric({"scale": np.array([[scale]]), **arrays})[0].astype(dtype)
    table = routing_table([layout], u.input_layout, embed_pieces(u, small))
    sequence = np.zeros(u.length, dtype=dtype)
    for p, entry in enumerate(table):
        if entry is not None:
            sequence[p] = compact[entry[1]]
    for position, value in u.header(small.n, small.d).items():
        sequence[position] = value
    return sequence[None, :]


def simulation_program(u: Universal, small: Spec | None = None) -> Program:
    """U applied to the embedding of ``small`` (default: U's own sizes)."""
    small = small or u.spec
    return Program.of(f"{u.program.name}_on_{small.tag}", {"Y": u.apply(embed(u, small, tokens))},
                      f"U for {u.spec.tag} on T of sizes {small.tag}")
