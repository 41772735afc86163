"""Errors a user can cause, reported as one clear line (never a traceback).

Every layer raises a subclass of :class:`UsimError` for a mistake in its input
(a shape that does not fit, a non-finite value, an expression with no exact
value). The command line catches exactly this class, prints its message and
exits with status 2; anything else is a bug in usim and keeps its traceback.
"""

from __future__ import annotations


class UsimError(Exception):
    """A problem with what the user asked for; the message says what and where."""


class ShapeError(UsimError):
    """A matrix shape, or a sequence length, that does not fit a layout."""


class InputError(UsimError):
    """An input value usim cannot accept (non-finite, wrong type, out of range)."""


class DeadlineError(UsimError):
    """Work run under a deadline (a child process killed past it) did not end in time:
    nothing was decided (UNKNOWN, never a fault of the input); the message names the work."""


class EvaluationError(UsimError):
    """Evaluating a RASP expression failed; the message names the expression."""


class NotExactError(EvaluationError):
    """The expression has no exact rational value (exp, an irrational root)."""


class UndefinedError(EvaluationError):
    """An operation outside its domain (a division by zero, the square root of a
    negative number, ...): the program has no value at this input.

    ``output`` and ``position``, when known, say which output position is
    undefined; ``value`` is the undefined value (its reason and origin).
    """

    def __init__(self, message: str, output: str | None = None, position: int | None = None,
                 value: object = None) -> None:
        super().__init__(message)
        self.output = output
        self.position = position
        self.value = value


class RangeError(EvaluationError):
    """A floating-point run left its number type's range: an overflow to
    infinity, an underflow to zero, or a subnormal result (too few digits left).
    Its result would be wrong, so there is none; a wider type may succeed.

    ``magnitude``, when known, is the largest magnitude among the arguments of
    the operation that left the range (for exp, the exponent).
    """

    def __init__(self, message: str, magnitude: float | None = None) -> None:
        super().__init__(message)
        self.magnitude = magnitude
