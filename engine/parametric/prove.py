"""The parametric proof of one family (or of one equation): every step, and the verdict it supports.

:func:`prove_family` proves, for every value of the dimensions meeting the
side conditions, every output position and every real input, that the
family's output equals the target (see :mod:`usim.engine.parametric` for why
the steps compose). Its verdict is the engine's alone: PROVED, VACUOUS (no
sizes meet the side conditions), or not proved, with the sizes (z3 models)
where a step failed; turning those into a replayed counterexample is the
caller's (:mod:`usim.engine.parametric.allsizes`).

:func:`prove_equation` proves an :class:`~usim.engine.parametric.statement.Equation`
(two targets, no program) for every size by the same steps: the side
conditions' witness, each side's reads inside its inputs and its divisors
non-zero, each output entry's cases (a case the facts decide taken alone,
inside sums too), and the two sides' canonical forms with atoms identified by
proof.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import sympy
import z3

from usim.encodings.written import written_powers
from usim.engine.claim import Status
from usim.engine.parametric.compare import ALGEBRA, Comparison
from usim.engine.parametric.domain import (
    DEFINED,
    READS,
    ProofRun,
    definedness,
    not_proved,
    precondition_signs,
    target_divisors,
    target_reads,
    written_divisors,
    zero_size_values,
)
from usim.engine.parametric.symbolic_sizes import (
    CASES,
    SIGNS,
    Context,
    InputBlock,
    StepFailed,
    SymbolicSizeEvaluator,
    Unsupported,
)
from usim.engine.parametric.integers import Deadline, Formula, Ledger, Outcome, Prover, Term
from usim.engine.parametric.translation import condition_formula, translate
from usim.engine.parametric.statement import Equation, FamilyClaim
from usim.engine.parametric.target import CASES_INSIDE, Cases, CasesInArithmetic, SymbolicMatrix, TargetContext, active
from usim.engine.canonical import Verdict
from usim.rasp.family import Condition, index_symbol

LAYOUT = "the output blocks fit the sequence and have the target's shapes"
WITNESS = "the side conditions have a witness"
HINTS = 6
"""How many failed steps are turned into the smallest sizes where they fail."""


@dataclass(frozen=True)
class StepReport:
    """One kind of step: which solver, how many of its queries held, how long."""

    step: str
    solver: str
    proved: int
    failed: int
    unknown: int
    seconds: float

    def as_dict(self) -> dict:
        return {"step": self.step, "solver": self.solver, "proved": self.proved, "failed": self.failed,
                "unknown": self.unknown, "seconds": round(self.seconds, 4)}


@dataclass(frozen=True)
class ParametricVerdict:
    """What the parametric engine found for one family."""

    status: Status  # PROVED, VACUOUS or UNKNOWN (not proved: see reason and hints)
    reason: str
    steps: tuple[StepReport, ...]
    hints: tuple[Mapping[str, int], ...] = ()
    witness: Mapping[str, int] | None = None
    cases: int = 0
    seconds: float = 0.0


def _z3_condition(condition: Condition, dims: Mapping[str, Term], positive) -> tuple[z3.BoolRef, list]:
    defined: list = []

    def term(value):
        t = translate(value, {}, dims, positive)
        defined.extend(t.defined)
        return t.term

    return condition_formula(condition, term), defined


def _blocks(layout: Sequence[tuple[str, tuple[Any, Any]]], dims, positive) -> list[InputBlock]:
    out, offset = [], z3.IntVal(0)
    for name, (rows, cols) in layout:
        r = translate(rows, {}, dims, positive).term
        c = translate(cols, {}, dims, positive).term
        out.append(InputBlock(name, r, c, offset))
        offset = offset + r * c
    return out


def prove_family(fc: FamilyClaim, mutant: str | None = None, timeout: float = 60.0) -> ParametricVerdict:
    """Prove ``fc``'s family (or a broken variant of it) for every size.

    Args:
        fc: the claim's statement for every size.
        mutant: one of its broken variants, or None.
        timeout: the time budget, in seconds.

    Returns:
        PROVED, VACUOUS or UNKNOWN, with the reason, the ledger of steps and the
        sizes where a failed step fails.
    """
    start = time.perf_counter()
    run = ProofRun(fc, fc.family(mutant), Prover(fc.dims, timeout, Ledger()))
    return _parametric_verdict(run, _prove, timeout, start)


Found = tuple[Status, str, "Mapping[str, int] | None", int]
"""A proof's status, reason, witness sizes and number of cases."""


