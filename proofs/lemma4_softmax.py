"""Lemma 4 (arXiv v2): row-wise softmax by a RASP program of depth 1 with r heads.

Claim ``lemma4``, for every r, c <= N: the program of
:mod:`usim.constructions.softmax` with r fixed (c read from ``length``) and
exact exp, run on S (r x c) row-major, outputs softmax(S) row by row in place:
exp(S[i][j]) / sum_l exp(S[i][l]), for every real S. 1 layer with r heads.

Claim ``lemma4_paper``: the published listing uses 2.718 instead of e. usim
proves what that program computes exactly, 2.718**S[i][j] / sum_l 2.718**S[i][l]
(a softmax to base 2.718), and measures how far that is from the true softmax;
the deviation is reported, never proved away.

Both rely on RASP's empty-row default 0: a row head at a query of another row
selects nothing (see :mod:`usim.proofs.soft_from_hard` for AHAT).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import sympy

from usim.constructions.softmax import PAPER_BASE, softmax_construction
from usim.engine.claim import Claim
from usim.engine.declare import claim, every_shape
from usim.engine.parametric.statement import FamilyClaim
from usim.engine.parametric.target import matrix_of, total
from usim.rasp.expr import Aggregate, Constant, Predicate, select


def softmax_target(base: Fraction | None):
    """Row softmax b**S[i][j] / sum_l b**S[i][l], with b = e when ``base`` is None.

    Written entry by entry (:func:`matrix_of`, :func:`total`), so that it means
    the same for a sympy matrix at a fixed size and for all sizes."""
    def power(x):
        return sympy.exp(x) if base is None else sympy.Rational(base.numerator, base.denominator) ** x

    def target(m):
        s = m["S"]
        return {"softmax(S)": matrix_of(s.rows, s.cols,
                                        lambda i, j: power(s[i, j]) / total(s.cols, lambda l: power(s[i, l])))}
    return target


MUTANTS = {
    # the last row's head is left out of the sum: that row's denominator is 0
    "row-left-out": lambda s: {f"row_mean{s[0] - 1}": lambda node: Constant(0)},
    # the mean is used as the sum (the factor c is missing)
    "missing-factor-c": lambda s: {"row_sum": lambda node: node.args[1]},
    # a row head gives 1 where it selects nothing, not 0
    "wrong-default": lambda s: {"row_mean0": lambda node: Aggregate(node.selector, node.values, default=1)},
}


def measure_paper_base(max_n: int, samples: int = 2000, seed: int = 0) -> list[str]:
    """Largest relative deviation of the 2.718 program from exact softmax (numeric):
    the exact claim's obligation, with the published program in its place."""
    from usim.engine.measure import numeric_deviation

    worst, where = 0.0, ""
    bound = min(max_n, 6)
    for scale in (1.0, 5.0):
        for r, c in every_shape(2)(bound):
            published = dataclasses.replace(CLAIM.obligation((r, c)),
                                            construction=softmax_construction(r, c, base=PAPER_BASE))
            rel = numeric_deviation(published, seed, samples, scale=scale, relative=True)
            if rel > worst:
                worst, where = rel, f"{r}x{c}, entries ~ N(0, {scale:g}^2)"
    return [f"the paper's base 2.718 against exact softmax: largest relative deviation {worst:.3e} "
            f"({where}; {samples} random inputs per shape and scale, shapes up to "
            f"{bound}x{bound}): an approximation, not an identity"]


SOFTMAX = softmax_target(None)

CLAIM: Claim = claim(
    "lemma4",
    paper="Lemma 4",
    title="row-wise softmax of an r x c matrix (exact exp): 1 layer, r heads",
    statement=(
        "For every r, c <= N and every real r x c matrix S laid out row-major, the softmax "
        "program with r fixed, c = length // r and exact exp outputs, at position i*c + j, "
        "exp(S[i][j]) / sum_l exp(S[i][l]), using 1 attention layer with r heads (2 layers "
        "counting the layer that computes length). Relies on RASP's empty-row default 0."
    ),
    construction=softmax_construction,
    target=SOFTMAX,
    shapes=every_shape(2),
    mutants=MUTANTS,
    default_max_n=8,
    ci_max_n=3,
    notes="exp is an atom for the sympy engine and an uninterpreted positive function for z3.",
)

PAPER_CLAIM = claim(
    "lemma4_paper",
    paper="Lemma 4 (published listing)",
    title="the published softmax with 2.718 for e: exactly a base-2.718 softmax",
    statement=(
        "For every r, c <= N and every real S, the published program (2.718 ** S in place of "
        "exp) outputs 2.718**S[i][j] / sum_l 2.718**S[i][l]: a softmax to base 2.718, which "
        "differs from softmax(S); the deviation is measured, not proved away."
    ),
    construction=lambda r, c: softmax_construction(r, c, base=PAPER_BASE),
    target=softmax_target(PAPER_BASE),
    shapes=every_shape(2),
    mutants=MUTANTS,
    default_max_n=4,
    ci_max_n=2,
    measure=measure_paper_base,
    category="approximate",
)

CLAIMS = (CLAIM, PAPER_CLAIM)

ALL_SIZES = FamilyClaim(
    CLAIM,
    softmax_construction,
    target=SOFTMAX,
    mutants={
        # head b is active at the queries whose row, mod 9, is b: right for every r <= 9; from
        # r = 10 on, row 9's queries get row 0's head (and row 0's keys)
        "row-selection-mod-9": lambda r, c: {
            "row{b}": lambda node: node.left & select(node.right.keys, node.right.queries % 9, Predicate.EQ)},
        "missing-factor-c": lambda r, c: MUTANTS["missing-factor-c"]((r, c)),
        # every head gives 1 where it selects nothing
        "wrong-default": lambda r, c: {
            "row_mean{b}": lambda node: Aggregate(node.selector, node.values, default=1)},
    },
)
"""Lemma 4 for every r, c >= 1 (usim prove lemma4 --all-sizes)."""

FAMILIES = (ALL_SIZES,)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id, PAPER_CLAIM.id)
