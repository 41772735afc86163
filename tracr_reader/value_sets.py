"""The values each sequence of a tracr program can hold, for a vocabulary and a length.

This is usim's own inference, in the manner of tracr's basis inference
(``tracr/compiler/basis_inference.py``, ``infer_bases``), and sound where that
one is not: tracr gives a numerical mean the values ``x / w`` for ``x`` in its
input's values, which misses 2/3 (a mean of three booleans, two of them true);
here a mean's values are ``s / w`` for every sum ``s`` of ``w`` values its input
can hold, ``1 <= w <= max_len``. A set larger than what a sequence can hold
only makes a table larger, never wrong.

A value set maps each value to a pair: the exact value usim's expression holds
(an int or Fraction for a number, the value itself for anything else) and the
Python value tracr's evaluator holds there (what a tabulated function is called
with). ``None`` is never in a set: it is usim's undefined.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Any, Callable, Iterable

from usim.errors import InputError

NUMBER = "number"
BOOLEAN = "boolean"
ATOM = "atom"  # a string, or any other value that is not a number: held as a code
MAX_VALUES = 10_000
"""The most values one sequence may hold for its functions to be tabulated."""


class TracrMissing(InputError):
    """tracr is not installed."""


class CannotRead(InputError):
    """A tracr program usim cannot read: the message names the expression."""


def tracr_rasp() -> Any:
    """tracr's ``rasp`` module, or a one-line error naming the extra that installs it."""
    try:
        from tracr.rasp import rasp
    except ImportError:
        raise TracrMissing("reading a tracr program needs tracr: pip install 'usim[tracr]'") from None
    return rasp


