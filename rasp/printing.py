"""Human-readable listings of RASP programs.

A listing has one line per named node, attention node (aggregate, selector
width) and selector; unnamed element-wise maps are written inline. Selectors
are printed with keys first, as in the original RASP.
"""

from __future__ import annotations

from usim.rasp.expr import (
    Aggregate,
    Constant,
    Expr,
    Indices,
    Length,
    Map,
    Select,
    SelectorAnd,
    SelectorNot,
    SelectorOr,
    SelectorWidth,
    Semantics,
    Tokens,
)
from usim.rasp.family import HeadAt, HeadSum
from usim.rasp.program import Program, topological_order
from usim.rasp.symbolic_int import Parameter, readable

_PRECEDENCE = {"|": 1, "&": 2, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4,
               "+": 5, "-": 5, "*": 6, "/": 6, "//": 6, "%": 6, "**": 8}


def _own_line(node: Expr) -> bool:
    if isinstance(node, (Tokens, Indices, Length, Constant)):
        return False
    return node.has_name or isinstance(node, (Aggregate, SelectorWidth))


def expression(node: Expr, top: bool = True) -> tuple[str, int]:
    """The text of ``node`` (inlining unnamed maps) and its precedence."""
    if not top and _own_line(node):
        return node.name, 10
    if isinstance(node, Constant):
        return str(node.value), 10
    if isinstance(node, (Tokens, Indices, Length)):
        return node.name, 10
    if isinstance(node, Map):
        op = node.op
        parts = [expression(a, top=False) for a in node.args]
        if op.infix and op.arity == 2:
            prec = _PRECEDENCE.get(op.symbol, 3)
            left = parts[0][0] if parts[0][1] >= prec else f"({parts[0][0]})"
            right = parts[1][0] if parts[1][1] > prec else f"({parts[1][0]})"
            return f"{left} {op.symbol} {right}", prec
        if op.infix and op.arity == 1:
            inner = parts[0][0] if parts[0][1] >= 9 else f"({parts[0][0]})"
            return f"{op.symbol}{inner}", 9
        return f"{op.symbol}({', '.join(p[0] for p in parts)})", 10
    if isinstance(node, Select):
        keys, _ = expression(node.keys, top=False)
        queries, _ = expression(node.queries, top=False)
        return f"select({keys}, {queries}, {node.predicate.symbol})", 10
    if isinstance(node, SelectorOr):
        return f"{expression(node.left, False)[0]} | {expression(node.right, False)[0]}", 1
    if isinstance(node, SelectorAnd):
        left, lp = expression(node.left, False)
        right, rp = expression(node.right, False)
        left = left if lp >= 2 else f"({left})"
        right = right if rp >= 2 else f"({right})"
        return f"{left} & {right}", 2
    if isinstance(node, SelectorNot):
        inner, ip = expression(node.inner, False)
        return f"~{inner}" if ip >= 9 else f"~({inner})", 9
    if isinstance(node, Aggregate):
        sel, _ = expression(node.selector, False)
        vals, _ = expression(node.values, False)
        extra = ""
        if node.semantics is Semantics.AHAT:
            extra = ", semantics=ahat"
        elif node.default is None:
            extra = ", default=undefined"
        elif node.default != 0:
            extra = f", default={node.default}"
        if node.single:
            extra += ", single=True"
        return f"aggregate({sel}, {vals}{extra})", 10
    if isinstance(node, SelectorWidth):
        return f"selector_width({expression(node.selector, False)[0]})", 10
    if isinstance(node, Parameter):  # a family's integer, its head indices symbolic
        return readable(str(node.term)), 10
    if isinstance(node, HeadSum):  # a family of heads kept whole: its body at symbolic indices
        box = ", ".join(f"{i} < {e}" for i, e in zip(node.indices, node.extents))
        return readable(f"sum over {box} of {expression(node.body, False)[0]}"), 0
    if isinstance(node, HeadAt):  # one head of a family: its body at the index given
        return readable(f"{expression(node.family.body, False)[0]} at {node.family.index} = {node.at}"), 0
    raise TypeError(f"cannot print {node!r}")


def listing(program: Program) -> str:
    """The program as numbered assignments, one per named or attention node."""
    lines = [f"# {program.name}" + (f": {program.description}" if program.description else "")]
    roots = [sop for _, sop in program.outputs]
    for node in topological_order(roots):
        if _own_line(node):
            lines.append(f"{node.name} = {expression(node)[0]}")
    for key, sop in program.outputs:
        text = expression(sop, top=False)[0]
        lines.append(f"output {key} = {text}")
    return "\n".join(lines)
