"""Match2 with modulus p: the published construction refuted, a corrected one proved.

The task (both variants): at each position i of an integer input x_0..x_{n-1},

    y_i = 1  if some j has x_i + x_j = 0 (mod p)   else 0,

with j = i allowed (variant "j = i allowed") or j != i required (variant
"j != i", the usual pair reading).

Claim, for every modulus 2 <= p <= N, length n <= N and both variants: the
corrected program of :mod:`usim.constructions.match2` outputs y exactly, for
every integer input. 1 attention layer, 1 head (a data-dependent selector on
residues; the output is 1 where its selector width is positive).

Shapes are (p, n, d, z): d = 1 for the variant j != i; z = 0 for the finite
domain of residue sequences (x_i in 0..p-1: checked exhaustively, and by z3
restricted to residues), z = 1 for all integers (z3 over Int). Residue shapes
are listed only while p**n stays within the exhaustive engine's limit.

The target is written from the definition with sympy Mod/Eq/Or/Piecewise.

The variant ``published`` is the paper's construction (select x_j mod p =
p - (x_i mod p), aggregate the values, output 1 where non-zero). It is REFUTED at
every shape: x_i mod p = 0 never fires (x = (0,)). :func:`published_differences`
classifies every difference on small domains (the claim's measure prints it):
a residue 0 that never fires, j = i counted as a match (the j != i variant), and
selected values that average to 0 (only over the integers: x = (1, -1), p = 2).
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Iterable

import sympy

from usim.constructions.match2 import check_modulus, match2_construction
from usim.encodings.evaluate import evaluate
from usim.encodings.exact import EXACT
from usim.engine.claim import Shape
from usim.engine.declare import claim, erratum
from usim.engine.solvers.exhaustive import EXHAUSTIVE_LIMIT
from usim.rasp.expr import Predicate, aggregate, indices, select, tokens, where


def match2_expected(x: list[int], p: int, distinct: bool) -> list[int]:
    """The task on concrete integers, straight from the definition."""
    n = len(x)
    return [int(any((x[i] + x[j]) % p == 0 for j in range(n) if not (distinct and j == i)))
            for i in range(n)]


def match2_target(p: int, distinct: bool):
    """The sympy target: y_i = 1 iff Or_j Eq(Mod(x_i + x_j, p), 0)."""
    def target(m) -> dict:
        x = m["x"]
        n = x.cols
        y = []
        for i in range(n):
            cond = sympy.Or(*[sympy.Eq(sympy.Mod(x[0, i] + x[0, j], p), 0)
                              for j in range(n) if not (distinct and j == i)])
            y.append(sympy.Piecewise((1, cond), (0, True)))
        return {"y": sympy.Matrix([y])}
    return target


def _construction(p: int, n: int, d: int, z: int, published: bool = False):
    return match2_construction(check_modulus(p), n, distinct=bool(d), published=published)


def _selector_of(output):
    """The selector of ``where(selector_width(sel) > 0, 1, 0)``."""
    condition = output.args[0]  # selector_width(sel) > 0
    return condition.args[0].selector


def _other_variant(p: int, distinct: bool) -> dict:
    """Answer the other variant: drop j != i, or add it."""
    def flip(node):
        if distinct:  # node is matches & (j != i): keep only the residue test
            return node.left
        return node & select(indices, indices, Predicate.NE)
    return {"matches_other" if distinct else "matches": flip}


MUTANTS = {
    # need = p - r without the final mod p: a residue 0 never finds its match
    "no-wrap": lambda s: {"need": lambda node: s[0] - node.args[0].args[1]},
    # aggregate the values instead of counting keys: residue-0 matches average to 0
    "mean-of-values": lambda s: {
        "match2": lambda node: where(aggregate(_selector_of(node), tokens) != 0, 1, 0)},
    # the other variant (j = i allowed <-> j != i)
    "other-variant": lambda s: _other_variant(s[0], bool(s[2])),
    # the needed residue off by one
    "off-by-one": lambda s: {"need": lambda node: (node.args[0] + 1) % s[0]},
}


def _shapes(bound: int) -> list[Shape]:
    shapes = []
    for p in range(2, bound + 1):
        for n in range(1, bound + 1):
            for d in (0, 1):
                if p ** n <= EXHAUSTIVE_LIMIT:
                    shapes.append((p, n, d, 0))
                shapes.append((p, n, d, 1))
    return shapes


# -- the differences of the published construction -------------------------------

CAUSES = {
    "residue-0": "x_i mod p = 0 never fires (it asks for residue p)",
    "self-match": "j = i counted as a match (wrong for the j != i variant)",
    "average-0": "the selected values average to 0 and hide a match",
}


def classify(x: list[int], p: int, distinct: bool, published: list[int]) -> Counter:
    """The cause of each position where ``published`` differs from the task."""
    expected = match2_expected(x, p, distinct)
    causes: Counter = Counter()
    for i, (e, g) in enumerate(zip(expected, published)):
        if e == g:
            continue
        selected = [x[j] for j in range(len(x)) if x[j] % p == p - x[i] % p]
        if x[i] % p == 0:
            causes["residue-0"] += 1
        elif g == 1 and e == 0 and distinct and selected:
            causes["self-match"] += 1
        elif g == 0 and e == 1 and selected and sum(selected) == 0:
            causes["average-0"] += 1
        else:
            causes["other"] += 1  # never, if the analysis in the docstring is complete
    return causes


def published_differences(p: int, n: int, values: Iterable[int]) -> dict[bool, tuple[int, int, Counter]]:
    """For each variant: (inputs differing, inputs checked, causes) over ``values``^n."""
    construction = match2_construction(check_modulus(p), n, published=True)
    out = {}
    runs = [(list(x), evaluate(construction.program, EXACT, list(x))["match2"])
            for x in itertools.product(values, repeat=n)]
    for distinct in (False, True):
        causes: Counter = Counter()
        differing = 0
        for x, got in runs:
            c = classify(x, p, distinct, [int(v) for v in got])
            differing += bool(c)
            causes += c
        out[distinct] = (differing, len(runs), causes)
    return out


def _measure(bound: int) -> list[str]:
    lines = ["published Match2 against the task (inputs that differ / inputs checked; causes by position):"]
    domains = [(p, n, "residues", range(p)) for p in range(2, min(bound, 4) + 1)
               for n in range(1, min(bound, 4) + 1)]
    domains += [(p, n, f"integers {-p}..{p}", range(-p, p + 1)) for p in (2, 3)
                for n in range(1, min(bound, 3) + 1)]
    for p, n, label, values in domains:
        for distinct, (diff, total, causes) in published_differences(p, n, values).items():
            variant = "j != i" if distinct else "j = i allowed"
            found = ", ".join(f"{k} {v}" for k, v in sorted(causes.items())) or "none"
            lines.append(f"p={p} n={n} {label}, {variant}: {diff}/{total} differ; {found}")
    return lines


CLAIM = claim(
    "match2",
    paper="Match2 (by construction)",
    title="Match2 mod p: 1 where some x_j has x_i + x_j = 0 mod p; corrected: 1 layer, 1 head",
    statement=(
        "For every modulus 2 <= p <= N, length n <= N, both variants (j = i allowed; j != i) "
        "and every integer input, the corrected Match2 program outputs at each i 1 if some "
        "j has x_i + x_j = 0 mod p, else 0, using 1 attention layer with 1 head (select the "
        "keys with residue (p - x_i mod p) mod p; 1 where some key is selected). Shapes "
        "(p, n, d, z): d = 1 for j != i; z = 0 residue inputs (exhaustive and z3), z = 1 "
        "all integers (z3). The published construction (claim match2_published) is refuted."
    ),
    construction=_construction,
    target_for=lambda s: match2_target(s[0], bool(s[2])),
    domain="integer",
    values=lambda s: None if s[3] else tuple(range(s[0])),
    shapes=_shapes,
    engines=("z3",),
    mutants=MUTANTS,
    measure=_measure,
    default_max_n=5,
    ci_max_n=3,
    notes="Canonical forms cannot decide Mod/Piecewise: z3 and exhaustive enumeration only.",
    category="after correction",
)

PUBLISHED = erratum(
    CLAIM,
    "match2_published",
    paper="Match2 as published (erratum)",
    title="the published Match2: misses residue 0, counts j = i, averages matches away",
    statement=(
        "The published Match2 construction (select x_j mod p = p - (x_i mod p), average, output "
        "1 where non-zero) answers 'some j has x_i + x_j = 0 mod p'. Expected REFUTED: it never "
        "fires when x_i mod p = 0, counts j = i, and can average a match to 0."
    ),
    construction=lambda p, n, d, z: _construction(p, n, d, z, published=True),
    default_max_n=3,
    ci_max_n=2,
    notes="The fix, proved, is the claim match2.",
)

CLAIMS = (CLAIM, PUBLISHED)

if __name__ == "__main__":  # python -m usim.proofs.X is usim prove of its claims
    from usim.proofs.script import run_as_script

    run_as_script(CLAIM.id, PUBLISHED.id)