def exact(value: Any) -> Any:
    """usim's exact value for a value tracr holds: numbers exactly (a float as its
    binary value), booleans as 0 and 1, anything else as it is."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise CannotRead(f"a tracr function gave {value!r}: usim holds finite numbers only")
        return Fraction(value)
    return value


AGREEMENT = Fraction(1, 10**12)
"""How close a number of tracr's evaluator (floats) must be to usim's exact one, relatively."""


def agrees(theirs: Any, ours: Any) -> bool:
    """Whether tracr's evaluator's value and usim's exact one are the same: None and None, equal
    values that are not numbers, or numbers within :data:`AGREEMENT` (relatively; an infinite or
    NaN number of tracr's never agrees)."""
    if theirs is None or ours is None:
        return theirs is None and ours is None
    if is_number(theirs) and is_number(ours):
        if isinstance(theirs, float) and (theirs != theirs or theirs in (float("inf"), float("-inf"))):
            return False
        a, b = Fraction(theirs), Fraction(ours)
        return abs(a - b) <= AGREEMENT * max(1, abs(a))
    return type(theirs) is type(ours) and theirs == ours


def is_number(value: Any) -> bool:
    return isinstance(value, (bool, int, float, Fraction))


def kind_of(values: Iterable[Any], label: str) -> str:
    """NUMBER, BOOLEAN or ATOM for the Python values a sequence holds.

    Raises:
        CannotRead: the values mix numbers with values that are not.
    """
    values = list(values)
    numbers = [v for v in values if is_number(v)]
    if numbers and len(numbers) < len(values):
        shown = ", ".join(sorted({repr(v) for v in values})[:6])
        raise CannotRead(f"tracr's {label} holds numbers and values that are not ({shown}): usim reads a "
                         "sequence of one kind")
    if values and all(isinstance(v, bool) for v in values):
        return BOOLEAN
    return NUMBER if numbers or not values else ATOM


@dataclass
class ValueSets:
    """The value set of each sequence of a program (:mod:`usim.tracr_reader.value_sets`).

    Args:
        vocab: the tokens' values.
        max_len: the longest input.
    """

    vocab: frozenset
    max_len: int
    _sets: dict[int, dict[Any, Any]] = field(default_factory=dict)
    _keep: list[Any] = field(default_factory=list)  # the expressions whose id keys _sets
    _representatives: dict[int, dict[Any, list[Any]]] = field(default_factory=dict)

    def representatives(self, sop: Any, key: Any) -> list[Any]:
        """Every Python value of tracr's that ``sop``'s exact value ``key`` stands for (1, 1.0 and True
        are one number to usim; a function may tell them apart)."""
        self.of(sop)
        return self._representatives.get(id(sop), {}).get(key) or [self.of(sop)[key]]

    def of(self, sop: Any) -> dict[Any, Any]:
        """The values ``sop`` can hold: exact value -> tracr's Python value."""
        found = self._sets.get(id(sop))
        if found is None:
            found = self._compute(sop)
            if isinstance(found, tuple):  # (table, representatives)
                found, reps = found
                self._representatives[id(sop)] = reps
            if len(found) > MAX_VALUES:
                raise CannotRead(f"tracr's {sop.label} can hold more than {MAX_VALUES} values: too many "
                                 "to tabulate the functions that read it")
            self._sets[id(sop)] = found
            self._keep.append(sop)
        return found

    def kind(self, sop: Any) -> str:
        return kind_of(self.of(sop).values(), sop.label)

    def _compute(self, sop: Any) -> dict[Any, Any]:
        rasp = tracr_rasp()
        if isinstance(sop, rasp.TokensType):
            return _table(self.vocab)
        if isinstance(sop, rasp.IndicesType):
            return _table(range(self.max_len))
        if isinstance(sop, rasp.LengthType):
            return _table(range(1, self.max_len + 1))
        if isinstance(sop, rasp.SelectorWidth):
            return _table(range(self.max_len + 1))
        if isinstance(sop, rasp.Full):
            return _table([sop.fill])
        if isinstance(sop, rasp.LinearSequenceMap) and self._numeric(sop.fst, sop.snd):
            # keyed by usim's exact a x + b y; tracr's value is its own float arithmetic on its values
            a, b = exact(sop.fst_fac), exact(sop.snd_fac)
            table: dict[Any, Any] = {}
            reps: dict[Any, list[Any]] = {}
            for kx, ky in product(self.of(sop.fst), self.of(sop.snd)):
                for px in self.representatives(sop.fst, kx):
                    for py in self.representatives(sop.snd, ky):
                        value = sop.fst_fac * px + sop.snd_fac * py
                        key = a * kx + b * ky
                        table.setdefault(key, value)
                        same = reps.setdefault(key, [])
                        if not any(type(r) is type(value) and r == value for r in same):
                            same.append(value)
            return table, {k: r for k, r in reps.items() if len(r) > 1}
        if isinstance(sop, rasp.SequenceMap):
            pairs = product(self._all(sop.fst), self._all(sop.snd))
            return _table_with_representatives([applied(sop.f, pair) for pair in pairs])
        if isinstance(sop, rasp.Map):
            return _table_with_representatives([applied(sop.f, (x,)) for x in self._all(sop.inner)])
        if isinstance(sop, rasp.Aggregate):
            values = self.of(sop.sop)
            if kind_of(values.values(), sop.sop.label) == ATOM:
                found, reps = dict(values), {}
            else:
                found, reps = self._means(sop, values)
            if sop.default is not None:
                found.setdefault(exact(sop.default), sop.default)
            return found, reps
        raise CannotRead(f"usim does not read tracr's {type(sop).__name__} ({sop.label})")

    def _all(self, sop: Any) -> list[Any]:
        """Every Python value ``sop`` can hold, the representatives of one number included."""
        return [py for key in self.of(sop) for py in self.representatives(sop, key)]

    def _numeric(self, *sops: Any) -> bool:
        return all(self.kind(s) != ATOM for s in sops)

    def _means(self, sop: Any, values: dict[Any, Any]) -> dict[Any, Any]:
        """Every mean of 1 to max_len values of ``values``: s / w for the sums s of w values."""
        found = dict(values)  # one key selected: the value itself, as tracr's evaluator gives it
        reps = {k: list(self.representatives(sop.sop, k)) for k in values}
        sums = set(values)
        for width in range(2, self.max_len + 1):
            sums = {s + v for s in sums for v in values}
            if len(sums) > MAX_VALUES:
                raise CannotRead(f"tracr's {sop.label} (a mean) can hold more than {MAX_VALUES} values: too "
                                 "many to tabulate the functions that read it")
            for s in sums:
                mean = Fraction(s) / width
                key = mean.numerator if mean.denominator == 1 else mean
                found.setdefault(key, float(mean))
                same = reps.setdefault(key, [found[key]])
                if not any(type(r) is float and r == float(mean) for r in same):
                    same.append(float(mean))  # tracr's mean of several values is a float
        return found, {k: r for k, r in reps.items() if len(r) > 1}


class Failed:
    """What a tabulated function gave where it raised: usim's undefined there."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


def applied(f: Callable[..., Any], args: tuple) -> Any:
    """``f(*args)`` as tracr's evaluator calls it; :class:`Failed` where it raises."""
    try:
        return f(*args)
    except Exception as error:  # the user's function: whatever it raises, the entry is undefined
        return Failed(error)


def _table_with_representatives(values: list[Any]) -> tuple[dict[Any, Any], dict[Any, list[Any]]]:
    """:func:`_table`, and every Python value each key stands for (those that are not alike)."""
    table = _table(values)
    reps: dict[Any, list[Any]] = {}
    for v in values:
        if v is None or isinstance(v, Failed):
            continue
        same = reps.setdefault(exact(v), [])
        if not any(type(r) is type(v) and r == v for r in same):
            same.append(v)
    return table, {k: r for k, r in reps.items() if len(r) > 1}


def _table(values: Iterable[Any]) -> dict[Any, Any]:
    """exact value -> Python value, leaving out None and what a function failed on."""
    found: dict[Any, Any] = {}
    for v in values:
        if v is None or isinstance(v, Failed):
            continue
        try:
            found.setdefault(exact(v), v)
        except TypeError:
            raise CannotRead(f"a tracr function gave {v!r}, which cannot be a table's key (not hashable)") from None
    return found
