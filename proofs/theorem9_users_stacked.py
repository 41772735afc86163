"""Theorem 9 in the users' form over a symbolic head count: PyTorch's multi-head attention.

U over stacked heads in the projected form with biases
(:func:`usim.constructions.universal.route.stacked_projected_route`) has one list
of steps for every H. T's W_Q = [W_Q0 | ... | W_Q{H-1}] (d x H d_k), W_K likewise,
W_V (d x H d_v) and the biases b_Q, b_K, b_V side by side (torch's in_proj,
transposed), then W_O (H d_v x d) and b_O: ``nn.MultiheadAttention``. Its twelve
stages, for U_{N,H} built for N x N (d_k = d_v = N):

    1. Q = X W_Q;  K = X W_K;  Vp = X W_V                       (N x H N)
    2. Qb, Kb, Vpb = Q, K, Vp + 1 b on rows i < n (the header's n)
    3. SQ = stack(Qb) = [Q_0; ...; Q_{H-1}];  SK = stack(Kb)      (one routing head each)
    4. KT = SK^T = [K_0^T | ... | K_{H-1}^T]                      (N x H N)
    5. G = SQ KT                                   (H N x H N: its blocks Q_g K_h^T)
    6. D = diagonal(G) = [Q_0 K_0^T | ... | Q_{H-1} K_{H-1}^T]   (one routing head)
    7. S = stack(D)                                (H N x N: head h's scores at rows h N ..)
    8. P = stacked_softmax(c S)                    (each head's keys and rows >= n masked)
    9. Z = P Vpb                                   (H N x H N: its blocks P_g V_h)
    10. C = diagonal(Z) = [P_0 V_0 | ... | P_{H-1} V_{H-1}]
    11. Att = C W_O
    12. Attb = Att + 1 b_O on rows i < n

Claims ``theorem9_users_stacked_stage1`` ... ``_stage12``: stage k of U_{N,H} for
every N, H (and 1 <= n <= N where it reads n), on its whole workspace, against its
steps' masked meanings (:func:`usim.proofs._stages.stage_claims`).

Claim ``theorem9_users_stacked`` composes them: for every N, H and n, d, d_k,
d_v <= N, U_{N,H} run on T placed into its input as ``usim simulate`` places it
(X, W_Q, ... in the top-left corners of their rooms, head h's columns of W_Q, W_K,
b_Q, b_K at columns h N .. and of W_V, b_V likewise, head h's rows of W_O at rows
h N ..; 0 elsewhere; the header [n, d, c]) outputs
[softmax(c Q_0 K_0^T) V_0 | ... | softmax(c Q_{H-1} K_{H-1}^T) V_{H-1}] W_O + 1 b_O,
Q_h = X W_Qh + 1 b_Qh and K_h, V_h likewise, on its first n rows and d columns,
and 0 elsewhere. The scale c (torch's 1 / sqrt(d_k)) is read from the header: a
real symbol in the proof, exact for every d_k. Bounded: the whole program against
the formula at N, H <= the bound and every n, d, d_k, d_v <= N. For every size:
the twelve stages and the equation that composes them
(:mod:`usim.proofs._stage_equation`), proved by the parametric engine (the sums
over H N keys summed head by head).

Broken variants: each stage's routing one position too far (bounded and for every
size), a bias added on the padded rows too (stages 2 and 12), the product's
routing off by one in stage 11 (bounded); and those only the proof for every size
catches (every bounded check up to N = H = 8 passes them), each refuted at H = 9:
the head index of a routing head taken mod 8 (stages 3, 6, 7 and 10) and every
row of a head h >= 8 set to 0 by the softmax (stage 8).
"""

from __future__ import annotations

from typing import Any

from usim.constructions.universal import LayerSpec
from usim.proofs._stage_equation import equation_claim, whole_claim
from usim.proofs._stages import UniversalFamily, stage_claims
from usim.proofs._universal import attention_formula
from usim.proofs.theorem6_attention import ENGINES
from usim.proofs.theorem6_stages import bias_on_every_row, misplaced, product_off_by_one
from usim.proofs.theorem9_stacked import HEADS_WRAP, heads_mod
from usim.rasp.expr import indices


def spec_of(n: Any, d: Any, heads: Any, d_k: Any = None, d_v: Any = None) -> LayerSpec:
    """T's layer.

    Args:
        n: the tokens.
        d: the width.
        heads: H.
        d_k: each head's query and key width (default d: U's, N).
        d_v: each head's value width (default d).

    Returns:
        H heads of the users' form with biases, stacked, with W_O (H d_v x d) and b_O.
    """
    return LayerSpec(n, d, heads=heads, form="projected", d_k=d if d_k is None else d_k,
                     d_v=d if d_v is None else d_v, bias=True, out_proj=True, stacked=True)


