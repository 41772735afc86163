"""The meaning of a RASP program, defined once for every interpretation.

Evaluation has two passes over the expression graph, in topological order.

1. *Static pass* (once per length n, cached). Every node that does not depend on
   the tokens (indices, length, constants and whatever is computed from them
   alone) is evaluated exactly, with :class:`ExactInterpretation`; a selector
   whose keys and queries are static is decided into a sparse
   :class:`StaticSelection`. Index routing thus costs nothing at run time and
   nothing symbolic. A static node with no exact value (``exp(1)``) is left to
   the second pass.
2. *Dynamic pass* (per input). The remaining nodes are evaluated by the chosen
   interpretation; a static value it needs is lifted into its domain.

:func:`_node_value` below is the single definition of what each node means.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from usim.encodings.domain import Undefined
from usim.encodings.exact import EXACT
from usim.encodings.families import HeadSumPlan, plan_head_sum
from usim.encodings.interpretation import Interpretation
from usim.encodings.selection import StaticSelection, decide
from usim.errors import EvaluationError, NotExactError, UndefinedError, UsimError
from usim.rasp.expr import (
    Aggregate,
    Constant,
    Expr,
    Indices,
    Length,
    Map,
    Op,
    Select,
    Selector,
    SelectorAnd,
    SelectorNot,
    SelectorOr,
    SelectorWidth,
    Semantics,
    SOp,
    Tokens,
)
from usim.rasp.family import HeadSum
from usim.rasp.printing import expression
from usim.rasp.program import Program, topological_order


def _static():
    from usim.encodings.static import STATIC

    return STATIC


_FAMILY_PLANS: dict[int, tuple[HeadSum, HeadSumPlan]] = {}


def family_plan(node: HeadSum) -> HeadSumPlan:
    """The head sum's plan as arrays (:mod:`usim.encodings.families`), made once per node."""
    hit = _FAMILY_PLANS.get(node.id)
    if hit is None or hit[0] is not node:
        if len(_FAMILY_PLANS) >= 4096:
            _FAMILY_PLANS.clear()
        hit = (node, plan_head_sum(node))
        _FAMILY_PLANS[node.id] = hit
    return hit[1]


def operands(node: Expr) -> tuple[Expr, ...]:
    """What the evaluator reads to compute ``node``: its children, or, for a head
    family kept whole, the sequences its heads read (its body is not evaluated
    node by node)."""
    if isinstance(node, HeadSum):
        return family_plan(node).inputs
    return node.children()


def evaluation_order(roots: tuple[SOp, ...], heaviest_first: bool = False) -> list[Expr]:
    """The nodes evaluated for ``roots``, each after what it reads (:func:`operands`);
    ``heaviest_first``: in an order that keeps few values alive at once when
    each is dropped after its last reader (:func:`usim.rasp.program.topological_order`)."""
    return topological_order(roots, operands, heaviest_first=heaviest_first)


@dataclass(eq=False)
class Plan:
    """The static part of a program at one length: exact values and selections."""

    n: int
    order: list[Expr]
    static: dict[int, Any] = field(default_factory=dict)  # node id -> exact list or selection
    dropped: set[int] = field(default_factory=set)  # static nodes whose values a lean plan let go

    def is_static(self, node: Expr) -> bool:
        return node.id in self.static or node.id in self.dropped

    def selection(self, selector: Selector) -> StaticSelection | None:
        value = self.static.get(selector.id)
        return value if isinstance(value, StaticSelection) else None

    def releases(self, roots: tuple[SOp, ...]) -> dict[int, tuple[int, ...]]:
        """For the dynamic node at each place of ``order``, the nodes whose
        values no later node reads (the roots excepted): an evaluation can drop
        them there, so it holds only the values still to be read, not one
        sequence per node of the program."""
        cached = getattr(self, "_releases", None)
        if cached is not None and cached[0] == tuple(r.id for r in roots):
            return cached[1]
        releases = last_reads(self.order, roots, reading=lambda node: not self.is_static(node))
        frozen = {place: tuple(ids) for place, ids in releases.items()}
        self._releases = (tuple(r.id for r in roots), frozen)
        return frozen