class _Early(Exception):
    """A verdict reached before the entries are compared (VACUOUS, or not proved)."""

    def __init__(self, found: Found) -> None:
        super().__init__(found[1])
        self.found = found


def _parametric_verdict(run: ProofRun, make: Callable[[ProofRun], Found], timeout: float,
                        start: float) -> ParametricVerdict:
    """``make``'s verdict on ``run``, a time or solver failure UNKNOWN, with the
    sizes where each failed step fails and the ledger."""
    prover = run.prover
    try:
        status, reason, witness, cases = make(run)
    except _Early as early:
        status, reason, witness, cases = early.found
    except Deadline:
        status, reason, witness, cases = Status.UNKNOWN, f"timeout after {timeout:g} s", None, 0
    except z3.Z3Exception as error:
        status, reason, witness, cases = Status.UNKNOWN, f"z3 failed: {error}", None, 0
    except RecursionError:
        status, reason, witness, cases = Status.UNKNOWN, "expression too deep for the engine", None, 0
    sizes = []
    if status is not Status.PROVED:
        for outcome in run.hints[:HINTS]:  # the smallest sizes where each failed step fails
            found = prover.sizes(outcome)
            if found and found not in sizes:
                sizes.append(found)
    steps = tuple(StepReport(step, solver, t.proved, t.failed, t.unknown, t.seconds)
                  for (step, solver), t in prover.ledger.entries.items())
    return ParametricVerdict(status, reason, steps, tuple(sizes), witness, cases,
                             time.perf_counter() - start)


@dataclass(frozen=True)
class _Facts:
    """What every size meeting the side conditions satisfies: the facts, the smallest
    such sizes, and whether a term is provably > 0 under the facts."""

    base: list
    witness: Mapping[str, int]
    positive: Callable[[Term], bool]


def _side_conditions(run: ProofRun) -> _Facts:
    """The facts every size meets (each dimension >= 1, the side conditions) and
    the smallest sizes that meet them.

    Raises:
        _Early: VACUOUS with no such sizes; not proved where a side condition may
            divide by zero, or where z3 cannot tell whether any sizes meet them.
    """
    fc, prover = run.fc, run.prover
    dims = prover.dims

    def positive(term: Term) -> bool:
        return prover.proves(base, term > 0, SIGNS).holds is True

    base: list = [d >= 1 for d in dims.values()]
    definedness: list = []
    for condition in fc.conditions():
        formula, defined = _z3_condition(condition, dims, positive)
        base.append(formula)
        definedness.extend(defined)
    witness = prover.smallest(base, WITNESS)
    if witness is None:
        found = prover.satisfiable(base, WITNESS)
        if found.holds is False:
            raise _Early((Status.VACUOUS, f"no sizes meet the side conditions ({fc.describe_conditions()})", None, 0))
        if found.holds is None:
            raise _Early((Status.UNKNOWN, "z3 could not decide whether the side conditions can be met", None, 0))
        witness = found.model
    witness = {d: witness[d] for d in fc.dims}
    for condition in definedness:
        outcome = prover.proves(base, condition, DEFINED)
        if outcome.holds is not True:
            raise _Early(not_proved(run, outcome, "a side condition divides by zero"))
    return _Facts(base, witness, positive)


def _shape_problem(run: ProofRun, sizes: _Facts, matrix: Any, rows: Any, cols: Any, what: str) -> Found | None:
    """Not proved unless ``matrix`` is rows x cols at every size (None: it is)."""
    dims = run.prover.dims
    shape = [translate(x, {}, dims, sizes.positive).term for x in (matrix.rows, matrix.cols, rows, cols)]
    same = run.prover.proves(sizes.base, z3.And(shape[0] == shape[2], shape[1] == shape[3]), LAYOUT)
    return None if same.holds is True else not_proved(run, same, f"{what} is not {rows} x {cols}")


