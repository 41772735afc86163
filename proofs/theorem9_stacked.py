"""Theorem 9 over a symbolic head count: the stages of U_{N,H} with its heads stacked.

U over stacked heads (:func:`usim.constructions.universal.route.stacked_heads_route`)
has one list of steps for every H, so its builder, given symbolic N and H, makes
one program for every N and H (U's length, the input and room for Z, a
polynomial in both). Its seven stages, for H merged heads of value width N and
W_O (T's A = [A_0 | ... | A_{H-1}] and V likewise in U's input):

    1. XT = X^T;  Y1 = X A  (N x H N);  Y4 = X V  (N x H N)
    2. S1 = stack(Y1) = [X A_0; ...; X A_{H-1}]      (one routing head)
    3. Y2 = S1 XT                                    (H N x N: head h's scores at rows h N ..)
    4. P = stacked_softmax(c Y2)                     (each head's keys and rows >= n masked)
    5. Z = P Y4                                      (H N x H N: its blocks P_g X V_h)
    6. C = diagonal(Z) = [P_0 X V_0 | ... | P_{H-1} X V_{H-1}]   (one routing head)
    7. Att = C W_O

Claims ``theorem9_stacked_stage1`` ... ``_stage7``, for every N, H <= the bound
(and n <= N where the stage reads it), and with ``--all-sizes`` for every
N, H >= 1 (and 1 <= n <= N): stage k of U_{N,H}, run on its whole workspace
(every block and the scratch after them any real values), outputs the next
workspace: each new block its step's masked meaning, each carried block
unchanged, 0 elsewhere (:func:`usim.proofs._stages.stage_claims` with the head
count a dimension of every stage).

Broken variants that only the proof for every size catches (every bounded
check up to N = H = 8 passes them), each refuted at H = 9 with a replayed
input: ``heads-mod-8`` in stage 2 (the stack's head index taken mod 8) and in
stage 6 (the diagonal blocks' head index mod 8, the issue's "W_O
concatenation wrong only for H > 8"), and ``heads-past-8-zeroed`` in stage 4
(every row of a head h >= 8 set to 0). ``rows-of-head-0-only`` (stage 4's row
mask without the mod: heads after the first set to 0) is refuted for every size
at H = 2 (bounded, cvc5 takes a minute on it at N = H = 2). Each stage has a
broken variant refuted by its bounded claim and, but for stage 7's, for every
size too: a routing head reading one position too far (``misplaced-block``,
``off-by-one``), and the last product reading one position too far
(``product-off-by-one``, bounded only, as for Theorem 6). A softmax without its
key mask is refuted too, but its replay keeps cvc5 busy for its whole budget.

Claim ``theorem9_stacked`` composes them: for every N, H and n, d, d_v <= N,
U_{N,H} run on T (n tokens of width d, H heads of value width d_v) placed into
its input as ``usim simulate`` places it (X and each A_h, V_h in the top-left
corner of their N x N room, head h's at columns h N ..; W_O's rows of head h at rows h N ..; 0
elsewhere; the header [n, d, c]) outputs [softmax(c X A_h X^T) X V_h]_h W_O on its
first n rows and d columns, and 0 elsewhere. Bounded (:data:`CLAIM`): the whole
program against the formula at N, H <= the bound and every n, d, d_v <= N. For every
size (:data:`THEOREM9_STACKED`): the seven stages and their chain
(:mod:`usim.proofs._stage_equation`), whose equation, the stages' meanings
composed on T placed = the formula zero-padded, is
diagonal(stacked_softmax(stack(X A) X^T) X V) W_O = [softmax(c X A_h X^T) X V_h]_h W_O
on the first n rows and d columns, sums over a symbolic number of heads of
which only d keys per head are T's, proved by the parametric engine (the sum
over H N keys summed head by head, :mod:`usim.engine.parametric.target`).
"""

from __future__ import annotations

from typing import Any, Callable

from usim.constructions.universal import LayerSpec
from usim.proofs._stage_equation import equation_claim, whole_claim
from usim.proofs._stages import UniversalFamily, stage_claims
from usim.proofs._universal import attention_formula
from usim.proofs.theorem6_attention import ENGINES
from usim.proofs.theorem6_stages import misplaced, product_off_by_one
from usim.rasp.expr import indices


def spec_of(n: Any, d: Any, heads: Any, d_v: Any = None) -> LayerSpec:
    """T's layer.

    Args:
        n: the tokens.
        d: the width.
        heads: H.
        d_v: each head's value width (default d: U's, N).

    Returns:
        H merged heads of value width d_v, stacked, with W_O (H d_v x d).
    """
    return LayerSpec(n, d, heads=heads, d_v=d if d_v is None else d_v, out_proj=True, stacked=True)


