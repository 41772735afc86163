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
    exactly and compares them with the selection it realises."""
    return circuit_to_network(rasp_to_circuit(program, n, outputs), name, check)


@dataclass(frozen=True, eq=False)
class CompiledConstruction(Construction):
    """A construction whose program is a compiled :class:`Network`: it reads and
    writes the layouts of the RASP construction it was compiled from."""

    @property
    def cost(self) -> Cost:
        return self.program.cost


def compiled_construction(source: Construction, network: Network, what: str = "network") -> CompiledConstruction:
    return CompiledConstruction(f"{source.name} [{what}]", network, source.input_layout,  # type: ignore[arg-type]
                                source.output_layout, "network", source.notes)


def universal_program(u: Universal) -> Program:
    """U with its header's n and d set to U's bounds: U for exactly these sizes
    (as U's stage proofs fix them). The header's c is still read from the input."""
    return Program.of(f"{u.program.name}_fixed", {"Y": u.apply(fix(tokens, u.header(u.spec.n, u.spec.d)))},
                      f"U for {u.spec.tag}, its header's n and d fixed to the bounds")


def compile_universal(u: Universal, check: bool = True) -> Network:
    """U (header n, d fixed) compiled for its sequence length."""
    return compile_program(universal_program(u), u.length, name=f"U[{u.spec.tag}]", check=check)
