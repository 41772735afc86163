"""What `usim show` draws, computed once from the very program that was proved.

Nothing here draws: this module runs a claim's construction on one concrete
input and collects, for every attention head, the n x n selection it makes
(query positions x key positions), the value it moves from each key and the
value it writes at each query; and for the program, its heads layer by layer
and the element-wise steps between layers. The pictures and the page
(:mod:`usim.show.pictures`, :mod:`usim.show.page`) only render this.

The input is run in the exact interpretation (ints and Fractions, so a reader
sees 3/2 and not 1.4999999); a program with ``exp`` (softmax) has no exact
value and is run in the numeric one instead, which the page says. Every
selector is thereby concrete, whether it is decided by positions alone (the
static pass of :func:`usim.encodings.evaluate.plan_for`) or by the input's
values; the model records which.

Layers are numbered and laid out by :mod:`usim.show.diagram` (one numbering
for every view). A part of a larger program (a stage of U) is drawn beside the
layer diagram of the whole program it belongs to (:func:`whole_program`, the
one place that decides it), which is never run.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterator, Mapping, Sequence

import numpy as np
import sympy

from usim.encodings.evaluate import evaluate_all, plan_for
from usim.encodings.exact import EXACT
from usim.encodings.exact import as_exact
from usim.encodings.layout import SequenceLayout
from usim.encodings.notation import parse_values, shape_label
from usim.encodings.numeric import NumericInterpretation
from usim.encodings.selection import StaticSelection
from usim.engine.claim import Claim, Obligation, Shape
from usim.errors import EvaluationError, InputError, NotExactError, ShapeError, UsimError
from usim.rasp.cost import Cost, cost, depths
from usim.rasp.expr import Aggregate, Expr, Length, Select, SelectorWidth, Semantics
from usim.rasp.printing import expression
from usim.rasp.program import Program
from usim.show.diagram import (
    LayerDiagram,
    ShownStep,
    attention_within,
    describe_head,
    diagram_of,
    layer_diagram,
    layer_name,
    natural,
    positionwise_heads,
    short,
    steps_of,
)

NUMERIC = NumericInterpretation()
RANDOM_RANGE = (-3, 3)  # small integers read at a glance, and exact
_DRAWS = 200  # attempts to meet a claim's preconditions (det != 0) at random


@dataclass(frozen=True)
class ShownHead:
    """One attention node, as it acts on the shown input.

    ``selection[q, k]`` says whether query position q attends to key position
    k. An aggregate writes at q the mean of ``values[k]`` over the selected k
    (``default`` on an empty row under RASP semantics, the mean of every value
    under AHAT); a selector width writes the number of selected k.
    """

    node: Expr
    number: int  # 1, 2, ... in program order
    name: str
    layer: int  # the layer every picture and the page name (layer_name): length is free
    layer_with_length: int  # the count giving length a layer of its own (a count, never shown as a number)
    kind: str  # "aggregate" or "selector_width"
    selector: str  # the selector's expression, keys first
    values: str | None  # what the aggregate averages (None for a width)
    description: str  # one line: what the head gathers
    selection: np.ndarray  # (n, n) bool, [query, key]
    static: bool  # decided by positions alone, the same for every input
    moved: tuple[Any, ...] | None  # the values at each key (None for a width)
    result: tuple[Any, ...]  # what the head writes at each query
    key_values: tuple[Any, ...] | None  # a single select's keys sequence
    query_values: tuple[Any, ...] | None  # ... and its queries sequence
    keys_name: str | None
    queries_name: str | None
    read_name: str  # the sequence read at the key positions (values; a width's keys)
    reads_input: bool  # ... is computed position by position from the input (no head below it)
    writes_output: bool  # the output is computed position by position from what the head writes
    default: Any = 0
    semantics: Semantics = Semantics.RASP

    @property
    def layer_label(self) -> str:
        return layer_name(self.layer)

    @property
    def file_stem(self) -> str:
        return f"head_{self.number:02d}_L{self.layer}_{safe_name(self.name)}"


@dataclass(frozen=True)
class Model:
    """Everything drawn for one claim at one shape on one input."""

    claim: Claim
    obligation: Obligation
    shape: Shape
    n: int
    tokens: tuple[Any, ...]
    inputs_from: str  # "random (seed 0)" or "given"
    interpretation: str  # "exact" or "numeric"
    heads: tuple[ShownHead, ...]
    steps: tuple[ShownStep, ...]
    length_layer: bool  # the program reads `length`
    output: tuple[Any, ...]
    cost: Cost
    target_check: str  # what comparing the output with the claim's target found
    diagram: LayerDiagram

    @property
    def program(self) -> Program:
        return self.obligation.construction.program

    @property
    def input_layout(self) -> SequenceLayout:
        return self.obligation.construction.input_layout

    @property
    def output_layout(self) -> SequenceLayout:
        return self.obligation.construction.output_layout

    @property
    def shape_label(self) -> str:
        return shape_label(self.shape)

    @property
    def layers(self) -> int:
        return max((h.layer for h in self.heads), default=0)


def safe_name(name: str) -> str:
    """A file-name-safe form of a node name."""
    out = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)
    return out[:40] or "head"


# -- shapes and inputs -----------------------------------------------------------------


def shape_arity(claim: Claim) -> int | None:
    """How many dimensions the claim's shapes have (None if they vary)."""
    for bound in (2, 3, 4):
        arities = {len(s) for s in claim.shapes(bound)}
        if len(arities) == 1:
            return arities.pop()
        if arities:
            return None
    return None


