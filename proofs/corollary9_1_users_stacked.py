"""Corollary 9.1 in the users' form over a symbolic head count: PyTorch's encoder layer.

U_{N,H} over stacked heads in the projected form with biases, W_O and b_O
(:mod:`usim.proofs.theorem9_users_stacked`), then the post-norm encoder
(``LayerSpec(..., form="projected", bias=True, stacked=True, encoder=True)``):
``nn.TransformerEncoderLayer`` with ReLU and norm_first=False. Twenty stages for
every H: the attention's twelve, then the encoder's eight,

    13: Z1 = X + Attb;  14: N1 = LN1(Z1);  15: F1 = N1 W1;  16: R = max(F1 + [i < n] b1, 0);
    17: F2 = R W2;  18: F2b = F2 + [i < n] b2;  19: Z2 = N1 + F2b;  20: N2 = LN2(Z2)

Claims ``corollary9_1_users_stacked_stage1`` ... ``_stage20``: stage k for every N
and H (and n, d <= N where it reads them), on its whole workspace, every eps > 0.

Claim ``corollary9_1_users_stacked``: for every N, H and n, d, d_k, d_v <= N and
every real input with eps1, eps2 > 0, U_{N,H} run on T (n tokens of width d, H
heads of query and key width d_k and value width d_v, the encoder's parts, its
feed-forward width d) placed into its input as ``usim simulate`` places it
outputs LN2(Z + ReLU(Z W1 + 1 b1) W2 + 1 b2), Z = LN1(X + [softmax(c Q_h K_h^T)
V_h]_h W_O + 1 b_O), on its first n rows and d columns and 0 elsewhere. Bounded:
the whole program against the formula
(:func:`~usim.proofs._universal.encoder_formula`) at N, H <= 2 (34 shapes, minutes; at
N = H = 1 in ``usim prove all --quick``). For every size: the twenty
stages and their chain (:func:`~usim.proofs._stage_equation.equation_composition`),
the equation proved by the parametric engine with eps1, eps2 > 0 among its
preconditions.

Broken variants: the attention's (:mod:`usim.proofs.theorem9_users_stacked`, those
wrong only past H = 8 refuted at H = 9) and the encoder's as for Corollary 9.1 over
merged stacked heads (:mod:`usim.proofs.corollary9_1_stacked`), renumbered.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from usim.constructions.universal import LayerSpec
from usim.proofs._stage_equation import equation_claim, whole_claim
from usim.proofs._stages import UniversalFamily, stage_claims
from usim.proofs._universal import encoder_formula
from usim.proofs.corollary6_1_encoder import ENGINES
from usim.proofs.corollary9_1_stacked import encoder_broken
from usim.proofs.theorem6_stages import product_off_by_one
from usim.proofs.theorem9_users_stacked import BROKEN, PAST_EIGHT
from usim.proofs.theorem9_users_stacked import spec_of as attention_spec_of


def spec_of(n: Any, d: Any, heads: Any, d_k: Any = None, d_v: Any = None) -> LayerSpec:
    """T's layer: :func:`usim.proofs.theorem9_users_stacked.spec_of`'s (H heads of the
    users' form with biases, stacked, W_O and b_O), then the post-norm encoder
    (feed-forward width d).

    Args:
        n: the tokens.
        d: the width.
        heads: H.
        d_k: each head's query and key width (default d: U's, N).
        d_v: each head's value width (default d).

    Returns:
        T's LayerSpec.
    """
    return replace(attention_spec_of(n, d, heads, d_k, d_v), encoder=True)


FAMILY = UniversalFamily(spec_of, extra=("h",), label="U_{N,h}", placed=("d", "d_k", "d_v"))
"""U_{N,H} for the users' form over stacked heads with the encoder (T of every d, d_k, d_v <= N)."""

ENCODER_BROKEN = encoder_broken(13)
"""The broken variants of the encoder's stages 13 to 20."""

STAGE_CLAIMS, FAMILIES = stage_claims(
    "corollary9_1_users_stacked", FAMILY,
    paper="Corollary 9.1, users' form (U's stages over stacked heads, every H)",
    what="H heads of the users' form with biases stacked, W_O, b_O and the post-norm encoder",
    mutants={**BROKEN, **ENCODER_BROKEN}, bounded_mutants=product_off_by_one(11, "Att"),
    all_sizes_mutants=PAST_EIGHT, engines=ENGINES, default_max_n=2, ci_max_n=2, category="our statement",
    notes="the stage on its whole workspace (scratch included); header n and d set by the stage; "
          "H a dimension; eps1, eps2 > 0")

CLAIM = whole_claim(
    "corollary9_1_users_stacked", FAMILY, encoder_formula,
    paper="Corollary 9.1, users' form (every H, every n, d, d_k, d_v <= N)",
    title="U over stacked heads simulates PyTorch's post-norm encoder layer (H heads of the users' form with "
          "biases, W_O, b_O, ReLU feed-forward), for every H and every n, d, d_k, d_v <= N: one RASP program "
          "U_{N,H} per N and H",
    statement=(
        "For every N, H and n, d, d_k, d_v <= N, the one RASP program U_{N,H} (built for N x N, H heads of the "
        "users' form with biases, of query, key and value width N, stacked, W_O, b_O and the encoder parts): "
        "for every real input with eps1, eps2 > 0 (X n x d; W_Q = [W_Q0 | ... | W_Q{H-1}] and W_K d x H d_k, "
        "W_V d x H d_v, b_Q, b_K 1 x H d_k, b_V 1 x H d_v; W_O H d_v x d; b_O 1 x d; W1, W2 d x d; b1, b2, g1, "
        "be1, g2, be2 1 x d), U_{N,H} run on it placed into its input as usim simulate places it (each block "
        "in the top-left corner of its room, head h's columns of W_Q, W_K, W_V and their biases at columns "
        "h N .., head h's rows of W_O at rows h N ..; 0 elsewhere; the header [n, d, c]) outputs "
        "LN2(Z + ReLU(Z W1 + 1 b1) W2 + 1 b2) with Z = LN1(X + [softmax(c Q_h K_h^T) V_h]_h W_O + 1 b_O), "
        "Q_h = X W_Qh + 1 b_Qh, K_h and V_h likewise, in its first n rows and d columns and 0 elsewhere. "
        "Shapes N x H x n x d x d_k x d_v: the whole program at N and H."),
    engines=ENGINES, default_max_n=2, ci_max_n=1, category="our statement",
    notes="torch's nn.TransformerEncoderLayer (post-norm, ReLU, feed-forward width d); T of every n, d, d_k, "
          "d_v <= N placed head by head; for every size its twenty stages and the equation that composes them "
          "(proofs/_stage_equation.py)")

COROLLARY9_1_USERS_STACKED = equation_claim(CLAIM, FAMILY, FAMILIES, encoder_formula)
"""Corollary 9.1 in the users' form for every N, H and n, d, d_k, d_v <= N: the twenty stages and their
composition."""

CLAIMS = [CLAIM, *STAGE_CLAIMS]
COMPOSED = (COROLLARY9_1_USERS_STACKED,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(*(c.id for c in CLAIMS))