def _prove(run: ProofRun) -> Found:
    fc, prover = run.fc, run.prover
    dims = prover.dims
    symbols = fc.symbols()
    sizes = _side_conditions(run)
    base, witness, positive = sizes.base, sizes.witness, sizes.positive

    inputs = _blocks(fc.inputs(*symbols), dims, positive)
    outputs = _blocks(fc.outputs(*symbols), dims, positive)
    n = inputs[-1].end
    atoms = run.atoms
    evaluator = SymbolicSizeEvaluator(inputs, n, prover, atoms, base, dims)
    comparison = Comparison(atoms, prover, dims)
    matrices = {b.name: SymbolicMatrix.input(b.name, sym_rows, sym_cols)
                for b, (_, (sym_rows, sym_cols)) in zip(inputs, fc.inputs(*symbols))}
    target_context = TargetContext(atoms, dict(dims), prover.fresh, positive,
                                   lambda facts, goal: prover.proves(facts, goal, READS).holds is True,
                                   simplify=_simplifier(prover))
    with active(target_context), written_powers() as written:
        blocks = fc.target_at(*symbols)(matrices)
    with active(target_context):
        relations = list(fc.preconditions(matrices)) if fc.preconditions is not None else []
    try:
        run.signs = precondition_signs(run, relations)
    except Unsupported as gap:
        return Status.UNKNOWN, f"outside the engine's fragment: {gap}", witness, 0
    declared = dict(fc.outputs(*symbols))
    if set(blocks) != set(declared):
        return Status.UNKNOWN, f"the target gives the blocks {sorted(blocks)}, the output layout has " \
                               f"{sorted(declared)}", witness, 0
    end = outputs[-1].end
    fits = prover.proves(base, end <= n, LAYOUT)
    if fits.holds is not True:
        return not_proved(run, fits, f"the output ({end} positions) does not fit the sequence ({n})")
    for name, (rows, cols) in fc.outputs(*symbols):
        problem = _shape_problem(run, sizes, blocks[name], rows, cols, f"the target's {name}")
        if problem:
            return problem

    output = run.program.outputs[0][1]
    cases = 0
    try:
        written_divisors(evaluator, written, [], tuple(base), "the target")
        for block, (name, _) in zip(outputs, fc.outputs(*symbols)):
            a, b = index_symbol("a"), index_symbol("b")
            za = evaluator.variable("a", z3.IntVal(0), block.rows)
            zb = evaluator.variable("b", z3.IntVal(0), block.cols)
            position = block.offset + za * block.cols + zb
            facts = tuple(base) + (za >= 0, za < block.rows, zb >= 0, zb < block.cols)
            target_context.env = {a.args[0]: za, b.args[0]: zb}
            target_context.facts = list(facts)
            with active(target_context), written_powers() as written_here:
                entry = blocks[name][a, b]
            written_divisors(evaluator, written_here, case_values(entry), facts, f"the target's {name}[a, b]")
            # an entry given by cases (when): complementary conditions, each case proved on its own
            for condition, value in (entry.cases if isinstance(entry, Cases) else ((None, entry),)):
                here = facts if condition is None else facts + (condition,)
                if condition is not None and prover.satisfiable(here, CASES).holds is False:
                    continue
                expected = sympy.sympify(value)
                target_divisors(run, evaluator, expected, here, f"the target's {name}[a, b]")
                target_reads(run, target_context)
                evaluator.candidates = [za, zb]
                cases += _case(run, evaluator, comparison, output, position, Context(here), expected,
                               f"{name}[a, b]")
        if prover.satisfiable(tuple(base) + (end < n,), LAYOUT).holds is not False:
            p = evaluator.variable("p", end, n)
            evaluator.candidates = []
            cases += _case(run, evaluator, comparison, output, p, Context(tuple(base) + (p >= end, p < n)),
                           sympy.Integer(0), "the padding")
        definedness(run, evaluator, target_context)
        zero_size_values(run, target_context, lambda *at: [fc.target_at(*at)])
    except StepFailed as failure:
        return not_proved(run, failure.outcome, str(failure))
    except Unsupported as gap:
        return Status.UNKNOWN, f"outside the engine's fragment: {gap}", witness, cases
    except CasesInArithmetic:  # a target computing with when()'s result, not returning it
        return Status.UNKNOWN, f"outside the engine's fragment: {CASES_INSIDE}", witness, cases
    if run.hints:
        return Status.UNKNOWN, "not every step was proved", witness, cases
    return Status.PROVED, "every step proved", witness, cases


def prove_equation(equation: Equation, timeout: float = 60.0) -> ParametricVerdict:
    """Prove ``equation`` for every size: for every value of its dimensions meeting
    its side conditions and every real input, each output block of its left side
    equals the right side's, entry by entry.

    Args:
        equation: the two sides, their inputs, outputs and side conditions.
        timeout: the time budget, in seconds.

    Returns:
        PROVED, VACUOUS (no sizes meet the side conditions) or UNKNOWN with the
        reason and the sizes where a failed step fails (an equation has no
        program to replay a counterexample on: never REFUTED here).
    """
    start = time.perf_counter()
    run = ProofRun(equation, None, Prover(equation.dims, timeout, Ledger()))
    return _parametric_verdict(run, _prove_equation, timeout, start)


