"""Corollary 9.1 over a symbolic head count: U over stacked heads, then the post-norm encoder.

U_{N,H} over stacked heads with the encoder's parts (``LayerSpec(..., stacked=True,
encoder=True)``) is fifteen stages for every H: Theorem 9's seven over stacked heads
(:mod:`usim.proofs.theorem9_stacked`), then the encoder's eight,

    8: Z1 = X + Att;  9: N1 = LN1(Z1);  10: F1 = N1 W1;  11: R = max(F1 + [i < n] b1, 0);
    12: F2 = R W2;  13: F2b = F2 + [i < n] b2;  14: Z2 = N1 + F2b;  15: N2 = LN2(Z2)

Claims ``corollary9_1_stacked_stage1`` ... ``_stage15``: stage k for every N and H
(and n, d <= N where it reads them: the header's n in the softmax and the biases,
n and d in the layer norms, over the first d columns), on its whole workspace,
every eps > 0.

Claim ``corollary9_1_stacked``: for every N, H and n, d, d_v <= N and every real
input with eps1, eps2 > 0, U_{N,H} run on T (n tokens of width d, H heads of value
width d_v, the encoder's parts) placed into its input as ``usim simulate`` places it (each block in the
top-left corner of U's, head h's A_h and V_h at columns h N .., its rows of W_O at
rows h N ..; 0 elsewhere; the header [n, d, c]) outputs LN2(Z + ReLU(Z W1 + 1 b1)
W2 + 1 b2), Z = LN1(X + [softmax(c X A_h X^T) X V_h]_h W_O), on its first n rows and
d columns and 0 elsewhere. Bounded: the whole program against the formula
(:func:`~usim.proofs._universal.encoder_formula`). For every size: the fifteen
stages and their chain (:func:`~usim.proofs._stage_equation.equation_composition`),
whose equation, the stages' meanings composed on T placed = the formula
zero-padded, the parametric engine proves with the layer norms' eps > 0 among its
preconditions.

T's feed-forward width is d (d_ff = d). Broken variants: the attention's as for
Theorem 9 over stacked heads (those wrong only past H = 8 refuted at H = 9), the
residual's addend one position too far (stages 8 and 14), a layer norm keeping the
rows past n (stages 9 and 15), a bias added on the padded rows too (11 and 13), a
product's routing one position too far (10 and 12); the bounded claim's, U writing
its result one position too far (``misplaced-result``).
"""

from __future__ import annotations

from typing import Any

from usim.constructions.universal import LayerSpec
from usim.proofs._stage_equation import equation_claim, whole_claim
from usim.proofs._stages import UniversalFamily, stage_claims
from usim.proofs._universal import encoder_formula
from usim.proofs.corollary6_1_encoder import ENGINES
from usim.proofs.theorem6_stages import bias_on_every_row, misplaced
from usim.proofs.theorem9_stacked import ATTENTION_BOUNDED, ATTENTION_BROKEN, ATTENTION_PAST_EIGHT
from usim.rasp.expr import indices


def spec_of(n: Any, d: Any, heads: Any, d_v: Any = None) -> LayerSpec:
    """T's layer.

    Args:
        n: the tokens.
        d: the width.
        heads: H.
        d_v: each head's value width (default d: U's, N).

    Returns:
        H merged heads of value width d_v, stacked, with W_O (H d_v x d), then the post-norm encoder.
    """
    return LayerSpec(n, d, heads=heads, d_v=d if d_v is None else d_v, out_proj=True, stacked=True, encoder=True)


FAMILY = UniversalFamily(spec_of, extra=("h",), label="U_{N,h}", placed=("d", "d_v"))
"""U_{N,H} over stacked heads with the encoder; its layer norms read the header's d (T of every width d <= N)."""


def rows_past_n_kept(stage: int, out: str):
    """Broken variant: the layer norm of ``stage`` (its result ``out``) keeping the rows past n."""
    return lambda *sizes: {f"s{stage}.{out}.kept_entry": lambda node: indices >= 0}


