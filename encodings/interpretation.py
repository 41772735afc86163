"""What an interpretation supplies: the arithmetic, never the traversal.

The meaning of a program is defined once, in :mod:`usim.encodings.evaluate`. An
interpretation says how to represent a sequence and do each operation on it.
Most interpretations (exact, symbolic, smt) work position by position: they
subclass :class:`ElementwiseInterpretation` and give only scalar operations in a
table; the numeric one works on whole batches of sequences at once.

The aggregate is defined here once for every element-wise interpretation:

* concrete selection: at query q with selected keys K, ``mean(v[k] for k in K)``;
  if K is empty, the default (RASP) or the mean over every position (AHAT);
* data-dependent selection with entries s_k (terms or booleans): the guarded sum
  ``total = sum(ite(s_k, v_k, 0))`` over the guarded count
  ``count = sum(ite(s_k, 1, 0))``, and ``ite(s_1 or ... or s_n, total / count, empty)``
  (the row is empty exactly when no key is selected).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from fractions import Fraction
from typing import Any, Callable, ClassVar, Mapping, Sequence

from usim.encodings.selection import OuterSelection, StaticSelection
from usim.errors import EvaluationError
from usim.rasp.expr import Op, Predicate, Semantics

Scalar = Any
Seq = Any
DynamicSelection = Any
_MISSING = object()


class Interpretation(ABC):
    """A domain for sequence values and the operations on it."""

    name: ClassVar[str]

    @abstractmethod
    def length(self, tokens: Seq) -> int: ...

    @abstractmethod
    def lift(self, values: Sequence[Scalar]) -> Seq:
        """A sequence of exact values (ints, Fractions, bools) in this domain."""

    @abstractmethod
    def map(self, op: Op, args: list[Seq]) -> Seq: ...

    @abstractmethod
    def to_number(self, seq: Seq) -> Seq:
        """A boolean sequence as 1/0."""

    @abstractmethod
    def to_bool(self, seq: Seq) -> Seq:
        """A number sequence as booleans (non-zero is true)."""

    @abstractmethod
    def select(self, predicate: Predicate, keys: Seq, queries: Seq) -> DynamicSelection: ...

    @abstractmethod
    def densify(self, selection: StaticSelection) -> DynamicSelection: ...

    @abstractmethod
    def combine(self, op: Op, selections: list[DynamicSelection]) -> DynamicSelection:
        """AND, OR of two selections, NOT of one."""

    @abstractmethod
    def aggregate_static(
        self, selection: StaticSelection, values: Seq, default: Scalar, semantics: Semantics
    ) -> Seq: ...

    @abstractmethod
    def aggregate_dynamic(
        self, selection: DynamicSelection, values: Seq, default: Scalar, semantics: Semantics
    ) -> Seq: ...

    @abstractmethod
    def width(self, selection: DynamicSelection) -> Seq: ...

    def head_sum(self, family: Any, sequences: Mapping[int, Seq], exact: Mapping[int, Any], n: int) -> Seq:
        """A head family kept whole (:func:`usim.rasp.family.keeping_families`),
        its heads evaluated together. Only the numeric interpretation does this
        (:mod:`usim.encodings.families`); the others evaluate the family's
        instance (:func:`usim.rasp.family.instantiate`), head by head."""
        raise EvaluationError(f"the {self.name} interpretation evaluates a head family only by its "
                              "instance (usim.rasp.family.instantiate)")

    def undefined_where(self, values: Seq, counts: Any, several: bool, empty: bool) -> Seq:
        """An aggregate's ``values`` where it has none: at a row selecting more
        than one key when it only moves a value (``several``: an aggregate of
        non-numbers), at a row selecting no key when it has no default
        (``empty``). ``counts`` is the number of keys selected per row.

        By default the values are kept: where an aggregate is undefined the
        symbolic and smt values are never compared (the definedness check says
        where that is); the exact and numeric interpretations mark them."""
        return values


UNDEFINED_AGGREGATE = {
    "several": "an aggregate of non-numbers (symbols or booleans) selects more than one key: "
               "the RASP REPL averages numbers only (tracr's evaluator raises there)",
    "empty": "an aggregate with no default selects no key (the RASP REPL's aggregate of symbols "
             "with no symbol as default makes a sequence of mixed types there; tracr's gives None)",
}


class ElementwiseInterpretation(Interpretation):
    """An interpretation whose sequences are Python lists of scalars.

    Subclasses give ``ops`` (a table from :class:`Op` to a scalar function) and
    the few scalar primitives below; everything sequence-level is defined here.
    """

    ops: ClassVar[dict[Op, Callable[..., Scalar]]]

    # -- scalar primitives a subclass supplies -------------------------------
    @abstractmethod
    def constant(self, value: int | Fraction | bool) -> Scalar: ...

    @abstractmethod
    def truth(self, condition: Scalar) -> bool | None:
        """True/False when the condition is decided concretely, else None."""

    @abstractmethod
    def ite(self, condition: Scalar, if_true: Scalar, if_false: Scalar) -> Scalar: ...

    @abstractmethod
    def total(self, terms: list[Scalar]) -> Scalar: ...

    @abstractmethod
    def divide(self, numerator: Scalar, denominator: Scalar) -> Scalar: ...

    @abstractmethod
    def is_integer(self, x: Scalar) -> Scalar:
        """The condition "x is an integer" (for the domain of a power)."""

    def scalar(self, op: Op, *args: Scalar) -> Scalar:
        return self.ops[op](self, *args)

    def conjunction(self, *conditions: Scalar) -> Scalar:
        out = self.constant(True)
        for c in conditions:
            out = self._and(out, c)
        return out

    def disjunction(self, *conditions: Scalar) -> Scalar:
        out = self.constant(False)
        for c in conditions:
            out = self._or(out, c)
        return out

    # -- sequences -----------------------------------------------------------
    def length(self, tokens: Seq) -> int:
        return len(tokens)

    def lift(self, values: Sequence[Scalar]) -> Seq:
        if hasattr(values, "tolist"):  # the static pass's numpy arrays: Python numbers first
            values = values.tolist()
        return [self.constant(v) for v in values]

    memo_scalars: ClassVar[bool] = True
    """Whether :meth:`map` may compute an operation once for positions holding
    the very same argument objects: true where a scalar operation is a function
    of its arguments' values (the exact, symbolic and point interpretations);
    the smt interpretation records a fact per term it makes, and says no."""

    def map(self, op: Op, args: list[Seq]) -> Seq:
        """The operation at every position.

        On U's stages most positions of a sequence hold the same object (the
        default 0 of a head that moves one value), so with :attr:`memo_scalars`
        the operation is computed once per distinct tuple of argument objects
        in this call (keyed by identity: the argument lists keep every object
        alive, so no identity is reused within the call, and equal objects of
        different types, 1 and True, are never confused)."""
        scalar = self.scalar
        if not self.memo_scalars:
            return [scalar(op, *xs) for xs in zip(*args)]
        memo: dict[Any, Scalar] = {}
        out: list[Scalar] = []
        append = out.append
        if len(args) == 1:
            for x in args[0]:
                key = id(x)
                value = memo.get(key, _MISSING)
                if value is _MISSING:
                    value = memo[key] = scalar(op, x)
                append(value)
            return out
        if len(args) == 2:
            for a, b in zip(*args):
                key = (id(a), id(b))
                value = memo.get(key, _MISSING)
                if value is _MISSING:
                    value = memo[key] = scalar(op, a, b)
                append(value)
            return out
        for xs in zip(*args):
            key = tuple(map(id, xs))
            value = memo.get(key, _MISSING)
            if value is _MISSING:
                value = memo[key] = scalar(op, *xs)
            append(value)
        return out

    def to_number(self, seq: Seq) -> Seq:
        one, zero = self.constant(1), self.constant(0)
        return [self._decided(c, one, zero) for c in seq]

    def to_bool(self, seq: Seq) -> Seq:
        zero = self.constant(0)
        return [self.scalar(Op.NE, x, zero) for x in seq]

    def _decided(self, condition: Scalar, if_true: Scalar, if_false: Scalar) -> Scalar:
        decided = self.truth(condition)
        if decided is None:
            return self.ite(condition, if_true, if_false)
        return if_true if decided else if_false

    # -- selectors -----------------------------------------------------------
    def select(self, predicate: Predicate, keys: Seq, queries: Seq) -> DynamicSelection:
        if predicate is Predicate.TRUE:
            return [[True] * len(keys) for _ in queries]
        if predicate is Predicate.FALSE:
            return [[False] * len(keys) for _ in queries]
        op = predicate.as_op()
        return [[self.scalar(op, k, q) for k in keys] for q in queries]

    def densify(self, selection: StaticSelection) -> DynamicSelection:
        return selection.dense().tolist()

    def combine(self, op: Op, selections: list[DynamicSelection]) -> DynamicSelection:
        if op is Op.NOT:
            return [[self._not(s) for s in row] for row in selections[0]]
        left, right = selections
        pick = self._and if op is Op.AND else self._or
        return [[pick(a, b) for a, b in zip(ra, rb)] for ra, rb in zip(left, right)]

    def _not(self, a: Scalar) -> Scalar:
        t = self.truth(a)
        return (not t) if t is not None else self.scalar(Op.NOT, a)

    def _and(self, a: Scalar, b: Scalar) -> Scalar:
        ta, tb = self.truth(a), self.truth(b)
        if ta is False or tb is False:
            return False
        if ta is True:
            return b
        if tb is True:
            return a
        return self.scalar(Op.AND, a, b)

    def _or(self, a: Scalar, b: Scalar) -> Scalar:
        ta, tb = self.truth(a), self.truth(b)
        if ta is True or tb is True:
            return True
        if ta is False:
            return b
        if tb is False:
            return a
        return self.scalar(Op.OR, a, b)

    # -- aggregation ---------------------------------------------------------
    def _mean(self, terms: list[Scalar]) -> Scalar:
        if len(terms) == 1:
            return terms[0]
        return self.divide(self.total(terms), self.constant(len(terms)))

    def _empty(self, values: Seq, default: Scalar, semantics: Semantics) -> Scalar:
        if semantics is Semantics.AHAT:
            return self._mean(list(values))
        return self.constant(default)

    def aggregate_static(
        self, selection: StaticSelection, values: Seq, default: Scalar, semantics: Semantics
    ) -> Seq:
        empty: list[Scalar] = []  # the value of an empty row, computed when first needed

        def empty_row() -> Scalar:
            if not empty:
                empty.append(self._empty(values, default, semantics))
            return empty[0]

        if isinstance(selection, OuterSelection):  # the same keys at every selecting query: one mean
            keys = selection.key_index.tolist()
            selecting = selection.query_mask.tolist()
            mean = self._mean([values[k] for k in keys]) if keys and any(selecting) else None
            return [mean if q and mean is not None else empty_row() for q in selecting]
        indptr, chosen = selection.indptr.tolist(), selection.keys.tolist()
        out = []
        for q in range(selection.n):
            lo, hi = indptr[q], indptr[q + 1]
            if hi == lo + 1:
                out.append(values[chosen[lo]])
            elif hi > lo:
                out.append(self._mean([values[k] for k in chosen[lo:hi]]))
            else:
                out.append(empty_row())
        return out

    def aggregate_dynamic(
        self, selection: DynamicSelection, values: Seq, default: Scalar, semantics: Semantics
    ) -> Seq:
        zero, one = self.constant(0), self.constant(1)
        out = []
        empty = None
        for row in selection:
            decided = [self.truth(s) for s in row]
            if all(d is not None for d in decided):
                chosen = [v for v, d in zip(values, decided) if d]
                if chosen:
                    out.append(self._mean(chosen))
                    continue
                if empty is None:
                    empty = self._empty(values, default, semantics)
                out.append(empty)
                continue
            live = [(s, v, d) for s, v, d in zip(row, values, decided) if d is not False]
            total = self.total([v if d else self.ite(s, v, zero) for s, v, d in live])
            count = self.total([one if d else self.ite(s, one, zero) for s, _, d in live])
            mean = self.divide(total, count)
            if any(d for _, _, d in live):  # a key selected for certain: never empty
                out.append(mean)
                continue
            # The row is empty exactly when no live key is selected. Saying so as a
            # disjunction of the selection bits (rather than count == 0) keeps the
            # condition free of the ite terms inside count (sympy folds nested
            # Piecewise conditions very slowly; z3 gets a plain Boolean).
            selected = live[0][0]
            for s, _, _ in live[1:]:
                selected = self._or(selected, s)
            if empty is None:
                empty = self._empty(values, default, semantics)
            out.append(self.ite(selected, mean, empty))
        return out

    def width(self, selection: DynamicSelection) -> Seq:
        zero, one = self.constant(0), self.constant(1)
        return [self.total([self._decided(s, one, zero) for s in row]) for row in selection]

    def undefined_where(self, values: Seq, counts: Any, several: bool, empty: bool) -> Seq:
        out = []
        for value, count in zip(values, counts):
            reason = None
            if several and self.truth(self.scalar(Op.GT, count, self.constant(1))) is True:
                reason = UNDEFINED_AGGREGATE["several"]
            elif empty and self.truth(self.scalar(Op.EQ, count, self.constant(0))) is True:
                reason = UNDEFINED_AGGREGATE["empty"]
            out.append(value if reason is None else self.undefined_value(value, reason))
        return out

    def undefined_value(self, value: Scalar, reason: str) -> Scalar:
        """What an undefined position holds; by default its value is kept (never compared)."""
        return value


class PropagatesUndefined:
    """Mixin for an element-wise interpretation of concrete values: an operation
    outside its domain (:mod:`usim.encodings.domain`) gives an
    :class:`~usim.encodings.domain.Undefined`, which propagates through whatever
    reads it, except the branch of a ``where`` not taken. A row of a selector
    that compares an undefined value is undefined as a whole (which keys it
    selects is unknown).

    Put it before the interpretation's class in the bases; the interpretation
    supplies the arithmetic, and :meth:`accept` may turn a result it cannot
    take as a value (a complex number) into an Undefined.
    """

    propagates_undefined: ClassVar[bool] = True

    def accept(self, value: Scalar) -> Scalar:
        return value

    def scalar(self, op: Op, *args: Scalar) -> Scalar:
        from usim.encodings.domain import PARTIAL, REASONS, Undefined, defined

        if op is Op.WHERE:  # lazy: only the branch taken matters
            condition = args[0]
            if isinstance(condition, Undefined):
                return condition
            taken = self.truth(condition)
            return args[1] if taken else args[2]
        undefined = _first_undefined(args)
        if undefined is not None:
            return undefined
        if op in PARTIAL and not self.truth(defined(self, op, args)):
            return Undefined(REASONS[op])
        return self.accept(super().scalar(op, *args))  # type: ignore[misc]

    def ite(self, condition: Scalar, if_true: Scalar, if_false: Scalar) -> Scalar:
        return self.scalar(Op.WHERE, condition, if_true, if_false)

    def total(self, terms: list[Scalar]) -> Scalar:
        undefined = _first_undefined(terms)
        return undefined if undefined is not None else super().total(terms)  # type: ignore[misc]

    def divide(self, numerator: Scalar, denominator: Scalar) -> Scalar:
        undefined = _first_undefined((numerator, denominator))
        return undefined if undefined is not None else super().divide(numerator, denominator)  # type: ignore[misc]

    def to_number(self, seq):
        from usim.encodings.domain import Undefined

        number = super().to_number  # type: ignore[misc]
        return [c if isinstance(c, Undefined) else number([c])[0] for c in seq]

    def _not(self, a: Scalar) -> Scalar:
        from usim.encodings.domain import Undefined

        return a if isinstance(a, Undefined) else super()._not(a)  # type: ignore[misc]

    def _and(self, a: Scalar, b: Scalar) -> Scalar:
        undefined = _first_undefined((a, b))
        return undefined if undefined is not None else super()._and(a, b)  # type: ignore[misc]

    def _or(self, a: Scalar, b: Scalar) -> Scalar:
        undefined = _first_undefined((a, b))
        return undefined if undefined is not None else super()._or(a, b)  # type: ignore[misc]

    def aggregate_dynamic(self, selection, values, default, semantics):
        out = []
        for row in selection:
            undefined = _first_undefined(row)
            if undefined is not None:
                out.append(undefined)
            else:
                out.extend(super().aggregate_dynamic([row], values, default, semantics))  # type: ignore[misc]
        return out

    def width(self, selection):
        out = []
        for row in selection:
            undefined = _first_undefined(row)
            out.append(undefined if undefined is not None else super().width([row])[0])  # type: ignore[misc]
        return out

    def undefined_where(self, values, counts, several, empty):
        out = []
        for value, count in zip(values, counts):
            undefined = _first_undefined((count,))
            if undefined is not None:
                out.append(undefined)
            else:
                out.extend(super().undefined_where([value], [count], several, empty))  # type: ignore[misc]
        return out

    def undefined_value(self, value: Scalar, reason: str) -> Scalar:
        from usim.encodings.domain import Undefined

        return Undefined(reason)


def _first_undefined(values) -> Any:
    from usim.encodings.domain import Undefined

    for v in values:
        if isinstance(v, Undefined):
            return v
    return None
