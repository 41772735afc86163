"""Targets written once for every size: matrices by their entries, sums over index boxes.

A claim's target maps its input matrices to the output blocks. Written with
the helpers here it means the same thing at a fixed size and for all sizes:

* at a fixed size the inputs are sympy matrices, :func:`matrix_of` is
  ``sympy.Matrix`` and :func:`total` is a sum of its terms: the bounded engines
  see ordinary sympy expressions (``m["M"].T`` and ``m["A"] * m["B"]`` are
  sympy's own transpose and product);
* for all sizes the inputs are :class:`SymbolicMatrix` es whose shapes are
  symbolic integers: an entry at symbolic indices is an atom
  (:class:`~usim.engine.parametric.terms.Entry`), :func:`total` over a
  symbolic extent is one sum atom over a bound index, ``.T`` and ``*`` are
  defined entry by entry (the product's entry (i, j) is
  ``total(k, lambda l: A[i, l] * B[l, j])``).

The engine (:mod:`usim.engine.parametric.prove`) evaluates a symbolic target
inside a :class:`TargetContext`, which turns index expressions into z3 terms
and records, for every entry the target reads, that its indices lie inside its
matrix (proved like every other step: a target that reads outside its input
states nothing).
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import sympy

from usim.engine.parametric.integers import Formula, Term, translate
from usim.engine.parametric.terms import ParametricAtoms
from usim.engine.signs import Sign, SignAnalysis
from usim.rasp.family import INDEX, SymbolicInt, is_symbolic

Index = SymbolicInt | int


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
    obligations: list[tuple[list[Formula], Formula, str]] = field(default_factory=list)

    def term(self, value: Index, what: str) -> Term:
        t = translate(value, self.env, self.dims, self.positive)
        for condition in t.defined:
            self.obligations.append((list(self.facts), condition, f"{what}: a division by zero"))
        return t.term

    def entry(self, name: str, rows: Index, cols: Index, i: Index, j: Index) -> sympy.Expr:
        row, col = self.term(i, f"{name}[{i}, {j}]"), self.term(j, f"{name}[{i}, {j}]")
        inside = (row >= 0) & (row < self.term(rows, name)) & (col >= 0) & (col < self.term(cols, name))
        self.obligations.append((list(self.facts), inside, f"the target reads {name}[{i}, {j}] inside {name}"))
        return self.atoms.entry(name, row, col)

    def total(self, extent: Index, term: Callable[[SymbolicInt], Any]) -> sympy.Expr:
        var = self.fresh("l")
        index = SymbolicInt("sym", var.decl().name(), INDEX)
        size = self.term(extent, "a sum's extent")
        self.env[var.decl().name()] = var
        self.facts.extend([var >= 0, var < size])
        try:
            body = sympy.sympify(term(index))
            positive = SignAnalysis().sign(body) is Sign.POSITIVE
        finally:
            del self.facts[-2:]
            del self.env[var.decl().name()]
        at_least_one = self.proves(list(self.facts), size >= 1)
        return self.atoms.total(var, size, body, positive=positive and at_least_one,
                                nonnegative=at_least_one or self.proves(list(self.facts), size >= 0))


_ACTIVE: contextvars.ContextVar[TargetContext | None] = contextvars.ContextVar("usim_target", default=None)


@contextlib.contextmanager
def active(context: TargetContext) -> Iterator[TargetContext]:
    token = _ACTIVE.set(context)
    try:
        yield context
    finally:
        _ACTIVE.reset(token)


def _context() -> TargetContext:
    context = _ACTIVE.get()
    if context is None:
        raise TypeError("a target over symbolic sizes is evaluated only by the parametric engine")
    return context


class SymbolicMatrix:
    """A rows x cols matrix (symbolic sizes) given by its entry function."""

    def __init__(self, rows: Index, cols: Index, entry: Callable[[Index, Index], Any]) -> None:
        self.rows, self.cols = rows, cols
        self._entry = entry

    @classmethod
    def input(cls, name: str, rows: Index, cols: Index) -> "SymbolicMatrix":
        """The input block ``name``: its entries are atoms."""
        return cls(rows, cols, lambda i, j: _context().entry(name, rows, cols, i, j))

    @property
    def shape(self) -> tuple[Index, Index]:
        return (self.rows, self.cols)

    def __getitem__(self, key: tuple[Index, Index]) -> Any:
        i, j = key
        return self._entry(i, j)

    @property
    def T(self) -> "SymbolicMatrix":  # noqa: N802 - sympy's name
        return SymbolicMatrix(self.cols, self.rows, lambda i, j: self[j, i])

    def __mul__(self, other: "SymbolicMatrix") -> "SymbolicMatrix":
        if not isinstance(other, SymbolicMatrix):
            return NotImplemented
        return SymbolicMatrix(self.rows, other.cols,
                              lambda i, j: total(self.cols, lambda l: self[i, l] * other[l, j]))

    def applyfunc(self, f: Callable[[Any], Any]) -> "SymbolicMatrix":
        return SymbolicMatrix(self.rows, self.cols, lambda i, j: f(self[i, j]))


def matrix_of(rows: Index, cols: Index, entry: Callable[[Index, Index], Any]) -> Any:
    """The rows x cols matrix with these entries: a sympy Matrix at fixed sizes,
    a :class:`SymbolicMatrix` at symbolic ones."""
    if is_symbolic(rows, cols):
        return SymbolicMatrix(rows, cols, entry)
    return sympy.Matrix(rows, cols, lambda i, j: entry(int(i), int(j)))


def total(extent: Index, term: Callable[[Index], Any]) -> Any:
    """sum_{l = 0}^{extent - 1} term(l): a sympy sum at a fixed extent, one sum
    atom over a bound index at a symbolic one."""
    if is_symbolic(extent):
        return _context().total(extent, term)
    return sympy.Add(*[term(l) for l in range(extent)])
