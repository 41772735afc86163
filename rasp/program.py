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
                      children: Callable[[Expr], Sequence[Expr]] | None = None,
                      heaviest_first: bool = False) -> list[Expr]:
    """Every node reachable from ``roots``, each after all of its children
    (``children(node)`` in place of ``node.children()`` where given: an
    evaluator that reads a head family's inputs, not its body).

    With ``heaviest_first``, each node's children are visited in decreasing
    order of the values an evaluation must hold to compute them (Sethi and
    Ullman's number: a leaf needs 1, a node with children needing
    h_1 >= h_2 >= ... needs max_i (h_i + i - 1)), ties by decreasing height.
    An evaluation that drops each value after its last reader then holds few
    values at once: in a chain where(c_k, s_k, where(c_(k-1), s_(k-1), ...))
    (U's routing heads, hundreds of moves deep), the inner chain is computed
    before c_k and s_k, where visiting the children in their own order keeps
    every level's c and s alive until the innermost is done.
    """
    roots = list(roots)
    if heaviest_first:
        children = _heaviest_first(roots, children)
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


def _heaviest_first(roots: list[Expr], children: Callable[[Expr], Sequence[Expr]] | None
                    ) -> Callable[[Expr], Sequence[Expr]]:
    """``children`` reordered as :func:`topological_order` describes (a heuristic on
    a graph whose nodes are shared; any order of the children is a valid one)."""
    of = (lambda node: node.children()) if children is None else children
    weight: dict[int, tuple[int, int]] = {}  # node id -> (values needed, height)
    for node in topological_order(roots, of):
        below = sorted((weight[c.id] for c in of(node)), reverse=True)
        need = max([1] + [w[0] + i for i, w in enumerate(below)])
        weight[node.id] = (need, 1 + max((w[1] for w in below), default=0))
    return lambda node: sorted(of(node), key=lambda c: weight[c.id], reverse=True)