def last_reads(order: list[Expr], roots: tuple[SOp, ...],
               reading: Callable[[Expr], bool] = lambda node: True) -> dict[int, list[int]]:
    """At each place of ``order``, the nodes no later node reads (the roots
    excepted), counting only the reads of the nodes ``reading`` admits: an
    evaluation can drop their values there.

    Args:
        order: the nodes in evaluation order (:func:`evaluation_order`).
        roots: the outputs, never dropped.
        reading: which nodes' reads count (the dynamic ones, for a planned run).

    Returns:
        Place -> the ids of the values last read there.
    """
    last: dict[int, int] = {}
    for place, node in enumerate(order):
        if reading(node):
            for child in operands(node):
                last[child.id] = place
    for root in roots:
        last.pop(root.id, None)
    releases: dict[int, list[int]] = {}
    for node_id, place in last.items():
        releases.setdefault(place, []).append(node_id)
    return releases


_PLANS: dict[tuple[tuple[int, ...], int, bool], tuple[tuple[SOp, ...], Plan]] = {}
_PLAN_CACHE_SIZE = 64


def _reads_tokens(order: list[Expr]) -> set[int]:
    """The nodes that depend on the tokens, structurally."""
    found: set[int] = set()
    for node in order:
        if isinstance(node, (Tokens, HeadSum)) or any(c.id in found for c in operands(node)):
            found.add(node.id)
    return found


def _lean_releases(order: list[Expr], roots: tuple[SOp, ...]) -> dict[int, list[int]]:
    """For a lean plan: at each place of the static pass, the static values no
    later static node reads and no token-dependent node or root needs."""
    dynamic = _reads_tokens(order)
    keep = {r.id for r in roots} | {c.id for node in order if node.id in dynamic for c in operands(node)}
    last: dict[int, int] = {}
    for place, node in enumerate(order):
        if node.id not in dynamic:
            for child in operands(node):
                last[child.id] = place
    releases: dict[int, list[int]] = {}
    for node_id, place in last.items():
        if node_id not in keep:
            releases.setdefault(place, []).append(node_id)
    return releases


def plan_for(roots: tuple[SOp, ...], n: int, lean: bool = False) -> Plan:
    """The static pass for these outputs at length n (cached; roots kept alive).

    A ``lean`` plan keeps only the static values that the dynamic pass reads
    (those of the roots and of the children of token-dependent nodes),
    dropping the others as soon as the static pass is past their last use:
    enough for :func:`evaluate_sops`, a fraction of the memory on a large
    program (U's index arithmetic). Whoever reads every node (the pictures,
    the definedness conditions, :func:`evaluate_all`) asks for the full plan.
    """
    ids = tuple(r.id for r in roots)
    for key in ((ids, n, False), (ids, n, True)) if lean else ((ids, n, False),):
        hit = _PLANS.get(key)
        if hit is not None:
            return hit[1]
    order = evaluation_order(roots)
    plan = Plan(n, order)
    releases = _lean_releases(order, roots) if lean else {}
    depends_on_tokens: set[int] = set()
    decided: dict[tuple, StaticSelection] = {}
    for place, node in enumerate(order):
        for done in releases.get(place - 1, ()):
            if plan.static.pop(done, None) is not None:
                plan.dropped.add(done)
        if isinstance(node, (Tokens, HeadSum)) or any(c.id in depends_on_tokens for c in operands(node)):
            depends_on_tokens.add(node.id)  # (a head family kept whole is evaluated as arrays, by the run)
            continue
        if any(c.id not in plan.static for c in operands(node)):
            depends_on_tokens.add(node.id)  # a child had no exact value
            continue
        try:
            plan.static[node.id] = _static_value(node, plan, n, decided)
        except NotExactError:
            if lean:  # a static node left to the dynamic pass reads values a lean plan drops
                return plan_for(roots, n, lean=False)
            depends_on_tokens.add(node.id)
    for done in releases.get(len(order) - 1, ()):
        if plan.static.pop(done, None) is not None:
            plan.dropped.add(done)
    if len(_PLANS) >= _PLAN_CACHE_SIZE:
        _PLANS.pop(next(iter(_PLANS)))
    _PLANS[(ids, n, lean)] = (roots, plan)
    return plan


