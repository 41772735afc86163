"""What a caller of the engine chooses from, importable without loading a solver.

The command line builds its help texts from these (``usim run --help`` must
not load sympy or z3); :mod:`usim.engine.engines` keys its table by the same
names.
"""

from __future__ import annotations

ENGINE_NAMES: tuple[str, ...] = ("sympy", "z3", "exhaustive", "cvc5")
"""Every equality engine, in the order reports list them."""

DEFAULT_TIMEOUT = 60.0
"""Seconds per obligation and engine; past it the verdict is UNKNOWN."""

ALL_SIZES_TIMEOUT = 1800.0
"""Seconds for each family's proof for every size (``usim prove --all-sizes``: one
whole parametric proof, a stage of U at four heads among them, not one engine's
answer on one obligation); past it the verdict is UNKNOWN."""

MAX_BOUND = 64
"""The largest bound N accepted (``--max-n``, a certificate's bound): U at N = 64
is already a program over tens of thousands of positions, and the shapes of a
claim grow like N^3."""


MAX_TIMEOUT = 1e6
"""The longest timeout accepted, in seconds (about 11 days): a proof's interpreter
is given ten times its budget before it is killed, and the clock's waits have a
largest value."""


def timeout_wanted(seconds: object) -> str | None:
    """What a timeout must be, where ``seconds`` is not one: a finite positive number
    (not a boolean) of at most :data:`MAX_TIMEOUT`.

    Args:
        seconds: the value given (an option's, a certificate's, or an argument of :func:`usim.prove`).

    Returns:
        None when it is a timeout; else the words for the caller's message
        ("a positive number of seconds", "at most 1e+06 seconds").
    """
    import math

    if not (isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and math.isfinite(seconds)
            and seconds > 0):
        return "a positive number of seconds"
    if seconds > MAX_TIMEOUT:
        return f"at most {MAX_TIMEOUT:g} seconds"
    return None


def is_bound(max_n: object, largest: int | None = MAX_BOUND) -> bool:
    """Whether ``max_n`` is a bound: a whole number from 1 up to ``largest`` (None: no largest).

    Args:
        max_n: the value given.
        largest: the largest bound allowed, or None.

    Returns:
        True when it is one.
    """
    return isinstance(max_n, int) and not isinstance(max_n, bool) and max_n >= 1 \
        and (largest is None or max_n <= largest)
