"""The exact value and the decimal text of a real number of any width.

A strict numeric run gives its values in the float type it needed: float64, or
numpy's long double when float64's range was not enough (80-bit extended on
x86-64: about 19 digits, magnitudes from 3.4e-4932 to 1.2e4932). Such a value
must be shown, saved and compared in that type, never through a Python float:
``float(x)`` of a long double 4.18873988005e-322 is the subnormal float64
4.19955798965e-322 (three digits wrong), and of 1e-400 it is 0.

:func:`exact` gives the rational a float of any width (or an mpmath number, or
a rational) stands for, exactly; :func:`significant` writes it in a number of
significant digits as Python writes a float (``format(x, '.12g')``,
``'.3e'``), rounded once from the exact value (half to even), so a long double
prints with its own digits and exponent. A Python float is written by Python
itself (the same text, faster); an mpmath number (a reference computed to many
digits, whose exponent may be beyond any float's) from mpmath's digits.
"""

from __future__ import annotations

from decimal import MAX_EMAX, MIN_EMIN, ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from typing import Any

import numpy as np

MAX_BINARY_EXPONENT = 2**20  # of an mpmath number read exactly (long double reaches 2**-16445)


def exact(x: Any) -> Fraction:
    """The exact rational value of ``x``.

    Args:
        x: an int, a Fraction, a float or numpy float of any width (finite), a
            numpy integer, or an mpmath ``mpf`` (finite).

    Returns:
        The rational ``x`` stands for, with no rounding (a float is a binary
        fraction: ``exact(0.1)`` is 3602879701896397/36028797018963968).

    Raises:
        ValueError: for an infinity or NaN, or an mpmath number beyond
            2**(+-MAX_BINARY_EXPONENT); TypeError: for anything else.
    """
    if isinstance(x, (bool, np.bool_)):
        return Fraction(int(x))
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    if isinstance(x, np.integer):
        return Fraction(int(x))
    if isinstance(x, (float, np.floating)):
        if not np.isfinite(x):
            raise ValueError(f"{x!r} is not finite: it has no exact value")
        return Fraction(*x.as_integer_ratio())
    man_exp = _mpf_parts(x)
    if man_exp is not None:
        man, exp = man_exp
        if abs(exp) > MAX_BINARY_EXPONENT:
            raise ValueError(f"{x} is beyond 2**(+-{MAX_BINARY_EXPONENT}): too large a rational to write out")
        return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)
    raise TypeError(f"cannot read {x!r} as a real number")


def _mpf_parts(x: Any) -> tuple[int, int] | None:
    """(mantissa, exponent) of a finite mpmath mpf, None for anything else."""
    try:
        import mpmath
    except ImportError:  # pragma: no cover - a dependency of sympy
        return None
    if not isinstance(x, mpmath.mpf):
        return None
    if not mpmath.isfinite(x):
        raise ValueError(f"{x} is not finite: it has no exact value")
    return int(x.man), int(x.exp)


def significant(x: Any, digits: int = 12, style: str = "g") -> str:
    """``x`` written as ``format(x, f".{digits}{style}")`` writes a Python float,
    from its exact value whatever its width.

    Args:
        x: a real number :func:`exact` reads (a float or numpy float of any
            width, an mpmath mpf, a Fraction, an int); infinities and NaN of a
            float type are written as Python writes them.
        digits: as in Python's format: significant digits for ``"g"``, digits
            after the point for ``"e"``.
        style: ``"g"`` (the shorter of fixed and scientific, trailing zeros
            dropped) or ``"e"`` (scientific).

    Returns:
        The text, rounded once (half to even) from the exact value: e.g.
        ``4.18873988005e-322`` for the long double exp(-740).
    """
    if style not in ("g", "e"):
        raise ValueError(f"style must be 'g' or 'e', not {style!r}")
    if isinstance(x, float):  # a Python float (np.float64 too): Python's own text
        return format(x, f".{digits}{style}")
    if isinstance(x, np.floating) and not np.isfinite(x):
        return format(float(x), f".{digits}{style}")
    count = max(digits, 1) if style == "g" else digits + 1  # significant digits
    negative, text, exponent = _rounded(x, count)
    sign = "-" if negative else ""
    if style == "g":
        text = text.rstrip("0") or "0"
        if -4 <= exponent < count:
            return sign + _fixed(text, exponent)
    mantissa = text[0] + ("." + text[1:] if text[1:] else "")
    return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"


def _rounded(x: Any, count: int) -> tuple[bool, str, int]:
    """(negative, the first ``count`` significant digits, the power of ten of the
    first): rounded half to even from the exact value; an mpmath number, whose
    exponent may be far beyond any float's (exp(exp(1000))), from mpmath's own
    digits (5 more than needed, then rounded)."""
    if _mpf_parts(x) is not None:
        from mpmath.libmp import mpf_pos, to_digits_exp

        shortened = mpf_pos(x._mpf_, 4 * count + 32, "n")  # enough bits for count + 5 digits, few to print
        sign, found, exponent = to_digits_exp(shortened, count + 5)
        if not x:
            return sign == "-", "0" * count, 0
        text, rest = found[:count], found[count:]
        tie = rest.rstrip("0") == "5"
        if rest[:1] > "5" or (rest[:1] == "5" and not tie) or (tie and int(text[-1]) % 2):
            text = str(int(text) + 1)
            if len(text) > count:  # 9.99 -> 10.0
                text, exponent = text[:count], exponent + 1
        return sign == "-", text, exponent
    value = exact(x)
    negative = value < 0 or (value == 0 and isinstance(x, np.floating) and bool(np.signbit(x)))
    if value == 0:
        return negative, "0" * count, 0
    with localcontext() as context:
        context.prec, context.rounding = count, ROUND_HALF_EVEN
        context.Emin, context.Emax = MIN_EMIN, MAX_EMAX
        rounded = Decimal(abs(value.numerator)) / Decimal(value.denominator)
    return negative, "".join(map(str, rounded.as_tuple().digits)).ljust(count, "0")[:count], rounded.adjusted()


def _fixed(text: str, exponent: int) -> str:
    """Significant digits ``text`` (no trailing zeros) with the first at 10**exponent, in fixed notation."""
    if exponent < 0:
        return "0." + "0" * (-exponent - 1) + text
    whole, fraction = text[: exponent + 1].ljust(exponent + 1, "0"), text[exponent + 1 :]
    return whole + ("." + fraction if fraction else "")
