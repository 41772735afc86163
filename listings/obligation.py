"""A listing's function as a construction: the spec's obligation at a shape, and its broken variants."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Mapping

from usim.constructions.base import Construction
from usim.engine.claim import Obligation, Shape
from usim.errors import UsimError
from usim.listings.plan import call_arguments
from usim.listings.spec import ListingSpec
from usim.rasp import expr as E
from usim.rasp.expr import Semantics
from usim.rasp.program import Program
from usim.repl import RaspFile

PADDING_MODES = ("zero", "any")


def obligation_for(rasp: RaspFile, function: str, spec: ListingSpec, shape: Shape,
                   parameters: Mapping[str, str], padding: str = "zero") -> Obligation:
    """The spec's obligation at ``shape`` with the listing's function as construction.

    ``padding="any"``: positions past the output blocks are not compared (the
    output is masked there to 0 before the comparison, and that is said).

    Args:
        rasp: the listing, read.
        function: its function (or an expression).
        spec: the spec.
        shape: the shape.
        parameters: the function's parameters and the dimension each stands for.
        padding: ``zero`` or ``any``.

    Returns:
        The obligation. A function that outputs symbols where the spec expects
        numbers (or the other way), or an unknown padding, is a UsimError.
    """
    statement = spec.statement(shape)
    if statement.undefined:
        raise UsimError(f"the {spec.name} spec says where the program gives no value (undefined=): only a "
                        "tracr program is checked against such a spec (usim check --tracr)")
    built = rasp.build(function, call_arguments(parameters, spec, shape))
    sop = built.sop
    if spec.reads == "symbol":
        if rasp.alphabet is None:
            raise UsimError(f"the {spec.name} spec reads symbols: load the listing with symbols")
        statement = dataclasses.replace(statement, domain="integer", values=rasp.alphabet.input_codes)
    wrote = rasp.kind_of(sop)
    if (wrote == "symbol") != (spec.writes == "symbol"):
        raise UsimError(f"{function} outputs {wrote}s, but the {spec.name} spec expects "
                        f"{'symbols' if spec.writes == 'symbol' else 'numbers'}: a symbol is never "
                        "compared with a number")
    if padding == "any" and statement.output_layout.used < statement.output_layout.length:
        sop = E.where(E.indices < statement.output_layout.used, sop, 0).named(f"{output_name(function)}_masked")
    elif padding not in PADDING_MODES:
        raise UsimError(f"padding must be one of {', '.join(PADDING_MODES)}, not {padding!r}")
    name = output_name(function)
    program = Program.of(name, {name: sop}, f"{function} from {rasp.filename}")
    construction = Construction(
        name=f"{function} ({rasp.filename}) {spec.label(shape)}",
        program=program,
        input_layout=statement.input_layout,
        output_layout=statement.output_layout,
        semantics=Semantics.RASP,
        notes=f"parsed from {rasp.filename}",
    )
    return Obligation(spec.id, tuple(shape), construction, statement.target,
                      preconditions=statement.preconditions, domain=statement.domain,
                      values=statement.values)


def output_name(function: str) -> str:
    """The program's output's name: the function's own, or ``out`` for an expression such as ``F(G())``."""
    from usim.repl import is_name

    return function if is_name(function) else "out"


def mutant_obligation(rasp: RaspFile, ob: Obligation, name: str,
                      replacements: Mapping[str, Any]) -> Obligation:
    """``ob`` with the listing's named nodes replaced: a broken variant.

    Args:
        rasp: the listing (RASP text of a replacement is read in it).
        ob: the listing's obligation at one shape.
        name: the broken variant's name.
        replacements: named node -> RASP text (in which the node's own name is
            the original node) or a Python function of the node.

    Returns:
        The broken variant's obligation (its reference the listing's construction).
    """
    from usim.rasp.rewrite import substitute

    def replacement(node_name: str, how: Any) -> Callable[[E.Expr], E.Expr]:
        if callable(how):
            return how
        if not isinstance(how, str):
            raise UsimError(f"the broken variant {name!r} replaces {node_name} by {how!r}: give RASP "
                            "text or a Python function of the node")
        return lambda node: rasp.evaluate(how, {node_name: node})

    program = ob.construction.program
    try:
        broken = substitute(program, {k: replacement(k, v) for k, v in replacements.items()},
                            name=f"{program.name}_{name}")
    except KeyError as error:
        raise UsimError(f"the broken variant {name!r}: {error.args[0]}") from None
    construction = dataclasses.replace(ob.construction, name=f"{ob.construction.name} [{name}]",
                                       program=broken)
    return dataclasses.replace(ob, construction=construction, mutant=name, reference=ob.construction)
