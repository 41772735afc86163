"""The parametric engine's side of targets written once for every size.

A claim's target (and each step kind's meaning) is written with the helpers of
:mod:`usim.encodings.sized` (:func:`matrix_of`, :func:`total`, :func:`when`,
``.T`` and ``*`` of :class:`SymbolicMatrix`, re-exported here): at a fixed
size they are sympy's matrices and sums, for all sizes they call the active
context. The engine (:mod:`usim.engine.parametric.prove`) evaluates a symbolic
target inside a :class:`TargetContext`, which turns index expressions into z3
terms, records for every entry the target reads that its indices lie inside
its matrix (proved like every other step: a target that reads outside its
input states nothing), and turns :func:`when` into two complementary cases.

A sum over a product of sizes whose terms read their key block by block (k // q,
k mod q: a matrix of H heads' blocks of q rows) is summed block by block,
sum_{k < p q} = sum_{g < p} sum_{t < q} at k = g q + t, a bijection onto the keys
for p, q >= 0 (proved): a mask on the key inside its block (k mod q < d, T's
width placed into U's) is then a threshold of the inner sum. Index terms with
quotients are written as the facts state them (``simplify``: (g q + t) // q is g
where 0 <= t < q), and a case the inner sum cannot split on is left to an
enclosing sum whose key it is about.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import sympy
import z3

from usim.encodings.sized import Cases, CasesInArithmetic, SymbolicMatrix, active, both, matrix_of, total, when
from usim.engine.parametric.integers import Formula, Term, has_quotient, subterms
from usim.engine.parametric.polynomials import free_constants
from usim.engine.parametric.translation import condition_formula, translate
from usim.engine.parametric.thresholds import threshold_of
from usim.engine.parametric.terms import ParametricAtoms
from usim.engine.signs import Sign, SignAnalysis
from usim.rasp.family import INDEX, Condition, SymbolicInt

__all__ = ["Cases", "CasesInArithmetic", "SymbolicMatrix", "TargetContext", "active", "both", "matrix_of", "total", "when"]

Index = SymbolicInt | int

SPLITS = 3
"""How many times a target's sum is split at a threshold, one within another."""

CASES_INSIDE = "a target's entry given by cases inside a sum or a product (outside the target fragment)"
"""Why a target whose cases are not at an entry's top is UNKNOWN (the engine splits them only there)."""


