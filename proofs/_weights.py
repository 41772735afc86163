"""What the proofs at the weight level share: the compiled networks, three parts, broken networks.

A weights claim takes a RASP-level statement (a construction and its target,
for every shape) and compiles the construction's program, at the shape's
sequence length, into a network (:mod:`usim.transformer`). Every shape has
three obligations, the shape followed by a part:

* part 0: the network with average-hard heads (and the softmax block's
  softmax head) equals the **target** (the formula written in sympy) at every
  position, for every real input;
* part 1: the same network equals the **RASP program** it was compiled from,
  at every position of the sequence (the program evaluated by the same
  interpretation: sympy terms, z3 terms);
* part 2: the same network under **softmax attention with masks** (every
  hard head a softmax head with zero scores and its maximisers as its mask;
  :mod:`usim.transformer.hard_to_masked`: what PyTorch runs) equals the target.

The engines treat a network like any program: its forward pass is evaluated
by the interpretations (:mod:`usim.transformer.forward`), the argmax sets
of its hard heads decided exactly per length. Broken networks
(:mod:`usim.transformer.broken`) replace part 0's network; at the other
parts, and at a shape with nothing of the broken kind, there is no variant
(the builder gives None: the report lists those shapes as unbroken, never as
refuted variants).
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Any, Callable, Mapping, Sequence

import sympy

from usim.constructions.base import Construction
from usim.constructions.universal import HDR_SCALE, HEADER, LayerSpec, build
from usim.encodings.evaluate import evaluate
from usim.encodings.layout import SequenceLayout
from usim.encodings.symbolic import SymbolicInterpretation
from usim.engine.claim import Claim, Obligation, Shape
from usim.errors import UsimError
from usim.proofs._universal import attention_formula
from usim.transformer.compiler import compile_program, compiled_construction, universal_program
from usim.transformer.hard_to_masked import hard_to_masked
from usim.transformer.model import Network

PARTS = (0, 1, 2)
SOURCES: dict[str, Callable[[Shape], Obligation]] = {}
"""Weights claim id -> its RASP-level source (what ``usim compile`` compiles)."""
BASES: dict[str, str] = {}
"""The claim a weights claim compiles (lemma3 -> lemma3_weights)."""
PART_NAMES = {0: "network = formula", 1: "network = RASP program", 2: "masked softmax network = formula"}


def program_target(source: Construction, output: str) -> Callable[[Mapping[str, sympy.Matrix]], dict]:
    """The RASP program's whole output sequence as one 1 x L block, evaluated
    symbolically on the same inputs."""
    def target(m: Mapping[str, sympy.Matrix]) -> dict:
        tokens = source.input_layout.encode({k: v for k, v in m.items()})
        values = evaluate(source.program, SymbolicInterpretation(), tokens)[output]
        return {"out": sympy.Matrix([list(values)])}
    return target


def weights_claim(claim_id: str, *, source: Callable[[Shape], Obligation],
                  shapes: Callable[[int], Sequence[Shape]],
                  mutants: Mapping[str, Callable[[Network], Network | None]],
                  base: str | None = None, **settings: Any) -> Claim:
    """A claim "for every shape, the compiled network computes what ``source``'s
    construction does" in the three parts above. ``source(shape)`` is the
    RASP-level obligation (construction, target, preconditions); ``base`` the
    claim it compiles (registered for ``usim compile``)."""
    SOURCES[claim_id] = source
    if base is not None:
        BASES[base] = claim_id

    @lru_cache(maxsize=32)
    def compiled(shape: Shape) -> tuple[Obligation, Network, Network]:
        ob = source(shape)
        network = compile_program(ob.construction.program, ob.construction.input_layout.length,
                                  outputs=[ob.output_name])
        return ob, network, hard_to_masked(network)

    def part(shape: Shape, network: Network | None = None, mutant: str | None = None) -> Obligation:
        size, k = tuple(shape[:-1]), shape[-1]
        ob, right, masked = compiled(size)
        c = ob.construction
        if k == 1:
            whole = SequenceLayout.of(("out", (1, c.input_layout.length)))
            source_c = dataclasses.replace(c, output_layout=whole)
            built = compiled_construction(source_c, network or right)
            return Obligation(claim_id, tuple(shape), built, program_target(c, ob.output_name),
                              preconditions=ob.preconditions, domain=ob.domain, values=ob.values,
                              reference=compiled_construction(source_c, right), mutant=mutant)
        correct = right if k == 0 else masked
        what = "network" if k == 0 else "masked softmax network"
        return dataclasses.replace(ob, claim_id=claim_id, shape=tuple(shape),
                                   construction=compiled_construction(c, network or correct, what),
                                   reference=compiled_construction(c, correct, what),
                                   mutant=mutant, cost_of=None)

    def obligation(shape: Shape) -> Obligation:
        if shape[-1] not in PARTS:
            raise UsimError(f"{claim_id}: the last dimension of a shape is the part (0, 1 or 2), got {shape[-1]}")
        return part(shape)

    def broken(name: str, make: Callable[[Network], Network | None]) -> Callable[[Shape], Obligation | None]:
        def build(shape: Shape) -> Obligation | None:
            if shape[-1] != 0:  # parts 1 and 2 check the unbroken network: no variant there
                return None
            network = make(compiled(tuple(shape[:-1]))[1])
            if network is None:  # nothing of that kind at this shape: the right network, no variant
                return None
            return part(shape, network, name)
        return build

    return Claim(id=claim_id, shapes=lambda n: [tuple(s) + (k,) for s in shapes(n) for k in PARTS],
                 obligation=obligation, mutants={name: broken(name, make) for name, make in mutants.items()},
                 **settings)


def universal_mutants() -> dict[str, Callable[[Network], Network | None]]:
    """The broken networks of a claim about U: two keys swapped in a transpose
    head, the sink removed from the last head whose rows can select nothing
    (every sink removed is refuted too, by sympy, but z3 cannot settle that
    within a minute: its exp is uninterpreted), an MLP weight doubled."""
    from usim.transformer import broken

    return {"wrong-score": broken.wrong_score,
            "missing-sink": lambda network: broken.without_sink(network, last_only=True),
            "wrong-mlp-weight": broken.wrong_mlp_weight}


def universal_source(claim_id: str, spec_of: Callable[[Shape], LayerSpec]) -> Callable[[Shape], Obligation]:
    """U for ``spec_of(size)`` (header n, d fixed), on U's own input
    <[n, d, c], X, T's matrices>, against attention written from the formula
    with the header's c."""
    @lru_cache(maxsize=16)
    def source(size: Shape) -> Obligation:
        spec = spec_of(tuple(size))
        u = build(spec)
        construction = Construction(f"U {spec.tag}", universal_program(u), u.input_layout, u.output_layout)
        return Obligation(claim_id, tuple(size), construction,
                          lambda m: {"Y": attention_formula(spec, m, m[HEADER][0, HDR_SCALE])})
    return source


def compile_source(claim_id: str | Claim, shape: Shape) -> Obligation:
    """The RASP-level obligation ``usim compile CLAIM --shape S`` compiles: a
    weights claim's source (by its id or the id of the claim it compiles), or
    any other claim's own obligation at the shape (a claim given as itself:
    one made outside the registry)."""
    from usim.proofs import all_claims, get

    if isinstance(claim_id, str):
        all_claims()  # registers every weights claim's source
        claim_id = BASES.get(claim_id, claim_id)
        get(claim_id)  # an unknown id is one line naming the known ones
        if claim_id in SOURCES:
            return SOURCES[claim_id](tuple(shape))
    claim = get(claim_id) if isinstance(claim_id, str) else claim_id
    if claim.is_erratum:
        raise UsimError(f"{claim.id} states a construction as published, which is refuted: compile "
                        "the corrected claim instead")
    return claim.obligation(tuple(shape))
