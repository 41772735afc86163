"""A program's layers, as every view of `usim show` numbers and draws them.

One rule numbers layers everywhere (:func:`layer_name`), and one sentence says
what it counts (:func:`layer_numbering`): the count of :mod:`usim.rasp.cost`
in which an attention node (aggregate, selector width) sits one layer above
the deepest attention node below it, element-wise maps cost nothing, and
``length`` is read like the input. The count that also gives ``length`` a layer
of its own (the RASP interpreter computes it with a head) is reported as a
count only, never as a second numbering.

The layer diagram is data (:class:`LayerDiagram`), built from a program alone
(:func:`layer_diagram`; nothing is run), so that a part of a larger program (a
stage of U) can be drawn beside the whole program it belongs to. What a head
reads position by position (:func:`attention_within`, :func:`positionwise_heads`)
decides which layouts its picture may draw.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from usim.encodings.evaluate import plan_for
from usim.rasp.cost import Cost, cost, depths
from usim.rasp.expr import Aggregate, Expr, Indices, Length, Map, Predicate, Select, SelectorWidth, Tokens
from usim.rasp.printing import expression
from usim.rasp.program import Program


@dataclass(frozen=True)
class ShownStep:
    """A named element-wise step (or an output) and the band it sits in."""

    node: Expr
    name: str
    text: str
    band: int  # computed after layer `band` (layer_name's numbering), before band + 1
    is_output: bool


@dataclass(frozen=True)
class DiagramBox:
    """One box of the layer diagram: an input, a head or an element-wise step."""

    node: Expr
    title: str
    detail: str
    kind: str  # "input", "length", "aggregate", "selector_width" or "step"
    static: bool = True  # a head's selector is decided by positions alone
    is_output: bool = False


@dataclass(frozen=True)
class DiagramRow:
    """A row of the layer diagram: the inputs, a layer of heads, or the
    element-wise steps between two layers."""

    kind: str  # "input", "layer" or "band"
    label: str
    boxes: tuple[DiagramBox, ...]
    layer: int | None = None  # a layer row's number, as layer_name names it


@dataclass(frozen=True)
class LayerDiagram:
    """A program's layers as the diagram draws them, bottom row first."""

    program: Program
    rows: tuple[DiagramRow, ...]
    cost: Cost

    @property
    def summary(self) -> str:
        return f"{self.program.name}: {self.cost.summary()}"



def layer_name(layer: int) -> str:
    """How every picture and the page name a layer ("layer 2"): the count of
    :mod:`usim.rasp.cost` in which ``length`` is free.

    Args:
        layer: the layer's number, 1 for the first layer of heads.

    Returns:
        The layer's name.
    """
    return f"layer {layer}"


def layer_numbering(uses_length: bool) -> str:
    """The one sentence that says what the layer numbers count.

    Args:
        uses_length: whether the program reads ``length``.

    Returns:
        The sentence, for the page.
    """
    text = (f"Layers are numbered as the paper counts them: {layer_name(1)} is the first layer of "
            "heads, element-wise steps cost no layer")
    if uses_length:
        text += (", and `length` is read like the input (the RASP interpreter computes it with a head "
                 "of its own, which makes one layer more in the count with length under Cost, but no "
                 "layer here is numbered by that count)")
    return text + "."



def describe_head(node: Aggregate | SelectorWidth, limit: int = 60) -> str:
    """What a head gathers, in one line ("gathers tokens from position transpose_src").

    Args:
        node: the head.
        limit: the most characters of each expression named (longer ones end in ...).

    Returns:
        The line.
    """
    selector = node.selector
    if isinstance(node, SelectorWidth):
        return f"counts the keys of {short(selector, limit)}"
    values = short(node.values, limit)
    if (isinstance(selector, Select) and selector.predicate is Predicate.EQ
            and isinstance(selector.keys, Indices) and not selector.has_name):
        return f"gathers {values} from position {short(selector.queries, limit)}"
    return f"mean of {values} over {short(selector, limit)}"


def attention_within(order: Sequence[Expr]) -> dict[int, bool]:
    """Whether an attention node sits at or below each node (then the node's
    value at a position depends on other positions).

    Args:
        order: nodes in topological order (``Program.nodes()``).

    Returns:
        Node id -> whether an aggregate or selector width is at or below it.
    """
    within: dict[int, bool] = {}
    for node in order:
        within[node.id] = (isinstance(node, (Aggregate, SelectorWidth))
                           or any(within[c.id] for c in node.children()))
    return within


