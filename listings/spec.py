"""What a listing's function must compute: :class:`ListingSpec`, shape by shape a :class:`Statement`.

A listing (a file in the RASP REPL's language, :mod:`usim.repl`) is checked
against a :class:`ListingSpec`: for every shape, a :class:`Statement` (input and
output layouts, a target written in sympy, preconditions, the domain of the
inputs) whose construction is the listing's function. The specs of the paper's
claims are listed in :mod:`usim.listings.specs`; a user writes one in a Python
file (:mod:`usim.listings.user_spec`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from usim.encodings.layout import SequenceLayout
from usim.encodings.notation import shape_label
from usim.engine.claim import Preconditions, Shape, Target


@dataclass(frozen=True)
class Statement:
    """What one shape of a spec states, without a program: the layouts, the
    target (input blocks -> output blocks, in sympy), the preconditions, and the
    inputs' domain (``values``: a finite set each entry ranges over);
    ``undefined``: output positions where the program gives no value (tracr's
    None; only a tracr program is checked against such a spec), the target's
    entries there not compared."""

    input_layout: SequenceLayout
    output_layout: SequenceLayout
    target: Target
    preconditions: Preconditions | None = None
    domain: str = "real"
    values: tuple[Any, ...] | None = None
    undefined: tuple[int, ...] = ()  # output positions where the program must be undefined (tracr's None)


@dataclass(frozen=True)
class ListingSpec:
    """What a listing's function must compute, shape by shape.

    ``dims`` name the dimensions in shape order; ``shapes(N)`` lists the shapes
    with dimensions up to N; ``length(shape)`` is the input sequence's length
    (cheap: no program is built); ``statement(shape)`` is the shape's statement.
    ``square`` are the dimensions a side read through a square root stands for;
    ``sums`` the two dimensions whose sum divides the length (the product's
    r + c). ``mutants`` are broken variants of the listing (name -> named node
    -> replacement) that must come out REFUTED. ``source`` says how to build the
    spec again (for certificates).
    """

    name: str
    title: str
    dims: tuple[str, ...]
    shapes: Callable[[int], Iterable[Shape]]
    length: Callable[[Shape], int]
    statement: Callable[[Shape], Statement]
    engines: tuple[str, ...] = ("sympy", "z3")
    default_max_n: int = 4
    wants_exp: bool = False
    claim_id: str | None = None
    square: tuple[str, ...] = ()
    sums: tuple[str, str] | None = None
    mutants: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    source: Mapping[str, Any] = field(default_factory=dict)
    notes: str = ""
    reads: str = "number"    # "symbol": the input is read as symbols (codes over an alphabet)
    writes: str = "number"   # "symbol": the output is symbols

    @property
    def dims_text(self) -> str:
        return " x ".join(self.dims)

    @property
    def id(self) -> str:
        """The claim id certificates and obligations carry."""
        return self.claim_id or f"spec:{self.name}"

    def label(self, shape: Shape) -> str:
        return shape_label(shape)
