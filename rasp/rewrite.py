"""Rebuilding a program with some nodes replaced (for variants and mutants).

``substitute(program, {"name": lambda node: new_node})`` rebuilds the graph
bottom-up; every node named ``name`` is passed, with its children already
rebuilt, to the function, whose result takes its place. Nodes that neither are
replaced nor depend on a replaced node are shared with the original.
"""

from __future__ import annotations

from typing import Callable, Mapping

from usim.rasp.expr import (
    Aggregate,
    Expr,
    Map,
    Select,
    SelectorAnd,
    SelectorNot,
    SelectorOr,
    SelectorWidth,
)
from usim.rasp.family import HeadAt, HeadFamily, HeadSum
from usim.rasp.program import Program

Replacements = Mapping[str, Callable[[Expr], Expr]]
"""Named node -> its replacement, given the node (what :func:`substitute`
applies; a broken variant of a claim is one)."""


def clone_with(node: Expr, children: tuple[Expr, ...]) -> Expr:
    """A copy of ``node`` (same name) over new children."""
    if isinstance(node, Map):
        new: Expr = Map(node.op, *children)
    elif isinstance(node, Select):
        new = Select(children[0], children[1], node.predicate)
    elif isinstance(node, SelectorOr):
        new = SelectorOr(*children)
    elif isinstance(node, SelectorAnd):
        new = SelectorAnd(*children)
    elif isinstance(node, SelectorNot):
        new = SelectorNot(*children)
    elif isinstance(node, Aggregate):
        new = Aggregate(children[0], children[1], node.default, node.semantics, node.single)
    elif isinstance(node, SelectorWidth):
        new = SelectorWidth(children[0])
    elif isinstance(node, HeadSum):
        new = HeadSum(node.indices, node.extents, children[0], node.made)
    elif isinstance(node, HeadAt):
        family = node.family
        new = HeadAt(HeadFamily(family.index, family.extent, children[0], family.made), node.at)
    else:
        return node
    if node.has_name:
        new.named(node.name)
    if getattr(node, "fresh_name", False):
        new.fresh_name = True
    return new


def substitute(
    program: Program,
    replacements: Replacements,
    name: str | None = None,
) -> Program:
    """``program`` with each node named in ``replacements`` replaced."""
    found: set[str] = set()
    original = {node.id for node in program.nodes()}
    rebuilt: dict[int, Expr] = {}
    for node in program.nodes():
        children = tuple(rebuilt[c.id] for c in node.children())
        changed = any(a is not b for a, b in zip(children, node.children()))
        new = clone_with(node, children) if changed else node
        if node.has_name and node.name in replacements:
            found.add(node.name)
            new = replacements[node.name](new)
            if not new.has_name and new.id not in original:
                new.named(node.name)  # a fresh replacement keeps the name it stands for
        rebuilt[node.id] = new
    missing = set(replacements) - found
    if missing:
        raise KeyError(f"program {program.name!r} has no node named {sorted(missing)[0]!r}")
    outputs = {key: rebuilt[sop.id] for key, sop in program.outputs}
    return Program.of(name or program.name, outputs, program.description)