def positionwise_heads(root: Expr) -> set[int]:
    """The heads whose result ``root`` reads position by position: reached from
    ``root`` through element-wise nodes only.

    Args:
        root: a node (an output of the program).

    Returns:
        The node ids of those heads.
    """
    found: set[int] = set()
    stack, seen = [root], set()
    while stack:
        node = stack.pop()
        if node.id in seen:
            continue
        seen.add(node.id)
        if isinstance(node, (Aggregate, SelectorWidth)):
            found.add(node.id)
        else:
            stack.extend(node.children())
    return found


def short(node: Expr, limit: int = 60) -> str:
    """A node's name, or its expression cut to ``limit`` characters."""
    text = node.name if node.has_name else expression(node)[0]
    return text if len(text) <= limit else text[: limit - 3] + "..."



def steps_of(program: Program, order: Sequence[Expr], plain: Mapping[int, int]) -> tuple[ShownStep, ...]:
    """The named element-wise steps and the outputs, each in the band after the
    layer it needs.

    Args:
        program: the program.
        order: its nodes in topological order.
        plain: node id -> its layer (:func:`usim.rasp.cost.depths`, length free).

    Returns:
        The steps, in program order.
    """
    outputs = {sop.id for _, sop in program.outputs}
    steps = []
    for node in order:
        if isinstance(node, Map) and (node.has_name or node.id in outputs):
            text = f"{node.name} = {expression(node)[0]}" if node.has_name else expression(node)[0]
            steps.append(ShownStep(node, node.name, text, plain[node.id], node.id in outputs))
        elif node.id in outputs and not isinstance(node, (Map, Aggregate, SelectorWidth)):
            steps.append(ShownStep(node, node.name, node.name, plain[node.id], True))
    return tuple(steps)


DIAGRAM_FORMULA = 240  # the most characters of an expression a diagram box writes (wrapped, whole)


def diagram_of(program: Program, order: Sequence[Expr], plan: Any, plain: Mapping[int, int],
               tokens_text: str) -> LayerDiagram:
    """The rows of the layer diagram: the inputs (``length`` among them, free
    in this numbering), then each layer of heads and the steps after it.

    Args:
        program: the program.
        order: its nodes in topological order.
        plan: its static pass (:func:`usim.encodings.evaluate.plan_for`).
        plain: node id -> its layer (length free).
        tokens_text: what its input holds, for the ``tokens`` box.

    Returns:
        The diagram.
    """
    outputs = {sop.id for _, sop in program.outputs}
    inputs = []
    for node in order:
        if isinstance(node, Tokens):
            inputs.append(DiagramBox(node, "tokens", tokens_text, "input"))
        elif isinstance(node, Indices):
            inputs.append(DiagramBox(node, "indices", "0 .. n-1", "input"))
        elif isinstance(node, Length):
            inputs.append(DiagramBox(node, "length", "n (in the count with length: a head of its own)",
                                     "length"))
    rows = [DiagramRow("input", "input", tuple(inputs))]
    heads = sorted((node for node in order if isinstance(node, (Aggregate, SelectorWidth))),
                   key=lambda node: natural(node.name))
    steps = steps_of(program, order, plain)
    top = max((plain[node.id] for node in heads), default=0)
    for band in range(0, top + 1):
        if band > 0:
            boxes = tuple(DiagramBox(node, node.name, describe_head(node, DIAGRAM_FORMULA),
                                     "aggregate" if isinstance(node, Aggregate) else "selector_width",
                                     plan.is_static(node.selector), node.id in outputs)
                          for node in heads if plain[node.id] == band)
            rows.append(DiagramRow("layer", layer_name(band), boxes, band))
        in_band = tuple(DiagramBox(step.node, f"output {step.name}" if step.is_output else step.name,
                                   step.text.split(" = ", 1)[1] if " = " in step.text else step.text,
                                   "step", True, step.is_output)
                        for step in steps if step.band == band)
        if in_band:
            rows.append(DiagramRow("band", "element-wise", in_band))
    return LayerDiagram(program, tuple(rows), cost(program))



def layer_diagram(program: Program, n: int, tokens_text: str) -> LayerDiagram:
    """The layer diagram of a program that is not run (its selectors decided by
    positions alone are found at length ``n``).

    Args:
        program: the RASP program.
        n: the length of its sequence.
        tokens_text: what its input holds, for the ``tokens`` box.

    Returns:
        The diagram's rows.
    """
    order = program.nodes()
    plan = plan_for(tuple(sop for _, sop in program.outputs), n)
    return diagram_of(program, order, plan, depths(order, False), tokens_text)



def natural(name: str) -> tuple:
    """A sort key for names: a0, a1, b0, with 2 before 10."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