def encoder_broken(first: int) -> dict[int, dict]:
    """The broken variants of the encoder's eight stages, the first of them stage ``first``:
    the residual's addend one position too far, a layer norm keeping the rows past n, a
    product's routing one position too far, a bias on the padded rows too."""
    k = range(first, first + 8)
    return {k[0]: {"misplaced-addend": misplaced(f"s{k[0]}.Z1.addend")},
            k[1]: {"rows-past-n-kept": rows_past_n_kept(k[1], "N1")},
            k[2]: {"misplaced-block": misplaced(f"s{k[2]}.route.1")},
            k[3]: {"bias-on-every-row": bias_on_every_row(k[3], "R")},
            k[4]: {"misplaced-block": misplaced(f"s{k[4]}.route.1")},
            k[5]: {"bias-on-every-row": bias_on_every_row(k[5], "F2b")},
            k[6]: {"misplaced-addend": misplaced(f"s{k[6]}.Z2.addend")},
            k[7]: {"rows-past-n-kept": rows_past_n_kept(k[7], "N2")}}


ENCODER_BROKEN = encoder_broken(8)
"""The broken variants of the encoder's stages 8 to 15."""

STAGE_CLAIMS, FAMILIES = stage_claims(
    "corollary9_1_stacked", FAMILY, paper="Corollary 9.1 (U's stages over stacked heads, every H)",
    what="H merged heads stacked, W_O and the post-norm encoder",
    mutants={**ATTENTION_BROKEN, **ENCODER_BROKEN}, bounded_mutants=ATTENTION_BOUNDED,
    all_sizes_mutants=ATTENTION_PAST_EIGHT, engines=ENGINES, default_max_n=2, ci_max_n=2,
    category="our statement",
    notes="the stage on its whole workspace (scratch included); header n and d set by the stage; "
          "H a dimension; eps1, eps2 > 0")

CLAIM = whole_claim(
    "corollary9_1_stacked", FAMILY, encoder_formula,
    paper="Corollary 9.1 (every H, every n, d, d_v <= N)",
    title="U over stacked heads simulates the post-norm encoder layer with H heads and W_O, for every H and "
          "every n, d, d_v <= N: one RASP program U_{N,H} per N and H",
    statement=(
        "For every N, H and n, d, d_v <= N, the one RASP program U_{N,H} (built for N x N, H merged heads of "
        "value width N stacked, W_O and the encoder parts): for every real input with eps1, eps2 > 0 (X n x d; "
        "A = [A_0 | ... | A_{H-1}] d x H d, V likewise d x H d_v; W_O H d_v x d; W1, W2 d x d; b1, b2, g1, be1, "
        "g2, be2 1 x d), U_{N,H} run on it placed into its input as usim simulate places it (each block in the "
        "top-left corner of U's, head h's A_h and V_h at columns h N .., its rows of W_O at rows h N ..; 0 "
        "elsewhere; the header [n, d, c]) outputs LN2(Z + ReLU(Z W1 + 1 b1) W2 + 1 b2) with "
        "Z = LN1(X + [softmax(c X A_h X^T) X V_h]_h W_O) in its first n rows and d columns and 0 elsewhere. "
        "Shapes N x H x n x d x d_v: the whole program at N and H."),
    engines=ENGINES, default_max_n=2, ci_max_n=2, category="our statement",
    notes="merged heads stacked, W_O, post-norm encoder; T of every n, d, d_v <= N placed head by head; "
          "for every size its fifteen stages and the equation that composes them (proofs/_stage_equation.py)")

COROLLARY9_1_STACKED = equation_claim(CLAIM, FAMILY, FAMILIES, encoder_formula)
"""Corollary 9.1 for every N, every H and every n, d, d_v <= N: the fifteen stages and their composition."""

CLAIMS = [CLAIM, *STAGE_CLAIMS]
COMPOSED = (COROLLARY9_1_STACKED,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(*(c.id for c in CLAIMS))
