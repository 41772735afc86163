"""Real-valued terms over symbolic sizes: sympy expressions over three kinds of atom.

The value of a program (or of a target) at a symbolic position is a sympy
expression (sums, products, quotients, ``exp``) over atoms, each a fresh sympy
symbol standing for

* :class:`Entry`: entry (row, col) of an input block, the indices z3 integer
  terms over the sizes and the position (``S[a, l]``);
* :class:`Total`: a sum ``sum_{var = 0}^{extent - 1} body`` over an index box,
  ``var`` a z3 constant bound by the sum, ``body`` again such an expression
  (assumed positive only where that was proved, non-negative where the body's
  form shows it is: a sum of squares);
* :class:`Whole`: an integer term used as a number (a count, ``c`` in
  ``c * mean``), assumed positive only where z3 proved it so.

Two atoms are *the same value* only when that is proved (same block and
provably equal indices; provably equal extents and bodies equal at every index;
provably equal integers): :mod:`usim.engine.parametric.compare` decides that.
Until then every atom is an independent symbol, so an expression over atoms can
only lose identities (say "not decided"), never gain one.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Sequence

import sympy
import z3

from usim.engine.parametric.integers import Term
from usim.engine.parametric.polynomials import free_constants, numeral
from usim.engine.signs import Sign, SignAnalysis


def shown(term: z3.ExprRef) -> str:
    """A z3 term as people read it: fresh variables under their plain names."""
    return re.sub(r"!\d+", "", " ".join(str(term).split()))


@dataclass(frozen=True, eq=False)
class Entry:
    block: str
    row: Term
    col: Term

    def describe(self) -> str:
        return f"{self.block}[{shown(self.row)}, {shown(self.col)}]"


@dataclass(frozen=True, eq=False)
class Total:
    var: Term
    extent: Term
    body: sympy.Expr

    def describe(self) -> str:
        return f"sum over {shown(self.var)} < {shown(self.extent)} of ..."


@dataclass(frozen=True, eq=False)
class Whole:
    term: Term

    def describe(self) -> str:
        return shown(self.term)


Atom = Entry | Total | Whole


class ParametricAtoms:
    """The atoms of one proof: a sympy symbol for each, and what it stands for."""

    def __init__(self) -> None:
        self.info: dict[sympy.Symbol, Atom] = {}
        self._keys: dict[tuple, sympy.Symbol] = {}
        self._count = itertools.count()

    def _symbol(self, key: tuple, atom: Atom, label: str, **assumptions: bool) -> sympy.Symbol:
        if key not in self._keys:
            symbol = sympy.Symbol(f"{label}#{next(self._count)}", **assumptions)
            self._keys[key] = symbol
            self.info[symbol] = atom
        return self._keys[key]

    def entry(self, block: str, row: Term, col: Term) -> sympy.Symbol:
        row, col = z3.simplify(row), z3.simplify(col)
        return self._symbol(("entry", block, row.get_id(), col.get_id()), Entry(block, row, col),
                            f"{block}[{row},{col}]", real=True)

    def whole(self, term: Term, positive: bool = False) -> sympy.Expr:
        term = z3.simplify(term)
        value = numeral(term)
        if value is not None:
            return sympy.Integer(value)
        assumptions = {"positive": True} if positive else {}
        return self._symbol(("whole", term.get_id(), positive), Whole(term), f"int({term})",
                            integer=True, **assumptions)

    def total(self, var: Term, extent: Term, body: sympy.Expr, positive: bool = False,
              nonnegative: bool = False) -> sympy.Expr:
        """sum_{var < extent} body. ``positive``: proved that extent >= 1 and body > 0
        (the sum is then assumed positive); ``nonnegative``: proved extent >= 0."""
        extent = z3.simplify(extent)
        size = numeral(extent)
        if size is not None and size <= 0:
            return sympy.Integer(0)
        if size == 1:
            return self.substitute(body, [(var, z3.IntVal(0))])
        if nonnegative and not self.mentions(body, var):
            return self.whole(extent) * body  # extent >= 0 equal terms: extent times the term
        # a sum of terms evidently >= 0 is >= 0 (at any extent: an empty sum is 0)
        nonnegative_terms = not positive and SignAnalysis().sign(body) in (Sign.POSITIVE, Sign.NONNEGATIVE,
                                                                            Sign.ZERO)
        assumptions = {"positive": True} if positive else (
            {"real": True, "nonnegative": True} if nonnegative_terms else {"real": True})
        # the assumption is part of the key: positivity proved in one context is never
        # lent to the same sum met where it was not proved
        return self._symbol(("total", var.get_id(), extent.get_id(), sympy.srepr(body), positive),
                            Total(var, extent, body), f"sum_{var}", **assumptions)

    # -- reading and rewriting ------------------------------------------------------------
    def atoms_of(self, expr: sympy.Expr) -> list[sympy.Symbol]:
        return sorted((s for s in sympy.sympify(expr).free_symbols if s in self.info), key=lambda s: s.name)

    def constants(self, symbol: sympy.Symbol) -> set[str]:
        """The z3 constants an atom depends on (a sum's own index excluded)."""
        atom = self.info[symbol]
        if isinstance(atom, Entry):
            return free_constants(atom.row) | free_constants(atom.col)
        if isinstance(atom, Whole):
            return free_constants(atom.term)
        inner = set().union(*(self.constants(s) for s in self.atoms_of(atom.body)))
        return (inner - {atom.var.decl().name()}) | free_constants(atom.extent)

    def mentions(self, expr: sympy.Expr, var: Term) -> bool:
        name = var.decl().name()
        return any(name in self.constants(s) for s in self.atoms_of(expr))

    def substitute(self, expr: sympy.Expr, pairs: Sequence[tuple[Term, Term]]) -> sympy.Expr:
        """``expr`` with z3 constants replaced by terms inside every atom."""
        names = {v.decl().name() for v, _ in pairs}
        replace = {}
        for s in self.atoms_of(expr):
            if not names & self.constants(s):
                continue
            atom = self.info[s]
            if isinstance(atom, Entry):
                replace[s] = self.entry(atom.block, z3.substitute(atom.row, *pairs), z3.substitute(atom.col, *pairs))
            elif isinstance(atom, Whole):
                replace[s] = self.whole(z3.substitute(atom.term, *pairs), bool(s.is_positive))
            else:
                replace[s] = self.total(atom.var, z3.substitute(atom.extent, *pairs),
                                        self.substitute(atom.body, pairs), bool(s.is_positive))
        return sympy.sympify(expr).xreplace(replace) if replace else expr

    def index_terms(self, expr: sympy.Expr) -> list[Term]:
        """The integer terms the atoms of ``expr`` are indexed by (an entry's row
        and column, a whole's term, a sum's extent and its body's, recursively)."""
        out: list[Term] = []
        for s in self.atoms_of(expr):
            atom = self.info[s]
            if isinstance(atom, Entry):
                out += [atom.row, atom.col]
            elif isinstance(atom, Whole):
                out.append(atom.term)
            else:
                out += [atom.extent] + self.index_terms(atom.body)
        return out

    def text(self, expr: sympy.Expr) -> str:
        """``expr`` written with each atom as what it stands for (a sum's body
        after it, in braces)."""
        expr = sympy.sympify(expr)
        names = {}
        for s in self.atoms_of(expr):
            atom = self.info[s]
            if isinstance(atom, Total):
                names[s] = sympy.Symbol(f"sum({shown(atom.var)} < {shown(atom.extent)}){{{self.text(atom.body)}}}")
            else:
                names[s] = sympy.Symbol(atom.describe())
        return str(expr.xreplace(names))
