"""Programs (named outputs) and the traversal order of their expression graph."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from usim.rasp.expr import Expr, SOp


@dataclass(frozen=True, eq=False)
class Program:
    """A RASP program: one or more named output sequences.

    ``description`` is the one-line statement a listing or report shows.
    """

    name: str
    outputs: tuple[tuple[str, SOp], ...]
    description: str = ""

    @classmethod
    def of(cls, name: str, outputs: SOp | Mapping[str, SOp], description: str = "") -> "Program":
        if isinstance(outputs, SOp):
            outputs = {outputs.name: outputs}
        items = tuple(outputs.items())
        if not items:
            raise ValueError(f"program {name!r} has no output")
        for key, sop in items:
            if not isinstance(sop, SOp):
                raise TypeError(f"output {key!r} of program {name!r} is not a sequence: {sop!r}")
        return cls(name, items, description)

    @property
    def output(self) -> SOp:
        """The single output (an error for a program with several)."""
        if len(self.outputs) != 1:
            raise ValueError(f"program {self.name!r} has {len(self.outputs)} outputs; name one")
        return self.outputs[0][1]

    def nodes(self) -> list[Expr]:
        return topological_order(sop for _, sop in self.outputs)


def topological_order(roots: Iterable[Expr],
                      children: Callable[[Expr], Sequence[Expr]] | None = None) -> list[Expr]:
    """Every node reachable from ``roots``, each after all of its children
    (``children(node)`` in place of ``node.children()`` where given: an
    evaluator that reads a head family's inputs, not its body)."""
    order: list[Expr] = []
    seen: set[int] = set()
    for root in roots:
        if root.id in seen:
            continue
        stack: list[tuple[Expr, bool]] = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if node.id in seen:
                continue
            seen.add(node.id)
            stack.append((node, True))
            for child in reversed(node.children() if children is None else children(node)):
                if child.id not in seen:
                    stack.append((child, False))
    return order