def small_shape(claim: Claim) -> Shape:
    """The shape ``usim show`` draws when none is given: the last one of
    ``claim.shapes(2)`` (every dimension at most 2; else of a larger bound),
    unless its program has no head, as the padding lemma of U (Theorem 6's
    ``2x2x2x0``): then the first listed shape whose program has heads (stage 1
    of U, where the computation starts).

    Args:
        claim: a registered claim.

    Returns:
        The shape.
    """
    for bound in (2, 3, 4):
        shapes = [tuple(s) for s in claim.shapes(bound)]
        if shapes:
            for shape in [shapes[-1]] + shapes[:-1]:
                if _has_heads(claim, shape):
                    return shape
            return shapes[-1]
    raise UsimError(f"the claim {claim.id} lists no shape up to 4")


def _has_heads(claim: Claim, shape: Shape) -> bool:
    """Whether the claim's RASP program at ``shape`` has an attention head (a
    compiled network counts as having heads: ``usim show`` names it instead)."""
    try:
        program = claim.obligation(shape).construction.program
    except (UsimError, ValueError, TypeError, IndexError, AssertionError):
        return False
    if not isinstance(program, Program):
        return True
    return any(isinstance(node, (Aggregate, SelectorWidth)) for node in program.nodes())


def build_obligation(claim: Claim, shape: Shape) -> Obligation:
    """The claim's obligation at ``shape``, or a clear error if it does not fit."""
    arity = shape_arity(claim)
    label = shape_label(shape)
    if arity is not None and len(shape) != arity:
        example = shape_label(small_shape(claim))
        raise ShapeError(
            f"the claim {claim.id} takes shapes with {arity} dimension(s), like {example}; "
            f"got {label}"
        )
    try:
        return claim.obligation(tuple(shape))
    except UsimError:
        raise
    except (ValueError, TypeError, IndexError, AssertionError) as error:
        raise ShapeError(f"the claim {claim.id} has no construction for the shape {label}: {error}") from None


def _matrices(layout: SequenceLayout, tokens: Sequence[Any]) -> dict[str, sympy.Matrix]:
    return {
        b.name: sympy.Matrix([[sympy.nsimplify(v) if isinstance(v, float) else sympy.Rational(v)
                               for v in row] for row in layout.decode(list(tokens), b.name)])
        for b in layout.blocks
    }


def _violated(obligation: Obligation, tokens: Sequence[Any]) -> str | None:
    """The first precondition the input breaks, as text, or None."""
    if obligation.preconditions is None:
        return None
    for relation in obligation.preconditions(_matrices(obligation.construction.input_layout, tokens)):
        truth = sympy.sympify(relation)
        if truth is not sympy.true and truth is not True:
            return str(relation)
    return None


def _check_domain(obligation: Obligation, tokens: Sequence[Any]) -> None:
    for position, value in enumerate(tokens):
        if obligation.values is not None and value not in obligation.values:
            allowed = ", ".join(str(v) for v in obligation.values)
            raise InputError(f"the value {value} at position {position} is not one of the claim's values ({allowed})")
        if obligation.domain == "integer" and Fraction(value).denominator != 1:
            raise InputError(f"the claim is about integers, but position {position} holds {value}")


def given_tokens(obligation: Obligation, values: str) -> list[Any]:
    """The user's input sequence, checked against the layout, domain and preconditions."""
    layout = obligation.construction.input_layout
    tokens = [as_exact(v) for v in parse_values(values)]  # a whole number as an int
    if len(tokens) != layout.length:
        raise ShapeError(
            f"--values gives {len(tokens)} number(s), but the input has {layout.length} positions: "
            f"{layout.describe()}"
        )
    _check_domain(obligation, tokens)
    broken = _violated(obligation, tokens)
    if broken:
        raise InputError(f"the values break the claim's precondition {broken}")
    return tokens


