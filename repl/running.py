"""Running what a RASP file builds: its examples, ``sop(input)``, exact powers.

The one module of the reader that runs a program, through the interpretations
(:mod:`usim.encodings`): a sequence on one input as the REPL shows it
(:func:`run_shown`: exactly where it can be, symbols as strings), a sequence on
one input of numbers (:func:`run_numbers`: ``usim run FILE.rasp``), and a power
of two numbers kept exact when it is rational (:func:`exact_power`). The
interpretations are imported when a run needs them, so reading a file without
running it loads none of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

from usim.errors import InputError, NotExactError
from usim.rasp import expr as E
from usim.rasp.program import Program
from usim.repl.symbols import SymbolTables
from usim.repl.values import describe, is_number, normal


@dataclass(frozen=True)
class Example:
    """An input the file names: ``set example X`` or an application ``sop(X)``."""

    values: tuple[Any, ...]
    line: int
    kind: str  # "set example" or "application"

    @property
    def numeric(self) -> bool:
        return all(is_number(v) or isinstance(v, bool) for v in self.values) and bool(self.values)

    @property
    def symbols(self) -> bool:
        return all(isinstance(v, str) for v in self.values) and bool(self.values)


def run_shown(sop: E.SOp, values: list[Any], tables: SymbolTables, exact_only: bool = False,
              label: str | None = None) -> list[Any]:
    """The sequence on one input, as the REPL shows it.

    Args:
        sop: the sequence.
        values: the input (symbols when ``tables`` has an alphabet, else numbers).
        tables: the kinds and symbol tables of the reading that built ``sop``.
        exact_only: refuse (NotExactError) an output the exact interpretation
            cannot give, instead of falling back to floats.
        label: the name of the output in messages (else the sequence's name).

    Returns:
        Numbers exactly where they can be (else floats), booleans as booleans,
        symbols as strings.
    """
    from usim.encodings.runners import run_exact, run_numeric

    if not values:
        raise InputError("the input is empty")
    alphabet = tables.alphabet
    tokens = encode_input(values, tables)
    if alphabet is not None:
        outside = sorted({v for v in values if v not in alphabet.inputs})
        if outside and tables.joins_strings(sop):
            raise InputError(f"the input holds {', '.join(map(repr, outside))}, outside the symbols it "
                             f"ranges over ({', '.join(map(repr, alphabet.inputs))}): the strings a + "
                             "makes are known only for those")
    name = label or (sop.name if sop.has_name else "the sequence")
    program = Program.of(name, {name: sop})
    try:
        out = [normal(v) for v in run_exact(program, tokens)[name]]
    except NotExactError:
        if exact_only:
            raise
        out = [float(v) for v in run_numeric(program, [float(v) for v in tokens])[name][0]]
    return tables.shown(sop, out)


def encode_input(values: Sequence[Any], tables: SymbolTables) -> list[Any]:
    """An input in the interpretations' domain.

    Args:
        values: the input (symbols when ``tables`` has an alphabet, else numbers).
        tables: the kinds and symbol tables of a reading.

    Returns:
        Symbols as their codes, numbers as they are.

    Raises:
        InputError: strings where the reading reads numbers.
    """
    values = list(values)
    if tables.alphabet is not None:
        return tables.alphabet.encode(values)
    if all(is_number(v) or isinstance(v, bool) for v in values):
        return values
    raise InputError("usim reads this input as numbers; an input of strings needs symbols "
                     "(run it with strings as its input, or check it with --alphabet)")


def selection_shown(selector: E.Selector, values: list[Any], tables: SymbolTables) -> list[list[bool]]:
    """Which keys each query selects, on one input (what the REPL's ``draw`` shows).

    Args:
        selector: the selector.
        values: the input (symbols when ``tables`` has an alphabet, else numbers).
        tables: the kinds and symbol tables of the reading that built ``selector``.

    Returns:
        Row q, column k: whether query q selects key k (exactly where the
        values are exact, else in float64, as :func:`run_shown` runs).
    """
    import numpy as np

    from usim.encodings.evaluate import evaluate_all
    from usim.encodings.exact import EXACT
    from usim.encodings.numeric import NumericInterpretation
    from usim.encodings.selection import StaticSelection

    if not values:
        raise InputError("the input is empty")
    tokens = encode_input(values, tables)
    program = Program.of("width", {"width": E.SelectorWidth(selector)})
    try:
        selection = evaluate_all(program, EXACT, list(tokens))[selector.id]
    except NotExactError:
        array = np.asarray([[float(t) for t in tokens]], dtype=np.float64)
        selection = evaluate_all(program, NumericInterpretation(), array)[selector.id]
    if isinstance(selection, StaticSelection):
        matrix = selection.dense()
    else:
        matrix = np.asarray(selection, dtype=bool)
        matrix = matrix[0] if matrix.ndim == 3 else matrix
    n = len(values)
    return [[bool(x) for x in row] for row in np.broadcast_to(matrix, (n, n))]


def run_numbers(sop: E.SOp, label: str, tokens: Sequence[Any], exact: bool, boolean: bool) -> list[Any]:
    """A sequence of numbers or booleans on one input of numbers.

    Args:
        sop: the sequence.
        label: the name of its output in messages.
        tokens: the input.
        exact: rationals (the exact interpretation) instead of checked float64.
        boolean: ``sop`` holds booleans.

    Returns:
        The values: numeric ones are float64 (checked: an overflow or an
        undefined value is an error, never a wrong number; long double when
        float64's range is not enough; a long double is never rounded to
        float64, which would lose its digits), exact ones rationals; booleans
        as booleans.
    """
    import numpy as np

    from usim.encodings.runners import run_exact, run_numeric_in_range
    from usim.errors import UndefinedError

    program = Program.of(label, {label: sop})
    if exact:
        values = run_exact(program, list(tokens))[label]
        return [bool(v) if boolean else v for v in values]
    numbers = []
    for p, t in enumerate(tokens):
        if not (isinstance(t, (int, Fraction)) or isinstance(t, bool)):
            raise InputError(f"position {p} holds {describe(t)}: usim runs numbers")
        numbers.append(float(t))
    try:
        outputs, _ = run_numeric_in_range(program, np.asarray(numbers, dtype=np.float64))
    except UndefinedError as numeric:
        # NaN says only that something was undefined; the exact run says what (a mean of
        # booleans, tracr's numerical(tokens == "a"), is a move of non-numbers in RASP)
        try:
            run_exact(program, list(tokens))
        except UndefinedError as why:
            raise why from None
        except NotExactError:
            pass
        raise numeric from None
    row = outputs[label][0]
    return [bool(v) for v in row] if boolean else list(row)


def exact_power(base: Any, exponent: Any) -> Any:
    """``base ^ exponent`` of two numbers (the REPL's ``^`` on atoms).

    Args:
        base, exponent: numbers (ints or Fractions).

    Returns:
        The power, exact when it is rational, else a constant POW node.

    Raises:
        UsimError: a power outside its domain, e.g. ``(-8) ^ 0.5``.
    """
    from usim.encodings.exact import exact_pow

    try:
        return normal(exact_pow(Fraction(base), Fraction(exponent)))
    except NotExactError:
        # an irrational power of two numbers: kept as a constant POW node
        return E.Map(E.Op.POW, E.Constant(base), E.Constant(exponent))