def _static_value(node: Expr, plan: Plan, n: int, decided: dict[tuple, StaticSelection]) -> Any:
    """A node whose operands have exact values (in ``plan.static``), evaluated
    exactly by the static pass; :class:`NotExactError` where it has none.
    Index-only selects with the same predicate over the same key and query
    nodes, or constants of one value (the product block builds one per head),
    are decided once (``decided``) and share one selection."""
    same = select_key(node)
    if same is not None and same in decided:
        return decided[same]
    primitive = _static().primitive(node, n)
    if primitive is not None:
        return primitive
    value = _node_value(node, _static(), plan, {}, n)
    value = _static().lift(value) if isinstance(value, list) else value
    if same is not None:
        decided[same] = value
    return value


def select_key(node: Expr) -> tuple | None:
    """What two selects must share to share one decision (:func:`_static_value`),
    or None for a node that is no select."""
    if not isinstance(node, Select):
        return None
    return (node.predicate, _operand(node.keys), _operand(node.queries))


def _operand(node: SOp) -> tuple:
    """What a select's key or query is, for sharing decisions: a constant by its
    value (and type: True is not 1 here), any other node by itself."""
    if isinstance(node, Constant):
        return ("constant", type(node.value).__name__, node.value)
    return ("node", node.id)


def describe(node: Expr) -> str:
    """A node as errors name it: its name and its expression (``name = expr``)."""
    try:
        text = expression(node)[0]
    except Exception:  # pragma: no cover - printing must never hide the real error
        text = "?"
    return f"{node.name} = {text}" if node.has_name or text != node.name else node.name


def _node_value(node: Expr, interp: Interpretation, plan: Plan, env: dict, n: int) -> Any:
    """What ``node`` means, in ``interp``, given the values of its children.

    In the exact interpretation, an operation outside its domain gives an
    :class:`Undefined` value, stamped here with the expression it arose in.
    """
    out = _meaning(node, interp, plan, env, n)
    if isinstance(node, (Map, Aggregate, SelectorWidth)) and getattr(interp, "propagates_undefined", False) and (
            isinstance(out, list) or isinstance(out, np.ndarray) and out.dtype == object):
        # (the set of types is made in C: a scan in Python was seconds on U's stages)
        fresh = [p for p, v in enumerate(out) if type(v) is Undefined and v.origin is None] \
            if Undefined in set(map(type, out)) else None
        if fresh:
            described = describe(node)
            for p in fresh:
                out[p] = Undefined(out[p].reason, f"{described} at position {p}")
    return out


