"""Integer arithmetic over symbolic dimensions, in z3, and the one prover every step asks.

Index expressions (positions, offsets, head indices, the dimensions r, c, k)
are z3 integer terms, with ``//`` and ``%`` as Python means them
(:mod:`usim.engine.parametric.translation`).

:class:`Prover` answers "do these hypotheses imply this goal?" for all values
of the free integer symbols, by asking z3 whether hypotheses and the negated
goal are unsatisfiable: *unsat* is a proof for every size; *sat* comes with a
model (concrete sizes where the goal fails, the seed of a counterexample);
*unknown* or a timeout is no answer. Every query is logged under the step it
serves (:class:`Ledger`), so a verdict says which steps z3 proved, how many
queries and how long.

**Each query's limit is an amount of work, not of time.** A query gets z3's
resource limit (``rlimit``: a count of z3's own steps, :data:`QUERY_EFFORT`,
:data:`QUICK_EFFORT`), so whether it is answered does not depend on how busy
the machine is: the same statement asks the same queries and gets the same
answers on a loaded machine as on an idle one (but see "the one clock inside
a query" below; with a limit of 20 s, a query
that took 5 s alone came out *unknown* beside another proof, and Theorem 9's
W_O stage with it). The proof's own time budget still bounds the whole run:
past it a proof is UNKNOWN (:class:`Deadline`), never another verdict.

**Each query is asked twice at most: first cheaply, then with its quotients' bounds.** Most
queries are answered within a few thousand of z3's steps, and a new solver
costs more than that (a fresh ``z3.Solver()`` runs its preprocessing tactics
first: 1 to 5 ms a query, 110 s of the 213 s of Corollary 9.1's stage 1 at four
heads, whose 14,596 queries one reused solver answers, each the same, in 23 s).
So each query is first asked of one solver the prover keeps (its assertions
pushed and popped, so it holds none between queries; one left unanswered is
dropped and a new one kept) within :data:`FIRST_EFFORT`; where that leaves it
unanswered it is asked of a new solver within the query's whole effort, with
the bounds of its goal's quotients that the hypotheses give beside them, each
proved first (:meth:`Prover._quotient_bounds`). Either answer is z3's (*unsat*
a proof, *sat* with a model), and the bounds hold wherever the hypotheses do,
so nothing is proved that z3 did not prove. A conjunction still unanswered is then asked
conjunct by conjunct, each the same way (:meth:`Prover.proves`). The kept
solver's answers depend on the queries asked before it, which are the same, in
the same order, for the same statement (each proof for every size runs in an
interpreter of its own, :mod:`usim.engine.parametric.fresh`).

**The one clock inside a query.** z3 did not always stop at the limit of its
work on the kept solver: once, replaying a stage's queries, one query ran for
more than ten minutes within a limit of 200,000, and a second replay of the
same queries ended in 98 s. So the first try is also limited to
:data:`FIRST_SECONDS`; a first try it stops is asked again of a new solver and
counted in the ledger under :data:`FIRST_TRY_STOPPED`. "The same answers on a
loaded machine as on an idle one" holds for a proof whose ledger has no such
entry (a certificate's steps show it); where one is, that query's answer came
from a new solver, as it would have before the kept solver, and a loaded
machine could have stopped another first try too.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Sequence

import z3

from usim.engine.parametric.polynomials import (BLOCK_SHIFTS, Formula, Term, exact_quotient, numeral,
                                                quotient_remainder, whole_quotient)

def subterms(term: z3.ExprRef) -> Iterator[z3.ExprRef]:
    """Every distinct subterm of ``term`` (itself included), each once."""
    seen: set[int] = set()
    stack = [term]
    while stack:
        t = stack.pop()
        if t.get_id() not in seen:
            seen.add(t.get_id())
            yield t
            stack.extend(t.children())


def has_quotient(term: z3.ExprRef) -> bool:
    """Whether ``term`` has an integer quotient or remainder (``div``, ``mod``) in it."""
    return any(z3.is_app_of(t, z3.Z3_OP_IDIV) or z3.is_app_of(t, z3.Z3_OP_MOD) for t in subterms(term))


@dataclass
class Outcome:
    """One query's answer: ``holds`` True (proved), False (a model refutes it),
    None (unknown or timeout). For a refuted goal, ``formulas`` are the
    satisfiable ones (hypotheses and the negated goal, or the negated conjunct
    that refutes a conjunction asked part by part): :meth:`Prover.sizes`
    finds their smallest model when a counterexample is wanted."""

    holds: bool | None
    model: dict[str, int] | None = None
    seconds: float = 0.0
    formulas: tuple[Formula, ...] = ()


@dataclass
class Tally:
    proved: int = 0
    failed: int = 0
    unknown: int = 0
    seconds: float = 0.0


@dataclass
class Ledger:
    """How many queries each step needed, by which solver, and how long."""

    entries: dict[tuple[str, str], Tally] = field(default_factory=dict)

    def add(self, step: str, solver: str, holds: bool | None, seconds: float) -> None:
        tally = self.entries.setdefault((step, solver), Tally())
        tally.seconds += seconds
        if holds is True:
            tally.proved += 1
        elif holds is False:
            tally.failed += 1
        else:
            tally.unknown += 1


class Keys:
    """Cache keys made of z3 terms' ids, the terms kept alive: z3 reuses the id
    of a freed term, so a key that did not hold its terms could later name a
    different term (and a cached proof would answer for the wrong formula)."""

    def __init__(self) -> None:
        self._alive: list[tuple] = []

    def __call__(self, *terms: z3.AstRef) -> tuple[int, ...]:
        self._alive.append(terms)
        return tuple(t.get_id() for t in terms)


class Deadline(Exception):
    """The proof's time budget is spent."""


