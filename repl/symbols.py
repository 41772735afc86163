"""Symbols (the RASP REPL's strings) as integer codes, and the kinds of values.

The REPL's sequences hold numbers, booleans or strings. usim's language holds
numbers; a file read with an alphabet (``load_text(..., alphabet=...)``) holds
strings as *codes*: the alphabet is every symbol the file and its check use,
sorted, and a symbol's code is its place in that order. So equality and order
between symbols are equality and order between codes (Python compares strings
in the same order), and a proof over the codes 0 .. m-1 is a proof over the
symbols. What the codes must never do is meet a number: the reader knows the
*kind* of every sequence it builds (number, boolean or symbol) and applies the
REPL's rules itself (:mod:`usim.repl.elaborate`):

* a symbol compared with a number is never equal (``==`` is False, ``!=`` True
  everywhere) and cannot be ordered (an error, as Python's TypeError in the REPL);
* no arithmetic on symbols but ``+`` of two symbols, the REPL's string
  concatenation: the strings it can make are worked out from how its operands
  are built, get codes of their own (the alphabet is every string the file can
  make, still sorted), and the ``+`` is a table from pairs of codes to the
  joined string's code (:meth:`SymbolTables.join`);
* an aggregate of symbols or booleans only moves a value: undefined where it
  selects more than one key (the REPL refuses to average non-numbers); an
  aggregate of symbols whose default is not a symbol is undefined where it
  selects none (the REPL refuses the mixed sequence);
* a check's spec says whether it reads symbols and writes symbols; a listing
  whose output kind differs is refused before anything is proved.

:class:`SymbolTables` keeps, for one reading of a file, the kind of every
sequence and the tables of its ``+`` on symbols.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from usim.errors import InputError, UsimError
from usim.rasp import expr as E
from usim.repl.errors import RaspEvaluationError
from usim.repl.values import is_number

MAX_SYMBOLS = 20_000  # different strings a file read with symbols may use and make
MAX_CONCATENATION_TABLE = 128  # pairs of strings one + on symbols may join
CONCATENATION = "string concatenation"  # in Elaborator.uses when a + joins symbols


def within_limit(count: int, filename: str = "the file") -> None:
    """Refuse a file that uses and makes more than :data:`MAX_SYMBOLS` strings."""
    if count > MAX_SYMBOLS:
        raise InputError(f"{filename} makes more than {MAX_SYMBOLS} different strings, the most usim "
                         "gives codes to")


NUMBER = "number"
BOOLEAN = "boolean"
SYMBOL = "symbol"


class UnknownSymbol(InputError):
    """A string the alphabet has no code for."""


@dataclass(frozen=True)
class Alphabet:
    """The symbols a file uses, sorted: a symbol's code is its index.

    ``inputs`` are the symbols an input position ranges over (a subset).
    """

    symbols: tuple[str, ...]
    inputs: tuple[str, ...]

    @classmethod
    def of(cls, symbols: Iterable[str], inputs: Iterable[str] | None = None) -> "Alphabet":
        every = tuple(sorted(set(symbols) | set(inputs or ())))
        chosen = tuple(sorted(set(inputs))) if inputs is not None else every
        return cls(every, chosen)

    def code(self, symbol: str) -> int:
        codes = self.__dict__.get("_codes")
        if codes is None:  # symbol -> code, made once (a frozen dataclass: set directly)
            codes = {s: c for c, s in enumerate(self.symbols)}
            object.__setattr__(self, "_codes", codes)
        try:
            return codes[symbol]
        except KeyError:
            raise UnknownSymbol(f"the symbol {symbol!r} is not in the alphabet "
                             f"({', '.join(map(repr, self.symbols))})") from None

    def symbol(self, code: object) -> str:
        try:
            index = int(code)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise InputError(f"{code!r} is not the code of a symbol") from None
        if index != code or not 0 <= index < len(self.symbols):
            raise InputError(f"{code!r} is not the code of a symbol of {self.symbols}")
        return self.symbols[index]

    @property
    def input_codes(self) -> tuple[int, ...]:
        return tuple(self.code(s) for s in self.inputs)

    def encode(self, values: Sequence[object]) -> list[object]:
        """An input: symbols as their codes (numbers and booleans are refused)."""
        out = []
        for p, v in enumerate(values):
            if not isinstance(v, str):
                raise InputError(f"position {p} holds {v!r}: the input is read as symbols here")
            out.append(self.code(v))
        return out


class Collecting(Alphabet):
    """The first reading of a file: every symbol met gets the next code."""

    def __init__(self, inputs: Iterable[str] = ()) -> None:
        object.__setattr__(self, "symbols", ())
        object.__setattr__(self, "inputs", tuple(inputs))
        object.__setattr__(self, "_seen", {})  # symbol -> code
        object.__setattr__(self, "_order", [])  # code -> symbol
        for symbol in self.inputs:
            self.code(symbol)

    def code(self, symbol: str) -> int:
        seen = self._seen
        code = seen.get(symbol)
        if code is None:
            within_limit(len(seen) + 1)
            code = seen[symbol] = len(seen)
            self._order.append(symbol)
        return code

    def symbol(self, code: object) -> str:
        return self._order[int(code)]  # type: ignore[arg-type]

    @property
    def seen(self) -> tuple[str, ...]:
        return tuple(self._seen)


def parse_alphabet(text: str) -> tuple[str, ...]:
    """``abc`` (one symbol per character) or ``a,b,c`` / ``(),{}`` (comma-separated)."""
    if not text:
        raise InputError("--alphabet is empty: give symbols, e.g. --alphabet abc or --alphabet 'x,y,z'")
    symbols = [s.strip() for s in text.split(",")] if "," in text else list(text)
    symbols = [s for s in symbols if s]
    if len(set(symbols)) != len(symbols):
        raise InputError(f"--alphabet {text!r} repeats a symbol")
    return tuple(symbols)


class CannotJoin(InputError):
    """A ``+`` of symbols usim makes no table for (the message says why; the
    elaborator gives it the ``+``'s place)."""


class JoinTooLarge(CannotJoin):
    """A ``+`` of symbols whose table would pass :data:`MAX_CONCATENATION_TABLE`."""


class NewString(CannotJoin):
    """A ``+`` of symbols makes a string the alphabet has no code for."""


class NewStrings(UsimError):
    """A ``+`` of symbols made a string the alphabet has no code for: the file
    must be read again with a wider alphabet (:meth:`usim.repl.RaspFile.build`
    does). Its message names the ``+``."""

    def __init__(self, error: RaspEvaluationError) -> None:
        super().__init__(str(error))


@dataclass
class SymbolTables:
    """The kinds of one reading's sequences, and the tables of its ``+`` on symbols.

    ``alphabet`` is None when strings never meet a sequence (usim's numbers only).
    """

    alphabet: Alphabet | None = None
    kinds: dict[int, str] = field(default_factory=dict)  # sequence id -> number / boolean / symbol
    _codes: dict[int, tuple[int, ...]] = field(default_factory=dict)  # codes(), by sequence id
    _joins: set[int] = field(default_factory=set)  # the tables of + on symbols, by sequence id

    def __post_init__(self) -> None:
        if self.alphabet is not None:
            self.kinds[E.tokens.id] = SYMBOL

    def kind(self, value: Any) -> str:
        """What a value holds: a number, a boolean or a symbol (a string)."""
        if isinstance(value, E.SOp):
            return self.kinds.get(value.id, BOOLEAN if value.is_bool else NUMBER)
        if isinstance(value, bool):
            return BOOLEAN
        if isinstance(value, str):
            return SYMBOL
        return NUMBER

    def mark(self, sop: E.SOp, kind: str) -> E.SOp:
        """``sop``, recorded as holding ``kind`` (a boolean node needs no record)."""
        if kind == SYMBOL or (kind == BOOLEAN and not sop.is_bool):
            self.kinds[sop.id] = kind
        return sop

    def join(self, left: E.SOp, right: E.SOp, uses: set[str]) -> E.SOp:
        """``left + right`` on symbols: the REPL's string concatenation, as a table.

        A string made at run time needs a code, so the strings a sequence of
        symbols can hold are worked out from how it is built
        (:meth:`codes`: a superset of the values it takes on every input
        over the input's symbols), and the table gives, for every pair of them,
        the code of the joined string. It is a binary search on each side's
        codes (``where(left < a_mid, ..., ...)``, depth log2 of the list, so a
        long list never nests deeply), and every leaf tests its code
        (``where(left == a, v, v)``): a side that is undefined at a position
        leaves the result undefined there, as the REPL fails there. The joined
        strings join the alphabet: :func:`usim.repl.load_text` and
        :meth:`usim.repl.RaspFile.build` read the file until the alphabet
        holds every string it can make, and a run on an input outside the
        input's symbols is refused (:func:`usim.repl.running.run_shown`).

        Args:
            left, right: sequences of symbols.
            uses: the reading's uses, which gain :data:`CONCATENATION`.

        Returns:
            The table, a sequence of symbols.

        Raises:
            JoinTooLarge: the table would be larger than :data:`MAX_CONCATENATION_TABLE`.
            NewString: a joined string has no code in the alphabet.
        """
        firsts, seconds = self.codes(left), self.codes(right)
        if len(firsts) * len(seconds) > MAX_CONCATENATION_TABLE:
            raise JoinTooLarge(f"this + joins {len(firsts)} strings to {len(seconds)}: a table of "
                             f"more than {MAX_CONCATENATION_TABLE} strings (usim gives every "
                             "string a program can make its own code)")
        alphabet = self.alphabet
        assert alphabet is not None  # a sequence of symbols exists only with an alphabet
        uses.add(CONCATENATION)
        if not firsts or not seconds:  # a side undefined everywhere: so is the result
            return self.mark(undefined(), SYMBOL)

        def joined(first: int, second: int) -> E.SOp:
            text = alphabet.symbol(first) + alphabet.symbol(second)
            try:
                return E.Constant(alphabet.code(text))
            except UnknownSymbol:
                raise NewString(f"the string {text!r} this + makes has no code in the alphabet") from None

        table = _search(left, firsts, lambda first: _search(right, seconds, lambda second: joined(first, second)))
        self._joins.add(table.id)
        return self.mark(table, SYMBOL)

    def codes(self, sop: E.SOp) -> tuple[int, ...]:
        """The codes a sequence of symbols can hold, from how it is built: the
        input's symbols, constants, what an aggregate moves (and its default),
        either branch of a ``where``; sorted. More codes than it can hold only
        make a table larger, never wrong; none: the sequence is undefined
        everywhere."""
        codes = self._codes.get(sop.id)
        if codes is not None:
            return codes
        found: set[int] = set()
        if isinstance(sop, E.Tokens):
            found.update(self.alphabet.input_codes)  # type: ignore[union-attr]
        elif isinstance(sop, E.Constant) and is_number(sop.value):
            found.add(int(sop.value))
        elif isinstance(sop, E.Aggregate) and sop.single:
            if not _selects_nothing(sop.selector):
                found.update(self.codes(sop.values))
            if sop.default is not None:
                found.add(int(sop.default))
        elif isinstance(sop, E.Map) and sop.op is E.Op.WHERE:
            found.update(self.codes(sop.args[1]))
            found.update(self.codes(sop.args[2]))
        else:  # pragma: no cover - every sequence of symbols is built from the above
            raise CannotJoin(f"cannot tell which strings {sop.name} holds, to join them")
        codes = tuple(sorted(found))
        self._codes[sop.id] = codes
        return codes

    def joins_strings(self, sop: E.SOp) -> bool:
        """Whether ``sop`` reads a table of ``+`` on symbols (made for the input's symbols)."""
        from usim.rasp.program import topological_order

        return any(node.id in self._joins for node in topological_order([sop]))

    def shown(self, sop: E.SOp, values: list[Any]) -> list[Any]:
        """Values of ``sop`` as its kind: symbols back from their codes, booleans as booleans."""
        kind = self.kind(sop)
        if kind == SYMBOL:
            return [self.alphabet.symbol(v) for v in values]  # type: ignore[union-attr]
        if kind == BOOLEAN:
            return [bool(v) for v in values]
        return values


def undefined(single: bool = True) -> E.SOp:
    """A sequence undefined everywhere: it takes a value from no key and has no
    default (``single``: a value of symbols or booleans, moved, never averaged)."""
    return E.aggregate(E.select(E.indices, E.indices, E.Predicate.FALSE), 0, default=None, single=single)


def _search(sop: E.SOp, codes: tuple[int, ...], leaf: Callable[[int], E.SOp]) -> E.SOp:
    """``leaf(c)`` where ``sop`` holds the code ``c`` of ``codes`` (sorted), by
    halving the list; each leaf reads ``sop == c`` so that an undefined ``sop``
    leaves the result undefined."""
    if len(codes) == 1:
        value = leaf(codes[0])
        return E.where(sop == codes[0], value, value)
    middle = len(codes) // 2
    return E.where(sop < codes[middle], _search(sop, codes[:middle], leaf), _search(sop, codes[middle:], leaf))


def _selects_nothing(selector: E.Selector) -> bool:
    return isinstance(selector, E.Select) and selector.predicate is E.Predicate.FALSE
