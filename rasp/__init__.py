"""The RASP language embedded in Python: syntax, listings and cost.

>>> from usim.rasp import tokens, indices, select, aggregate, Predicate
>>> reverse = aggregate(select(indices, length - 1 - indices, Predicate.EQ), tokens)
"""

from usim.rasp.cost import Cost, cost
from usim.rasp.expr import (
    Aggregate,
    Constant,
    Expr,
    Indices,
    Length,
    Map,
    Op,
    Predicate,
    Select,
    Selector,
    SelectorAnd,
    SelectorNot,
    SelectorOr,
    SelectorWidth,
    Semantics,
    SOp,
    Tokens,
    absolute,
    aggregate,
    constant,
    exp,
    indices,
    length,
    maximum,
    minimum,
    select,
    selector_width,
    sqrt,
    tokens,
    where,
)
from usim.rasp.printing import listing
from usim.rasp.program import Program, topological_order
from usim.rasp.rewrite import clone_with, substitute

__all__ = [name for name in dir() if not name.startswith("_")]
