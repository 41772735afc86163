"""Running a program in one interpretation, from the user's values.

These check the input (finite numbers, one dimension) and convert it into the
interpretation's domain; the outputs come back by name.

A numeric run is float64 and unchecked by default (fast: other code batches
random inputs through it). ``strict=True`` makes it right or an error: every
loss of range is a :class:`~usim.errors.RangeError` naming the expression, an
undefined output (NaN) an :class:`~usim.errors.UndefinedError`;
:func:`run_numeric_in_range` tries float64, then long double. The same runs
take any :data:`NumericEvaluator` (:func:`run_evaluator`, :func:`run_evaluator_in_range`):
a compiled network's forward pass, an obligation's construction and target.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Mapping, Sequence, TypeVar

import numpy as np

from usim.encodings.evaluate import evaluate
from usim.encodings.exact import EXACT
from usim.encodings.exact import as_exact
from usim.encodings.numeric import NumericInterpretation, RangeFault, type_name
from usim.errors import EvaluationError, InputError, NotExactError, RangeError, UndefinedError
from usim.rasp.program import Program

NUMERIC = NumericInterpretation()

# The float types a checked run tries, narrowest first: long double only where
# it is wider than float64 (80-bit on x86-64; the same as float64 on some platforms).
WIDER_THAN_FLOAT64 = np.finfo(np.longdouble).max > np.finfo(np.float64).max
PRECISIONS: tuple[type, ...] = (np.float64, np.longdouble) if WIDER_THAN_FLOAT64 else (np.float64,)


@lru_cache(maxsize=None)
def _interpretation(strict: bool, dtype: type) -> NumericInterpretation:
    if not strict and dtype is np.float64:
        return NUMERIC
    return NumericInterpretation(strict=strict, dtype=dtype)


def _fault_of(error: BaseException) -> RangeFault | None:
    """The strict interpretation's fault behind ``error`` (the evaluator wraps it)."""
    seen = error
    while seen is not None:
        if isinstance(seen, RangeFault):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _checked(error: BaseException, fault: RangeFault) -> EvaluationError:
    """The user's error for a fault: undefined, or out of range (naming the expression)."""
    message = str(error)
    if fault.kind == "undefined":
        return UndefinedError(message)
    return RangeError(message, magnitude=fault.magnitude)


NumericEvaluator = Callable[[NumericInterpretation, np.ndarray], Mapping[str, Any]]
"""What a numeric run runs: the outputs by name of a program or network in one
interpretation, on a (B, n) array of tokens of its type."""


def run_numeric(program: Program, tokens: Any, *, strict: bool = False,
                dtype: type = np.float64) -> dict[str, np.ndarray]:
    """Outputs as (B, n) arrays of ``dtype`` for tokens of shape (n,) or (B, n).

    With ``strict``, a loss of range anywhere raises :class:`RangeError` and a
    NaN (undefined) output :class:`UndefinedError`, each naming where.
    """
    return run_evaluator(lambda interp, array: evaluate(program, interp, array), tokens,
                         strict=strict, dtype=dtype)


def run_evaluator(evaluator: NumericEvaluator, tokens: Any, *, strict: bool = False,
                  dtype: type = np.float64) -> dict[str, np.ndarray]:
    """:func:`run_numeric` for any ``evaluator`` (a program's, a network's forward pass).

    Args:
        evaluator: the outputs by name, given the interpretation and the tokens.
        tokens: a sequence (n,) or a batch (B, n) of finite numbers.
        strict: check every operation's range (:class:`RangeError`) and that
            no output is undefined (:class:`UndefinedError`).
        dtype: the float type of the run.

    Returns:
        Every output as a (B, n) array of ``dtype``.
    """
    array = np.asarray(tokens, dtype=dtype)
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2:
        raise InputError(f"tokens must be a sequence or a batch of sequences, got shape {array.shape}")
    if array.shape[1] == 0:
        raise InputError("the input sequence is empty")
    if not np.all(np.isfinite(array)):
        b, p = np.argwhere(~np.isfinite(array))[0]
        raise InputError(f"the input has a non-finite value {array[b, p]} at position {p}")
    interp = _interpretation(strict, np.dtype(dtype).type)
    if not strict:
        outputs = evaluator(interp, array)
    else:
        try:
            outputs = evaluator(interp, array)
        except (EvaluationError, RangeFault) as error:
            fault = _fault_of(error)
            if fault is None:
                raise
            raise _checked(error, fault) from None
    shape = array.shape
    out = {k: np.broadcast_to(np.asarray(v, dtype=dtype), shape).copy() for k, v in outputs.items()}
    if strict:
        _check_outputs(out, type_name(dtype))
    return out


