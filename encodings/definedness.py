"""Where a program, or a sympy expression, is defined: conditions over its inputs.

A well-definedness obligation (as Dafny and Why3 make them) says that, wherever
a claim's preconditions hold, no operation leaves its domain
(:mod:`usim.encodings.domain`). This module computes, for each output position,
the condition under which the value there is defined, as a sympy Boolean over
the input symbols. It follows the program's meaning exactly as the exact
interpretation does (which replays a counterexample):

* a partial operation at a position is defined when its arguments are and its
  own domain condition holds (``b != 0`` for a division, ...);
* ``where(c, a, b)`` is defined when ``c`` is, and then ``a`` where ``c`` holds
  and ``b`` where it does not: the branch not taken does not matter;
* an aggregate at query q is defined when every value it averages is: over a
  selection decided by positions, the selected keys; over a data-dependent
  selection, every key k with ``selected(q, k) -> defined(v_k)``, and the
  selection itself (its keys and query: a row that compares an undefined value
  is undefined as a whole); an empty row is defined under RASP (the default)
  and, under AHAT, when every value is;
* an aggregate that only moves a value (``single``: symbols or booleans) is
  defined where at most one key is selected, one without a default where at
  least one is;
* a static value the exact pass found undefined is never defined.

The conditions are computed on the operations as they are applied, before
sympy simplifies anything: ``x * x / x`` keeps the condition ``x != 0`` although
sympy writes its value as ``x``. :func:`expression_conditions` gives the same
for a sympy expression (a claim's target or precondition), read from its
structure: a negative power needs a non-zero base, a fractional power a
non-negative (or positive) one, ``log`` a positive argument.
"""

from __future__ import annotations

from typing import Any, Sequence

import sympy

from usim.encodings.domain import PARTIAL, Undefined, defined
from usim.encodings.evaluate import evaluate_all, plan_for
from usim.encodings.selection import StaticSelection
from usim.encodings.symbolic import IsInteger, SymbolicInterpretation
from usim.rasp.expr import (
    Aggregate,
    Map,
    Op,
    Select,
    SelectorAnd,
    SelectorNot,
    SelectorWidth,
    Semantics,
    SOp,
    Tokens,
)
from usim.rasp.program import Program

Conditions = list[Any] | None  # one sympy Boolean per position; None: defined everywhere

TRUE = sympy.true


def _and(*conditions: Any) -> Any:
    kept = [c for c in conditions if c is not TRUE and c is not True]
    if not kept:
        return TRUE
    if len(kept) == 1:
        return kept[0]
    return sympy.And(*kept)


def _at(conditions: Conditions, p: int) -> Any:
    return TRUE if conditions is None else conditions[p]


def _compact(conditions: list[Any]) -> Conditions:
    return None if all(c is TRUE or c is True for c in conditions) else conditions


