"""Running a program in one interpretation, from the user's values.

These check the input (finite numbers, one dimension) and convert it into the
interpretation's domain; the outputs come back by name.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from usim.encodings.evaluate import EXACT, evaluate
from usim.encodings.exact import as_exact
from usim.encodings.numeric import NumericInterpretation
from usim.encodings.smt import SmtInterpretation
from usim.encodings.symbolic import SymbolicInterpretation
from usim.errors import InputError
from usim.rasp.program import Program

NUMERIC = NumericInterpretation()


def run_numeric(program: Program, tokens: Any) -> dict[str, np.ndarray]:
    """Outputs as (B, n) float arrays for tokens of shape (n,) or (B, n)."""
    array = np.asarray(tokens, dtype=np.float64)
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2:
        raise InputError(f"tokens must be a sequence or a batch of sequences, got shape {array.shape}")
    if array.shape[1] == 0:
        raise InputError("the input sequence is empty")
    if not np.all(np.isfinite(array)):
        b, p = np.argwhere(~np.isfinite(array))[0]
        raise InputError(f"the input has a non-finite value {array[b, p]} at position {p}")
    outputs = evaluate(program, NUMERIC, array)
    shape = array.shape
    return {k: np.broadcast_to(np.asarray(v, dtype=np.float64), shape).copy() for k, v in outputs.items()}


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
    return evaluate(program, SymbolicInterpretation(), list(tokens))


def run_smt(program: Program, tokens: Sequence[Any]) -> tuple[dict[str, list], list]:
    """Outputs as z3 terms, and the facts recorded (e.g. exp(t) > 0)."""
    interp = SmtInterpretation()
    return evaluate(program, interp, list(tokens)), interp.facts