def _check_outputs(outputs: dict[str, np.ndarray], kind: str) -> None:
    """A strict run's outputs: finite, or an error naming the output and position."""
    for name, values in outputs.items():
        undefined = np.isnan(values)
        if undefined.any():
            b, p = (int(i) for i in np.argwhere(undefined)[0])
            raise UndefinedError(f"the output {name} is undefined (NaN: an operation outside its "
                                 f"domain, e.g. a division by 0) at position {p}", output=name, position=p)
        if np.isinf(values).any():  # pragma: no cover - every infinity is caught where it appears
            p = int(np.argwhere(np.isinf(values))[0][-1])
            raise RangeError(f"the output {name} overflows {kind} at position {p}")


def run_numeric_in_range(program: Program, tokens: Any) -> tuple[dict[str, np.ndarray], type]:
    """A strict run in float64, or, if that leaves float64's range, in long double.

    Returns the outputs (in the type that succeeded) and that type. When every
    type fails, the :class:`RangeError` says so and carries the widest type's
    message and the largest magnitude met (and has the widest type's error as its cause).
    """
    return run_evaluator_in_range(lambda interp, array: evaluate(program, interp, array), tokens)


def run_evaluator_in_range(evaluator: NumericEvaluator, tokens: Any) -> tuple[dict[str, np.ndarray], type]:
    """:func:`run_numeric_in_range` for any ``evaluator`` (a network's forward pass, an obligation's output).

    Args:
        evaluator: the outputs by name, given the interpretation and the tokens.
        tokens: a sequence (n,) or a batch (B, n) of finite numbers.

    Returns:
        The outputs of the first type of :data:`PRECISIONS` whose strict run
        succeeded, and that type.
    """
    failures: list[tuple[type, RangeError]] = []
    for dtype in PRECISIONS:
        try:
            return run_evaluator(evaluator, tokens, strict=True, dtype=dtype), dtype
        except RangeError as error:
            failures.append((dtype, error))
    names = " and ".join(type_name(d) for d, _ in failures)
    last = failures[-1][1]
    magnitudes = [e.magnitude for _, e in failures if e.magnitude is not None]
    raise RangeError(f"the run leaves the range of {names}: {last}",
                     magnitude=max(magnitudes) if magnitudes else None) from last


def run_exact(program: Program, tokens: Sequence[Any]) -> dict[str, list]:
    """Outputs as lists of ints/Fractions; floats are read as their decimals."""
    if len(tokens) == 0:
        raise InputError("the input sequence is empty")
    try:
        values = [as_exact(t) for t in tokens]
    except (TypeError, ValueError) as error:
        raise InputError(f"the input cannot be read exactly: {error}") from None
    return evaluate(program, EXACT, values)


def run_symbolic(program: Program, tokens: Sequence[Any]) -> dict[str, list]:
    from usim.encodings.symbolic import SymbolicInterpretation  # sympy: imported where it is used

    return evaluate(program, SymbolicInterpretation(), list(tokens))


def run_smt(program: Program, tokens: Sequence[Any]) -> tuple[dict[str, list], list]:
    """Outputs as z3 terms, and the facts recorded (e.g. exp(t) > 0)."""
    from usim.encodings.smt import SmtInterpretation  # z3: imported where it is used

    interp = SmtInterpretation()
    return evaluate(program, interp, list(tokens)), interp.facts


Trace = TypeVar("Trace")
Close = Callable[[Any, Any], bool]


def traces_at(tokens: Sequence[Any], *runs: Callable[[Any, Any], Trace]) -> tuple[list[Trace], Close]:
    """Each ``run(interpretation, inputs)`` at these tokens, and how to compare two of
    their values: exactly (Fractions; equality) where every run can be evaluated so,
    else in float64 (close within rtol 1e-9, atol 1e-12, NaN equal to NaN). Used to
    say where two programs or networks first differ, a diagnosis, never a proof."""
    try:
        return [run(EXACT, list(tokens)) for run in runs], lambda a, b: a == b
    except (NotExactError, EvaluationError, ZeroDivisionError):
        numeric = NumericInterpretation()
        array = np.asarray([[float(t) for t in tokens]])

        def close(a: Any, b: Any) -> bool:
            a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
            return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True))

        return [run(numeric, array) for run in runs], close
