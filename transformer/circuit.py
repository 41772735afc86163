"""The circuit: what the compiler's first pass writes and its second reads.

A circuit is what the network computes, before it is cut into layers: the
residual dimensions, and the components that write them (heads, MLP units),
each reading *forms* of the dimensions. A form is an affine readout

    F(t) = sum_i a_i r_i(t) + f(t),

constant weights a_i on residual dimensions (the token, or what a component
wrote) plus a table f over positions (the readout's weights on the one-hot
position dimensions). Linear maps of forms cost nothing: a sum of two
sequences, a multiple by a constant, is a form of the same dimensions.

:mod:`usim.transformer.rasp_to_circuit` builds a circuit from a RASP program,
:mod:`usim.transformer.circuit_to_network` cuts it into layers and weights.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from usim.errors import UsimError


class CompileError(UsimError):
    """A program the compiler cannot realise exactly; the message names the expression."""


def number(v: Any) -> Fraction:
    """A table's entry as a rational (a truth value as 0 or 1).

    Args:
        v: the entry: a bool, an int, a Fraction or anything ``Fraction`` reads.

    Returns:
        The entry as a Fraction.

    >>> number(True), number(3), number(Fraction(1, 2))
    (Fraction(1, 1), Fraction(3, 1), Fraction(1, 2))
    """
    return Fraction(int(v)) if isinstance(v, bool) else Fraction(v)


def truths(table: Sequence[Any]) -> np.ndarray:
    """A table's entries as truth values.

    Args:
        table: the entries, one per position.

    Returns:
        A boolean array over the positions (nonzero is true).

    >>> truths([0, 1, Fraction(1, 2), False]).tolist()
    [False, True, True, False]
    """
    return np.asarray([bool(v) for v in table], dtype=bool)


# -- forms and components ----------------------------------------------------

@dataclass(frozen=True)
class Form:
    """sum_i coeffs[i] r_i + offset[t] at real position t (see the module docstring)."""

    coeffs: tuple[tuple[int, Fraction], ...]
    offset: tuple[Fraction, ...]

    @classmethod
    def table(cls, values: Sequence[Any]) -> "Form":
        return cls((), tuple(number(v) for v in values))

    @classmethod
    def dim(cls, d: int, n: int, offset: Sequence[Fraction] | None = None) -> "Form":
        return cls(((d, Fraction(1)),), tuple(offset) if offset is not None else (Fraction(0),) * n)

    @property
    def is_static(self) -> bool:
        return not self.coeffs

    def dims(self) -> set[int]:
        return {d for d, _ in self.coeffs}

    def __add__(self, other: "Form") -> "Form":
        merged = dict(self.coeffs)
        for d, w in other.coeffs:
            merged[d] = merged.get(d, Fraction(0)) + w
        return Form(tuple((d, w) for d, w in sorted(merged.items()) if w != 0),
                    tuple(a + b for a, b in zip(self.offset, other.offset)))

    def scaled(self, c: Fraction) -> "Form":
        if c == 0:
            return Form((), (Fraction(0),) * len(self.offset))
        return Form(tuple((d, w * c) for d, w in self.coeffs), tuple(x * c for x in self.offset))

    def __neg__(self) -> "Form":
        return self.scaled(Fraction(-1))

    def __sub__(self, other: "Form") -> "Form":
        return self + (-other)


@dataclass(frozen=True, eq=False)
class HardHeadPart:
    """An average-hard head: query t (real) selects ``rows[t]`` (real keys); every
    query scores the sink (BOS) between its selected keys and the others."""

    name: str
    rows: tuple[tuple[int, ...], ...]
    value: Form
    out: int
    equality: tuple[tuple[Fraction, ...], tuple[Fraction, ...]] | None = None  # (key values, query values)


@dataclass(frozen=True, eq=False)
class SoftHeadPart:
    """A softmax head with logits ``logits`` (a form of the key), real query t
    allowed the real keys ``allowed[t]`` (empty: the sink only), value the
    one-hot code of the keys ``slots``, one output dimension per slot."""

    name: str
    logits: Form
    allowed: tuple[tuple[int, ...], ...]
    slots: tuple[int, ...]
    outs: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class ReluUnit:
    name: str
    input: Form
    out: int


@dataclass(frozen=True, eq=False)
class GateUnit:
    name: str
    a: Form
    b: Form
    out: int


Component = HardHeadPart | SoftHeadPart | ReluUnit | GateUnit


@dataclass(frozen=True, eq=False)
class Circuit:
    """Residual dimensions (labels), the components that write them (in an order
    where each comes after what it reads) and the output forms."""

    program: str
    n: int
    dims: tuple[str, ...]
    components: tuple[Component, ...]
    outputs: tuple[tuple[str, Form], ...]
    notes: tuple[str, ...] = field(default=())