FAMILY = UniversalFamily(spec_of, extra=("h",), label="U_{N,h}", placed=("d", "d_v"))
"""U_{N,H} over stacked heads, N and H symbolic or integers; composed for T of every width d <= N."""

HEADS_WRAP = 8
"""Where the broken variants wrap or drop heads: right for every H <= 8."""


def heads_mod(stage: int, block: str) -> Callable[..., dict]:
    """Broken variant: the head index of the routing head of ``stage`` (making
    ``block``) taken mod 8: right for every H <= 8.

    Args:
        stage: the stage's index.
        block: the block its routing head makes (S1 or C).

    Returns:
        The stage's sizes -> named node -> its replacement.
    """
    return lambda *sizes: {f"s{stage}.{block}.head": lambda node: node % HEADS_WRAP}


def heads_past_zeroed(N: Any, h: Any, n: Any) -> dict:
    """Broken variant of stage 4: every row of a head h >= 8 set to 0 (Y2 sits at 0)."""
    return {"s4.P.row_ok": lambda node: node & (indices < HEADS_WRAP * N * N)}


def rows_of_head_0_only(N: Any, h: Any, n: Any) -> dict:
    """Broken variant of stage 4: the row mask i < n without the mod (heads after the first set to 0)."""
    return {"s4.P.row_ok": lambda node: (indices // N) < n}


ATTENTION_BROKEN = {1: {"misplaced-block": misplaced("s1.route.3")}, 2: {"off-by-one": misplaced("s2.S1.slice")},
                    3: {"misplaced-block": misplaced("s3.route.1")}, 4: {"misplaced-block": misplaced("s4.route.1")},
                    5: {"misplaced-block": misplaced("s5.route.1")}, 6: {"off-by-one": misplaced("s6.C.diagonal")}}
"""The broken variants of the attention's stages 1 to 6, bounded and for every size."""

ATTENTION_BOUNDED = product_off_by_one(7, "Att")
"""Stage 7's broken variant, for the bounded claim only."""

ATTENTION_PAST_EIGHT = {2: {"heads-mod-8": heads_mod(2, "S1")},
                        4: {"heads-past-8-zeroed": heads_past_zeroed, "rows-of-head-0-only": rows_of_head_0_only},
                        6: {"heads-mod-8": heads_mod(6, "C")}}
"""The broken variants only the proof for every size catches (but rows-of-head-0-only: bounded at H = 2 too)."""

CLAIMS, FAMILIES = stage_claims(
    "theorem9_stacked", FAMILY, paper="Theorem 9 (U's stages over stacked heads, every H)",
    what="H merged heads stacked and W_O", mutants=ATTENTION_BROKEN, bounded_mutants=ATTENTION_BOUNDED,
    all_sizes_mutants=ATTENTION_PAST_EIGHT,
    engines=ENGINES, default_max_n=3, ci_max_n=2, category="our statement",
    notes="the stage on its whole workspace (scratch included); header n set by the stage; H a dimension")


CLAIM = whole_claim(
    "theorem9_stacked", FAMILY, attention_formula,
    paper="Theorem 9 (every H, every n, d, d_v <= N)",
    title="U over stacked heads simulates H heads with W_O, [head_0 | ... | head_{H-1}] W_O, for every H and "
          "every n, d, d_v <= N: one RASP program U_{N,H} per N and H",
    statement=(
        "For every N, H and n, d, d_v <= N, the one RASP program U_{N,H} (built for N x N, H merged heads of "
        "value width N stacked, and W_O): for every real X (n x d), A = [A_0 | ... | A_{H-1}] (d x H d), "
        "V = [V_0 | ... | V_{H-1}] (d x H d_v), W_O (H d_v x d) and scale c, U_{N,H} run on them placed into its "
        "input as usim simulate places them (X, A_h and V_h in the top-left corners of their N x N rooms, head "
        "h's at columns h N ..; head h's rows of W_O at rows h N ..; 0 elsewhere; the header [n, d, c]) outputs "
        "[softmax(c X A_0 X^T) X V_0 | ... | softmax(c X A_{H-1} X^T) X V_{H-1}] W_O in its first n rows and d "
        "columns and 0 elsewhere. Shapes N x H x n x d x d_v: the whole program at N and H."),
    engines=ENGINES, default_max_n=2, ci_max_n=2, category="our statement",
    notes="merged heads stacked, W_O; T of every n, d, d_v <= N placed head by head; for every size "
          "its seven stages and the equation that composes them (proofs/_stage_equation.py)")

THEOREM9_STACKED = equation_claim(CLAIM, FAMILY, FAMILIES, attention_formula)
"""Theorem 9 for every N, every H and every n, d, d_v <= N: the seven stages and their composition."""

CLAIMS = [CLAIM, *CLAIMS]
COMPOSED = (THEOREM9_STACKED,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(*(c.id for c in CLAIMS))