QUERY_EFFORT = 150_000_000
"""z3's resource limit for one query (``rlimit``, z3's count of its own steps).
The hardest queries of the stages of U (the case splits of Theorem 9's W_O stage)
are answered within 125 million; those left unanswered had used 95 to 190 million
in 20 s (z3's statistic "rlimit count" before and after each query, 2026-12-03,
``docs/all_sizes.md``). z3 counts 1 to 25 million a second here, so this is 6 to
150 s of work, the same amount on every machine and under any load."""

FIRST_EFFORT = 200_000
"""z3's work on a query's first, cheap try (the kept solver): all but 242 of the 27,889
queries of four stages of Corollary 9.1 (stage 1 at one and four heads, stage 5 at two
and four) are answered within it."""

FIRST_SECONDS = 10.0
"""The first try's time limit, a guard: z3 counts 1 to 25 million steps a second
here, so FIRST_EFFORT takes at most 0.2 s where z3 keeps to it. Where the guard
stops a first try, the query is asked of a new solver, limited by work alone,
and the ledger says so (:data:`FIRST_TRY_STOPPED`)."""

FIRST_TRY_STOPPED = "z3, first try stopped by its time guard"
"""The ledger's solver for first tries that :data:`FIRST_SECONDS` stopped (each
then asked again of a new solver, counted under ``z3``): a proof whose steps
have none asked only queries limited by work."""

CONJUNCTION_SPLIT = "z3, a conjunction unanswered whole, then asked part by part"
"""The ledger's solver for conjunctions z3 left unanswered within their whole work
(each then proved conjunct by conjunct, every conjunct's query counted under ``z3``):
the certificate's steps show where a proof needed the split."""

QUICK_EFFORT = 20_000_000
"""The limit of a query that only tidies a term (:meth:`Prover.simplify`) or
narrows a model (:meth:`Prover.smallest`): such queries take at most 50 thousand
on the stages of U; what is not decided within it is kept as it is."""