def random_tokens(obligation: Obligation, seed: int) -> Iterator[list[Any]]:
    """Seeded random inputs that meet the claim's preconditions, best first.

    Each entry comes from the claim's finite value set when it has one, else is
    a small integer in RANDOM_RANGE; draws that break a precondition (a zero
    determinant) are skipped.
    """
    n = obligation.construction.input_layout.length
    rng = np.random.default_rng(seed)
    for _ in range(_DRAWS):
        if obligation.values is not None:
            pool = list(obligation.values)
            tokens = [pool[i] for i in rng.integers(0, len(pool), size=n)]
        else:
            tokens = [int(v) for v in rng.integers(RANDOM_RANGE[0], RANDOM_RANGE[1] + 1, size=n)]
        if _violated(obligation, tokens) is None:
            yield tokens


# -- values ----------------------------------------------------------------------------


def _sequence(value: Any, n: int) -> tuple[Any, ...]:
    """A node's value as a tuple of n plain numbers (row 0 of a numeric batch)."""
    if isinstance(value, np.ndarray):
        row = np.broadcast_to(value, (1, n)) if value.ndim == 1 else value[0]
        return tuple(bool(v) if row.dtype == bool else float(v) for v in row)
    return tuple(value)


def _matrix(value: Any, n: int) -> np.ndarray:
    if isinstance(value, StaticSelection):
        return value.dense()
    array = np.asarray(value, dtype=bool)
    if array.ndim == 3:
        array = array[0]
    return np.broadcast_to(array, (n, n)).copy()


def _evaluate(program: Program, tokens: Sequence[Any]) -> tuple[Mapping[int, Any], str]:
    try:
        return evaluate_all(program, EXACT, list(tokens)), "exact"
    except NotExactError:
        array = np.asarray([[float(t) for t in tokens]], dtype=np.float64)
        return evaluate_all(program, NUMERIC, array), "numeric"


def _target_check(obligation: Obligation, tokens: Sequence[Any], output: Sequence[Any]) -> str:
    """Compare the output with the claim's independent target on this input (shown,
    never counted as proof)."""
    try:
        expected = obligation.target(_matrices(obligation.construction.input_layout, tokens))
        layout = obligation.construction.output_layout
        worst = 0.0
        exact = True
        compared = [block for block in layout.blocks if block.name in expected]
        if not compared:
            return "could not be compared with the target: it names no block of the output layout"
        for block in compared:
            want = sympy.Matrix(expected[block.name])
            got = layout.decode(list(output), block.name)
            for i in range(block.shape.rows):
                for j in range(block.shape.cols):
                    w, g = want[i, j], got[i][j]
                    if isinstance(g, float):
                        exact = False
                        worst = max(worst, abs(float(sympy.N(w, 30)) - g))
                    elif sympy.simplify(sympy.nsimplify(w) - sympy.Rational(g)) != 0:
                        return (f"differs from the claim's target at {block.name}[{i},{j}]: "
                                f"expected {w}, got {g}")
        padding = obligation.padding
        for position, value in enumerate(layout.padding(list(output))):
            if (abs(float(value) - float(padding)) > 1e-9) if isinstance(value, float) else value != padding:
                return f"has {value} at the padding position {layout.used + position}, not {padding}"
        if exact:
            return "equals the claim's target on this input (compared exactly)"
        if worst <= 1e-9:
            return f"agrees with the claim's target on this input to within {worst:.1e} (floating point)"
        return f"differs from the claim's target on this input by up to {worst:.3g} (floating point)"
    except UsimError as error:
        return f"could not be compared with the target: {error}"
    except Exception as error:  # the comparison is a picture aid, never a verdict
        return f"could not be compared with the target ({type(error).__name__}: {error})"


# -- the model -------------------------------------------------------------------------


