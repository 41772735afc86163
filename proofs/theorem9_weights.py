"""Theorem 9 at the weight level, in the form PyTorch's MultiheadAttention computes.

Claim ``theorem9_weights``, for every n, d <= N and H <= 2 heads dividing d,
and part k (see :mod:`usim.proofs._weights`): U built for the projected form
with biases and W_O (per head Q = X W_Q + 1 b_Q, K, V likewise, d_k = d_v =
d / H; the heads concatenated, then W_O and b_O: exactly
``torch.nn.MultiheadAttention``), its header's n and d fixed, compiled into
one network; given <[n, d, c], X, the W's and b's> it outputs
[softmax(c Q_h K_h^T) V_h]_h W_O + 1 b_O then 0 (part 0), U's output at every
position (part 1), and the same under softmax attention with masks (part 2:
the network the PyTorch module of :mod:`usim.transformer.network_to_torch`
runs). c is read from the header (1/sqrt(d_k) for PyTorch) and is a real
symbol in the proof.

Broken networks (must be REFUTED): as Theorem 6's.
"""

from __future__ import annotations

from usim.constructions.universal import LayerSpec
from usim.proofs._weights import universal_mutants, universal_source, weights_claim

MAX_HEADS = 2


def sizes(n: int) -> list[tuple[int, int, int]]:
    """(n, d, H) with n, d <= N, H <= 2 and H dividing d (d_k = d / H)."""
    return [(a, b, h) for a in range(1, n + 1) for b in range(1, n + 1)
            for h in range(1, min(MAX_HEADS, n) + 1) if b % h == 0]


def torch_spec(size: tuple[int, ...]) -> LayerSpec:
    n, d, heads = size
    return LayerSpec(n, d, heads=heads, form="projected", d_k=d // heads, d_v=d // heads, bias=True,
                out_proj=True, d_out=d)


CLAIM = weights_claim(
    "theorem9_weights",
    source=universal_source("theorem9_weights", torch_spec),
    base="theorem9",
    shapes=sizes,
    mutants=universal_mutants(),
    paper="Theorem 9 (weights)",
    title="U for torch's MultiheadAttention (projections, biases, H heads, W_O) compiled to weights",
    statement=(
        "For every n, d <= N and H <= 2 dividing d, the network compiled from U (projected form with "
        "biases, H heads of width d/H, W_O and b_O; header n, d fixed) outputs, for every real X, W_Q, "
        "W_K, W_V, b_Q, b_K, b_V, W_O, b_O and c: multi-head attention as torch.nn.MultiheadAttention "
        "computes it with scale c (part 0), U's output at every position (part 1), and the same under "
        "softmax attention with masks (part 2)."
    ),
    default_max_n=2,
    ci_max_n=2,
    engines=("sympy",),
    notes="projected form with biases and W_O; scale from the header; z3 (--engine z3) proves some "
          "shapes in a second and times out on others, so the claim lists sympy",
)

CLAIMS = (CLAIM,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id)
