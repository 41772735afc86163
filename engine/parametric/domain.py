"""Where a parametric proof's targets (and its program's values) are defined.

The checks a proof for every size makes besides the identities
(:mod:`usim.engine.parametric.prove`): the target reads inside its inputs;
every // and % of the program has a non-zero divisor; every real divisor of
the program and of the target is non-zero and every square root's argument
>= 0 (the sign analysis, with the preconditions' signs, else z3 on integer
terms), the target's own divisions and roots as it wrote them included (sympy
cancels x * y / y and w / w before any check sees the value's division:
:mod:`usim.encodings.written`); and, as a second line, a size the target uses as
a value, where it can be 0, leaves the target defined there (the target is
evaluated at those sizes, which also sees a log or a case that the record of
written powers does not). Each records its queries in the proof's
ledger and raises :class:`~usim.engine.parametric.symbolic_sizes.StepFailed`
where it fails.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import sympy
import z3

from usim.encodings.written import Power, cancelled_powers
from usim.engine.parametric.integers import Outcome, Prover
from usim.engine.parametric.polynomials import numeral
from usim.engine.parametric.statement import Equation, FamilyClaim
from usim.engine.parametric.symbolic_sizes import StepFailed, SymbolicSizeEvaluator, Unsupported
from usim.engine.parametric.target import TargetContext
from usim.engine.parametric.terms import Entry, ParametricAtoms, Total, Whole
from usim.engine.signs import Sign, SignAnalysis, above_zero, known_signs
from usim.engine.claim import Status
from usim.rasp.program import Program

DEFINED = "every // and % has a non-zero divisor where it is evaluated"
NONZERO = "every real divisor is non-zero"
ROOTS = "every square root's argument is >= 0"
READS = "the target reads inside its inputs"
ZERO_VALUES = "the target is defined where a size it uses as a value is 0"
ZERO_SIZES_LIMIT = 8
"""The largest size at which a target is evaluated where a size it uses as a value
is 0 (:func:`zero_size_values`); a size that is 0 only past it leaves the proof unknown."""


@dataclass
class ProofRun:
    """One proof under way: its statement, program (None for an equation), prover, atoms, the
    failed steps' models (hints) and the signs its preconditions give."""

    fc: FamilyClaim | Equation
    program: Program | None  # None for an equation
    prover: Prover
    atoms: ParametricAtoms = field(default_factory=ParametricAtoms)
    hints: list[Outcome] = field(default_factory=list)
    signs: SignAnalysis = field(default_factory=SignAnalysis)  # the preconditions' entries > 0 (>= 0) known


def _integer_inputs(blocks: Sequence[tuple[str, tuple[Any, Any]]]) -> dict[str, sympy.Matrix]:
    """Input blocks at integer sizes, each entry its own symbol."""
    return {name: sympy.Matrix(rows, cols, lambda i, j: sympy.Symbol(f"{name}[{i},{j}]"))
            for name, (rows, cols) in blocks}


def _undefined(values: Mapping[str, Any]) -> list[str]:
    """The entries of ``values`` (matrices by name) that are not finite (nan, zoo, oo)."""
    bad = []
    for name, matrix in values.items():
        for (i, j), entry in zip(((i, j) for i in range(matrix.rows) for j in range(matrix.cols)), matrix):
            if sympy.sympify(entry).has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
                bad.append(f"{name}[{i}, {j}]")
    return bad


def zero_size_values(run: ProofRun, context: TargetContext,
                      targets: Callable[..., list[Callable[[Mapping[str, Any]], Mapping[str, Any]]]]) -> None:
    """Each size the targets use as a value that is not shown > 0 (recorded by the
    target context) must leave them defined where it is 0: sympy cancels w / w and
    0 * (1 / w) before the divisor check can see them, so the targets are
    evaluated at the smallest sizes where w = 0 (each at most :data:`ZERO_SIZES_LIMIT`)
    on symbolic entries, and every entry must be finite.

    Args:
        run: the proof (its statement gives the inputs at integer sizes).
        context: the target context, after the targets were read.
        targets: the dimensions (integers) -> the target functions to evaluate there.

    Raises:
        StepFailed: a target undefined there, or such a size 0 only past the limit.
    """
    prover, fc = run.prover, run.fc
    seen: set[str] = set()
    for facts, term in context.size_values:
        if term.sexpr() in seen:
            continue
        seen.add(term.sexpr())
        zero = list(facts) + [term == 0]
        where = prover.satisfiable(zero, ZERO_VALUES)
        if where.holds is False:
            continue
        found = prover.smallest(zero, ZERO_VALUES, limit=ZERO_SIZES_LIMIT) if where.holds else None
        if found is None:
            raise StepFailed(ZERO_VALUES, f"the size {term} is used as a value and may be 0, at sizes past "
                             f"{ZERO_SIZES_LIMIT} or that z3 does not name", where if where.holds else None)
        at = tuple(found[d] for d in fc.dims)
        inputs = _integer_inputs(fc.inputs(*at))
        start = time.perf_counter()
        try:
            bad = [entry for target in targets(*at) for entry in _undefined(target(inputs))]
        except (ZeroDivisionError, ArithmeticError) as error:
            bad = [f"({type(error).__name__})"]
        prover.ledger.add(ZERO_VALUES, "sympy", not bad, time.perf_counter() - start)
        if bad:
            raise StepFailed(ZERO_VALUES, f"the size {term} used as a value is 0 at "
                             f"{dict(zip(fc.dims, at))}, where the target is undefined ({', '.join(bad[:3])})",
                             where)