def program_conditions(program: Program, output: str, tokens: Sequence[Any]) -> list[Any]:
    """For each position of ``output``, the condition under which it is defined.

    ``tokens`` are the symbolic inputs (sympy symbols, or numbers for padding).
    """
    interp = SymbolicInterpretation()
    roots = tuple(sop for _, sop in program.outputs)
    n = len(tokens)
    plan = plan_for(roots, n)
    if not _may_be_undefined(plan):
        return [TRUE] * n
    values = evaluate_all(program, interp, list(tokens))
    conds: dict[int, Conditions] = {}
    rows: dict[int, Conditions] = {}  # selectors: the condition of each query's row

    def number(child: SOp, p: int) -> Any:
        v = values[child.id][p]
        return interp.to_number([v])[0] if child.is_bool else v

    for node in plan.order:
        if plan.is_static(node):
            static = plan.static[node.id]
            if isinstance(node, SOp):
                conds[node.id] = _compact([sympy.false if isinstance(v, Undefined) else TRUE
                                           for v in static])
            else:
                rows[node.id] = None
            continue
        if isinstance(node, Tokens):
            conds[node.id] = None
        elif isinstance(node, Map):
            conds[node.id] = _map_conditions(node, interp, values, conds, number, n)
        elif isinstance(node, Select):
            keys, queries = conds[node.keys.id], conds[node.queries.id]
            every_key = _and(*keys) if keys is not None else TRUE
            rows[node.id] = _compact([_and(_at(queries, q), every_key) for q in range(n)])
        elif isinstance(node, (SelectorAnd, SelectorNot)):
            parts = [rows[c.id] for c in node.children()]
            rows[node.id] = _compact([_and(*(_at(r, q) for r in parts)) for q in range(n)]) \
                if any(r is not None for r in parts) else None
        elif isinstance(node, Aggregate):
            conds[node.id] = _aggregate_conditions(node, values, conds, rows, n)
        elif isinstance(node, SelectorWidth):
            conds[node.id] = rows[node.selector.id]
        else:  # pragma: no cover - every node kind is listed above
            raise TypeError(f"unknown expression {node!r}")
    sop = dict(program.outputs)[output]
    return [_at(conds[sop.id], p) for p in range(n)]


def _map_conditions(node: Map, interp: SymbolicInterpretation, values, conds, number, n: int) -> Conditions:
    args = node.args
    if node.op is Op.WHERE:
        condition, if_true, if_false = args
        cc, ct, cf = conds[condition.id], conds[if_true.id], conds[if_false.id]
        if cc is None and ct is None and cf is None:
            return None
        out = []
        for p in range(n):
            taken, other = _at(ct, p), _at(cf, p)
            c = values[condition.id][p] if condition.is_bool else sympy.Ne(values[condition.id][p], 0)
            if taken == other:
                branch = taken
            elif c is sympy.true or c is True:
                branch = taken
            elif c is sympy.false or c is False:
                branch = other
            else:
                branch = _and(sympy.Implies(c, taken), sympy.Implies(sympy.Not(c), other))
            out.append(_and(_at(cc, p), branch))
        return _compact(out)
    inherited = [conds[a.id] for a in args]
    if node.op not in PARTIAL:
        if all(c is None for c in inherited):
            return None
        return _compact([_and(*(_at(c, p) for c in inherited)) for p in range(n)])
    out = []
    for p in range(n):
        own = defined(interp, node.op, tuple(number(a, p) for a in args))
        out.append(_and(*(_at(c, p) for c in inherited), own))
    return _compact(out)


def _aggregate_conditions(node: Aggregate, values, conds, rows, n: int) -> Conditions:
    value_conds = conds[node.values.id]
    row_conds = rows[node.selector.id]
    selection = values[node.selector.id]
    ahat = node.semantics is Semantics.AHAT
    empty_undefined = node.default is None and not ahat
    if value_conds is None and row_conds is None and not node.single and not empty_undefined:
        return None
    everything = _and(*value_conds) if value_conds is not None else TRUE
    out = []
    for q in range(n):
        if isinstance(selection, StaticSelection):
            keys = selection.keys_of(q)
            if keys.size:
                own = _and(*(_at(value_conds, int(k)) for k in keys))
                if node.single and keys.size > 1:  # a value of several keys is moved: undefined
                    own = sympy.false
            else:
                own = everything if ahat else (sympy.false if empty_undefined else TRUE)
        else:
            row = selection[q]
            live = [s for s in row if s is not False and s is not sympy.false]
            own = _and(*(sympy.Implies(s, _at(value_conds, k)) if s is not True and s is not sympy.true
                         else _at(value_conds, k)
                         for k, s in enumerate(row) if s is not False and s is not sympy.false))
            if ahat:
                nothing = sympy.Not(sympy.Or(*row)) if row else sympy.true
                own = _and(own, sympy.Implies(nothing, everything))
            if node.single:  # at most one key selected
                own = _and(own, *(sympy.Not(sympy.And(a, b)) for i, a in enumerate(live) for b in live[i + 1:]))
            if empty_undefined:  # at least one key selected
                own = _and(own, sympy.Or(*live) if live else sympy.false)
        out.append(_and(_at(row_conds, q), own))
    return _compact(out)


