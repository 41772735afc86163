"""z3 integer terms: what they are made of, and polynomials with their quotients.

The parametric engine's index terms are z3 integer terms over the dimensions
and index variables. This module says what a term holds (:func:`free_constants`,
:func:`is_const`), reads a term built from +, -, * as a sympy polynomial
(:func:`to_polynomial`, back with :func:`from_polynomial`), and divides
polynomials: the exact quotient (:func:`exact_quotient`), a quotient and
remainder a = q b + r (:func:`quotient_remainder`, :func:`whole_quotient`), and
the coordinates a row-major equation c i + j = P offers
(:func:`block_coordinates`). Each is a candidate only: where a // b = q is
used, 0 <= r < b is proved by the caller (:class:`usim.engine.parametric.integers.Prover`).

The walks over z3 terms are slow in Python and asked again and again of the
same terms, so :func:`free_constants` and :func:`to_polynomial` remember
their answers by the term (:func:`_remember`: the term kept alive with its
answer, since z3 gives a freed term's id to the next term it makes).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import sympy
import z3

Term = z3.ArithRef
Formula = z3.BoolRef


def is_const(term: z3.ExprRef) -> bool:
    return z3.is_const(term) and term.decl().kind() == z3.Z3_OP_UNINTERPRETED


KEPT_TERMS = 200_000
"""How many terms each memo of this module keeps before it starts again."""


def _memo_key(term: z3.ExprRef) -> tuple[int, int]:
    """A term's key in a memo: its z3 context and its id there (both unique while the term lives)."""
    return id(term.ctx), term.get_id()


def _remember(memo: dict, term: z3.ExprRef, answer: object) -> None:
    """Remember ``answer`` for ``term`` by :func:`_memo_key`, the term kept alive with it."""
    if len(memo) >= KEPT_TERMS:
        memo.clear()
    memo[_memo_key(term)] = (term, answer)


_CONSTANTS: dict[tuple[int, int], tuple[z3.ExprRef, frozenset[str]]] = {}
""":func:`free_constants` by the term's id (kept by :func:`_remember`, so the id is not
reused while the entry lives): a variable's range is asked for at every query
that names it."""


def free_constants(term: z3.ExprRef) -> set[str]:
    """The names of the uninterpreted constants in ``term``."""
    kept = _CONSTANTS.get(_memo_key(term))
    if kept is not None:
        return set(kept[1])
    names: set[str] = set()
    seen: set[tuple[int, int]] = set()
    stack = [term]
    while stack:
        t = stack.pop()
        key = _memo_key(t)
        if key in seen:
            continue
        seen.add(key)
        known = _CONSTANTS.get(key)
        if known is not None:
            names |= known[1]
        elif is_const(t):
            names.add(t.decl().name())
        else:
            stack.extend(t.children())
    _remember(_CONSTANTS, term, frozenset(names))
    return names


def numeral(term: z3.ExprRef) -> int | None:
    """The integer a term is syntactically (after z3's simplifier), else None."""
    t = z3.simplify(term)
    return t.as_long() if z3.is_int_value(t) else None


_POLYNOMIAL_OPS = frozenset({z3.Z3_OP_ADD, z3.Z3_OP_MUL, z3.Z3_OP_SUB, z3.Z3_OP_UMINUS})

_POLYNOMIALS: dict[tuple[int, int], tuple[z3.ExprRef, sympy.Expr | None]] = {}
""":func:`to_polynomial` without ``symbols``, by the term's id (kept by :func:`_remember`)."""


def to_polynomial(term: z3.ExprRef, symbols: Mapping[str, sympy.Symbol] | None = None) -> sympy.Expr | None:
    """A z3 integer term built from +, -, *, numerals and constants, as a sympy
    polynomial (constants named in ``symbols`` become those symbols); else None.

    The walk stops at the first other operation (an if-then-else, a quotient):
    the engine asks this of every quotient it meets, and most of them are not
    polynomials."""
    if symbols:
        return _polynomial(term, symbols)
    kept = _POLYNOMIALS.get(_memo_key(term))
    if kept is not None:
        return kept[1]
    out = _polynomial(term, None)
    _remember(_POLYNOMIALS, term, out)
    return out


