"""Matrices written once for every size: entries, sums over index ranges, cases.

A step's meaning (:data:`usim.constructions.universal.kinds.STEP_KINDS`) and a
claim's target map input matrices to output blocks. Written with the helpers
here they mean the same thing at a fixed size and for all sizes:

* at a fixed size the inputs are sympy matrices, :func:`matrix_of` is
  ``sympy.Matrix``, :func:`total` a sum of its terms and :func:`when` a plain
  choice: the bounded engines see ordinary sympy expressions;
* for all sizes the inputs are :class:`SymbolicMatrix` es whose shapes are
  symbolic integers, evaluated by the parametric engine inside its context
  (:class:`usim.engine.parametric.target.TargetContext`, made active with
  :func:`active`): an entry at symbolic indices is an atom, :func:`total` over
  a symbolic extent one sum atom over a bound index, :func:`when` on a
  condition between symbolic integers a split into two complementary cases
  (:class:`Cases`), each proved on its own.

A meaning written this way is one function for both; the tie of the
parametric engine checks, at every size up to a bound, that over symbolic
matrices it means what it means over sympy's.

>>> import sympy
>>> m = sympy.Matrix([[1, 2], [3, 4]])
>>> matrix_of(2, 2, lambda i, j: when(j < 1, lambda: m[i, j], lambda: 0))
Matrix([
[1, 0],
[3, 0]])
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol

import sympy
from sympy.matrices.exceptions import ShapeError

from usim.rasp.family import Condition, FamilyError, SymbolicInt, is_symbolic, same_size

Index = SymbolicInt | int


class SizedContext(Protocol):
    """What evaluates matrices over symbolic sizes (the parametric engine's target context)."""

    def entry(self, name: str, rows: Index, cols: Index, i: Index, j: Index) -> sympy.Expr: ...

    def total(self, extent: Index, term: Callable[[SymbolicInt], Any]) -> sympy.Expr: ...

    def choose(self, condition: Condition, then: Callable[[], Any], otherwise: Callable[[], Any]) -> "Cases": ...

    def whole(self, value: SymbolicInt) -> sympy.Expr: ...

    def vanishes(self, factor: Any) -> bool: ...


_ACTIVE: contextvars.ContextVar[SizedContext | None] = contextvars.ContextVar("usim_sized", default=None)


@contextlib.contextmanager
def active(context: SizedContext) -> Iterator[SizedContext]:
    """Evaluate matrices over symbolic sizes in ``context`` inside the ``with``."""
    token = _ACTIVE.set(context)
    try:
        yield context
    finally:
        _ACTIVE.reset(token)


def _context() -> SizedContext:
    context = _ACTIVE.get()
    if context is None:
        raise TypeError("a matrix over symbolic sizes is evaluated only by the parametric engine")
    return context


class CasesInArithmetic(TypeError):
    """Arithmetic on an entry given by cases (the parametric engine splits cases
    only at an output entry's top, not inside sums and products)."""


@dataclass(frozen=True)
class Cases:
    """An entry given by cases: (condition, value) pairs whose conditions
    (solver formulas of the context) are complementary and cover everything."""

    cases: tuple[tuple[Any, Any], ...]

    def _arithmetic(self, *other: Any) -> Any:
        raise CasesInArithmetic("arithmetic on an entry given by cases")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _arithmetic


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
        _agree((self.cols,), (other.rows,), f"a product of a {_shape(self)} and a {_shape(other)} matrix")

        def term(i: Index, j: Index, l: Index) -> Any:
            right = other[l, j]  # first: a weight placed into U's is 0 past T's corner
            return 0 if _context().vanishes(right) else self[i, l] * right
        return SymbolicMatrix(self.rows, other.cols, lambda i, j: total(self.cols, lambda l: term(i, j, l)))

    def __add__(self, other: "SymbolicMatrix") -> "SymbolicMatrix":
        if not isinstance(other, SymbolicMatrix):
            return NotImplemented
        _agree(self.shape, other.shape, f"a sum of a {_shape(self)} and a {_shape(other)} matrix")
        return SymbolicMatrix(self.rows, self.cols, lambda i, j: self[i, j] + other[i, j])

    def applyfunc(self, f: Callable[[Any], Any]) -> "SymbolicMatrix":
        return SymbolicMatrix(self.rows, self.cols, lambda i, j: f(self[i, j]))


def _shape(matrix: SymbolicMatrix) -> str:
    return f"{matrix.rows!s} x {matrix.cols!s}"


def _agree(ours: tuple[Index, ...], theirs: tuple[Index, ...], what: str) -> None:
    """Raise sympy's ShapeError (as sympy does at integer sizes) unless each
    pair of sizes is the same at every size (:func:`~usim.rasp.family.same_size`)."""
    for a, b in zip(ours, theirs):
        try:
            same = same_size(a, b)
        except FamilyError:
            same = False
        if not same:
            raise ShapeError(f"{what}: the sizes {a!s} and {b!s} are not the same at every size")


def matrix_of(rows: Index, cols: Index, entry: Callable[[Index, Index], Any]) -> Any:
    """The rows x cols matrix with these entries.

    Args:
        rows: its rows (an integer or a symbolic size).
        cols: its columns.
        entry: (i, j) -> the entry.

    Returns:
        A sympy Matrix at fixed sizes, a :class:`SymbolicMatrix` at symbolic ones.
    """
    if is_symbolic(rows, cols):
        return SymbolicMatrix(rows, cols, entry)
    return sympy.Matrix(rows, cols, lambda i, j: entry(int(i), int(j)))


def total(extent: Index, term: Callable[[Index], Any]) -> Any:
    """sum_{l = 0}^{extent - 1} term(l).

    Args:
        extent: how many terms (an integer or a symbolic size).
        term: l -> the l-th term.

    Returns:
        A sympy sum at a fixed extent, one sum atom over a bound index at a
        symbolic one.
    """
    if is_symbolic(extent):
        return _context().total(extent, term)
    return sympy.Add(*[term(l) for l in range(extent)])


def when(condition: Condition | bool, then: Callable[[], Any], otherwise: Callable[[], Any]) -> Any:
    """then() where ``condition`` holds, otherwise() where it does not.

    Args:
        condition: a comparison of indices and sizes (a bool at fixed sizes,
            a :class:`~usim.rasp.family.Condition` at symbolic ones).
        then: the entry where it holds (called only there).
        otherwise: the entry where it does not.

    Returns:
        The chosen entry at fixed sizes; over symbolic sizes the two
        complementary :class:`Cases`, each value computed under its condition.
    """
    if isinstance(condition, Condition):
        return _context().choose(condition, then, otherwise)
    return then() if condition else otherwise()


def both(a: Condition | bool, b: Condition | bool) -> Condition | bool:
    """a and b, for conditions at fixed sizes (bools) and symbolic ones alike.

    >>> both(True, 1 < 2), both(False, 3 < 2)
    (True, False)
    """
    if isinstance(a, Condition) and isinstance(b, Condition):
        return a & b
    if not isinstance(a, Condition):
        return b if a else False
    return a if b else False


def size_value(value: Index) -> Any:
    """A size (or index) used as an entry's value: the integer at fixed sizes, the
    integer term's atom over symbolic ones (a header field a stage sets to n).

    >>> size_value(3)
    3
    """
    if is_symbolic(value):
        return _context().whole(value)
    return sympy.Integer(value)


def matrix_like(model: Any, rows: Index, cols: Index, entry: Callable[[Index, Index], Any]) -> Any:
    """A rows x cols matrix of the same kind as ``model``: symbolic where the engine
    evaluates ``model`` over symbolic sizes (even when rows and cols are
    numbers, as a header's 1 x 3 is), else :func:`matrix_of`."""
    if isinstance(model, SymbolicMatrix):
        return SymbolicMatrix(rows, cols, entry)
    return matrix_of(rows, cols, entry)
