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
  joined string's code (:meth:`usim.repl.elaborate.Evaluator.concatenate`);
* an aggregate of symbols or booleans only moves a value: undefined where it
  selects more than one key (the REPL refuses to average non-numbers); an
  aggregate of symbols whose default is not a symbol is undefined where it
  selects none (the REPL refuses the mixed sequence);
* a check's spec says whether it reads symbols and writes symbols; a listing
  whose output kind differs is refused before anything is proved.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from usim.errors import InputError

MAX_SYMBOLS = 20_000  # different strings a file read with symbols may use and make


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