def _polynomial(term: z3.ExprRef, symbols: Mapping[str, sympy.Symbol] | None) -> sympy.Expr | None:
    if z3.is_int_value(term):
        return sympy.Integer(term.as_long())
    if is_const(term):
        name = term.decl().name()
        return (symbols or {}).get(name) or sympy.Symbol(name, integer=True)
    if not z3.is_app(term) or term.decl().kind() not in _POLYNOMIAL_OPS:
        return None
    parts = []
    for child in term.children():
        part = to_polynomial(child, symbols)
        if part is None:
            return None
        parts.append(part)
    if z3.is_add(term):
        return sympy.Add(*parts)
    if z3.is_mul(term):
        return sympy.Mul(*parts)
    if z3.is_sub(term):
        return parts[0] - sympy.Add(*parts[1:])
    return -parts[0]


def from_polynomial(expr: sympy.Expr) -> Term:
    """A sympy polynomial with integer coefficients back in z3 (its symbols are
    z3 integer constants of the same names)."""
    expr = sympy.expand(expr)
    symbols = sorted(expr.free_symbols, key=str)
    if not symbols:
        return z3.IntVal(int(expr))
    total: Term = z3.IntVal(0)
    for monomial, coefficient in sympy.Poly(expr, *symbols).terms():
        term: Term = z3.IntVal(int(coefficient))
        for symbol, power in zip(symbols, monomial):
            for _ in range(power):
                term = term * z3.Int(symbol.name)
        total = total + term
    return z3.simplify(total)


def exact_quotient(a: Term, b: Term) -> Term | None:
    """The polynomial q with a = q * b exactly, when a and b are polynomials
    with integer coefficients and b divides a (then a // b = q and a % b = 0
    wherever b != 0), else None."""
    pa, pb = to_polynomial(a), to_polynomial(b)
    if pa is None or pb is None or pb == 0:
        return None
    symbols = sorted(pa.free_symbols | pb.free_symbols, key=str)
    if not symbols:
        return None
    quotient, remainder = sympy.div(sympy.expand(pa), sympy.expand(pb), *symbols)
    if remainder != 0:
        return None
    poly = sympy.Poly(quotient, *symbols)
    if not all(c.is_Integer for c in poly.coeffs()):
        return None
    return from_polynomial(quotient)


def whole_quotient(a: Term, b: Term) -> tuple[Term, Term] | None:
    """Polynomials q, r with a = q * b + r, q the polynomial quotient with each
    coefficient rounded down (N + l + 2 N i over 2 N: q = i, r = N + l, where
    :func:`quotient_remainder` finds the quotient i + 1/2), or None outside
    polynomials. Only a candidate: a // b = q needs 0 <= r < b proved.

    >>> N, l, i = z3.Ints("N l i")
    >>> q, r = whole_quotient(N + l + 2 * N * i, 2 * N)
    >>> z3.simplify(q), z3.simplify(r)
    (i, N + l)
    """
    pa, pb = to_polynomial(a), to_polynomial(b)
    if pa is None or pb is None or pb == 0 or not pb.free_symbols:
        return None
    leading = sorted(pb.free_symbols, key=str)
    symbols = leading + sorted((pa.free_symbols - pb.free_symbols), key=str)
    quotient, _ = sympy.div(sympy.expand(pa), sympy.expand(pb), *symbols)
    if quotient == 0:
        return None
    poly = sympy.Poly(quotient, *symbols)
    whole = sympy.Add(*[sympy.floor(c) * sympy.Mul(*[x ** e for x, e in zip(symbols, m)])
                        for m, c in zip(poly.monoms(), poly.coeffs())])
    if whole == 0:
        return None
    return from_polynomial(whole), from_polynomial(sympy.expand(pa - whole * pb))


