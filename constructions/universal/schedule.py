"""From a route to ONE program: stages, workspaces, and U.

Steps are grouped into stages by dependency depth: stage k holds every step
whose operands are ready after stage k-1, computed side by side (a step the
table marks ``routed``, a concatenation, is assembled by the routing of the
stage that makes its last operand). Each stage reads a *workspace* W_k (a
:class:`SequenceLayout`: which block sits where) and writes W_{k+1}:

    W_{k+1} = route(step results of stage k, W_k)  (one gather head per source)

holding exactly the blocks still needed later (and the header). Blocks the
table marks ``at_zero`` (products, transposes) are written from position 0;
the others in place. U is

    U = stage_m o ... o stage_1,   each stage_k a function of ONE sequence,

so every stage can be proved on its own, on fresh symbols for its workspace
(:mod:`usim.proofs._universal`). The sequence is as long as the longest
workspace or block needs.

Example: U for one merged head with n = 2, d = 1, run numerically on
X = [1, 2]^T, A = [0.5], V = [3] (c = 1), against numpy's
softmax(c X A X^T) X V.

>>> import numpy as np
>>> from usim.constructions.universal.embed import embed_arrays
>>> from usim.constructions.universal.spec import spec_for
>>> from usim.encodings import run_numeric
>>> spec = spec_for({"X": (2, 1), "A": (1, 1), "V": (1, 1)})
>>> u = build(spec)
>>> u.length, len(u.stages)
(9, 4)
>>> X, A, V = np.array([[1.0], [2.0]]), np.array([[0.5]]), np.array([[3.0]])
>>> sequence = embed_arrays(u, spec, {"X": X, "A": A, "V": V}, scale=1.0)
>>> Y = u.output_layout.decode_numeric(run_numeric(u.program, sequence)["Y"])[0]
>>> S = X @ A @ X.T
>>> bool(np.allclose(Y, np.exp(S) / np.exp(S).sum(axis=1, keepdims=True) @ X @ V))
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from usim.constructions.routing import Part, Piece, route
from usim.constructions.universal.kinds import STEP_KINDS, Step, StepKind
from usim.constructions.universal.route import Route, route_of
from usim.constructions.universal.spec import HDR_D, HDR_N, HEADER, LayerSpec
from usim.encodings.families import unsupported_families
from usim.encodings.layout import SequenceLayout
from usim.rasp.cost import Cost, cost, family_heads_per_layer
from usim.rasp.expr import SOp, next_id, tokens
from usim.rasp.family import keeping_families, largest, same_size
from usim.rasp.program import Program


@dataclass(frozen=True, eq=False)
class Stage:
    """Steps computed side by side on workspace ``input``, routed into ``output``,
    each by its kind's block in ``kinds``."""

    index: int
    steps: tuple[Step, ...]
    input: SequenceLayout
    output: SequenceLayout
    pieces: Mapping[str, tuple[Piece, ...]] = field(default_factory=dict)
    kinds: Mapping[str, StepKind] = field(default_factory=lambda: STEP_KINDS)

    def apply(self, values: SOp) -> SOp:
        parts = []
        for st in self.steps:
            first = next_id()  # every node the block makes has an id from here on
            part = self.kinds[st.kind].block(st, values, self.input)
            _prefix(part.sop, f"s{self.index}.{st.out}", first)
            parts.append(part)
        parts.append(Part(values, self.input))
        return route(parts, self.output, self.pieces, name=f"s{self.index}.route")

    def program(self) -> Program:
        return Program.of(f"stage{self.index}", {"W": self.apply(tokens)},
                          f"stage {self.index}: " + "; ".join(s.describe(self.kinds) for s in self.steps))


def _prefix(root: SOp, prefix: str, first: int) -> None:
    """Prefix the names of the nodes a block made (ids from ``first`` on: unique
    names for mutants), without walking the graph the block read."""
    stack, seen = [root], set()
    while stack:
        node = stack.pop()
        if node.id < first or node.id in seen:
            continue
        seen.add(node.id)
        if node.has_name and not node.name.startswith(prefix + "."):
            node.named(f"{prefix}.{node.name}")
        stack.extend(node.children())


