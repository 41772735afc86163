"""The compiler: a RASP program and a sequence length to a network.

    compile_program(program, n) = circuit_to_network(rasp_to_circuit(program, n))

One pass per module, named source_to_target as Tracr names them:
:mod:`usim.transformer.rasp_to_circuit` (known values, demand, realisation
of every node as forms, heads and MLP units) and
:mod:`usim.transformer.circuit_to_network` (layers, head scores, weights).
:mod:`usim.transformer.hard_to_masked` turns the result into the same
network under softmax attention with masks (what PyTorch runs).

A network is compiled for one length n (as U is built for its bounds): what
depends on positions alone is decided exactly at that length and becomes
weights on the one-hot position code.

Example: Lemma 3's program compiled for n = 6 is one layer with one head; run
exactly, the network and its masked softmax form both output M^T.

>>> from usim.constructions.transpose import transpose_program
>>> from usim.encodings import ExactInterpretation
>>> from usim.transformer.forward import run
>>> from usim.transformer.hard_to_masked import hard_to_masked
>>> network = compile_program(transpose_program(2), 6)
>>> network.name, [[head.name for head in layer.heads] for layer in network.layers]
('transpose_r2@n6', [['transpose']])
>>> run(network, ExactInterpretation(), [1, 2, 3, 4, 5, 6])
{'transpose': [1, 4, 2, 5, 3, 6]}
>>> run(hard_to_masked(network), ExactInterpretation(), [1, 2, 3, 4, 5, 6])
{'transpose': [1, 4, 2, 5, 3, 6]}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from usim.constructions.base import Construction
from usim.constructions.routing import fix
from usim.constructions.universal import Universal
from usim.rasp.expr import tokens
from usim.rasp.cost import Cost
from usim.rasp.program import Program
from usim.transformer.circuit_to_network import circuit_to_network
from usim.transformer.model import Network
from usim.transformer.rasp_to_circuit import rasp_to_circuit

MAX_POSITIONS = 1024
"""The longest sequence usim builds a network for (usim compile, usim simulate --compiled)."""
CHECKED_POSITIONS = 256
"""Up to this length the maximisers of every head are re-decided exactly when compiling."""


def compile_program(program: Program, n: int, *, outputs: Sequence[str] | None = None,
                    name: str | None = None, check: bool = True) -> Network:
    """The network computing ``program`` (its ``outputs``, default all) on
    sequences of length ``n``; ``check`` decides every hard head's maximisers
    exactly and compares them with the selection it realises.

    Args:
        program: the RASP program.
        n: the sequence length the network is built for.
        outputs: the names of the outputs compiled; None: every output.
        name: the network's name; None: the program's and n
            (``transpose_r2@n6``).
        check: whether to re-decide every hard head's maximisers from its
            weights (a mismatch is a compiler bug: AssertionError).

    Returns:
        The network: :func:`circuit_to_network` of :func:`rasp_to_circuit`
        (see the module's example).

    Raises:
        CompileError: n < 1, no output of that name, or a node the compiler
            cannot realise.
    """
    return circuit_to_network(rasp_to_circuit(program, n, outputs), name, check)


@dataclass(frozen=True, eq=False)
class CompiledConstruction(Construction):
    """A construction whose program is a compiled :class:`Network`: it reads and
    writes the layouts of the RASP construction it was compiled from, and has its
    empty-row rule (the network computes what that program computes)."""

    @property
    def cost(self) -> Cost:
        return self.program.cost


def compiled_construction(source: Construction, network: Network, what: str = "network") -> CompiledConstruction:
    """A compiled network in the place of the construction it was compiled from.

    Args:
        source: the RASP construction (its name, layouts and notes are kept).
        network: the network compiled from ``source``'s program.
        what: the tag added to the name (``"network"``, ``"masked"``).

    Returns:
        The construction ``source.name [what]`` whose program is ``network``,
        under the semantics ``"network"``.
    """
    return CompiledConstruction(f"{source.name} [{what}]", network, source.input_layout,  # type: ignore[arg-type]
                                source.output_layout, source.semantics, source.notes)


def universal_program(u: Universal) -> Program:
    """U with its header's n and d set to U's bounds: U for exactly these sizes
    (as U's stage proofs fix them). The header's c is still read from the input.

    Args:
        u: U (:func:`usim.constructions.universal.build`).

    Returns:
        The program with one output, ``Y``, named ``{U's program}_fixed``.
    """
    return Program.of(f"{u.program.name}_fixed", {"Y": u.apply(fix(tokens, u.header(u.spec.n, u.spec.d)))},
                      f"U for {u.spec.tag}, its header's n and d fixed to the bounds")


def compile_universal(u: Universal, check: bool = True) -> Network:
    """U (header n, d fixed) compiled for its sequence length.

    Args:
        u: U (:func:`usim.constructions.universal.build`).
        check: as in :func:`compile_program`.

    Returns:
        The network ``U[tag]`` for sequences of U's length.

    >>> from usim.constructions.universal import build, spec_for
    >>> u = build(spec_for({"X": (2, 1), "A": (1, 1), "V": (1, 1)}))
    >>> network = compile_universal(u)
    >>> network.name, len(network.layers), network.n == u.length
    ('U[merged_n2_d1_h1_dv1]', 10, True)
    """
    return compile_program(universal_program(u), u.length, name=f"U[{u.spec.tag}]", check=check)