@dataclass
class TargetContext:
    """What a symbolic target needs while it is evaluated: z3 terms for the
    dimensions and for the index symbols in scope, the atoms, and the
    obligations its reading entails."""

    atoms: ParametricAtoms
    dims: dict[str, Term]
    fresh: Callable[[str], Term]
    positive: Callable[[Term], bool]
    proves: Callable[[list[Formula], Formula], bool]
    env: dict[str, Term] = field(default_factory=dict)
    facts: list[Formula] = field(default_factory=list)
    size_values: list[tuple[list[Formula], Term]] = field(default_factory=list)  # sizes used as values, maybe 0
    obligations: list[tuple[list[Formula], Formula, str]] = field(default_factory=list)
    _met: list[list[Formula]] = field(default_factory=list)  # the conditions met inside each open sum
    _deciding: int = 0  # inside a sum split at a threshold: cases the facts decide are pruned
    prune: bool = False  # everywhere: a case the facts decide is its branch alone (an equation's sides)
    simplify: Callable[[list[Formula], Term], Term] | None = None  # an equal term where the facts hold
    skip_zero: bool = False  # a product's term whose right factor is 0 is 0, its left factor not evaluated
    skipped: int = 0  # how many terms were 0 by their right factor alone (skip_zero)
    _blocked: int = 0  # inside a sum re-indexed by blocks: quotients simplified by the facts

    def term(self, value: Index, what: str) -> Term:
        t = translate(value, self.env, self.dims, self.positive)
        for condition in t.defined:
            self.obligations.append((list(self.facts), condition, f"{what}: a division by zero"))
        if self._blocked and self.simplify is not None and has_quotient(t.term):
            return self.simplify(list(self.facts), t.term)  # (g q + t) // q is g where 0 <= t < q
        return t.term

    def entry(self, name: str, rows: Index, cols: Index, i: Index, j: Index) -> sympy.Expr:
        row, col = self.term(i, f"{name}[{i}, {j}]"), self.term(j, f"{name}[{i}, {j}]")
        inside = (row >= 0) & (row < self.term(rows, name)) & (col >= 0) & (col < self.term(cols, name))
        self.obligations.append((list(self.facts), inside, f"the target reads {name}[{i}, {j}] inside {name}"))
        return self.atoms.entry(name, row, col)

    def total(self, extent: Index, term: Callable[[SymbolicInt], Any]) -> sympy.Expr:
        """sum_{l < extent} term(l): one sum atom; or, where the body is given by
        cases on l (a matrix read head by head inside a product), the sum split
        at a threshold t that z3 proves (a condition c(l) of the cases holds
        exactly when l < t, for every l < extent), each part evaluated on its
        own keys, where the cases it meets are decided by the facts; or, over a
        product of sizes read block by block, summed by blocks (the module
        docstring). Splitting a sum's range anywhere, or re-indexing it by a
        bijection, is sound; the threshold only decides whether the parts can
        then be evaluated."""
        size = self.term(extent, "a sum's extent")
        return self._total(size, term, SPLITS)

    def _total(self, size: Term, term: Callable[[SymbolicInt], Any], splits: int,
               start: Term | None = None) -> sympy.Expr:
        var = self.fresh("l")
        index = SymbolicInt("sym", var.decl().name(), INDEX)
        self.env[var.decl().name()] = var
        key = index
        if start is not None:  # the keys start + l: a name that means the term start, plus l
            offset = self.fresh("s").decl().name()
            self.env[offset] = start
            key = SymbolicInt("sym", offset, INDEX) + index
        self.facts.extend([var >= 0, var < size])
        met: list[Formula] = []
        self._met.append(met)
        recorded = (len(self.obligations), len(self.size_values))
        blocks = threshold = None
        try:
            try:
                body = term(key)
                if isinstance(body, Cases):
                    raise CasesInArithmetic("a sum's terms given by cases")
            except CasesInArithmetic:
                threshold = self._threshold(met, var, size) if splits > 0 else None
                if threshold is None:
                    blocks = self._blocks(var, size, met) if splits > 0 and start is None else None
                    if blocks is None:  # an enclosing sum may split where this one cannot (a condition
                        raise           # on its key met here): its handler, else the engine's UNKNOWN
                body = None
            if body is not None:
                body = sympy.sympify(body)
                positive = SignAnalysis().sign(body) is Sign.POSITIVE
                if start is None and splits > 0:
                    blocks = self._blocks(var, size, self.atoms.index_terms(body))
        finally:
            self._met.pop()
            del self.facts[-2:]
            del self.env[var.decl().name()]
            if start is not None:  # its keys' name, read only by this evaluation
                del self.env[offset]
        if blocks is not None:  # evaluated again by blocks: what this evaluation read is read there again
            del self.obligations[recorded[0]:], self.size_values[recorded[1]:]
            return self._by_blocks(*blocks, term, splits - 1)
        if body is None:
            first = z3.If(threshold < 0, 0, z3.If(threshold > size, size, threshold))
            base = start if start is not None else z3.IntVal(0)
            self._deciding += 1
            try:
                parts = [self._total(extent, term, splits - 1, begin) for begin, extent in
                         ((start, first), (base + first, size - first)) if not self.proves(list(self.facts), extent <= 0)]
            finally:
                self._deciding -= 1
            return sympy.Add(*parts)
        at_least_one = self.proves(list(self.facts), size >= 1)
        return self.atoms.total(var, size, body, positive=positive and at_least_one,
                                nonnegative=at_least_one or self.proves(list(self.facts), size >= 0))

    def _blocks(self, var: Term, size: Term, terms: list[Formula]) -> tuple[Term, Term] | None:
        """(p, q) with ``size`` the product p q of non-negative factors where ``terms``
        read the key's quotient or remainder by q (a key of H blocks of q, read head
        by head: k // q, k mod q), or None."""
        factors = size.children() if z3.is_app_of(size, z3.Z3_OP_MUL) else []
        if len(factors) < 2 or not all(self.proves(list(self.facts), f >= 0) for f in factors):
            return None
        name = var.decl().name()
        divisors = [t.arg(1) for term in terms for t in subterms(term)
                    if (z3.is_app_of(t, z3.Z3_OP_IDIV) or z3.is_app_of(t, z3.Z3_OP_MOD))
                    and name in free_constants(t.arg(0))]
        for k, q in enumerate(factors):
            if any(z3.simplify(q).eq(z3.simplify(d)) for d in divisors):
                rest = factors[:k] + factors[k + 1:]
                return (rest[0] if len(rest) == 1 else z3.Product(*rest)), q
        return None

    def _by_blocks(self, blocks: Term, width: Term, term: Callable[[SymbolicInt], Any], splits: int) -> sympy.Expr:
        """sum_{k < p q} term(k) = sum_{g < p} sum_{t < q} term(g q + t) (p, q >= 0: the
        map (g, t) -> g q + t is a bijection onto the keys), the inner sums
        evaluated with quotients by q simplified where the facts hold (k // q is g,
        k mod q is t), so a mask on the column inside a block (k mod q < d) is a
        threshold of the inner sum."""
        name = self.fresh("q").decl().name()
        self.env[name] = width
        q = SymbolicInt("sym", name, INDEX)
        self._blocked += 1
        try:
            return self._total(blocks, lambda g: self._total(width, lambda t: term(g * q + t), splits), splits)
        finally:
            self._blocked -= 1
            del self.env[name]

    def _threshold(self, met: list[Formula], var: Term, size: Term) -> Term | None:
        """t free of ``var`` such that one comparison met in the cases holds exactly
        when var < t (or exactly when it does not) for every key, under the facts
        (z3), or None. Candidates: each side of the comparison and what makes
        the sides differ by var, each also plus one; none that the facts put at
        or before the first key or past the last (a comparison already decided
        on these keys, as a head's boundary before a part that starts after it:
        splitting there would give the same sum again)."""
        parts: list[Formula] = []
        for formula in met:  # the comparisons inside each condition met, the last first
            todo = [formula]
            while todo:
                part = todo.pop()
                if z3.is_not(part) or z3.is_and(part) or z3.is_or(part):
                    todo.extend(part.children())
                else:
                    parts.append(part)
        facts = list(self.facts)
        return threshold_of(parts, var, lambda formula: self.proves(facts, formula),
                            lambda t: not self.proves(facts, t <= 0) and not self.proves(facts, t >= size))

    def condition(self, condition: Condition) -> Formula:
        """A condition between index terms and sizes as a z3 formula (its divisions recorded)."""
        return condition_formula(condition, lambda value: self.term(value, f"the condition {condition}"))

    def choose(self, condition: Condition, then: Callable[[], Any], otherwise: Callable[[], Any]) -> Cases:
        """The two complementary cases of :func:`usim.encodings.sized.when`,
        each value computed with its condition among the facts (so what it
        reads is checked where it is read); nested cases are flattened."""
        formula = self.condition(condition)
        for met in self._met:
            met.append(formula)
        if self._deciding or self.prune:  # inside a split sum (or pruning): a case the facts decide is its branch alone
            if self.proves(list(self.facts), formula):
                return then()
            if self.proves(list(self.facts), z3.Not(formula)):
                return otherwise()
        out: list[tuple[Formula, Any]] = []
        for holds, make in ((formula, then), (z3.Not(formula), otherwise)):
            self.facts.append(holds)
            try:
                value = make()
            finally:
                self.facts.pop()
            if isinstance(value, Cases):
                out.extend((z3.And(holds, inner), v) for inner, v in value.cases)
            else:
                out.append((holds, value))
        return Cases(tuple(out))

    def vanishes(self, factor: Any) -> bool:
        """Whether a product's term is 0 by its right factor alone (``skip_zero``: only
        where the left factor is known to be a real number, defined: an equation's left
        side, U's stages' meanings composed, each proved defined on every input
        meeting the preconditions by its stage's own proof); each such term is counted in
        ``skipped``, so that a verdict resting on it says so."""
        if self.skip_zero and isinstance(factor, (int, sympy.Integer)) and factor == 0:
            self.skipped += 1
            return True
        return False

    def whole(self, value: SymbolicInt) -> sympy.Expr:
        """An integer term (a size) as a value: the atom the program's side gives it too.
        One not shown > 0 is recorded with the facts where it is used (``size_values``):
        besides the divisions the target writes (:mod:`usim.encodings.written`), the
        prover evaluates the target at sizes where the atom is 0 (a log(w) - log(w)
        cancelled, or one case's w / w, is undefined there)."""
        term = self.term(value, f"the size {value}")
        positive = self.positive(term)
        if not positive:
            self.size_values.append((list(self.facts), term))
        return self.atoms.whole(term, positive=positive)