@dataclass(frozen=True, eq=False)
class Universal:
    """U for a :class:`LayerSpec`: its route, stages, layouts and the one program."""

    spec: LayerSpec
    steps: tuple[Step, ...]
    shapes: Mapping[str, tuple[int, int]]
    stages: tuple[Stage, ...]
    input_layout: SequenceLayout
    output_layout: SequenceLayout
    kinds: Mapping[str, StepKind] = field(default_factory=lambda: STEP_KINDS)

    @property
    def length(self) -> int:
        return self.input_layout.length

    @property
    def layouts(self) -> tuple[SequenceLayout, ...]:
        """W_1 (the input), W_2, ..., the output."""
        return (self.input_layout,) + tuple(s.output for s in self.stages)

    def apply(self, values: SOp) -> SOp:
        w = values
        for stage in self.stages:
            w = stage.apply(w)
        return w.named("Y")

    @property
    def program(self) -> Program:
        cached = self.__dict__.get("_program")
        if cached is None:
            cached = Program.of(f"universal_{self.spec.tag}", {"Y": self.apply(tokens)},
                                f"U for {self.spec.tag}: T(X) from <hdr, X, T's matrices>")
            object.__setattr__(self, "_program", cached)
        return cached

    @property
    def family_program(self) -> Program:
        """:attr:`program` with each block's product and row heads kept as one
        family node (:func:`usim.rasp.family.keeping_families`): the same
        program (its instance at no dimensions is :attr:`program` node for node),
        which a numeric run evaluates family by family (``usim simulate``)."""
        cached = self.__dict__.get("_family_program")
        if cached is None:
            with keeping_families():
                cached = Program.of(f"universal_{self.spec.tag}", {"Y": self.apply(tokens)},
                                    f"U for {self.spec.tag}: T(X) from <hdr, X, T's matrices>")
            object.__setattr__(self, "_family_program", cached)
        return cached

    @property
    def runnable_program(self) -> Program:
        """What a numeric run of U evaluates: :attr:`family_program` where every
        family in it can be evaluated as arrays (U's own blocks), else
        :attr:`program` (a table of step kinds whose blocks make other families)."""
        family = self.family_program
        return family if unsupported_families(family) is None else self.program

    @property
    def heads_per_layer(self) -> tuple[int, ...]:
        """U's heads at each attention layer, counted over its head families
        (:func:`usim.rasp.cost.family_heads_per_layer`: what :attr:`cost` counts,
        without making every head)."""
        return family_heads_per_layer(self.family_program)

    @property
    def cost(self) -> Cost:
        return cost(self.program)

    def header(self, n: int, d: int) -> dict[int, int]:
        """Positions of the header's n and d, with their values (for :func:`fix`)."""
        o = self.input_layout.block(HEADER).offset
        return {o + HDR_N: n, o + HDR_D: d}


def shapes_of(spec: LayerSpec, steps: Sequence[Step], kinds: Mapping[str, StepKind]) -> dict[str, tuple[int, int]]:
    """The shape of every block: T's parameters and each step's result.

    Args:
        spec: the layer's bounds and parts (its parameters' shapes).
        steps: the route's steps, in data-flow order.
        kinds: the step kinds (each gives its result's shape from its
            operands').

    Returns:
        Block name -> (rows, cols).
    """
    shapes = dict(spec.parameter_shapes())
    for st in steps:
        shapes[st.out] = kinds[st.kind].result_shape(st, [shapes[a] for a in st.args])
    return shapes


def build(spec: LayerSpec, route_: Route | None = None, kinds: Mapping[str, StepKind] = STEP_KINDS) -> Universal:
    """Schedule the route's steps (default: the LayerSpec's own route) into stages, lay
    out every workspace, size the sequence.

    Args:
        spec: the bounds U is built for and the parts T has.
        route_: the steps to schedule; None: :func:`route_of` ``spec``.
        kinds: the table of step kinds (:data:`STEP_KINDS`; a test passes one
            with a toy kind).

    Returns:
        U: its stages, workspaces, layouts and its one program
        (``Universal.program``); see the module's example.
    """
    route_ = route_ or route_of(spec)
    steps = list(route_.steps)
    shapes = shapes_of(spec, steps, kinds)
    level: dict[str, int] = {name: 0 for name, _ in spec.parameter_shapes()}
    level[HEADER] = 0
    for st in steps:
        top = max(level[a] for a in st.args)
        level[st.out] = top if kinds[st.kind].routed else top + 1
    depth = max(level[st.out] for st in steps)
    result = route_.result

    def live_after(k: int) -> list[str]:
        """The blocks stage k must leave in its output workspace."""
        if k == depth:
            return [result]
        wanted: list[str] = []
        for st in steps:
            if level[st.out] > k:
                for a in st.args:
                    if level[a] <= k and a not in wanted:
                        wanted.append(a)
                if kinds[st.kind].reads_header and HEADER not in wanted:
                    wanted.append(HEADER)
        return wanted

    def layout_of(names: list[str], length: int | None) -> SequenceLayout:
        # the header first when it is there, then blocks made at offset 0 by this stage
        return SequenceLayout.of(*[(nm, (1, 3) if nm == HEADER else shapes[nm]) for nm in names],
                                 length=length)

    names_per_layout = [[HEADER] + [name for name, _ in spec.parameter_shapes()]]
    for k in range(1, depth + 1):
        live = live_after(k)
        made_at_zero = [st.out for st in steps if level[st.out] == k and kinds[st.kind].at_zero
                        and st.out in live]
        names_per_layout.append(made_at_zero[:1] + [x for x in live if x not in made_at_zero[:1]])
    room = [] if same_size(route_.room, 0) else [layout_of(names_per_layout[0], None).used + route_.room]
    length = largest(*room, *[layout_of(names, None).used for names in names_per_layout],
                     *[kinds[st.kind].length([shapes[a] for a in st.args], shapes[st.out]) for st in steps])
    layouts = [layout_of(names, length) for names in names_per_layout]
    if not same_size(layouts[-1].blocks[0].offset, 0):  # pragma: no cover - the result is the only block
        raise AssertionError("U's result must sit at position 0")
    stages = []
    for k in range(1, depth + 1):
        mine = tuple(st for st in steps if level[st.out] == k and not kinds[st.kind].routed)
        pieces = {}
        for st in steps:
            if kinds[st.kind].routed and level[st.out] == k:
                col, ps = 0, []
                for a in st.args:
                    ps.append(Piece(a, col=col))
                    col += shapes[a][1]
                pieces[st.out] = tuple(ps)
        stages.append(Stage(k, mine, layouts[k - 1], layouts[k], pieces, kinds))
    output = SequenceLayout.of(("Y", shapes[result]), length=length)
    return Universal(spec, tuple(steps), shapes, tuple(stages), layouts[0], output, kinds)