def quotient_remainder(a: Term, b: Term) -> tuple[Term, Term] | None:
    """Polynomials q, r with a = q * b + r exactly (the divisor's symbols leading
    the division), when a and b are polynomials with integer coefficients and
    the division leaves integer coefficients, else None. Where 0 <= r < b
    (the caller's proof), a // b = q and a % b = r.

    >>> i, j, c = z3.Ints("i j c")
    >>> q, r = quotient_remainder(i * c + j, c)
    >>> z3.simplify(q), z3.simplify(r)
    (i, j)
    """
    pa, pb = to_polynomial(a), to_polynomial(b)
    if pa is None and pb is not None:  # a polynomial over opaque parts (a quotient inside: N (l // N) + a)
        opaque: dict[int, tuple[z3.ExprRef, z3.ExprRef]] = {}
        found = quotient_remainder(_opaque(a, opaque), b) if opaque is not None else None
        if found is None or not opaque:
            return None
        pairs = [(stand_in, part) for part, stand_in in opaque.values()]
        return z3.substitute(found[0], *pairs), z3.substitute(found[1], *pairs)
    if pa is None or pb is None or pb == 0:
        return None
    leading = sorted(pb.free_symbols, key=str)
    symbols = leading + sorted((pa.free_symbols - pb.free_symbols), key=str)
    if not leading:
        return None
    quotient, remainder = sympy.div(sympy.expand(pa), sympy.expand(pb), *symbols)
    if quotient == 0:
        return None
    for part in (quotient, remainder):
        if part != 0 and not all(c.is_Integer for c in sympy.Poly(part, *symbols).coeffs()):
            return None
    return from_polynomial(quotient), from_polynomial(remainder)


def _opaque(term: z3.ExprRef, parts: dict[int, tuple[z3.ExprRef, z3.ExprRef]]) -> z3.ExprRef:
    """``term`` with each integer part that is not +, -, *, a numeral or a constant
    (a quotient, a remainder, an if-then-else) replaced by a constant of its own,
    kept in ``parts`` (its id -> (the part, its stand-in)): an integer like any
    other, so a polynomial identity over the stand-ins holds of the parts."""
    if z3.is_int_value(term) or is_const(term):
        return term
    if z3.is_app(term) and term.decl().kind() in _POLYNOMIAL_OPS:
        return term.decl()(*(_opaque(child, parts) for child in term.children()))
    if term.get_id() not in parts:
        parts[term.get_id()] = (term, z3.Int(f"opaque!{len(parts)}!{term.get_id()}"))
    return parts[term.get_id()][1]


BLOCK_SHIFTS = (0, 1, -1, 2, -2, 3, -3, 4, -4)
"""How far :func:`block_coordinates` moves a polynomial quotient: P = N a + b - s N
with s N <= b < (s + 1) N (a key in the s-th block of N columns, as head s of a
concatenation is placed) is a N + (b - s N), the quotient a - s moved by s."""


def block_coordinates(equation: Formula, heads: Sequence[Term]) -> dict[int, list[Term]]:
    """Candidates for the heads in an equation ``c * h_m + h_k == P`` (c and P free
    of the heads, a head family laid out row-major with c columns): from
    P = q * c + r (:func:`quotient_remainder`), h_m one of q + s and h_k the
    matching r - s c for each shift s of :data:`BLOCK_SHIFTS` (a polynomial
    remainder need not be the one in [0, c) where the facts hold: P = N a + b - 2N
    with 2N <= b < 3N is a N + (b - 2N)). Only candidates: each is proved before
    it is used. The two lists are in step: entry t of one goes with entry t of the
    other, the first three the quotient and its neighbours.

    Returns:
        Head slot -> candidate terms (empty where the equation is not of that form).
    """
    if not z3.is_eq(equation):
        return {}
    symbols = {h.decl().name(): sympy.Symbol(f"head{m}", integer=True) for m, h in enumerate(heads)}
    a, b = equation.children()
    if not z3.is_int(a):
        return {}
    pa, pb = to_polynomial(a, symbols), to_polynomial(b, symbols)
    if pa is None or pb is None:
        return {}
    expr = sympy.expand(pa - pb)
    present = [(m, sym) for m, sym in enumerate(symbols.values()) if expr.has(sym)]
    if len(present) != 2 or not sympy.Poly(expr, *[sym for _, sym in present]).is_linear:
        return {}
    for (k, unit), (m, other) in (present, present[::-1]):
        sign = expr.coeff(unit)
        if sign not in (1, -1):
            continue
        linear = sympy.expand(sign * expr)  # c * h_m + h_k - P
        c = linear.coeff(other)
        rest = sympy.expand(linear - c * other - unit)
        if c.free_symbols & set(symbols.values()) or rest.free_symbols & set(symbols.values()) or c == 0:
            continue
        parts = quotient_remainder(from_polynomial(-rest), from_polynomial(c))
        if parts is None:
            continue
        q, r = parts
        width = from_polynomial(c)
        return {m: [z3.simplify(q + shift) for shift in BLOCK_SHIFTS],
                k: [z3.simplify(r - shift * width) for shift in BLOCK_SHIFTS]}
    return {}
