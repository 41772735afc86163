"""The parametric evaluator's vocabulary: its contexts, the blocks it reads, how a
step fails, and the names of the steps its solver ledger counts.

Shared by the evaluator (:mod:`.symbolic_sizes`), the splitting of sums
(:mod:`.sums`) and the proof (:mod:`.prove`).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from usim.engine.parametric.integers import Formula, Outcome, Term


class Unsupported(Exception):
    """A construct the parametric engine does not reason about (the verdict is UNKNOWN)."""


class SplitInSum(Unsupported):
    """A case split needed inside a sum's body: ``condition`` (a z3 formula over
    the sum's index) is decided neither way there. The sum may still be split
    at a threshold (:meth:`SymbolicSizeEvaluator._sum`)."""

    def __init__(self, condition: "Formula", what: str) -> None:
        super().__init__(f"a case split inside a sum ({what})")
        self.condition, self.what = condition, what


class OuterCase(Unsupported):
    """A case a sum's body needs that is the same at every key of the sum
    (``condition``, free of its index): the context outside the sum is split
    by it, and the sum evaluated in each part. ``stated``: the same case as the
    body states it, equal to ``condition`` wherever the context's facts hold
    (``condition`` is its simplified form); each part also gets it as a fact,
    so that z3 finds the body's own terms there."""

    def __init__(self, condition: "Formula", what: str, stated: "Formula | None" = None) -> None:
        super().__init__(f"a case split inside a sum ({what})")
        self.condition, self.what, self.stated = condition, what, stated


SPLITS = 8
"""How many times one sum may be split at a threshold (its pieces are split again), and
how many times a mean's context may be split by a case outside its sum: a product
reading U's concatenation of H heads, each padded in a block of N columns, splits its
keys at d, N, N + d, ..., (H - 1) N + d, 2H - 1 thresholds, 7 at H = 4."""


class StepFailed(Exception):
    """A step z3 did not prove: ``outcome`` (if any) holds the formulas whose
    models are sizes where it fails."""

    def __init__(self, step: str, what: str, outcome: Outcome | None = None) -> None:
        super().__init__(f"{step}: {what}")
        self.step, self.what, self.outcome = step, what, outcome


@dataclass(frozen=True)
class Context:
    """Hypotheses under which a value is computed; ``forkable``: whether the
    context may still be split by cases (not inside a sum's body)."""

    facts: tuple[Formula, ...]
    forkable: bool = True

    def also(self, *more: Formula, forkable: bool | None = None) -> "Context":
        return Context(self.facts + tuple(more), self.forkable if forkable is None else forkable)


@dataclass(frozen=True)
class InputBlock:
    name: str
    rows: Term
    cols: Term
    offset: Term

    @property
    def end(self) -> Term:
        return self.offset + self.rows * self.cols


Value = list[tuple[Context, sympy.Expr]]

# The steps the ledger counts, by what they establish.
SELECTION = "selections are index intervals"
COLLAPSE = "heads other than the position's own select nothing"
BLOCKS = "positions read from the right input block"
CASES = "case splits decided"
SIGNS = "divisors of // and % have a known sign"
DECISIONS = (CASES, BLOCKS, COLLAPSE, SIGNS)
"""Steps whose queries ask which case holds: a "no" there splits the context, it refutes nothing."""