def _prove_equation(run: ProofRun) -> Found:
    equation, prover = run.fc, run.prover
    assert isinstance(equation, Equation)
    dims = prover.dims
    symbols = equation.symbols()
    sizes = _side_conditions(run)
    base, witness, positive = sizes.base, sizes.witness, sizes.positive

    inputs = _blocks(equation.inputs(*symbols), dims, positive)
    atoms = run.atoms
    evaluator = SymbolicSizeEvaluator(inputs, inputs[-1].end, prover, atoms, base, dims)  # records the divisors
    comparison = Comparison(atoms, prover, dims)
    matrices = {name: SymbolicMatrix.input(name, rows, cols) for name, (rows, cols) in equation.inputs(*symbols)}
    context = TargetContext(atoms, dict(dims), prover.fresh, positive,
                            lambda facts, goal: prover.proves(facts, goal, READS).holds is True, prune=True,
                            simplify=_simplifier(prover))
    cases = 0
    try:
        with active(context), written_powers() as written:
            try:
                sides = [equation.left(*symbols)(matrices), equation.right(*symbols)(matrices)]
                relations = list(equation.preconditions(matrices)) if equation.preconditions is not None else []
            except KeyError as missing:  # a side (or a precondition) reads a block the equation does not give it
                return Status.UNKNOWN, f"a side reads the block {missing}, which is not an input", witness, 0
        run.signs = precondition_signs(run, relations)
        written_divisors(evaluator, written, [], tuple(base), "the equation's sides")
        declared = dict(equation.outputs(*symbols))
        for side, what in zip(sides, ("left", "right")):
            if set(side) != set(declared):
                return Status.UNKNOWN, f"the {what} side gives the blocks {sorted(side)}, the equation " \
                                       f"states {sorted(declared)}", witness, 0
            for name, (rows, cols) in declared.items():
                problem = _shape_problem(run, sizes, side[name], rows, cols, f"the {what} side's {name}")
                if problem:
                    return problem
        for name, (rows, cols) in declared.items():
            a, b = index_symbol("a"), index_symbol("b")
            height, width = translate(rows, {}, dims, positive).term, translate(cols, {}, dims, positive).term
            za, zb = evaluator.variable("a", z3.IntVal(0), height), evaluator.variable("b", z3.IntVal(0), width)
            facts = tuple(base) + (za >= 0, za < height, zb >= 0, zb < width)
            context.env = {a.args[0]: za, b.args[0]: zb}
            context.facts = list(facts)
            with active(context):
                split = [context.condition(c) for c in (equation.splits(*symbols)(a, b) if equation.splits else ())]
            for region in itertools.product(*((f, z3.Not(f)) for f in split)):  # each split's two sides
                inside = facts + tuple(region)
                if region and prover.satisfiable(inside, CASES).holds is False:
                    continue
                context.facts = list(inside)
                context.skip_zero = equation.left_defined
                try:
                    with active(context), written_powers() as written:
                        left = sides[0][name][a, b]
                finally:
                    context.skip_zero = False
                written_divisors(evaluator, written, case_values(left), inside, f"the left side's {name}[a, b]")
                with active(context), written_powers() as written:
                    right = sides[1][name][a, b]
                written_divisors(evaluator, written, case_values(right), inside, f"the right side's {name}[a, b]")
                for lc, lv in (left.cases if isinstance(left, Cases) else ((None, left),)):
                    for rc, rv in (right.cases if isinstance(right, Cases) else ((None, right),)):
                        here = inside + tuple(c for c in (lc, rc) if c is not None)
                        if len(here) > len(inside) and prover.satisfiable(here, CASES).holds is False:
                            continue
                        cases += _equal_entry(run, evaluator, comparison, context, here, sympy.sympify(lv),
                                              sympy.sympify(rv), name)
        definedness(run, evaluator, context)
        zero_size_values(run, context, lambda *at: [equation.left(*at), equation.right(*at)])
    except StepFailed as failure:
        return not_proved(run, failure.outcome, str(failure))
    except Unsupported as gap:
        return Status.UNKNOWN, f"outside the engine's fragment: {gap}", witness, cases
    except CasesInArithmetic:
        return Status.UNKNOWN, f"outside the engine's fragment: {CASES_INSIDE}", witness, cases
    if run.hints:
        return Status.UNKNOWN, "not every step was proved", witness, cases
    if context.skipped:  # the caller's statement that the left side is defined (Equation.left_defined), named
        return Status.PROVED, (f"every step proved, given that the left side is defined (left_defined): "
                               f"{context.skipped} product term(s) taken as 0 by their right factor alone, "
                               "their left factor not evaluated"), witness, cases
    return Status.PROVED, "every step proved", witness, cases