FAMILY = UniversalFamily(spec_of, extra=("h",), label="U_{N,h}", placed=("d", "d_k", "d_v"))
"""U_{N,H} for the users' form over stacked heads; composed for T of every d, d_k, d_v <= N."""


def heads_past_zeroed(N: Any, h: Any, n: Any) -> dict:
    """Broken variant of stage 8: every row of a head h >= 8 set to 0 (S sits at 0)."""
    return {"s8.P.row_ok": lambda node: node & (indices < HEADS_WRAP * N * N)}


BROKEN = {1: {"misplaced-block": misplaced("s1.route.3")}, 2: {"bias-on-every-row": bias_on_every_row(2, "Qb")},
          3: {"off-by-one": misplaced("s3.SK.slice")}, 4: {"misplaced-block": misplaced("s4.route.1")},
          5: {"misplaced-block": misplaced("s5.route.1")}, 6: {"off-by-one": misplaced("s6.D.diagonal")},
          7: {"off-by-one": misplaced("s7.S.slice")}, 8: {"misplaced-block": misplaced("s8.route.1")},
          9: {"misplaced-block": misplaced("s9.route.1")}, 10: {"off-by-one": misplaced("s10.C.diagonal")},
          12: {"bias-on-every-row": bias_on_every_row(12, "Attb")}}
"""Broken variants refuted by the bounded claims and for every size."""

PAST_EIGHT = {3: {"heads-mod-8": heads_mod(3, "SQ")}, 6: {"heads-mod-8": heads_mod(6, "D")},
              7: {"heads-mod-8": heads_mod(7, "S")}, 8: {"heads-past-8-zeroed": heads_past_zeroed},
              10: {"heads-mod-8": heads_mod(10, "C")}}
"""Broken variants only the proof for every size catches: right for every H <= 8."""

CLAIMS, FAMILIES = stage_claims(
    "theorem9_users_stacked", FAMILY, paper="Theorem 9, users' form (U's stages over stacked heads, every H)",
    what="H heads of the users' form with biases stacked, W_O and b_O", mutants=BROKEN,
    bounded_mutants=product_off_by_one(11, "Att"), all_sizes_mutants=PAST_EIGHT,
    engines=ENGINES, default_max_n=2, ci_max_n=2, category="our statement",
    notes="the stage on its whole workspace (scratch included); header n set by the stage; H a dimension")

CLAIM = whole_claim(
    "theorem9_users_stacked", FAMILY, attention_formula,
    paper="Theorem 9, users' form (every H, every n, d, d_k, d_v <= N)",
    title="U over stacked heads simulates PyTorch's multi-head attention, [softmax(c Q_h K_h^T) V_h]_h W_O + 1 b_O "
          "with Q_h = X W_Qh + 1 b_Qh, for every H and every n, d, d_k, d_v <= N: one RASP program U_{N,H} per N "
          "and H",
    statement=(
        "For every N, H and n, d, d_k, d_v <= N, the one RASP program U_{N,H} (built for N x N, H heads of the "
        "users' form with biases, of query, key and value width N, stacked, with W_O and b_O): for every real X "
        "(n x d), W_Q = [W_Q0 | ... | W_Q{H-1}] and W_K (d x H d_k), W_V (d x H d_v), b_Q, b_K (1 x H d_k), b_V "
        "(1 x H d_v), W_O (H d_v x d), b_O (1 x d) and scale c, U_{N,H} run on them placed into its input as "
        "usim simulate places them (each in the top-left corner of its room, head h's columns of W_Q, W_K, W_V "
        "and their biases at columns h N ..; head h's rows of W_O at rows h N ..; 0 elsewhere; the header "
        "[n, d, c]) outputs [softmax(c Q_0 K_0^T) V_0 | ... | softmax(c Q_{H-1} K_{H-1}^T) V_{H-1}] W_O + 1 b_O, "
        "Q_h = X W_Qh + 1 b_Qh, K_h and V_h likewise, in its first n rows and d columns and 0 elsewhere. Shapes "
        "N x H x n x d x d_k x d_v: the whole program at N and H."),
    engines=ENGINES, default_max_n=2, ci_max_n=2, category="our statement",
    notes="torch's nn.MultiheadAttention (in_proj transposed, heads side by side); T of every n, d, d_k, "
          "d_v <= N placed head by head; for every size its twelve stages and the equation that composes them "
          "(proofs/_stage_equation.py)")

THEOREM9_USERS_STACKED = equation_claim(CLAIM, FAMILY, FAMILIES, attention_formula)
"""Theorem 9 in the users' form for every N, H and n, d, d_k, d_v <= N: the twelve stages and their composition."""

CLAIMS = [CLAIM, *CLAIMS]
COMPOSED = (THEOREM9_USERS_STACKED,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(*(c.id for c in CLAIMS))
