"""The two analyses the first compiler pass starts from: known values and demand.

Both are exact, at one length n (:mod:`usim.transformer.rasp_to_circuit` says
what each is for):

1. **Known values** (:func:`known_values`): the program evaluated with every
   input value unknown; what is known at every position depends on positions
   alone, and every selector known everywhere is decided into its selection.
2. **Demand** (:func:`demand`): which positions of each sequence anything reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from usim.encodings.domain import Undefined
from usim.encodings.evaluate import evaluate_all, plan_for
from usim.encodings.exact import ExactInterpretation
from usim.encodings.selection import StaticSelection
from usim.errors import NotExactError
from usim.rasp.expr import Aggregate, Expr, Map, Op, Selector, Semantics, SOp
from usim.rasp.program import Program
from usim.transformer.circuit import truths


# -- 1. known values -----------------------------------------------------------

UNKNOWN = Undefined("depends on the input")


class _Partial(ExactInterpretation):
    """Exact arithmetic where an unknown input value propagates like an undefined
    one (and an irrational value, exp(1), is unknown too)."""

    name = "partial"
    propagates_undefined = False  # no per-node stamping: these are not errors

    def scalar(self, op: Op, *args: Any) -> Any:
        try:
            return super().scalar(op, *args)
        except NotExactError:
            return UNKNOWN


PARTIAL = _Partial()


@dataclass(frozen=True, eq=False)
class Known:
    """Tables of the sequences known at every position, and decided selections."""

    n: int
    tables: dict[int, tuple[Any, ...]]
    selections: dict[int, StaticSelection]

    def table(self, node: Expr) -> tuple[Any, ...] | None:
        return self.tables.get(node.id)

    def selection(self, node: Selector) -> StaticSelection | None:
        return self.selections.get(node.id)


def known_values(program: Program, n: int) -> Known:
    """Analysis 1 (see the module docstring): what is known at length n.

    Args:
        program: the RASP program.
        n: the sequence length.

    Returns:
        The tables of the sequences known at every position and the decided
        selections, by node id.
    """
    roots = tuple(sop for _, sop in program.outputs)
    plan = plan_for(roots, n)
    env = evaluate_all(program, PARTIAL, [UNKNOWN] * n)
    tables: dict[int, tuple[Any, ...]] = {}
    selections: dict[int, StaticSelection] = {}
    for node in plan.order:
        value = env.get(node.id)
        if isinstance(node, SOp):
            if plan.is_static(node):  # decided exactly by the static pass (an undefined entry is 0: never read)
                tables[node.id] = tuple(0 if isinstance(v, Undefined) else v for v in value)
            elif value is not None and not any(isinstance(v, Undefined) for v in value):
                tables[node.id] = tuple(value)
        elif isinstance(value, StaticSelection):
            selections[node.id] = value
        elif isinstance(value, list) and not any(isinstance(v, Undefined) for row in value for v in row):
            selections[node.id] = StaticSelection.from_rows(
                n, [[k for k, v in enumerate(row) if v] for row in value])
    return Known(n, tables, selections)


# -- 2. demand ------------------------------------------------------------------

def demand(program: Program, known: Known) -> dict[int, np.ndarray]:
    """Node id -> the positions some consumer reads it at (see the module docstring).

    Args:
        program: the RASP program.
        known: its known values (:func:`known_values`).

    Returns:
        Node id -> a boolean array over the n positions (a node read nowhere
        is absent).
    """
    n = known.n
    order = program.nodes()
    wanted: dict[int, np.ndarray] = {}

    def add(node: Expr, mask: np.ndarray) -> None:
        if mask.any():
            wanted[node.id] = wanted[node.id] | mask if node.id in wanted else mask.copy()

    everything = np.ones(n, dtype=bool)
    for _, sop in program.outputs:
        add(sop, everything)
    for node in reversed(order):
        mask = wanted.get(node.id)
        if mask is None or node.id in known.tables or node.id in known.selections:
            continue
        if isinstance(node, Map) and node.op is Op.WHERE and node.args[0].id in known.tables:
            holds = truths(known.tables[node.args[0].id])
            add(node.args[1], mask & holds)
            add(node.args[2], mask & ~holds)
        elif isinstance(node, Aggregate) and node.selector.id in known.selections:
            selection = known.selections[node.selector.id]
            keys = np.zeros(n, dtype=bool)
            for q in np.flatnonzero(mask):
                chosen = selection.keys_of(int(q))
                if chosen.size:
                    keys[chosen] = True
                elif node.semantics is Semantics.AHAT:
                    keys[:] = True
            add(node.values, keys)
        else:
            for child in node.children():
                add(child, everything if isinstance(node, (Aggregate, Selector)) else mask)
    return wanted