class Prover:
    """z3 over the integers, with a time budget, a cache and a ledger."""

    def __init__(self, dims: Sequence[str], timeout: float, ledger: Ledger,
                 query_effort: int = QUERY_EFFORT) -> None:
        self.dims = {d: z3.Int(d) for d in dims}
        self.ledger = ledger
        self.deadline = time.perf_counter() + timeout
        self.query_effort = query_effort
        self.cache: dict[tuple, Outcome] = {}
        self.keys = Keys()
        self._fresh = 0
        self._first_solver: z3.Solver | None = None
        self._bounding = False  # proving a quotient's bound: no bounds of its own

    def fresh(self, name: str) -> Term:
        self._fresh += 1
        return z3.Int(f"{name}!{self._fresh}")

    def remaining(self) -> float:
        left = self.deadline - time.perf_counter()
        if left <= 0:
            raise Deadline("the time budget is spent")
        return left

    def _solver(self, effort: int | None = None) -> z3.Solver:
        """A solver limited to ``effort`` of z3's work (at most the prover's own
        per query) and to the time left of the proof's budget."""
        solver = z3.Solver()
        solver.set("rlimit", self.query_effort if effort is None else min(effort, self.query_effort))
        solver.set("timeout", max(1, int(self.remaining() * 1000)))
        return solver

    def _solve(self, formulas: Sequence[Formula], step: str, effort: int | None = None,
               more: Callable[[], list[Formula]] | None = None
               ) -> tuple[z3.CheckSatResult, z3.ModelRef | None, float]:
        """z3's answer on ``formulas``: first from the kept solver within
        :data:`FIRST_EFFORT`, else from a new one within ``effort`` (see the
        module docstring), with its model when satisfiable and the seconds taken.
        ``more``: facts the formulas imply (each proved), asked for and added
        only for the second try; the seconds their own queries take are counted
        under those queries, not here."""
        start = time.perf_counter()
        limit = self.query_effort if effort is None else min(effort, self.query_effort)
        result, model, stopped = self._first(formulas, limit, step)
        if result == z3.unknown and (limit > FIRST_EFFORT or stopped):
            asked = time.perf_counter()
            implied = more() if more is not None else []
            start += time.perf_counter() - asked
            solver = self._solver(effort)
            solver.add(*formulas, *implied)
            result = solver.check()
            model = solver.model() if result == z3.sat else None
        return result, model, time.perf_counter() - start

    def _first(self, formulas: Sequence[Formula], limit: int,
               step: str) -> tuple[z3.CheckSatResult, z3.ModelRef | None, bool]:
        """The kept solver's answer within :data:`FIRST_EFFORT` (its assertions
        popped after), and whether :data:`FIRST_SECONDS` stopped it first (then
        recorded in the ledger under :data:`FIRST_TRY_STOPPED`). A solver whose
        check was left unanswered (cancelled by a limit, or z3 incomplete) is
        dropped, not popped: after a cancelled check z3's ``pop`` may itself run
        under neither limit (Z3Prover/z3 issue 10417). The next query gets a new
        one; so does the next after an exception, the solver never kept with a
        query's assertions in it."""
        if self._first_solver is None:
            self._first_solver = z3.Solver()
        solver = self._first_solver
        guard = min(FIRST_SECONDS, self.remaining())
        solver.set("rlimit", min(limit, FIRST_EFFORT))
        solver.set("timeout", max(1, int(guard * 1000)))
        start = time.perf_counter()
        self._first_solver = None  # kept again only once its assertions are popped
        solver.push()
        solver.add(*formulas)
        result = solver.check()
        model = solver.model() if result == z3.sat else None
        if result != z3.unknown:  # unanswered: dropped, not popped (a pop there may not end)
            solver.pop()
            self._first_solver = solver
        seconds = time.perf_counter() - start
        stopped = result == z3.unknown and guard == FIRST_SECONDS and seconds >= 0.99 * FIRST_SECONDS
        if stopped:
            self.ledger.add(step, FIRST_TRY_STOPPED, None, seconds)
        return result, model, stopped

    def model_values(self, model: z3.ModelRef) -> dict[str, int]:
        """Every integer constant of the model (the dimensions first, completed)."""
        out = {d: model.eval(v, model_completion=True).as_long() for d, v in self.dims.items()}
        for decl in model.decls():
            value = model[decl]
            if decl.arity() == 0 and z3.is_int_value(value):
                out.setdefault(decl.name(), value.as_long())
        return out

    def proves(self, hypotheses: Iterable[Formula], goal: Formula, step: str,
               effort: int | None = None) -> Outcome:
        """Do ``hypotheses`` imply ``goal`` for every value of the free symbols?
        (``effort``: a smaller limit of z3's work for this query than the prover's own.)

        The second try, where the first left the query unanswered, has beside the
        hypotheses the bounds of the goal's quotients that they give, each proved
        (:meth:`_quotient_bounds`): they hold wherever the hypotheses do, so a
        model of both refutes the goal. A conjunction z3 leaves unanswered within
        the query's whole work is then proved conjunct by conjunct
        (:meth:`_proves_each`)."""
        hypotheses = list(hypotheses)
        simple = z3.simplify(goal)
        if z3.is_true(simple):
            return Outcome(True)
        key = ("proves", self.keys(*hypotheses), self.keys(goal), effort, self._bounding)
        if key in self.cache:
            return self.cache[key]
        parts = conjuncts(goal)
        bounds = None if self._bounding else (lambda: self._quotient_bounds(hypotheses, goal, step, effort))
        result, model, seconds = self._solve(hypotheses + [z3.Not(goal)], step, effort, bounds)
        if result == z3.unknown and len(parts) > 1:
            self.ledger.add(step, CONJUNCTION_SPLIT, None, seconds)
            out = self._proves_each(hypotheses, parts, step, effort)
            self.cache[key] = out
            return out
        if result == z3.unsat:
            out = Outcome(True, None, seconds)
        elif result == z3.sat:
            out = Outcome(False, self.model_values(model), seconds, tuple(hypotheses) + (z3.Not(goal),))
        else:
            out = Outcome(None, None, seconds)
        self.ledger.add(step, "z3", out.holds, seconds)
        self.cache[key] = out
        return out

    def _proves_each(self, hypotheses: list[Formula], goals: Sequence[Formula], step: str,
                     effort: int | None) -> Outcome:
        """Do ``hypotheses`` imply every one of ``goals``? Each is asked on its own
        (:meth:`proves`): the conjunction holds when each does, and a model
        refuting one refutes it.

        z3 answers a conjunction only within the work its hardest part needs with
        the others beside it: Theorem 9's two- and four-head stage 4 each have
        an index bijection of entries that z3 leaves unanswered whole within 150
        million steps and answers part by part (2026-12-05, ``docs/all_sizes.md``).
        Only a last resort: asked whole, a conjunction that is false is refuted
        by one model where split it costs a proof of each true conjunct first
        (split after the first try, Theorem 9's proof took 375.8 s, 228.8 s as a
        last resort).

        Returns:
            Proved when every goal is; else the first refuted goal's outcome (its
            model and formulas), or, with none refuted, the first unknown one's.
        """
        seconds, unknown = 0.0, None
        for goal in goals:
            out = self.proves(hypotheses, goal, step, effort)
            seconds += out.seconds
            if out.holds is False:
                return out
            if out.holds is None and unknown is None:
                unknown = out
        return unknown if unknown is not None else Outcome(True, None, seconds)

    def _quotient_bounds(self, hypotheses: list[Formula], goal: Formula, step: str,
                         effort: int | None) -> list[Formula]:
        """Bounds on the quotients in ``goal``, each proved from ``hypotheses``: for
        x // d in it and a hypothesis x < u (or x <= u - 1) with u = k d exactly
        (:func:`exact_quotient`), x // d < k; for x >= 0, x // d >= 0.

        z3 proves (b // n) r + a < h r from b < h n, a < r only past its work
        limit, and at once with b // n < h beside it, which it proves at once (an
        index into one of h stacked blocks of r rows). Asked only for a query's
        second try (:meth:`proves`), where its first left it unanswered: the
        slicing head's reads, a conjunction of four, were unanswered whole at
        150 million steps (352 s) without them, and answered in under a second
        with them (2026-12-05, ``docs/all_sizes.md``). A bound's own query gets
        none (no bound proved from itself), and a bound that is the goal itself
        is not asked twice.

        Returns:
            The bounds proved (none where a goal has no quotient or no bound holds).
        """
        found: list[Formula] = []
        self._bounding, was = True, self._bounding
        try:
            for t in subterms(goal):
                if not z3.is_app_of(t, z3.Z3_OP_IDIV):
                    continue
                x, d = t.children()
                for candidate in self._bound_candidates(hypotheses, t, x, d):
                    if candidate.eq(goal):  # the goal's own query, asked next anyway
                        continue
                    if self.proves(hypotheses, candidate, step, effort).holds is True:
                        found.append(candidate)
        finally:
            self._bounding = was
        return found

    @staticmethod
    def _bound_candidates(hypotheses: Sequence[Formula], quotient: Term, x: Term, d: Term) -> list[Formula]:
        """x // d >= 0 where some hypothesis says x >= 0, and x // d < k where one
        says x < k d (or x <= k d - 1)."""
        out: list[Formula] = []
        for h in hypotheses:
            if not (z3.is_app(h) and h.num_args() == 2):
                continue
            left, right = h.children()
            if z3.is_app_of(h, z3.Z3_OP_LT) and left.eq(x):
                upper = right
            elif z3.is_app_of(h, z3.Z3_OP_GT) and right.eq(x):
                upper = left
            elif z3.is_app_of(h, z3.Z3_OP_LE) and left.eq(x):
                upper = right + 1
            elif z3.is_app_of(h, z3.Z3_OP_GE) and left.eq(x) and numeral(right) == 0:
                out.append(quotient >= 0)
                continue
            else:
                continue
            k = exact_quotient(z3.simplify(upper), d)
            if k is not None:
                out.append(quotient < k)
        return out

    def simplify(self, facts: Sequence[Formula], term: z3.ExprRef, step: str,
                 effort: int = QUICK_EFFORT, small: bool = False) -> z3.ExprRef:
        """``term`` with what ``facts`` decide taken out: each if-then-else whose
        condition the facts imply (or refute) replaced by its branch, each
        quotient and remainder of polynomials a = q * b + r with 0 <= r < b
        proved replaced by q and r (:func:`quotient_remainder`). Equal to
        ``term`` wherever ``facts`` hold, so only for use under them; a
        condition not decided within ``effort`` of z3's work is kept.

        The position a routing head reads is an if-then-else over the blocks
        of its source (``where(inside(o, e), formula, -1)``) that a case split
        already decides; left in, its division by a symbolic width is a
        non-linear query z3 does not answer (a padded stage's kept mask).
        ``small``: also the quotient with its coefficients rounded down
        (:func:`whole_quotient`), a // b = 0, a % b = a, and the polynomial
        quotient moved by each shift s of :data:`BLOCK_SHIFTS` (its remainder
        minus s b), where
        0 <= r < b is proved (a key past a block's first columns, read modulo the
        concatenation's width; asked only where the plain form decided
        nothing, as it costs queries per division)."""
        facts = list(facts)
        done: dict[int, z3.ExprRef] = {}

        def walk(t: z3.ExprRef) -> z3.ExprRef:
            if t.get_id() in done:
                return done[t.get_id()]
            out = t
            if z3.is_app(t) and t.num_args() > 0:
                if z3.is_app_of(t, z3.Z3_OP_ITE):
                    c = walk(t.arg(0))
                    if self.proves(facts, c, step, effort).holds is True:
                        out = walk(t.arg(1))
                    elif self.proves(facts, z3.Not(c), step, effort).holds is True:
                        out = walk(t.arg(2))
                    else:
                        out = z3.If(c, walk(t.arg(1)), walk(t.arg(2)))
                else:
                    kids = [walk(c) for c in t.children()]
                    out = t.decl()(*kids) if any(k.get_id() != c.get_id() for k, c in zip(kids, t.children())) else t
                    if z3.is_app_of(t, z3.Z3_OP_IDIV) or z3.is_app_of(t, z3.Z3_OP_MOD):
                        exact = quotient_remainder(*kids)
                        candidates = [exact]
                        if small:
                            candidates += [whole_quotient(*kids), (z3.IntVal(0), kids[0])]
                            if exact is not None:  # (N v + b - s N) // N is v where s N <= b < (s + 1) N
                                candidates += [(exact[0] + s, exact[1] - s * kids[1]) for s in BLOCK_SHIFTS if s]
                        for parts in candidates:
                            if parts is None:
                                continue
                            q, r = parts
                            if self.proves(facts, z3.And(r >= 0, r < kids[1]), step, effort).holds is True:
                                out = q if z3.is_app_of(t, z3.Z3_OP_IDIV) else r
                                break
            self.keys(t, out)  # keep both alive: ids are the memo's keys
            done[t.get_id()] = out
            return out

        return z3.simplify(walk(term))

    def satisfiable(self, formulas: Iterable[Formula], step: str, effort: int | None = None) -> Outcome:
        """Is there a value of the symbols meeting ``formulas``? (holds: True with
        a model, False when unsatisfiable, None when unknown; ``effort``: a
        smaller limit of z3's work than the prover's own.)"""
        formulas = list(formulas)
        key = ("sat", self.keys(*formulas), effort)
        if key in self.cache:
            return self.cache[key]
        result, model, seconds = self._solve(formulas, step, effort)
        if result == z3.sat:
            out = Outcome(True, self.model_values(model), seconds, tuple(formulas))
        elif result == z3.unsat:
            out = Outcome(False, None, seconds)
        else:
            out = Outcome(None, None, seconds)
        self.ledger.add(step, "z3", None if out.holds is None else True, seconds)
        self.cache[key] = out
        return out

    def sizes(self, outcome: Outcome, effort: int = QUICK_EFFORT) -> dict[str, int] | None:
        """Sizes where a refuted goal fails (or where satisfiable formulas hold),
        the dimensions as small as z3 finds them within ``effort`` a query."""
        if not outcome.formulas:
            return outcome.model
        try:
            return self.smallest(outcome.formulas, "sizes of a counterexample", effort=effort) or outcome.model
        except Deadline:
            return outcome.model

    def smallest(self, formulas: Iterable[Formula], step: str, limit: int = 64,
                 effort: int = QUICK_EFFORT) -> dict[str, int] | None:
        """A model of ``formulas`` with the sum of the dimensions as small as z3
        finds it (each at most ``limit``), or None: a binary search on that sum,
        one satisfiability check of at most ``effort`` per step (z3's optimiser
        is weak on non-linear integers); the search stops at the first check
        left unanswered."""
        formulas = list(formulas) + [d <= limit for d in self.dims.values()]
        total = z3.Sum(*self.dims.values()) if self.dims else z3.IntVal(0)
        best: dict[str, int] | None = None
        low, high = len(self.dims), limit * len(self.dims)
        while low <= high:
            middle = (low + high) // 2
            solver = self._solver(effort)
            solver.add(*formulas, total <= middle)
            start = time.perf_counter()
            result = solver.check()
            self.ledger.add(step, "z3", True if result == z3.sat else (False if result == z3.unsat else None),
                            time.perf_counter() - start)
            if result == z3.sat:
                best = self.model_values(solver.model())
                high = sum(best[d] for d in self.dims) - 1
            elif result == z3.unsat:
                low = middle + 1
            else:
                break
        return best


def conjuncts(goal: Formula) -> list[Formula]:
    """The conjuncts of ``goal``, nested conjunctions opened (``a & b & c`` is
    And(And(a, b), c)); ``[goal]`` for a goal that is no conjunction.

    >>> x = z3.Int("x")
    >>> conjuncts(z3.And(z3.And(x > 0, x < 5), x != 2))
    [x > 0, x < 5, x != 2]
    """
    if not z3.is_and(goal):
        return [goal]
    return [leaf for part in goal.children() for leaf in conjuncts(part)]
