"""A structural fingerprint of a RASP program: equal exactly when the graphs are.

The fingerprint hashes a canonical text of the expression graph: every node
reachable from the outputs, in topological order, as its kind, its operation
(op, predicate, constant value, aggregate default and semantics) and the
positions of its children in that order; then the outputs by name. Node names
(labels for reports) and ids (process-local) are left out, so two programs built
the same way in different processes, or renamed, have one fingerprint, and any
change of meaning (an operation, a constant, an edge) changes it.

Certificates record it (``usim verify`` checks that a claim still builds the
program that was proved), and a cache of verdicts may key on it. A family
(:mod:`usim.rasp.family`) is written with its parameters' expressions and its
head indices named by the order in which they are bound.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction

from usim.rasp.expr import Aggregate, Constant, Expr, Map, Select
from usim.rasp.family import HeadAt, HeadSum, Parameter, SymbolicInt, bound_indices
from usim.rasp.program import Program, topological_order


def _family_text(value, names: dict[str, str]) -> str:
    return value.text(names)[0] if isinstance(value, SymbolicInt) else str(value)


def _describe(node: Expr, names: dict[str, str] | None = None) -> str:
    names = names or {}
    if isinstance(node, Parameter):
        return f"parameter:{_family_text(node.term, names)}"
    if isinstance(node, HeadSum):
        bound = ",".join(names[i.args[0]] for i in node.indices)
        return f"head_sum:{bound}:" + ",".join(_family_text(e, names) for e in node.extents)
    if isinstance(node, HeadAt):
        return (f"head_at:{names[node.family.index.args[0]]}:{_family_text(node.family.extent, names)}:"
                f"{_family_text(node.at, names)}")
    if isinstance(node, Constant):
        value = node.value
        return f"const:{type(value).__name__}:{Fraction(value) if not isinstance(value, bool) else value}"
    if isinstance(node, Map):
        return f"map:{node.op.name}"
    if isinstance(node, Select):
        return f"select:{node.predicate.name}"
    if isinstance(node, Aggregate):
        default = "none" if node.default is None else Fraction(node.default)
        return f"aggregate:{default}:{node.semantics.value}" + (":single" if node.single else "")
    return node.kind


def canonical_text(program: Program, names: bool = False) -> str:
    """The graph as text (see the module docstring); with ``names``, each named
    node's name too (two programs that mutants can tell apart by name differ)."""
    order = topological_order(sop for _, sop in program.outputs)
    position = {node.id: i for i, node in enumerate(order)}
    bound: dict[str, str] = {}  # a family's head indices, named by where they are bound
    for node in reversed(order):
        for index in bound_indices(node):
            bound.setdefault(index.args[0], f"h{len(bound)}")
    lines = [f"{i} {_describe(node, bound)} " + ",".join(str(position[c.id]) for c in node.children())
             + (f" {node.name!r}" if names and node.has_name else "")
             for i, node in enumerate(order)]
    lines += [f"output {name} {position[sop.id]}" for name, sop in program.outputs]
    return "\n".join(lines)


def fingerprint(program: Program) -> str:
    """sha256 of :func:`canonical_text`, in hex."""
    return hashlib.sha256(canonical_text(program).encode()).hexdigest()