def _simplifier(prover: Prover) -> Callable[[list[Formula], Term], Term]:
    """A target's index term as the facts state it (``Prover.simplify``: equal wherever they hold)."""
    return lambda facts, term: prover.simplify(facts, term, READS)


def case_values(entry: Any) -> list[Any]:
    """The values of an entry given by cases (``when``), or the entry alone.

    Args:
        entry: a target's entry.

    Returns:
        Its values, one per case.
    """
    return [value for _, value in (entry.cases if isinstance(entry, Cases) else ((None, entry),))]


def _equal_entry(run: ProofRun, evaluator: SymbolicSizeEvaluator, comparison: Comparison, context: TargetContext,
                 facts: tuple, got: sympy.Expr, expected: sympy.Expr, name: str) -> int:
    """One case of an equation's entry: both sides' divisors recorded, their reads
    checked, and the two shown equal (else the step fails, with the sizes it names)."""
    for value, what in ((got, "left"), (expected, "right")):
        target_divisors(run, evaluator, value, facts, f"the {what} side's {name}[a, b]")
    target_reads(run, context)
    decision = comparison.equal(got, expected, facts)
    if decision.verdict is not Verdict.EQUAL:
        run.hints.extend(decision.hints)
        raise StepFailed(ALGEBRA, f"at {name}[a, b] the left side is {run.atoms.text(got)}, the right side "
                         f"{run.atoms.text(expected)}: not shown equal", decision.hints[0] if decision.hints else None)
    return 1


def _case(run: ProofRun, evaluator: SymbolicSizeEvaluator, comparison: Comparison, output, position: Term, ctx: Context,
          expected: sympy.Expr, label: str) -> int:
    values = evaluator.value(output, position, {}, ctx)
    for here, got in values:
        decision = comparison.equal(got, expected, here.facts)
        if decision.verdict is Verdict.EQUAL:
            continue
        run.hints.extend(decision.hints)
        model = run.prover.satisfiable(here.facts, ALGEBRA)
        if model.holds:
            run.hints.append(model)
        run.hints.extend(_branch_models(run, here.facts, got, expected))
        raise StepFailed(ALGEBRA, f"at {label} the program gives {run.atoms.text(got)}, the target "
                         f"{run.atoms.text(expected)}: not shown equal", decision.hints[0] if decision.hints else
                         (model if model.holds else None))
    return len(values)


BRANCHES = 4
"""How many of the conditions inside the indices of a failed identity are each
turned into sizes where they hold (hints for a counterexample)."""


def _branch_models(run: ProofRun, facts: tuple, *exprs: sympy.Expr) -> list[Outcome]:
    """Sizes where each condition of an if-then-else inside the indices of
    ``exprs`` holds, and where it fails, under ``facts`` (z3 models): a term the
    identity could not decide may be wrong only on one branch, which the
    context's own model need not take (a routing head wrapping past position
    800 reads otherwise only where 800 <= 2 N^2 + 3 a + b, from N = 17 on).
    Only hints: a refutation is replayed at the sizes they give."""
    conditions: list[Formula] = []
    todo = [t for e in exprs for t in run.atoms.index_terms(e)]
    seen: set[int] = set()
    while todo and len(conditions) < BRANCHES:
        t = todo.pop()
        if t.get_id() in seen or not z3.is_app(t):
            continue
        seen.add(t.get_id())
        if z3.is_app_of(t, z3.Z3_OP_ITE) and all(not t.arg(0).eq(c) for c in conditions):
            conditions.append(t.arg(0))
        todo.extend(t.children())
    found = []
    for c in conditions:
        for branch in (c, z3.Not(c)):
            model = run.prover.satisfiable(tuple(facts) + (branch,), ALGEBRA)
            if model.holds:
                found.append(model)
    return found

