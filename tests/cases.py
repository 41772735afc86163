"""One shared table of test cases, as Tracr keeps one.

Each :class:`Case` is a name, a builder for the program (built fresh, so that a
test that renames or rewrites nodes cannot disturb another), an input sequence
and the expected output, written from the definition of the operation in plain
Python (never by running usim). The language, interpretation and construction
tests all read this table, so every level is checked on the same cases.

Inputs are exact rationals; ``exact=False`` marks a case whose program has no
exact value (it uses exp), and ``expected`` is then a float reference.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import exp as float_exp
from typing import Callable, Sequence

from usim.constructions.matmul import matmul_construction
from usim.constructions.softmax import PAPER_BASE, softmax_construction
from usim.constructions.transpose import transpose_construction
from usim.rasp import (
    Predicate,
    Program,
    Semantics,
    absolute,
    aggregate,
    exp,
    indices,
    length,
    maximum,
    minimum,
    select,
    selector_width,
    tokens,
    where,
)

F = Fraction


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[], Program]
    tokens: tuple
    expected: tuple  # the value of the program's (single) output
    exact: bool = True


# --- plain-Python references --------------------------------------------------------


def _mean(xs: Sequence) -> Fraction:
    return F(sum(xs, F(0)), len(xs))


def _transpose_ref(rows: int, cols: int, flat: Sequence) -> tuple:
    m = [flat[i * cols : (i + 1) * cols] for i in range(rows)]
    return tuple(m[i][j] for j in range(cols) for i in range(rows))


def _matmul_ref(rows: int, inner: int, cols: int, flat: Sequence) -> tuple:
    a = [flat[i * inner : (i + 1) * inner] for i in range(rows)]
    off = rows * inner
    b = [flat[off + m * cols : off + (m + 1) * cols] for m in range(inner)]
    out = [sum((a[i][m] * b[m][j] for m in range(inner)), F(0)) for i in range(rows) for j in range(cols)]
    return tuple(out) + (0,) * (len(flat) - rows * cols)


def _softmax_power_ref(rows: int, cols: int, base: Fraction, flat: Sequence) -> tuple:
    e = [base ** int(x) for x in flat]
    out = []
    for i in range(rows):
        row = e[i * cols : (i + 1) * cols]
        out.extend(x / sum(row) for x in row)
    return tuple(out)


def _softmax_float_ref(rows: int, cols: int, flat: Sequence) -> tuple:
    e = [float_exp(float(x)) for x in flat]
    out = []
    for i in range(rows):
        row = e[i * cols : (i + 1) * cols]
        out.extend(x / sum(row) for x in row)
    return tuple(out)


def _program(name: str, sop) -> Callable[[], Program]:
    return lambda: Program.of(name, {"out": sop()})


# --- the table ---------------------------------------------------------------------

X = (F(3), F(-1, 2), F(7, 3), F(0), F(-2), F(3))  # a repeated value, a zero, fractions
N = len(X)

CASES: list[Case] = [
    Case("identity", _program("identity", lambda: tokens + 0), X, X),
    Case("length", _program("length", lambda: length * 1), X, (N,) * N),
    Case("indices_squared", _program("indices_squared", lambda: indices ** 2),
         X, tuple(i * i for i in range(N))),
    Case("reverse", _program("reverse", lambda: aggregate(
        select(indices, length - 1 - indices, Predicate.EQ), tokens)), X, tuple(reversed(X))),
    Case("shift_right", _program("shift_right", lambda: aggregate(
        select(indices, indices - 1, Predicate.EQ), tokens)), X, (0,) + X[:-1]),
    Case("shift_right_default", _program("shift_right_default", lambda: aggregate(
        select(indices, indices - 1, Predicate.EQ), tokens, default=F(5, 2))), X, (F(5, 2),) + X[:-1]),
    Case("prefix_mean", _program("prefix_mean", lambda: aggregate(
        select(indices, indices, Predicate.LE), tokens)), X, tuple(_mean(X[: q + 1]) for q in range(N))),
    Case("suffix_mean_strict", _program("suffix_mean_strict", lambda: aggregate(
        select(indices, indices, Predicate.GT), tokens)), X,
        tuple(_mean(X[q + 1 :]) if q + 1 < N else 0 for q in range(N))),
    Case("mean_all", _program("mean_all", lambda: aggregate(
        select(indices, indices, Predicate.TRUE), tokens)), X, (_mean(X),) * N),
    Case("never_rasp", _program("never_rasp", lambda: aggregate(
        select(indices, indices, Predicate.FALSE), tokens, default=-1)), X, (-1,) * N),
    Case("never_ahat", _program("never_ahat", lambda: aggregate(
        select(indices, indices, Predicate.FALSE), tokens, semantics=Semantics.AHAT)), X, (_mean(X),) * N),
    Case("histogram", _program("histogram", lambda: selector_width(
        select(tokens, tokens, Predicate.EQ))), X, tuple(X.count(x) for x in X)),
    Case("count_smaller", _program("count_smaller", lambda: selector_width(
        select(tokens, tokens, Predicate.LT))), X, tuple(sum(k < q for k in X) for q in X)),
    Case("count_not_equal", _program("count_not_equal", lambda: selector_width(
        select(tokens, tokens, Predicate.NE))), X, tuple(sum(k != q for k in X) for q in X)),
    Case("mean_of_larger", _program("mean_of_larger", lambda: aggregate(
        select(tokens, tokens, Predicate.GT), tokens)), X,
        tuple(_mean([k for k in X if k > q]) if any(k > q for k in X) else 0 for q in X)),
    Case("mean_of_at_most_ahat", _program("mean_of_at_most_ahat", lambda: aggregate(
        select(tokens, tokens - 10, Predicate.LE), tokens, semantics=Semantics.AHAT)), X,
        tuple(_mean([k for k in X if k <= q - 10]) if any(k <= q - 10 for k in X) else _mean(X)
              for q in X)),
    Case("mean_of_at_least", _program("mean_of_at_least", lambda: aggregate(
        select(tokens, tokens, Predicate.GE), tokens)), X,
        tuple(_mean([k for k in X if k >= q]) for q in X)),
    # sort by rank: rank = number of smaller tokens (distinct tokens only)
    Case("sort_distinct", _program("sort_distinct", lambda: aggregate(
        select(selector_width(select(tokens, tokens, Predicate.LT)), indices, Predicate.EQ), tokens)),
        X[:5], tuple(sorted(X[:5]))),
    # combined selectors: neighbours (|k - q| == 1) or the first position, but never oneself
    Case("combined_selector", _program("combined_selector", lambda: aggregate(
        (select(indices, indices + 1, Predicate.EQ) | select(indices, indices - 1, Predicate.EQ)
         | select(indices, 0, Predicate.EQ)) & ~select(indices, indices, Predicate.EQ), tokens)), X,
        tuple(_mean([X[k] for k in range(N) if (abs(k - q) == 1 or k == 0) and k != q]) for q in range(N))),
    # a data-dependent selector combined with an index-only one
    Case("mixed_selector", _program("mixed_selector", lambda: selector_width(
        select(tokens, 0, Predicate.GT) & select(indices, indices, Predicate.LE))), X,
        tuple(sum(1 for k in range(q + 1) if X[k] > 0) for q in range(N))),
    Case("maps", _program("maps", lambda: where(
        tokens > 0, maximum(tokens, 2) // 1, minimum(absolute(tokens), 1) % F(1, 3))
        + tokens / (tokens * tokens + 1) - (tokens - 1) ** 2), X,
        tuple((max(x, 2) // 1 if x > 0 else min(abs(x), 1) % F(1, 3)) + x / (x * x + 1) - (x - 1) ** 2
              for x in X)),
    Case("comparisons", _program("comparisons", lambda: (tokens < 1) + (tokens <= 3) * 2 + (tokens != 0) * 4
                                 + (tokens >= 0) * 8 + ((tokens > 0) & ~(tokens == 3)) * 16 - (-tokens)), X,
        tuple(int(x < 1) + int(x <= 3) * 2 + int(x != 0) * 4 + int(x >= 0) * 8
              + int(x > 0 and not x == 3) * 16 + x for x in X)),
    Case("boolean_values", _program("boolean_values", lambda: aggregate(
        select(indices, indices, Predicate.LE), (tokens > 0) | (indices == 3))), X,
        tuple(_mean([int(X[k] > 0 or k == 3) for k in range(q + 1)]) for q in range(N))),
    Case("nested_aggregate", _program("nested_aggregate", lambda: aggregate(
        select(indices, length - 1 - indices, Predicate.EQ),
        aggregate(select(indices, indices, Predicate.LE), tokens))), X,
        tuple(reversed([_mean(X[: q + 1]) for q in range(N)]))),
    Case("exp_row", _program("exp_row", lambda: exp(tokens) / (1 + exp(tokens))), X,
         tuple(float_exp(float(x)) / (1 + float_exp(float(x))) for x in X), exact=False),
]


def construction_cases() -> list[Case]:
    """The three blocks on small shapes, with references from their definitions."""
    out: list[Case] = []
    for r, c in [(1, 1), (2, 3), (3, 2), (1, 4)]:
        flat = tuple(F(7 * t - 5, 3) for t in range(r * c))
        out.append(Case(f"transpose_{r}x{c}", lambda r=r, c=c: transpose_construction(r, c).program,
                        flat, _transpose_ref(r, c, flat)))
    for r, k, c in [(1, 1, 1), (2, 2, 2), (2, 3, 1), (1, 2, 3)]:
        flat = tuple(F(3 * t - 4, 2) for t in range(k * (r + c)))
        out.append(Case(f"matmul_{r}x{k}x{c}", lambda r=r, k=k, c=c: matmul_construction(r, k, c).program,
                        flat, _matmul_ref(r, k, c, flat)))
    for r, c in [(1, 1), (2, 3), (3, 2)]:
        flat = tuple(F((5 * t) % 7 - 3) for t in range(r * c))  # integers: base ** S is exact
        out.append(Case(f"softmax_base_{r}x{c}",
                        lambda r=r, c=c: softmax_construction(r, c, base=PAPER_BASE).program,
                        flat, _softmax_power_ref(r, c, PAPER_BASE, flat)))
        out.append(Case(f"softmax_exp_{r}x{c}", lambda r=r, c=c: softmax_construction(r, c).program,
                        flat, _softmax_float_ref(r, c, flat), exact=False))
    return out


ALL_CASES = CASES + construction_cases()


# --- one program in every interpretation, at the same rationals ------------------------


def as_fraction(value) -> Fraction:
    """An exact output (int, Fraction, bool) as a Fraction."""
    return Fraction(int(value)) if isinstance(value, bool) else Fraction(value)


def sympy_value(expr) -> Fraction:
    """A sympy expression that substitution has reduced to a rational, as a Fraction."""
    import sympy

    if isinstance(expr, sympy.Basic) and not (expr.is_Rational or expr in (sympy.true, sympy.false)):
        expr = expr.doit()  # xreplace rebuilds without evaluating some heads (a Max of numbers)
    if expr is sympy.true or expr is sympy.false:
        return Fraction(int(bool(expr)))
    if isinstance(expr, sympy.Rational):
        return Fraction(int(expr.p), int(expr.q))
    raise AssertionError(f"the symbolic value did not reduce to a rational: {expr}")


def z3_value(term) -> Fraction:
    """A z3 term that substitution and simplify reduced to a numeral, as a Fraction."""
    import z3

    term = _power_values(z3.simplify(term))
    if z3.is_true(term) or z3.is_false(term):
        return Fraction(int(z3.is_true(term)))
    if z3.is_int_value(term):
        return Fraction(term.as_long())
    if z3.is_rational_value(term):
        return term.as_fraction()
    raise AssertionError(f"the smt value did not reduce to a numeral: {term}")


def _power_values(term):
    """Replace smt's uninterpreted ``pow(b, e)`` at numerals b and integer e by b**e.

    (The smt interpretation keeps a power with a non-constant exponent, such as
    the paper's 2.718 ** S, uninterpreted; once S is substituted it has a value.)
    """
    import z3

    while True:
        found = []
        stack, seen = [term], set()
        while stack:
            t = stack.pop()
            if t.get_id() in seen:
                continue
            seen.add(t.get_id())
            if z3.is_app(t) and t.decl().name() == "pow" and t.num_args() == 2:
                b, e = (z3.simplify(a) for a in t.children())
                if z3.is_rational_value(b) or z3.is_int_value(b):
                    if (z3.is_rational_value(e) or z3.is_int_value(e)) and _numeral(e).denominator == 1:
                        found.append((t, z3.RealVal(_numeral(b) ** int(_numeral(e)))))
                        continue
            stack.extend(t.children())
        if not found:
            return term
        term = z3.simplify(z3.substitute(term, *found))


def _numeral(term) -> Fraction:
    import z3

    return Fraction(term.as_long()) if z3.is_int_value(term) else term.as_fraction()


def symbols(n: int, make):
    return [make(f"x{p}") for p in range(n)]


def exact_values(program: Program, values: Sequence) -> dict[str, list[Fraction]]:
    from usim.encodings.runners import run_exact

    return {k: [as_fraction(v) for v in seq] for k, seq in run_exact(program, list(values)).items()}


def symbolic_values(program: Program, values: Sequence) -> dict[str, list[Fraction]]:
    """Evaluate symbolically on fresh symbols, then substitute the rationals."""
    import sympy

    from usim.encodings.runners import run_symbolic

    xs = symbols(len(values), sympy.Symbol)
    at = {x: sympy.Rational(v.numerator, v.denominator) for x, v in zip(xs, map(Fraction, values))}
    out = run_symbolic(program, xs)
    return {k: [sympy_value(sympy.sympify(e).xreplace(at)) for e in seq] for k, seq in out.items()}


def smt_values(program: Program, values: Sequence) -> dict[str, list[Fraction]]:
    """Evaluate as z3 terms on fresh Real constants, then substitute the rationals."""
    import z3

    from usim.encodings.runners import run_smt

    xs = symbols(len(values), z3.Real)
    pairs = [(x, z3.RealVal(Fraction(v))) for x, v in zip(xs, values)]
    out, _facts = run_smt(program, xs)
    return {k: [z3_value(z3.substitute(_z3(e), *pairs)) for e in seq] for k, seq in out.items()}


def _z3(value):
    import z3

    if isinstance(value, bool):
        return z3.BoolVal(value)
    if isinstance(value, (int, Fraction)):
        return z3.RealVal(value)
    return value


def numeric_values(program: Program, values: Sequence) -> dict[str, list[float]]:
    from usim.encodings.runners import run_numeric

    return {k: [float(v) for v in seq[0]] for k, seq in run_numeric(program, [float(v) for v in values]).items()}
