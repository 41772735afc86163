"""How a user writes shapes, values and bases, and how usim writes a shape back.

One grammar for every command that reads them (``usim run --shape/--values/--base``,
``usim show --shape/--values``, ``usim check --shape``, ``usim compile --shape``),
with one message for each mistake:

* a shape is whole numbers joined by ``x`` (or ``X`` or ``,``): ``3x4``,
  ``2x3x2`` (:func:`parse_dims`); usim writes it ``3x4`` (:func:`shape_label`);
* a value is an integer, a decimal or a fraction (``3``, ``-0.25``, ``2e-3``,
  ``1/3``), read exactly (:func:`parse_value`); a list of values is separated by
  commas, semicolons or spaces (:func:`parse_values`);
* a base (of the paper's softmax b ** S) is such a value above 1 and at most
  :data:`MAX_BASE` (:func:`parse_base`).

A value's size is bounded before the rational is built (``Fraction('1e999999999')``
would build a billion-digit integer): at most :data:`MAX_DIGITS` digits and a
magnitude from 10**-:data:`MAX_EXPONENT` to 10**:data:`MAX_EXPONENT`, or 0.
This module loads nothing but the standard library (``--help`` imports it).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Iterable

from usim.errors import InputError, ShapeError

MAX_DIGITS = 100  # digits of one entry (numerator and denominator together)
MAX_EXPONENT = 300  # 10**-300 <= |entry| <= 10**300 (or 0)
MAX_BASE = 100


def shape_label(shape: Iterable[int], mutant: str | None = None) -> str:
    """How a shape is written everywhere (``3x2``), with its broken variant if any
    (``3x2 [off-by-one]``).

    Args:
        shape: the dimensions (whole numbers, or symbolic sizes).
        mutant: the broken variant's name, if any.

    Returns:
        The dimensions joined by ``x`` (an empty shape is the empty text).
    """
    return "x".join(str(d) for d in shape) + (f" [{mutant}]" if mutant else "")


def parse_dims(text: str, count: int | None = None, least: int = 1) -> tuple[int, ...]:
    """'3x4' -> (3, 4); a clear error for anything else.

    Args:
        text: the shape as written (dimensions joined by x, X or a comma).
        count: the number of dimensions it must have, if one.
        least: the smallest dimension allowed (``usim show`` allows 0: some claims
            have 0/1 flags among their dimensions, e.g. Match2's).

    Returns:
        The dimensions.

    Raises:
        ShapeError: the text is no shape, or has the wrong number of dimensions,
            or a dimension below ``least``.
    """
    if not re.fullmatch(r"\s*\d+(\s*[xX,]\s*\d+)*\s*", text or ""):
        raise ShapeError(f"cannot read the shape {text!r}: write dimensions like 3x4")
    dims = tuple(int(d) for d in re.split(r"\s*[xX,]\s*", text.strip()))
    if count is not None and len(dims) != count:
        raise ShapeError(f"the shape {text!r} needs {count} dimensions, got {len(dims)}")
    if any(d < least for d in dims):
        raise ShapeError(f"every dimension of {text!r} must be at least {least}")
    return dims


def parse_value(text: str) -> Fraction:
    """'3', '-0.25', '1/3', '2e-3' as an exact rational; anything else is an InputError.

    The size is bounded before the rational is built: at most MAX_DIGITS digits,
    and a magnitude from 10**-MAX_EXPONENT to 10**MAX_EXPONENT, or 0.

    Args:
        text: one value as written.

    Returns:
        The value, exactly.

    Raises:
        InputError: not a finite number, or beyond the bounds.
    """
    cleaned = text.strip()
    if re.fullmatch(r"[+-]?(nan|inf|infinity)", cleaned, flags=re.IGNORECASE):
        raise InputError(f"the value {text!r} is not finite: every entry must be a finite number")
    parts = cleaned.split("/")
    try:
        decimals = [Decimal(part) for part in parts] if len(parts) <= 2 else None
    except (InvalidOperation, ValueError):
        decimals = None
    if decimals is None or not all(d.is_finite() for d in decimals):
        raise InputError(f"cannot read {text!r} as a number (write e.g. 3, -0.25 or 1/3)")
    if decimals[0].is_zero() and len(parts) == 1:
        return Fraction(0)
    digits = sum(len(d.as_tuple().digits) for d in decimals)
    if digits > MAX_DIGITS:
        raise InputError(f"the value {_clip(text)} has {digits} digits: usim reads at most {MAX_DIGITS}")
    magnitude = sum(d.adjusted() * (1 if k == 0 else -1) for k, d in enumerate(decimals) if not d.is_zero())
    if abs(magnitude) > MAX_EXPONENT + 1:  # far out of range: refuse before building it
        raise _out_of_range(text)
    try:
        value = Fraction(cleaned)
    except (ValueError, ZeroDivisionError):
        raise InputError(f"cannot read {text!r} as a number (write e.g. 3, -0.25 or 1/3)") from None
    if value != 0 and not Fraction(1, 10**MAX_EXPONENT) <= abs(value) <= 10**MAX_EXPONENT:
        raise _out_of_range(text)
    return value


def _clip(text: str) -> str:
    return repr(text) if len(text) <= 40 else repr(text[:20] + "..." + text[-10:])


def _out_of_range(text: str) -> InputError:
    return InputError(f"the value {_clip(text)} is out of range: usim reads magnitudes from "
                      f"1e-{MAX_EXPONENT} to 1e{MAX_EXPONENT}, and 0")


def split_values(text: str) -> list[str]:
    """The values of a list as written, not yet read (separators: commas, semicolons, spaces)."""
    return [p for p in re.split(r"[\s,;]+", text.strip()) if p]


def parse_values(text: str) -> list[Fraction]:
    """Every value of ``--values``, exactly.

    Args:
        text: the values, separated by commas, semicolons or spaces.

    Returns:
        The values in order.

    Raises:
        InputError: no value, or one that :func:`parse_value` refuses.
    """
    parts = split_values(text)
    if not parts:
        raise InputError("--values is empty: give every entry of the input, row-major")
    return [parse_value(p) for p in parts]


def parse_base(text: str | None) -> Fraction | None:
    """The base of b ** S: a number above 1 and at most MAX_BASE.

    Args:
        text: the base as written, or None (no base: exp).

    Returns:
        The base exactly, or None.

    Raises:
        InputError: not a number, or not in (1, MAX_BASE].
    """
    if text is None:
        return None
    base = parse_value(text)
    if base <= 0:
        raise InputError(f"the base must be positive, got {text}")
    if base <= 1:
        raise InputError(f"the base must be above 1, got {text}: b ** S stands for exp(S); base 1 makes "
                         "every entry of the softmax 1/C and a base below 1 reverses the order of the scores")
    if base > MAX_BASE:
        raise InputError(f"the base must be at most {MAX_BASE}, got {text}: it stands for e = 2.718...")
    return base