# -- sympy expressions (targets and preconditions) ---------------------------------

def expression_conditions(expr: Any) -> list[Any]:
    """Conditions under which the sympy expression ``expr`` is defined (real).

    Read from its structure, with the power rule of :mod:`usim.encodings.domain`;
    a branch of a Piecewise contributes its conditions only where it is taken.
    ``nan``, ``zoo`` and infinities are never defined.
    """
    expr = sympy.sympify(expr)
    memo: dict[sympy.Basic, Any] = {}

    def go(e: sympy.Basic) -> Any:
        if e in memo:
            return memo[e]
        if e.is_Atom:
            out = sympy.false if e in (sympy.nan, sympy.zoo, sympy.oo, -sympy.oo, sympy.I) else TRUE
        elif isinstance(e, sympy.Piecewise):
            parts, earlier = [], []
            for value, cond in e.args:
                before = _and(*(sympy.Not(c) for c in earlier))  # this branch's condition is looked at
                parts.append(sympy.Implies(before, go(cond)) if before is not TRUE else go(cond))
                taken = _and(before, cond)
                parts.append(sympy.Implies(taken, go(value)) if taken is not TRUE else go(value))
                earlier.append(cond)
            out = _and(*parts)
        else:
            out = _and(*(go(a) for a in e.args), _own(e))
        memo[e] = out
        return out

    result = go(expr)
    if result is TRUE:
        return []
    return list(result.args) if isinstance(result, sympy.And) else [result]


def power_condition(base: Any, exponent: Any) -> Any:
    """Where ``base ** exponent`` is defined (real): an integer power needs a
    non-zero base when negative, a rational one a non-negative base (positive
    when negative), any other the power rule of :mod:`usim.encodings.domain`.

    Args:
        base: the base (a sympy expression).
        exponent: the exponent.

    Returns:
        A sympy Boolean over the base's and exponent's symbols.
    """
    if exponent.is_Integer:
        return TRUE if exponent >= 0 else sympy.Ne(base, 0)
    if exponent.is_Rational:
        return sympy.Ge(base, 0) if exponent > 0 else sympy.Gt(base, 0)
    return sympy.Or(sympy.Gt(base, 0), sympy.And(sympy.Eq(base, 0), sympy.Gt(exponent, 0)),
                    sympy.And(IsInteger(exponent), sympy.Or(sympy.Ne(base, 0), sympy.Ge(exponent, 0))))


def _own(e: sympy.Basic) -> Any:
    """The domain condition of the head of ``e`` itself."""
    if isinstance(e, sympy.Pow):
        return power_condition(*e.args)
    if isinstance(e, sympy.log):
        return sympy.Gt(e.args[0], 0)
    if isinstance(e, sympy.Mod):
        return sympy.Ne(e.args[1], 0)
    return TRUE


def _has_undefined(static: Any) -> bool:
    """Whether a static value (an exact array or list; not a selection) holds an undefined entry."""
    if hasattr(static, "dtype"):
        return static.dtype == object and any(isinstance(v, Undefined) for v in static)
    return isinstance(static, (list, tuple)) and any(isinstance(v, Undefined) for v in static)


def _may_be_undefined(plan) -> bool:
    """Whether some value could be undefined: a partial operation on values that
    depend on the tokens, or a static value the exact pass found undefined."""
    for node in plan.order:
        if plan.is_static(node):
            static = plan.static[node.id]
            if _has_undefined(static):
                return True
        elif isinstance(node, Map) and node.op in PARTIAL:
            return True
        elif isinstance(node, Aggregate) and (node.single or node.default is None):
            return True
    return False
