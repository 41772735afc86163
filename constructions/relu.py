"""ReLU as an element-wise map: no attention at all.

Input: a sequence x_0 .. x_{n-1} (laid out as a 1 x n matrix ``x``).
Output: y_p = max(x_p, 0) at every position p (a 1 x n matrix ``y``).

The paper's feed-forward layers (Corollaries 6.1 and 9.1) use ReLU as an
element-wise map, which in RASP costs no attention layer: it is the MLP part of a
transformer layer. The program is ``maximum(tokens, 0)``; a one-neuron ReLU MLP
computes it exactly, so here (unlike products of two sequences) nothing is
approximated. Cost: 0 attention layers, 1 element-wise operation.
"""

from __future__ import annotations

from usim.constructions.base import Construction
from usim.encodings.layout import SequenceLayout
from usim.rasp.expr import SOp, maximum, tokens
from usim.rasp.program import Program


def relu_block(values: SOp) -> SOp:
    """max(values, 0), position by position (no head).

    Args:
        values: the sequence x.

    Returns:
        The element-wise map ``relu``: max(x_p, 0) at every p.
    """
    return maximum(values, 0).named("relu")


def relu_program() -> Program:
    """ReLU of the tokens: no attention layer.

    Returns:
        The program with one output, ``relu``.

    >>> from usim.encodings import run_exact
    >>> run_exact(relu_program(), [-1, 2])
    {'relu': [0, 2]}
    """
    return Program.of("relu", {"relu": relu_block(tokens)}, "ReLU: max(x, 0) at every position")


def sequence_layouts(n: int, source: str = "x", target: str = "y") -> tuple[SequenceLayout, SequenceLayout]:
    """The input and output layouts of a sequence-to-sequence map of length n.

    Args:
        n: the sequence length.
        source: the name of the input block (1 x n).
        target: the name of the output block (1 x n).

    Returns:
        (input layout, output layout).
    """
    return SequenceLayout.of((source, (1, n))), SequenceLayout.of((target, (1, n)))


def relu_construction(n: int) -> Construction:
    """ReLU on a sequence of length n, as a construction.

    Args:
        n: the sequence length.

    Returns:
        The construction reading x (1 x n) and writing y (1 x n): 0 attention
        layers.
    """
    layout_in, layout_out = sequence_layouts(n)
    return Construction(
        name=f"relu n={n}",
        program=relu_program(),
        input_layout=layout_in,
        output_layout=layout_out,
        notes="element-wise map; no attention",
    )
