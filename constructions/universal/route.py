"""The paper's routes: T written as steps over named matrices.

Theorem 6 computes one merged head as the paper does, block by block:

    XT = X^T;  Y1 = X A;  Y2 = Y1 XT;  P = softmax(c Y2);  Y4 = X V;  O = P Y4

(:func:`theorem6_route`). The users' (projected) form computes Q = X W_Q
(+ b_Q), K, V the same way and O = softmax(c Q K^T) V. Theorem 9 runs one
such route per head, concatenates the heads and applies W_O (+ b_O)
(:func:`theorem9_route`). Corollaries 6.1 and 9.1 follow the attention with the
post-norm encoder: Z = LN1(X + Att), out = LN2(Z + ReLU(Z W1 + b1) W2 + b2),
each part switchable in the :class:`LayerSpec` (:func:`encoder_route`).
:func:`route_of` picks the route a LayerSpec describes.

Example: Theorem 6's route for one merged head.

>>> from usim.constructions.universal.spec import spec_for
>>> spec = spec_for({"X": (2, 1), "A": (1, 1), "V": (1, 1)})
>>> [step.describe() for step in route_of(spec).steps]
['XT = transpose(X)', 'Y1 = X A', 'Y2 = Y1 XT', 'P = softmax(Y2)', 'Y4 = X V', 'O = P Y4']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from usim.constructions.universal.kinds import Step
from usim.constructions.universal.spec import LayerSpec


@dataclass(frozen=True)
class Route:
    """Steps in data-flow order, and the name of the result. ``room``: positions U's
    sequence keeps past its input's blocks (0: none asked), so that the input
    workspace and this room are at least every workspace at every size: the
    stacked route's product Z (H n x H d_v) outgrows the input from H = 3 on, and
    at H = 1 it does not, so neither is the longest for every H without it."""

    steps: tuple[Step, ...]
    result: str
    room: Any = 0


def attention_head_route(spec: LayerSpec, h: int) -> tuple[list[Step], str]:
    """One head: its steps (X^T is shared, made by the caller) and its output's name.

    Args:
        spec: the layer's bounds and parts (its form: merged or projected,
            with or without biases).
        h: the head's index (its blocks' suffix when H > 1).

    Returns:
        (the head's steps in data-flow order, the name of its output O).
    """
    name = lambda base: spec.head(base, h)  # noqa: E731
    if spec.form == "merged":
        return [Step(name("Y1"), "matmul", ("X", name("A"))),
                Step(name("Y2"), "matmul", (name("Y1"), "XT")),
                Step(name("P"), "softmax", (name("Y2"),)),
                Step(name("Y4"), "matmul", ("X", name("V"))),
                Step(name("O"), "matmul", (name("P"), name("Y4")))], name("O")
    q, k, v = name("Q"), name("K"), name("Vp")
    steps = [Step(q, "matmul", ("X", name("WQ"))),
             Step(k, "matmul", ("X", name("WK"))),
             Step(v, "matmul", ("X", name("WV")))]
    if spec.bias:
        steps += [Step(q + "b", "bias", (q, name("bQ"))),
                  Step(k + "b", "bias", (k, name("bK"))),
                  Step(v + "b", "bias", (v, name("bV")))]
        q, k, v = q + "b", k + "b", v + "b"
    steps += [Step(name("KT"), "transpose", (k,)),
              Step(name("S"), "matmul", (q, name("KT"))),
              Step(name("P"), "softmax", (name("S"),)),
              Step(name("O"), "matmul", (name("P"), v))]
    return steps, name("O")


def stacked_heads_route(spec: LayerSpec) -> tuple[list[Step], str]:
    """The H merged heads at once, stacked (one list of steps for every H):

        Y1 = X [A_0 | ... | A_{H-1}]            (n x H d)
        S1 = stack(Y1) = [X A_0; ...; X A_{H-1}]  (H n x d)
        Y2 = S1 X^T                               (H n x n: head h's scores at rows h n ..)
        P  = stacked_softmax(Y2)                  (each head's row softmax of c Y2_h)
        Y4 = X [V_0 | ... | V_{H-1}]            (n x H d_v)
        Z  = P Y4                                 (H n x H d_v: its blocks are P_g X V_h)
        C  = diagonal(Z) = [P_0 X V_0 | ... | P_{H-1} X V_{H-1}]   (n x H d_v)

    so C is the heads' outputs concatenated. The stack and the diagonal blocks are
    one routing head each, their source a formula in H (claims ``head_slicing`` and
    ``head_diagonal_blocks``); the softmax is ``stacked_softmax``'s block.

    Args:
        spec: the layer's bounds and parts (merged form, heads stacked).

    Returns:
        (the steps, X^T's included, in data-flow order; the name of C).
    """
    h, n, d, dv = spec.heads, spec.n, spec.d, spec.d_v
    return [Step("XT", "transpose", ("X",)),
            Step("Y1", "matmul", ("X", "A")),
            Step("S1", "stack", ("Y1",), (h, n, d)),
            Step("Y2", "matmul", ("S1", "XT")),
            Step("P", "stacked_softmax", ("Y2",)),
            Step("Y4", "matmul", ("X", "V")),
            Step("Z", "matmul", ("P", "Y4")),
            Step("C", "diagonal", ("Z",), (h, n, dv))], "C"


def stacked_projected_route(spec: LayerSpec) -> tuple[list[Step], str]:
    """The H heads of the users' form at once, stacked (one list of steps for every H),
    W_Q = [W_Q0 | ... | W_Q{H-1}] (d x H d_k) and W_K, W_V, the biases likewise:

        Q = X W_Q;  K = X W_K;  Vp = X W_V                     (n x H d_k, n x H d_v)
        Qb, Kb, Vpb = Q, K, Vp + 1 b on rows i < n           (with biases)
        SQ = stack(Qb) = [Q_0; ...; Q_{H-1}];  SK = stack(Kb)  (H n x d_k)
        KT = SK^T = [K_0^T | ... | K_{H-1}^T]                  (d_k x H n)
        G  = SQ KT                                  (H n x H n: its blocks Q_g K_h^T)
        D  = diagonal(G) = [Q_0 K_0^T | ... | Q_{H-1} K_{H-1}^T]   (n x H n)
        S  = stack(D) = [Q_0 K_0^T; ...; Q_{H-1} K_{H-1}^T]    (H n x n)
        P  = stacked_softmax(S)                     (each head's row softmax of c S_h)
        Z  = P Vpb                                  (H n x H d_v: its blocks P_g V_h)
        C  = diagonal(Z) = [P_0 V_0 | ... | P_{H-1} V_{H-1}]   (n x H d_v)

    Every step is a kind the merged route uses (or Theorem 6's users' form: the
    bias); the scores' two routing heads (diagonal, then stack) take head h's own
    block Q_h K_h^T out of the product of every head's queries with every head's keys.

    Args:
        spec: the layer's bounds and parts (projected form, heads stacked).

    Returns:
        (the steps in data-flow order; the name of C).
    """
    h, n, dk, dv = spec.heads, spec.n, spec.d_k, spec.d_v
    q, k, v = "Q", "K", "Vp"
    steps = [Step(q, "matmul", ("X", "WQ")), Step(k, "matmul", ("X", "WK")), Step(v, "matmul", ("X", "WV"))]
    if spec.bias:
        steps += [Step(q + "b", "bias", (q, "bQ")), Step(k + "b", "bias", (k, "bK")),
                  Step(v + "b", "bias", (v, "bV"))]
        q, k, v = q + "b", k + "b", v + "b"
    return steps + [Step("SQ", "stack", (q,), (h, n, dk)),
                    Step("SK", "stack", (k,), (h, n, dk)),
                    Step("KT", "transpose", ("SK",)),
                    Step("G", "matmul", ("SQ", "KT")),
                    Step("D", "diagonal", ("G",), (h, n, n)),
                    Step("S", "stack", ("D",), (h, n, n)),
                    Step("P", "stacked_softmax", ("S",)),
                    Step("Z", "matmul", ("P", v)),
                    Step("C", "diagonal", ("Z",), (h, n, dv))], "C"


def theorem9_route(spec: LayerSpec) -> Route:
    """H heads side by side, concatenated, then W_O (+ b_O) where the LayerSpec has it.
    With the heads stacked, :func:`stacked_heads_route` (merged form) or
    :func:`stacked_projected_route` makes all H heads' outputs, concatenated, in one
    list of steps.

    Args:
        spec: the layer's bounds and parts.

    Returns:
        The route of the attention layer (Theorem 9; Theorem 6 when H = 1).
    """
    room = 0
    if spec.stacked:
        steps, att = (stacked_projected_route if spec.form == "projected" else stacked_heads_route)(spec)
        room = spec.heads * spec.n * spec.heads * spec.d_v  # Z's entries
        if spec.form == "projected":  # and G's
            room += spec.heads * spec.n * spec.heads * spec.n
    else:
        steps, att = _heads_one_by_one(spec)
    if spec.out_proj:
        steps.append(Step("Att", "matmul", (att, "WO")))
        att = "Att"
        if spec.bias:
            steps.append(Step("Attb", "bias", (att, "bO")))
            att = "Attb"
    return Route(tuple(steps), att, room)


def _heads_one_by_one(spec: LayerSpec) -> tuple[list[Step], str]:
    """X^T, each head's steps (:func:`attention_head_route`), and their concatenation."""
    steps: list[Step] = [Step("XT", "transpose", ("X",))] if spec.form == "merged" else []
    outputs = []
    for h in range(spec.heads):
        head_steps, out = attention_head_route(spec, h)
        steps += head_steps
        outputs.append(out)
    if spec.heads == 1:
        return steps, outputs[0]
    return steps + [Step("C", "concat", tuple(outputs))], "C"


def theorem6_route(spec: LayerSpec) -> Route:
    """One head: X^T, X A, (X A) X^T, softmax, X V, and the product of the two.

    Args:
        spec: the layer's bounds and parts (one head).

    Returns:
        The route of Theorem 6 (Theorem 9's route with one head).
    """
    return theorem9_route(spec)


def encoder_route(spec: LayerSpec) -> Route:
    """The attention's route, then the post-norm encoder's steps.

    Args:
        spec: the layer's bounds and parts (residuals, norms and the
            feed-forward biases each switchable).

    Returns:
        The route of Corollary 6.1 (one head) or 9.1.
    """
    attention = theorem9_route(spec)
    steps = list(attention.steps)
    z = attention.result
    if spec.residual:
        steps.append(Step("Z1", "add", ("X", z)))
        z = "Z1"
    if spec.norm:
        steps.append(Step("N1", "layernorm", (z, "g1", "be1", "eps1")))
        z = "N1"
    steps.append(Step("F1", "matmul", (z, "W1")))
    steps.append(Step("R", "bias_relu", ("F1", "b1")) if spec.ffn_bias else Step("R", "relu", ("F1",)))
    steps.append(Step("F2", "matmul", ("R", "W2")))
    f = "F2"
    if spec.ffn_bias:
        steps.append(Step("F2b", "bias", ("F2", "b2")))
        f = "F2b"
    if spec.residual:
        steps.append(Step("Z2", "add", (z, f)))
        f = "Z2"
    if spec.norm:
        steps.append(Step("N2", "layernorm", (f, "g2", "be2", "eps2")))
        f = "N2"
    return Route(tuple(steps), f, attention.room)


def route_of(spec: LayerSpec) -> Route:
    """The route the LayerSpec describes: Theorem 6 or 9, with the encoder of
    Corollary 6.1 or 9.1 when the LayerSpec has one.

    Args:
        spec: the layer's bounds and parts.

    Returns:
        :func:`encoder_route` for an encoder, else :func:`theorem9_route`.
    """
    return encoder_route(spec) if spec.encoder else theorem9_route(spec)
