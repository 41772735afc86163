"""The cost of a RASP program as the RASP interpreter counts it.

Attention layers are the nesting depth of attention nodes (aggregate and
selector_width): such a node sits one layer above the deepest attention node its
selector or values depend on. The heads of a layer are the attention nodes that
sit at it. Element-wise maps cost no layer (they are MLPs).

``length`` is free in the first count. The RASP interpreter computes it by an
attention layer of its own (a selector width over an always-true selector), so
the second count treats ``length`` as an attention node in layer 1: everything
that depends on it moves up a layer, and layer 1 gains one head. The paper's
figures ("depth 1, plus length") are the second count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from usim.rasp.expr import Aggregate, Expr, Length, Map, SelectorWidth
from usim.rasp.family import multiplicities
from usim.rasp.program import Program, topological_order


@dataclass(frozen=True)
class Cost:
    layers: int
    heads: tuple[tuple[str, ...], ...]  # names of the heads of each layer
    layers_with_length: int
    heads_with_length: tuple[tuple[str, ...], ...]
    maps: int  # element-wise operations
    uses_length: bool

    @property
    def heads_per_layer(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self.heads)

    @property
    def heads_per_layer_with_length(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self.heads_with_length)

    @property
    def width(self) -> int:
        return max(self.heads_per_layer, default=0)

    def summary(self) -> str:
        per = ", ".join(str(h) for h in self.heads_per_layer) or "-"
        text = f"{self.layers} attention layer(s), heads per layer [{per}], {self.maps} element-wise op(s)"
        if self.uses_length:
            per_l = ", ".join(str(h) for h in self.heads_per_layer_with_length)
            text += f"; counting the length layer: {self.layers_with_length} layer(s) [{per_l}]"
        return text

    def as_dict(self) -> dict:
        return {
            "layers": self.layers,
            "heads_per_layer": list(self.heads_per_layer),
            "layers_with_length": self.layers_with_length,
            "heads_per_layer_with_length": list(self.heads_per_layer_with_length),
            "elementwise_ops": self.maps,
            "uses_length": self.uses_length,
        }


def is_attention(node: Expr, length_is_attention: bool) -> bool:
    """Whether ``node`` takes an attention layer: an aggregate, a selector width,
    and ``length`` in the count that computes it by attention."""
    return isinstance(node, (Aggregate, SelectorWidth)) or (length_is_attention and isinstance(node, Length))


def depths(nodes: Sequence[Expr], length_is_attention: bool) -> dict[int, int]:
    """Node id -> the attention layers below and at it, for nodes in topological
    order: an attention node sits one layer above the deepest attention node it
    depends on. The one rule of layer depth (cost, pictures, the REPL's count)."""
    depth: dict[int, int] = {}
    for node in nodes:
        below = max((depth[c.id] for c in node.children()), default=0)
        depth[node.id] = below + 1 if is_attention(node, length_is_attention) else below
    return depth


def _layers(nodes: list[Expr], length_is_attention: bool) -> tuple[tuple[str, ...], ...]:
    depth = depths(nodes, length_is_attention)
    per_layer: dict[int, list[str]] = {}
    for node in nodes:
        if is_attention(node, length_is_attention):
            per_layer.setdefault(depth[node.id], []).append(node.name)
    top = max(per_layer, default=0)
    return tuple(tuple(per_layer.get(layer, ())) for layer in range(1, top + 1))


def cost(program: Program) -> Cost:
    nodes = topological_order(sop for _, sop in program.outputs)
    heads = _layers(nodes, length_is_attention=False)
    heads_l = _layers(nodes, length_is_attention=True)
    return Cost(
        layers=len(heads),
        heads=heads,
        layers_with_length=len(heads_l),
        heads_with_length=heads_l,
        maps=sum(isinstance(n, Map) for n in nodes),
        uses_length=any(isinstance(n, Length) for n in nodes),
    )


def family_heads_per_layer(program: Program, length_is_attention: bool = False) -> tuple[int, ...]:
    """Heads per layer of the program a family graph stands for, counted without
    making it: a program whose head families are kept whole at integer sizes
    (:func:`usim.rasp.family.keeping_families`) has one attention node per
    family body, which its instance makes once per value of the head indices it
    is made under (:func:`usim.rasp.family.instantiate`'s rule), at the same
    depth. Equal to :func:`cost`'s count on the instance (tested on U).

    Args:
        program: the family graph (integer extents).
        length_is_attention: count ``length`` as a head of layer 1.

    Returns:
        The number of heads at each layer, from layer 1.
    """
    nodes = topological_order(sop for _, sop in program.outputs)
    depth = depths(nodes, length_is_attention)
    times = multiplicities(program)
    per_layer: dict[int, int] = {}
    for node in nodes:
        if is_attention(node, length_is_attention):
            per_layer[depth[node.id]] = per_layer.get(depth[node.id], 0) + times[node.id]
    top = max(per_layer, default=0)
    return tuple(per_layer.get(layer, 0) for layer in range(1, top + 1))


def repl_heads(program: Program, with_length: bool = True) -> tuple[int, ...]:
    """Heads per layer as the RASP REPL's analyser (``width_and_depth``) counts them.

    It puts each aggregate at the layer :func:`depths` gives and counts, per
    layer, the distinct selectors its aggregates use: two aggregates over one
    selector are one head. Its library computes ``selector_width`` with two
    aggregates over two selectors (two heads), and, ``with_length``, ``length``
    takes a head in layer 1 of its own.
    """
    nodes = topological_order(sop for _, sop in program.outputs)
    depth = depths(nodes, with_length)
    heads: dict[int, set] = {}
    for node in nodes:
        if isinstance(node, Aggregate):
            heads.setdefault(depth[node.id], set()).add(node.selector.id)
        elif isinstance(node, SelectorWidth):
            heads.setdefault(depth[node.id], set()).update({(node.id, 0), (node.id, 1)})
        elif isinstance(node, Length) and with_length:
            heads.setdefault(1, set()).add("length")
    top = max(heads, default=0)
    return tuple(len(heads.get(layer, ())) for layer in range(1, top + 1))