def target_divisors(run: ProofRun, evaluator: SymbolicSizeEvaluator, expr: sympy.Expr, facts: tuple, what: str) -> None:
    """Every denominator of the target (inside its sums too) must be non-zero:
    recorded, like the program's divisors, for the sign check. The target may
    use +, *, integer powers, square roots (their argument recorded, to be
    evidently >= 0), exp, max and min only (every other function or power has
    a domain this engine does not check): anything else is outside the
    fragment.

    Args:
        run: the proof.
        evaluator: where the divisors and radicands are recorded.
        expr: a value of the target.
        facts: where it is evaluated.
        what: the value, in words.

    Raises:
        Unsupported: a function or power outside the fragment.
    """
    for part in sympy.preorder_traversal(expr):
        if isinstance(part, sympy.Pow):
            _power(evaluator, part.base, part.exp, facts, what)
        elif not (part.is_Add or part.is_Mul or part.is_Symbol or part.is_Rational
                  or isinstance(part, (sympy.exp, sympy.Max, sympy.Min))):
            raise Unsupported(f"{what} uses {type(part).__name__} (the target may use +, *, integer powers, exp, "
                              "max, min)")
    for symbol in run.atoms.atoms_of(expr):
        atom = run.atoms.info[symbol]
        if isinstance(atom, Total):
            target_divisors(run, evaluator, atom.body, facts + (atom.var >= 0, atom.var < atom.extent), what)


def written_divisors(evaluator: SymbolicSizeEvaluator, powers: set[Power],
                     values: Sequence[Any], facts: tuple, what: str) -> None:
    """Each division and root the target wrote as it was built that one of its
    values does not evaluate everywhere (sympy cancelled it: ``x * y / y`` is
    ``x``): recorded like the target's own denominators, to be defined wherever
    the values are (:mod:`usim.encodings.written`). The values are an entry's
    cases, each checked only where its condition holds, so a division one case
    keeps does not stand for the same division another case cancelled: a power
    counts as kept only if every case keeps it.

    Args:
        evaluator: where the divisors and radicands are recorded.
        powers: the (base, exponent) pairs written.
        values: the values built, one per case (their own powers are checked with them).
        facts: where they were written.
        what: the values, in words.

    Raises:
        Unsupported: a power other than an integer one or a square root.
    """
    left = set().union(*(cancelled_powers(powers, [value]) for value in values)) if values else set(powers)
    for base, exponent in sorted(left, key=sympy.default_sort_key):
        _power(evaluator, base, exponent, facts, f"{what} (as written)")


def _power(evaluator: SymbolicSizeEvaluator, base: sympy.Expr, exponent: sympy.Expr, facts: tuple, what: str) -> None:
    """base ** exponent's domain recorded: a square root's argument, a negative power's base."""
    if exponent.is_Rational and not exponent.is_Integer and exponent.q == 2:  # a square root
        evaluator.obligations.radicands.append((facts, base, f"a square root's argument in {what}"))
    elif not exponent.is_Integer:
        raise Unsupported(f"{what} has the power {sympy.Pow(base, exponent, evaluate=False)} (only integer powers "
                          "and square roots are checked)")
    if exponent.is_negative:
        evaluator.obligations.real.append((facts, base, f"a denominator of {what}"))


def target_reads(run: ProofRun, target_context: TargetContext) -> None:
    """The entries the target has read so far lie inside their matrices (each checked, then cleared).

    Args:
        run: the proof.
        target_context: the context that recorded the reads.

    Raises:
        StepFailed: a read that z3 does not show inside.
    """
    for facts, condition, what in target_context.obligations:
        outcome = run.prover.proves(facts, condition, READS)
        if outcome.holds is not True:
            raise StepFailed(READS, what, outcome)
    target_context.obligations.clear()


