"""U's wiring as terms: what a route of steps composes to (Level 2 of :mod:`usim.proofs._universal`).

A term is a tuple: ``("leaf", name)`` for a parameter, ``("mm", *factors)``
for a product chain (flattened: products are associative), ``("T", m)`` for a
transpose (``T(T(m))`` is ``m``), and ``(kind, *args)`` for any other step
kind. Each step kind says which of these its step composes to
(:attr:`usim.constructions.universal.kinds.StepKind.term`), so that the
proofs compare a route with the formula without naming a kind.
"""

from __future__ import annotations

Term = tuple


def leaf(name: str) -> Term:
    """The parameter (or the input X) named ``name``."""
    return ("leaf", name)


def mm(*factors: Term) -> Term:
    """A product chain, flattened (associativity)."""
    flat: list[Term] = []
    for f in factors:
        flat.extend(f[1:] if f[0] == "mm" else (f,))
    return ("mm", *flat)


def tr(m: Term) -> Term:
    """The transpose of ``m`` (the transpose of a transpose is ``m`` itself)."""
    return m[1] if m[0] == "T" else ("T", m)


def op(kind: str, *args: Term) -> Term:
    """The step kind ``kind`` applied to ``args``."""
    return (kind, *args)