def _meaning(node: Expr, interp: Interpretation, plan: Plan, env: dict, n: int) -> Any:

    def value(child: Expr) -> Any:
        if child.id in env:
            return env[child.id]
        static = plan.static[child.id]
        if isinstance(static, StaticSelection):
            return static
        lifted = interp.lift(static)
        env[child.id] = lifted
        return lifted

    def number(child: SOp) -> Any:
        v = value(child)
        return interp.to_number(v) if child.is_bool else v

    def boolean(child: SOp) -> Any:
        v = value(child)
        return v if child.is_bool else interp.to_bool(v)

    def dynamic(selector: Selector) -> Any:
        v = value(selector)
        return interp.densify(v) if isinstance(v, StaticSelection) else v

    try:
        if isinstance(node, Indices):
            return list(range(n))
        if isinstance(node, Length):
            return [n] * n
        if isinstance(node, Constant):
            return [node.value] * n
        if isinstance(node, Tokens):
            raise AssertionError("tokens are given, not computed")
        if isinstance(node, Map):
            kind = node.op.kind
            if kind in ("num", "cmp"):
                args = [number(a) for a in node.args]
            elif kind == "bool":
                args = [boolean(a) for a in node.args]
            else:  # where
                args = [boolean(node.args[0]), number(node.args[1]), number(node.args[2])]
            return interp.map(node.op, args)
        if isinstance(node, Select):
            keys, queries = value(node.keys), value(node.queries)
            if interp is EXACT or interp is _static():  # exact values: decided concretely
                for side in (keys, queries):
                    if isinstance(side, np.ndarray) and side.dtype != object:
                        continue
                    undefined = next((v for v in side if isinstance(v, Undefined)), None)
                    if undefined is not None:
                        # which keys it selects is unknown: every row is undefined
                        raise UndefinedError(f"the selector compares an undefined value: {undefined}")
                return decide(node.predicate, keys, queries)
            return interp.select(
                node.predicate, number(node.keys), number(node.queries)
            )
        if isinstance(node, (SelectorAnd, SelectorNot)):
            parts = list(node.children())
            values = [value(p) for p in parts]
            op = Op.NOT if isinstance(node, SelectorNot) else (
                Op.OR if isinstance(node, SelectorOr) else Op.AND)
            if all(isinstance(v, StaticSelection) for v in values):
                if op is Op.NOT:
                    return ~values[0]
                return values[0] & values[1] if op is Op.AND else values[0] | values[1]
            return interp.combine(op, [dynamic(p) for p in parts])
        if isinstance(node, Aggregate):
            # the mean over the selected keys (the default, or AHAT's mean of all, on an
            # empty row); an aggregate that only moves a value (single) is undefined
            # where it selects several keys, one without a default where it selects none
            selection = value(node.selector)
            values = number(node.values)
            default = 0 if node.default is None else node.default
            empty = node.default is None and node.semantics is not Semantics.AHAT
            if isinstance(selection, StaticSelection):
                out = interp.aggregate_static(selection, values, default, node.semantics)
                counts = [int(c) for c in selection.counts] if (node.single or empty) else None
            else:
                out = interp.aggregate_dynamic(selection, values, default, node.semantics)
                counts = interp.width(selection) if (node.single or empty) else None
            if node.single or empty:
                out = interp.undefined_where(out, counts, node.single, empty)
            return out
        if isinstance(node, HeadSum):
            family = family_plan(node)
            exact = {c.id: plan.static[c.id] for c in family.inputs if c.id in plan.static}
            return interp.head_sum(family, {c.id: number(c) for c in family.inputs}, exact, n)
        if isinstance(node, SelectorWidth):
            selection = value(node.selector)
            if isinstance(selection, StaticSelection):
                counts = [int(c) for c in selection.counts]
                return interp.lift(counts)
            return interp.width(selection)
    except NotExactError as error:
        raise NotExactError(f"in {describe(node)}: {error}") from None
    except UsimError:
        raise
    except (ArithmeticError, ValueError) as error:
        raise EvaluationError(
            f"{interp.name} evaluation failed in {describe(node)}: {error or type(error).__name__}"
        ) from None
    raise TypeError(f"unknown expression {node!r}")


def _run(plan: Plan, interp: Interpretation, tokens: Any, n: int, every: bool,
         releases: Mapping[int, tuple[int, ...]] | None = None) -> dict[int, Any]:
    """The dynamic pass: the one loop over ``plan.order`` that evaluates a program.

    Args:
        plan: the static pass at length ``n``.
        interp: the interpretation of the dynamic nodes.
        tokens: the input, already in ``interp``'s domain.
        n: the length.
        every: also hold every static node's value (a sequence lifted into
            ``interp``'s domain, a selection as it is), for readers of every node;
            otherwise a static value is lifted only when a dynamic node reads it.
        releases: the values to drop after each place of the order
            (:meth:`Plan.releases`), or None to keep every value.

    Returns:
        The values by node id: the dynamic nodes' not yet released, and the
        static ones held (every one when ``every``).
    """
    env: dict[int, Any] = {}
    for place, node in enumerate(plan.order):
        if plan.is_static(node):
            if every:
                static = plan.static[node.id]
                env[node.id] = interp.lift(static) if isinstance(node, SOp) else static
            continue
        env[node.id] = tokens if isinstance(node, Tokens) else _node_value(node, interp, plan, env, n)
        for done in (releases or {}).get(place, ()):
            env.pop(done, None)
    return env