def definedness(run: ProofRun, evaluator: SymbolicSizeEvaluator, target_context: TargetContext) -> None:
    """Every // and % divisor non-zero where evaluated, every read inside, every
    square root's argument >= 0 and every real divisor non-zero (signs, else z3).

    Args:
        run: the proof (its signs from the preconditions).
        evaluator: the divisors and radicands recorded.
        target_context: the target's reads not yet checked.

    Raises:
        StepFailed: the first that is not shown.
    """
    prover = run.prover
    for facts, condition, what in evaluator.obligations.static:
        outcome = prover.proves(facts, condition, DEFINED)
        if outcome.holds is not True:
            raise StepFailed(DEFINED, f"{what}: a divisor can be 0", outcome)
    target_reads(run, target_context)
    for facts, radicand, what in evaluator.obligations.radicands:
        start = time.perf_counter()
        ok = run.signs.sign(radicand) in (Sign.POSITIVE, Sign.NONNEGATIVE, Sign.ZERO)
        prover.ledger.add(ROOTS, "sign analysis", ok, time.perf_counter() - start)
        if not ok:
            raise StepFailed(ROOTS, f"{what} ({run.atoms.text(radicand)}) is not evidently >= 0")
    for facts, divisor, what in evaluator.obligations.real:
        start = time.perf_counter()
        sign = run.signs.sign(divisor)
        ok = sign in (Sign.POSITIVE, Sign.NEGATIVE)
        prover.ledger.add(NONZERO, "sign analysis", ok, time.perf_counter() - start)
        if not ok:
            _integer_divisor(run, facts, divisor, what)


def precondition_signs(run: ProofRun, relations: Sequence[Any]) -> SignAnalysis:
    """The signs the preconditions give: each must be ``x > 0`` or ``x >= 0`` for one
    input entry x at fixed indices (a layer norm's eps), which the sign analysis of
    the definedness step then knows; any other precondition is outside the fragment.

    Args:
        run: the proof (its atoms name the entries).
        relations: the preconditions on the symbolic inputs.

    Returns:
        The sign analysis that knows them.

    Raises:
        Unsupported: a precondition of another form.
    """
    for relation in relations:
        found = above_zero(relation)
        atom = run.atoms.info.get(found[0]) if found is not None else None
        if not isinstance(atom, Entry) or numeral(atom.row) is None or numeral(atom.col) is None:
            raise Unsupported(f"the precondition {relation} (only an entry at fixed indices > 0 or >= 0 is used)")
    return known_signs(relations)


def _as_real(expr: sympy.Expr, atoms: ParametricAtoms) -> z3.ArithRef | None:
    """A sympy expression over integer atoms (+, *, integer powers, rationals) in z3, else None."""
    if expr.is_Rational:
        return z3.RealVal(str(expr))
    if expr.is_Symbol:
        atom = atoms.info.get(expr)
        return z3.ToReal(atom.term) if isinstance(atom, Whole) else None
    parts = [_as_real(a, atoms) for a in expr.args]
    if any(p is None for p in parts):
        return None
    if expr.is_Add:
        return z3.Sum(*parts)
    if expr.is_Mul:
        return z3.Product(*parts)
    if expr.is_Pow and expr.exp.is_Integer and expr.exp > 0:
        return z3.Product(*([parts[0]] * int(expr.exp)))
    return None


def _integer_divisor(run: ProofRun, facts: tuple, divisor: sympy.Expr, what: str) -> None:
    """A divisor the signs do not show non-zero: if it is built from integer
    terms, z3 decides it (and names sizes where it is 0); otherwise it fails."""
    numerator, _ = sympy.fraction(sympy.together(divisor))  # the denominator's own conditions are recorded
    term = _as_real(numerator, run.atoms)
    if term is not None:
        outcome = run.prover.proves(facts, term != 0, NONZERO)
        if outcome.holds:
            return
        raise StepFailed(NONZERO, f"{what} ({run.atoms.text(divisor)}) can be 0", outcome)
    model = run.prover.satisfiable(facts, NONZERO)
    raise StepFailed(NONZERO, f"{what} ({run.atoms.text(divisor)}) is not evidently non-zero",
                     model if model.holds else None)


def not_proved(run: ProofRun, outcome: Outcome | None, reason: str) -> tuple[Status, str, None, int]:
    """UNKNOWN for ``reason``, the failed step's models first among the hints.

    Args:
        run: the proof.
        outcome: the step that failed (its models name sizes), or None.
        reason: why, in words.

    Returns:
        (UNKNOWN, reason, no witness, no cases).
    """
    if outcome is not None and outcome.holds is not None:
        run.hints.insert(0, outcome)
    return Status.UNKNOWN, reason, None, 0