def build_model(claim: Claim, shape: Shape, values: str | None = None, seed: int = 0) -> Model:
    """Run the claim's construction at ``shape`` and collect what is drawn."""
    obligation = build_obligation(claim, shape)
    construction = obligation.construction
    program = construction.program
    if not isinstance(program, Program):  # a compiled network (usim.transformer)
        raise InputError(f"usim show draws RASP programs, and {claim.id}'s construction is a compiled network: "
                         f"`usim compile {claim.id} --shape S` reports it, `usim show` draws the claim it compiles")
    if values is not None:
        tokens, source = given_tokens(obligation, values), "given"
        env, interpretation = _evaluate(program, tokens)
    else:
        source = f"random (seed {seed})"
        for tokens in random_tokens(obligation, seed):
            try:
                env, interpretation = _evaluate(program, tokens)
                break
            except EvaluationError:  # e.g. a division by a zero determinant: draw again
                continue
        else:
            raise InputError(f"no random input (seed {seed}) met the claim's preconditions and "
                             f"ran without error in {_DRAWS} draws; give one with --values")
    n = len(tokens)
    roots = tuple(sop for _, sop in program.outputs)
    plan = plan_for(roots, n)
    order = program.nodes()
    plain, with_length = depths(order, False), depths(order, True)
    within = attention_within(order)
    output_root = dict(program.outputs)[obligation.output_name]
    to_output = positionwise_heads(output_root)

    heads = []
    for node in order:
        if not isinstance(node, (Aggregate, SelectorWidth)):
            continue
        selector = node.selector
        single = selector if isinstance(selector, Select) else None
        read = node.values if isinstance(node, Aggregate) else (single.keys if single is not None else None)
        heads.append(ShownHead(
            node=node,
            number=len(heads) + 1,
            name=node.name,
            layer=plain[node.id],
            layer_with_length=with_length[node.id],
            kind="aggregate" if isinstance(node, Aggregate) else "selector_width",
            selector=expression(selector)[0],
            values=expression(node.values, top=False)[0] if isinstance(node, Aggregate) else None,
            description=describe_head(node),
            selection=_matrix(env[selector.id], n),
            static=plan.is_static(selector),
            moved=_sequence(env[node.values.id], n) if isinstance(node, Aggregate) else None,
            result=_sequence(env[node.id], n),
            key_values=_sequence(env[single.keys.id], n) if single is not None else None,
            query_values=_sequence(env[single.queries.id], n) if single is not None else None,
            keys_name=short(single.keys, 30) if single is not None else None,
            queries_name=short(single.queries, 30) if single is not None else None,
            read_name=short(read, 30) if read is not None else short(selector, 30),
            reads_input=read is not None and not within[read.id],
            writes_output=node.id in to_output,
            default=node.default if isinstance(node, Aggregate) else 0,
            semantics=node.semantics if isinstance(node, Aggregate) else Semantics.RASP,
        ))

    # layer by layer, and by name within a layer (a0, a1, b0 ..., with 2 before 10)
    heads.sort(key=lambda h: (h.layer, natural(h.name), h.number))
    heads = [dataclasses.replace(h, number=i) for i, h in enumerate(heads, 1)]

    diagram = diagram_of(program, order, plan, plain, construction.input_layout.describe())
    output = _sequence(env[output_root.id], n)
    return Model(
        claim=claim,
        obligation=obligation,
        shape=tuple(shape),
        n=n,
        tokens=tuple(tokens),
        inputs_from=source,
        interpretation=interpretation,
        heads=tuple(heads),
        steps=steps_of(program, order, plain),
        length_layer=any(isinstance(node, Length) for node in order),
        output=output,
        cost=construction.cost,
        target_check=_target_check(obligation, tokens, output),
        diagram=diagram,
    )


WHOLE_PROGRAM_CLAIM = "hierarchy"  # runs a whole U (after placing a compact input), every head drawn


def whole_program_drawn_by(model: Model) -> Claim | None:
    """The claim whose ``usim show`` page draws every head of the whole program
    a shown part belongs to: WHOLE_PROGRAM_CLAIM, when its program at its small
    shape runs that very program (by name: U for the same layer at the same N).

    Args:
        model: the shown model (a part of a larger program).

    Returns:
        The claim, or None when no claim draws that whole program.
    """
    from usim.proofs import get

    whole = model.obligation.cost_of
    if whole is None:
        return None
    claim = get(WHOLE_PROGRAM_CLAIM)
    try:
        other = claim.obligation(small_shape(claim)).cost_of
    except UsimError:
        return None
    return claim if other is not None and other.name == whole.name else None


def whole_program(model: Model) -> LayerDiagram | None:
    """The diagram of the program the claim's cost is about, when the program
    shown is only a part of it (a stage of U, or its padding lemma; the
    obligation's ``cost_of`` has more layers); else None.

    Args:
        model: the shown model.

    Returns:
        The whole program's diagram, or None.
    """
    whole = model.obligation.cost_of
    if whole is None or whole is model.program or cost(whole).layers <= model.cost.layers:
        return None
    return layer_diagram(whole, model.n, "the input of the whole program")


def format_value(value: Any, digits: int = 3) -> str:
    """A value as a reader wants it: 3, -1/2, 0.731, 1 for true."""
    if isinstance(value, bool) or isinstance(value, np.bool_):
        return "1" if value else "0"
    if isinstance(value, Fraction):
        return str(value) if value.denominator != 1 else str(value.numerator)
    if isinstance(value, float):
        if value == int(value) and abs(value) < 1e6:
            return str(int(value))
        return f"{value:.{digits}g}"
    return str(value)
