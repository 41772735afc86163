"""A family evaluated at a symbolic position, for every size at once.

:class:`SymbolicSizeEvaluator` gives a node's value at a position that is a z3 term
(``p = a*c + b`` with symbolic a, b, c) under a :class:`Context` of hypotheses:

* a node that does not depend on the tokens is *static*: its value is a z3
  integer or Boolean term (``//`` and ``%`` as in Python, see
  :mod:`.integers`), and every division in it is recorded as a definedness
  obligation, guarded by the ``where`` branches it sits in;
* ``tokens`` at a position is an :class:`~.terms.Entry` of the input block
  that holds it (z3 proves which block, or the context is split by blocks);
* an aggregate characterises its selection as an index interval
  (:mod:`.selection`, proved by z3); where the selection is empty it is the
  default, where it is one key it is the value there, otherwise it is the
  normalised sum ``total_{l < hi - lo} v(lo + l) / (hi - lo)``: a
  :class:`~.terms.Total` over a bound index l, split into two sums where its
  body needs a case that holds exactly on the first keys (:mod:`.sums`);
* a head sum over symbolic head indices h in a box H is evaluated with h free;
  z3 proves that at this position every head but one candidate h0 has an empty
  selection (the heads are zero outside their own row or cell), or that all
  have; the sum is then head h0's value (or 0). The candidates are the
  position's own coordinates and the terms the heads' conditions equate h with;
* a node that depends on the tokens, used where an index is expected, stands
  for an integer term only where its value is one (a header field the
  program sets to a size, read by a head); anything else is outside;
* element-wise arithmetic is sympy arithmetic on the values; a division
  records that its divisor is non-zero there; ``where`` with a static
  condition splits the context.

A value is a list of (context, sympy expression) whose contexts split the
given one. A construct outside this fragment raises :class:`Unsupported` (the
verdict is then UNKNOWN, never PROVED); a step z3 refutes raises
:class:`StepFailed` with the model, the seed of a counterexample.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping, NoReturn, Sequence

import sympy
import z3

from usim.engine.parametric.digits import digit_facts, head_candidates
from usim.engine.parametric.integers import (
    Formula,
    Outcome,
    Prover,
    Term,
    QUICK_EFFORT,
    has_quotient,
)
from usim.engine.parametric.polynomials import exact_quotient, free_constants, quotient_remainder
from usim.engine.parametric.translation import Translation, floordiv, mod, translate
from usim.engine.parametric.selection import Interval, formula, infer
from usim.engine.parametric.steps import (  # the vocabulary (prove.py reads it from here too)
    BLOCKS,
    CASES,
    COLLAPSE,
    SELECTION,
    SIGNS,
    SPLITS,
    Context,
    InputBlock,
    OuterCase,
    SplitInSum,
    StepFailed,
    Unsupported,
    Value,
)
from usim.engine.parametric.sums import SumSplitting
from usim.engine.parametric.terms import ParametricAtoms, Whole
from usim.rasp.expr import (
    Aggregate,
    Constant,
    Expr,
    Indices,
    Length,
    Map,
    Op,
    Selector,
    SelectorWidth,
    Semantics,
    SOp,
    Tokens,
)
from usim.rasp.family import HeadAt, HeadSum, Parameter, SymbolicInt, readable




@dataclass
class Obligations:
    """What must still be proved once evaluation is done."""

    static: list[tuple[tuple[Formula, ...], Formula, str]] = field(default_factory=list)
    real: list[tuple[tuple[Formula, ...], sympy.Expr, str]] = field(default_factory=list)
    radicands: list[tuple[tuple[Formula, ...], sympy.Expr, str]] = field(default_factory=list)
    """Each must be evidently >= 0 (a square root's argument)."""


SMALL_SIZES = 3
"""The largest number each dimension takes where a point at which a goal fails is
looked for at fixed sizes (:meth:`SymbolicSizeEvaluator._fails_somewhere`)."""


class SymbolicSizeEvaluator(SumSplitting):
    """Values of one family's nodes at symbolic positions (see the module docstring)."""

    def __init__(self, blocks: Sequence[InputBlock], n: Term, prover: Prover, atoms: ParametricAtoms,
                 base: Sequence[Formula], dims: Mapping[str, Term]) -> None:
        self.blocks = tuple(blocks)
        self.n = n
        self.prover = prover
        self.atoms = atoms
        self.base = tuple(base)
        self.dims = dict(dims)
        self.ranges: dict[str, tuple[Formula, ...]] = {}  # a fresh variable's range facts
        self.obligations = Obligations()
        self._static: dict[tuple, tuple[z3.ExprRef, tuple[Formula, ...]]] = {}
        self._parameters: dict[tuple, Translation] = {}  # a parameter's term is the same at every position
        self._dynamic: dict[int, bool] = {}
        self._values: dict[tuple, Value] = {}
        self._recorded: set[tuple] = set()
        self.candidates: list[Term] = []  # the position's coordinates, for head sums

    # -- helpers ---------------------------------------------------------------------------
    def variable(self, name: str, lo: Term, hi: Term) -> Term:
        """A fresh integer variable in [lo, hi), its range remembered."""
        v = self.prover.fresh(name)
        self.ranges[v.decl().name()] = (v >= lo, v < hi)
        return v

    def facts_for(self, term: z3.ExprRef) -> list[Formula]:
        """The base hypotheses and the ranges of the variables in ``term`` (and
        of the variables their ranges mention)."""
        out: list[Formula] = list(self.base)
        # in name order: the hypotheses' order is z3's input, and a set's order changes
        # with the process's hash seed (PYTHONHASHSEED=6 left padded stage 1 UNKNOWN)
        todo, seen = sorted(free_constants(term), reverse=True), set()
        while todo:
            name = todo.pop()
            if name in seen or name not in self.ranges:
                continue
            seen.add(name)
            for f in self.ranges[name]:
                out.append(f)
                todo.extend(sorted(free_constants(f), reverse=True))
        return out

    def positive(self, term: Term) -> bool:
        """term > 0 wherever the variables in it are in range (z3)."""
        return self.prover.proves(self.facts_for(term), term > 0, SIGNS).holds is True

    def larger(self, a: Term, b: Term) -> Term:
        """max(a, b), simplified where z3 decides the order (a decision, not a proof obligation)."""
        if self.prover.proves(self.facts_for(a - b), a >= b, CASES).holds:
            return a
        if self.prover.proves(self.facts_for(a - b), b >= a, CASES).holds:
            return b
        return z3.If(a >= b, a, b)

    def smaller(self, a: Term, b: Term) -> Term:
        if self.prover.proves(self.facts_for(a - b), a <= b, CASES).holds:
            return a
        if self.prover.proves(self.facts_for(a - b), b <= a, CASES).holds:
            return b
        return z3.If(a <= b, a, b)

    def require(self, ctx: Context, goal: Formula, step: str, what: str) -> None:
        outcome = self.prover.proves(ctx.facts, goal, step)
        if outcome.holds is not True:
            self._fail(outcome, step, what)

    @staticmethod
    def _fail(outcome: Outcome, step: str, what: str) -> NoReturn:
        if outcome.holds is None:
            raise Unsupported(f"{step}: z3 could not decide {what} (unknown or timeout)")
        raise StepFailed(step, what, outcome)

    def decide(self, ctx: Context, condition: Formula, what: str) -> list[tuple[Context, bool]]:
        """Where ``condition`` holds and where it does not: one side if z3 proves
        it, else both (a case split, only where the context may still split; the
        side where it holds also gets the coordinates its equations determine,
        :func:`~usim.engine.parametric.digits.digit_facts`).

        Inside a sum's body (no split possible) a condition with quotients or
        remainders is asked first with a small effort, then as the facts state
        it (``Prover.simplify``: an equal formula there, (l + N a) // N is a
        where 0 <= l < N), which z3 decides where it leaves the non-linear form
        unknown after its whole effort, then as it is with the whole effort."""
        tries: list[tuple[Formula, int | None]] = [(condition, None)]
        if not ctx.forkable and has_quotient(condition):
            simpler = self.prover.simplify(ctx.facts, condition, CASES, small=True)
            tries[:0] = [(condition, QUICK_EFFORT)] + ([(simpler, None)] if not simpler.eq(condition) else [])
        for stated, effort in tries:
            whole = effort is None  # a query at the whole effort: not asked where it fails at small sizes
            if not (whole and self._fails_somewhere(ctx, stated)) \
                    and self.prover.proves(ctx.facts, stated, CASES, effort).holds:
                return [(ctx, True)]
            if not (whole and self._fails_somewhere(ctx, z3.Not(stated))) \
                    and self.prover.proves(ctx.facts, z3.Not(stated), CASES, effort).holds:
                return [(ctx, False)]
        if not ctx.forkable:
            raise SplitInSum(condition, what)
        digits = digit_facts(self.prover, ctx.facts, condition, CASES, self.ranges)
        return [(ctx.also(condition, *digits), True), (ctx.also(z3.Not(condition)), False)]

    def _fails_somewhere(self, ctx: Context, formula: Formula) -> bool:
        """Inside a sum's body, whether z3 finds, with every dimension fixed to a
        number up to :data:`SMALL_SIZES`, a point where the facts hold and
        ``formula`` fails (N*i is then linear, and such a point is found at once
        where the non-linear query is left unknown after its whole effort). Such a
        point is one of the symbolic query too, so proving ``formula`` would fail,
        and that query is not asked: nothing is concluded but "not proved"."""
        if ctx.forkable:
            return False
        dims = list(self.prover.dims.values())
        for values in itertools.product(range(1, SMALL_SIZES + 1), repeat=len(dims)):
            pairs = [(d, z3.IntVal(v)) for d, v in zip(dims, values)]
            fixed = [z3.substitute(f, *pairs) for f in ctx.facts] + [z3.Not(z3.substitute(formula, *pairs))]
            if self.prover.satisfiable(fixed, CASES, QUICK_EFFORT).holds:
                return True
        return False

    def record_static(self, ctx: Context, conditions: Sequence[Formula], what: str) -> None:
        for c in conditions:
            key = (self.prover.keys(*ctx.facts), self.prover.keys(c))
            if key not in self._recorded:
                self._recorded.add(key)
                self.obligations.static.append((ctx.facts, c, what))

    def dynamic(self, node: Expr) -> bool:
        """Whether ``node`` depends on the tokens."""
        if node.id not in self._dynamic:
            self._dynamic[node.id] = isinstance(node, Tokens) or any(self.dynamic(c) for c in node.children())
        return self._dynamic[node.id]

    def _env_key(self, env: Mapping[str, Term]) -> tuple:
        names = sorted(env)
        return tuple(names), self.prover.keys(*[env[k] for k in names])

    # -- static values -------------------------------------------------------------------
    def static(self, node: SOp, pos: Term, env: Mapping[str, Term], ctx: Context, what: str = "") -> z3.ExprRef:
        term, conditions = self._static_value(node, pos, env, ctx)
        self.record_static(ctx, conditions, what or node.name)
        return term

    def _whole_value(self, node: SOp, pos: Term, env: Mapping[str, Term], ctx: Context) -> z3.ExprRef:
        """A node that depends on the tokens, used where an index is expected: its
        value here, when that is one integer term in the whole context (a header
        field that a stage's program sets to a size, read by a head:
        gather(fix(tokens, {o: n}), o) is n at every position). Anything else
        is outside the fragment."""
        values = self.value(node, pos, env, ctx)
        if len(values) == 1 and values[0][0] == ctx:
            value = values[0][1]
            if value.is_Integer:
                return z3.IntVal(int(value))
            atom = self.atoms.info.get(value) if value.is_Symbol else None
            if isinstance(atom, Whole):
                return atom.term
        raise Unsupported(f"{node.name} depends on the tokens where an index is expected")

    def _static_value(self, node: SOp, pos: Term, env: Mapping[str, Term],
                      ctx: Context | None = None) -> tuple[z3.ExprRef, tuple[Formula, ...]]:
        dynamic = self.dynamic(node)
        if dynamic and ctx is None:
            raise Unsupported(f"{node.name} depends on the tokens where an index is expected")
        key = (node.id, self.prover.keys(pos), self._env_key(env)) + \
            ((self.prover.keys(*ctx.facts), ctx.forkable) if dynamic else ())
        if key in self._static:
            return self._static[key]
        if dynamic and not (isinstance(node, Map) and node.op not in (Op.TRUEDIV, Op.EXP, Op.POW)):
            self._static[key] = (self._whole_value(node, pos, env, ctx), ())
            return self._static[key]
        conditions: list[Formula] = []
        if isinstance(node, Indices):
            out: z3.ExprRef = pos
        elif isinstance(node, Length):
            out = self.n
        elif isinstance(node, Constant):
            value = node.value
            if isinstance(value, bool):
                out = z3.BoolVal(value)
            elif isinstance(value, Fraction) and value.denominator != 1:
                raise Unsupported(f"the fraction {value} in index arithmetic")
            else:
                out = z3.IntVal(int(value))
        elif isinstance(node, Parameter):
            at = (node.id, self._env_key(env))
            if at not in self._parameters:
                self._parameters[at] = translate(node.term, env, self.dims, self.positive)
            out, conditions = self._parameters[at].term, list(self._parameters[at].defined)
        elif isinstance(node, Map):
            out, conditions = self._static_map(node, pos, env, ctx)
        else:
            raise Unsupported(f"{node.kind} {node.name} in index arithmetic")
        self._static[key] = (out, tuple(conditions))
        return self._static[key]

    def _static_map(self, node: Map, pos: Term, env: Mapping[str, Term],
                    ctx: Context | None) -> tuple[z3.ExprRef, list[Formula]]:
        op = node.op
        if op is Op.WHERE:
            (c, cc), (a, ac), (b, bc) = (self._static_value(x, pos, env, ctx) for x in node.args)
            conditions = list(cc) + [z3.Implies(c, x) for x in ac] + [z3.Implies(z3.Not(c), x) for x in bc]
            return z3.If(c, a, b), conditions
        parts = [self._static_value(x, pos, env, ctx) for x in node.args]
        terms = [p[0] for p in parts]
        conditions = [c for p in parts for c in p[1]]
        if op in (Op.FLOORDIV, Op.MOD):
            a, b = terms
            conditions.append(b != 0)
            quotient = exact_quotient(a, b)  # (r*c) // r is c wherever r != 0
            if quotient is not None:
                return (quotient if op is Op.FLOORDIV else z3.IntVal(0)), conditions
            parts = quotient_remainder(a, b)  # (i*c + j) // c is i where 0 <= j < c
            if parts is not None:
                q, r = parts
                bounds = self.facts_for(r) + self.facts_for(b)
                if self.prover.proves(bounds, z3.And(r >= 0, r < b), SIGNS).holds is True:
                    return (q if op is Op.FLOORDIV else r), conditions
            return (floordiv(a, b, self.positive) if op is Op.FLOORDIV else mod(a, b, self.positive)), conditions
        simple = {
            Op.ADD: lambda a, b: a + b, Op.SUB: lambda a, b: a - b, Op.MUL: lambda a, b: a * b,
            Op.NEG: lambda a: -a, Op.ABS: lambda a: z3.If(a >= 0, a, -a),
            Op.MAXIMUM: lambda a, b: z3.If(a >= b, a, b), Op.MINIMUM: lambda a, b: z3.If(a <= b, a, b),
            Op.EQ: lambda a, b: a == b, Op.NE: lambda a, b: a != b, Op.LT: lambda a, b: a < b,
            Op.LE: lambda a, b: a <= b, Op.GT: lambda a, b: a > b, Op.GE: lambda a, b: a >= b,
            Op.AND: z3.And, Op.OR: z3.Or, Op.NOT: z3.Not,
        }
        if op not in simple:
            raise Unsupported(f"{op.symbol} in index arithmetic ({node.name})")
        return simple[op](*terms), conditions

    # -- selections ------------------------------------------------------------------------
    def selection(self, selector: Selector, pos: Term, env: Mapping[str, Term], ctx: Context) -> Interval:
        """The selection at query ``pos`` as an interval of keys, proved (see :mod:`.selection`)."""
        k = self.variable("k", z3.IntVal(0), self.n)
        key_ctx = ctx.also(k >= 0, k < self.n)

        def static(sop: SOp, at: Term | None) -> z3.ExprRef:
            where = key_ctx if at is not None else ctx
            return self.static(sop, pos if at is None else at, env, where, f"the selector {selector.name}")

        guesses = infer(selector, k, self.n, static, self.positive, self.larger, self.smaller)
        if not guesses:
            raise Unsupported(f"the selection of {selector.name} is not an interval of keys the engine can find")
        entry = formula(selector, k, static)
        for guess in guesses:  # each guess proved or refused: only a proved one is used
            lo, hi = self.larger(guess.lo, z3.IntVal(0)), self.smaller(guess.hi, self.n)
            interval = Interval(guess.guard, lo, hi)
            outcome = self.prover.proves(key_ctx.facts, entry == interval.holds(k), SELECTION)
            if outcome.holds is True:
                return interval
        self._fail(outcome, SELECTION, f"the selection of {selector.name} is the keys {lo} <= k < {hi}"
                   f" where {guess.guard}")

    # -- values ------------------------------------------------------------------------------
    def value(self, node: SOp, pos: Term, env: Mapping[str, Term], ctx: Context) -> Value:
        key = (node.id, self.prover.keys(pos), self._env_key(env), self.prover.keys(*ctx.facts), ctx.forkable)
        if key not in self._values:
            self._values[key] = self._value(node, pos, env, ctx)
        return self._values[key]

    def _value(self, node: SOp, pos: Term, env: Mapping[str, Term], ctx: Context) -> Value:
        if isinstance(node, Constant) and isinstance(node.value, Fraction) and node.value.denominator != 1:
            return [(ctx, sympy.Rational(node.value.numerator, node.value.denominator))]
        if isinstance(node, Map) and node.op in (Op.TRUEDIV, Op.EXP, Op.POW):
            return self._map(node, pos, env, ctx)  # a real value, even of static arguments
        if not self.dynamic(node):
            term = self.static(node, pos, env, ctx)
            if z3.is_bool(term):
                raise Unsupported(f"the Boolean {node.name} used as a number")
            return [(ctx, self.atoms.whole(term, self.prover.proves(ctx.facts, term > 0, SIGNS).holds is True))]
        if isinstance(node, Tokens):
            return self._token(pos, ctx)
        if isinstance(node, Aggregate):
            return self._aggregate(node, pos, env, ctx)
        if isinstance(node, HeadSum):
            return self._head_sum(node, pos, env, ctx)
        if isinstance(node, HeadAt):
            at = translate(node.at, env, self.dims, self.positive) if isinstance(node.at, SymbolicInt) else None
            index = at.term if at is not None else z3.IntVal(node.at)
            if at is not None:
                self.record_static(ctx, at.defined, f"the head index of {node.name}")
            extent = translate(node.family.extent, env, self.dims, self.positive)
            self.record_static(ctx, extent.defined, f"the extent of {node.name}")
            self.require(ctx, z3.And(index >= 0, index < extent.term), COLLAPSE,
                         f"head {node.at} is one of the {node.family.extent} heads")
            return self.value(node.family.body, pos, {**env, node.family.index.args[0]: index}, ctx)
        if isinstance(node, Map):
            return self._map(node, pos, env, ctx)
        if isinstance(node, SelectorWidth):
            raise Unsupported("selector_width of a static selector")
        raise Unsupported(f"{node.kind} {node.name}")

    def _token(self, pos: Term, ctx: Context) -> Value:
        for block in self.blocks:
            inside = z3.And(pos >= block.offset, pos < block.end)
            if self.prover.proves(ctx.facts, inside, BLOCKS).holds:
                return [(ctx, self._entry(block, pos, ctx))]
        out: Value = []
        regions = [(b, z3.And(pos >= b.offset, pos < b.end)) for b in self.blocks]
        padding = z3.And(*[z3.Not(r) for _, r in regions])
        for block, region in regions + [(None, padding)]:
            possible = self.prover.satisfiable(ctx.facts + (region,), BLOCKS)
            if possible.holds is False:
                continue
            if possible.holds is None:
                raise Unsupported("z3 could not decide which input block a position is in")
            if not ctx.forkable:
                raise Unsupported("a sum reads positions of several input blocks")
            here = ctx.also(region)
            out.append((here, self._entry(block, pos, here) if block is not None else sympy.Integer(0)))
        return out

    def _entry(self, block: InputBlock, pos: Term, ctx: Context) -> sympy.Expr:
        q = pos - block.offset
        return self.atoms.entry(block.name, floordiv(q, block.cols, self.positive), mod(q, block.cols, self.positive))

    def _aggregate(self, node: Aggregate, pos: Term, env: Mapping[str, Term], ctx: Context) -> Value:
        if node.semantics is not Semantics.RASP:
            raise Unsupported(f"{node.name} under {node.semantics.value} semantics")
        interval = self.selection(node.selector, pos, env, ctx)
        out: Value = []
        for here, nonempty in self.decide(ctx, interval.nonempty, f"whether {node.name} selects a key"):
            if not nonempty:
                out.append((here, sympy.Rational(node.default)))
                continue
            lo = self.prover.simplify(here.facts, interval.lo, CASES)  # the key, as this case has it
            count = self.prover.simplify(here.facts, interval.hi - interval.lo, CASES)
            if self.prover.proves(here.facts, count == 1, CASES).holds:
                out.extend(self.value(node.values, lo, env, here))
                continue
            self.record_static(here, [count != 0], f"the mean of {node.name}")
            out.extend(self._mean(node, lo, count, env, here, SPLITS))
        return out

    def _mean(self, node: Aggregate, lo: Term, count: Term, env: Mapping[str, Term], ctx: Context,
              splits: int) -> Value:
        """The mean over the keys [lo, lo + count); where its sum needs a case that
        is the same at every key (:class:`OuterCase`), the context is split by it
        first (here, if it may be split; else by the sum this mean is inside)."""
        try:
            total = self._sum(node, node.values, lo, count, env, ctx)
        except OuterCase as case:
            if not ctx.forkable or splits <= 0:
                raise SplitInSum(case.condition, case.what) from None
            out: Value = []
            parts = self.decide(ctx, case.condition, case.what)
            for here, holds in parts:
                if len(parts) > 1 and case.stated is not None:  # the case as the body states it, equal there
                    here = here.also(case.stated if holds else z3.Not(case.stated))
                out.extend(self._mean(node, lo, count, env, here, splits - 1))
            return out
        return [(ctx, total / self.atoms.whole(count, positive=True))]

    def _map(self, node: Map, pos: Term, env: Mapping[str, Term], ctx: Context) -> Value:
        op = node.op
        if op is Op.WHERE:
            condition, if_true, if_false = node.args
            try:  # a condition on the tokens is decided only where they stand for an integer term
                c = self.static(condition, pos, env, ctx)
            except Unsupported:
                if self.dynamic(condition):
                    raise Unsupported(f"where on a condition that depends on the tokens ({node.name})") from None
                raise
            out: Value = []
            for here, taken in self.decide(ctx, c, f"the condition of {node.name}"):
                out.extend(self.value(if_true if taken else if_false, pos, env, here))
            return out
        results: list[tuple[Context, list[sympy.Expr]]] = [(ctx, [])]
        for arg in node.args:
            step = []
            for here, done in results:
                for there, v in self.value(arg, pos, env, here):
                    step.append((there, done + [v]))
            results = step
        out = []
        for here, args in results:
            out.append((here, self._arithmetic(node, args, here)))
        return out

    def _arithmetic(self, node: Map, args: list[sympy.Expr], ctx: Context) -> sympy.Expr:
        op = node.op
        if op is Op.ADD:
            return args[0] + args[1]
        if op is Op.SUB:
            return args[0] - args[1]
        if op is Op.MUL:
            return args[0] * args[1]
        if op is Op.NEG:
            return -args[0]
        if op is Op.EXP:
            return sympy.exp(args[0])
        if op is Op.TRUEDIV:
            self.obligations.real.append((ctx.facts, args[1], f"the divisor of {node.name}"))
            return args[0] / args[1]
        if op is Op.SQRT:  # defined where its argument is >= 0 (an obligation), and >= 0 there
            self.obligations.radicands.append((ctx.facts, args[0], f"the argument of {node.name}"))
            return sympy.sqrt(args[0])
        if op is Op.MAXIMUM:  # total functions: equal arguments give equal values
            return sympy.Max(args[0], args[1])
        if op is Op.MINIMUM:
            return sympy.Min(args[0], args[1])
        if op is Op.POW and args[1].is_Integer:
            if args[1] < 0:
                self.obligations.real.append((ctx.facts, args[0], f"the base of {node.name}"))
            return args[0] ** args[1]
        raise Unsupported(f"{op.symbol} of values that depend on the tokens ({node.name})")

    # -- head families ---------------------------------------------------------------------
    def _head_sum(self, node: HeadSum, pos: Term, env: Mapping[str, Term], ctx: Context) -> Value:
        extents = []
        for e in node.extents:
            t = translate(e, env, self.dims, self.positive) if isinstance(e, SymbolicInt) else None
            term = t.term if t is not None else z3.IntVal(e)
            if t is not None:
                self.record_static(ctx, t.defined, f"the extent of {node.name}")
            self.require(ctx, term >= 1, COLLAPSE, f"the heads {readable(node.body.name)} are at least one ({e})")
            extents.append(term)
        names = [i.args[0] for i in node.indices]
        heads = [self.variable(n.split("#")[0], z3.IntVal(0), e) for n, e in zip(names, extents)]
        in_box = [z3.And(h >= 0, h < e) for h, e in zip(heads, extents)]
        free = ctx.also(*in_box)
        forks = self.value(node.body, pos, {**env, **dict(zip(names, heads))}, free)
        support = z3.Or(*[z3.And(*c.facts[len(free.facts):]) for c, v in forks if v != 0]) \
            if any(v != 0 for _, v in forks) else z3.BoolVal(False)
        if self.prover.proves(free.facts, z3.Not(support), COLLAPSE).holds:
            return [(ctx, sympy.Integer(0))]
        conditions = [f for c, v in forks if v != 0 for f in c.facts[len(free.facts):]]
        for chosen in head_candidates(heads, conditions, [*self.candidates, pos]):
            others = z3.Or(*[h != t for h, t in zip(heads, chosen)])
            if not self.prover.proves(ctx.facts, z3.And(*[z3.And(t >= 0, t < e) for t, e in zip(chosen, extents)]),
                                      COLLAPSE).holds:
                continue
            if not self.prover.proves(free.facts + (others,), z3.Not(support), COLLAPSE).holds:
                continue
            return self.value(node.body, pos, {**env, **dict(zip(names, chosen))}, ctx)
        twin = [self.prover.fresh("h") for _ in heads]
        twin_support = z3.substitute(support, *zip(heads, twin))
        clash = self.prover.satisfiable(
            free.facts + tuple(z3.And(t >= 0, t < e) for t, e in zip(twin, extents))
            + (support, twin_support, z3.Or(*[h != t for h, t in zip(heads, twin)])), COLLAPSE)
        if clash.holds:
            raise StepFailed(COLLAPSE, f"two of the heads {readable(node.body.name)} select at one position", clash)
        raise Unsupported(f"no single one of the heads {readable(node.body.name)} found for the position")