def _run_once(roots: tuple[SOp, ...], interp: Interpretation, tokens: Any, n: int) -> list[Any]:
    """The two passes as one walk of the order, for a single run: each static
    node is computed exactly (:func:`_static_value`) when the walk reaches it,
    as in :func:`plan_for`, and every value, static or dynamic, is dropped after
    its last reader. Nothing is kept for a later run, and the memory is that of
    the values alive at once, not that of every static value the dynamic nodes
    read (on U at a model's size, a few million positions each)."""
    order = evaluation_order(roots, heaviest_first=True)
    plan = Plan(n, order)
    releases = last_reads(order, roots)
    env: dict[int, Any] = {}
    dynamic: set[int] = set()
    decided: dict[tuple, StaticSelection] = {}
    shared_by: dict[int, list[tuple]] = {}  # node id -> the decisions keyed by it (dropped with it)
    for place, node in enumerate(order):
        if isinstance(node, Tokens):
            env[node.id] = tokens
            dynamic.add(node.id)
        elif isinstance(node, HeadSum) or any(c.id in dynamic for c in operands(node)):
            env[node.id] = _node_value(node, interp, plan, env, n)
            dynamic.add(node.id)
        else:
            try:
                plan.static[node.id] = _static_value(node, plan, n, decided)
            except NotExactError:  # no exact value (exp of a constant): the run's interpretation
                env[node.id] = _node_value(node, interp, plan, env, n)
                dynamic.add(node.id)
            key = select_key(node)
            for operand in (key[1:] if key is not None else ()):
                if operand[0] == "node":  # no later select has this key once the operand is gone
                    shared_by.setdefault(operand[1], []).append(key)
        for done in releases.get(place, ()):
            env.pop(done, None)
            plan.static.pop(done, None)
            for key in shared_by.pop(done, ()):
                decided.pop(key, None)
    return [env[root.id] if root.id in env else interp.lift(plan.static[root.id]) for root in roots]


def evaluate_sops(roots: tuple[SOp, ...], interp: Interpretation, tokens: Any, once: bool = False) -> list[Any]:
    """The values of ``roots`` on ``tokens`` (already in ``interp``'s domain).

    Args:
        roots: the sequences wanted.
        interp: the interpretation of the run.
        tokens: the input, in ``interp``'s domain.
        once: a single run of a large program: no static plan kept for later
            runs at this length, each value dropped after its last reader
            (:func:`_run_once`); by default the static pass is cached
            (:func:`plan_for`), for the many runs of a cross-check.

    Returns:
        The value of each root.
    """
    n = interp.length(tokens)
    if once:
        return _run_once(roots, interp, tokens, n)
    plan = plan_for(roots, n, lean=True)
    env = _run(plan, interp, tokens, n, every=False, releases=plan.releases(roots))
    return [env[root.id] if root.id in env else interp.lift(plan.static[root.id]) for root in roots]


def evaluate(program: Program, interp: Interpretation, tokens: Any, once: bool = False) -> dict[str, Any]:
    """Every output of ``program`` on ``tokens`` under ``interp``, by name
    (``once``: see :func:`evaluate_sops`)."""
    roots = tuple(sop for _, sop in program.outputs)
    values = evaluate_sops(roots, interp, tokens, once)
    if getattr(interp, "propagates_undefined", False):
        for (name, _), sequence in zip(program.outputs, values):
            for p, v in enumerate(sequence):
                if isinstance(v, Undefined):
                    raise UndefinedError(f"the output {name} is {v}", output=name, position=p, value=v)
    return {name: v for (name, _), v in zip(program.outputs, values)}


def evaluate_all(program: Program, interp: Interpretation, tokens: Any) -> Mapping[int, Any]:
    """The value of every sequence node (by node id), static ones lifted.

    Used to find where a wrong construction first diverges and to draw pictures.
    """
    roots = tuple(sop for _, sop in program.outputs)
    n = interp.length(tokens)
    return _run(plan_for(roots, n), interp, tokens, n, every=True)
