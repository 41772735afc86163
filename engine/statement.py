"""What an obligation states, checked before any engine runs, and its fingerprint.

:func:`validate` refuses, with one line naming the problem, an obligation whose
statement is malformed, so that no engine ever compares the wrong things:

* the target's blocks must be exactly the output layout's (names and shapes),
  and the output layout must fit the program's sequence (checked when the
  Construction is built): no target entry past the sequence goes uncompared;
* the target and the preconditions hold exact numbers only: a sympy Float is
  refused (engines would each round it their own way, and sympy folds
  ``x + 2**-60 * x`` into ``1.0 * x`` before any engine sees it);
* each precondition is a relation or a Boolean combination of relations.

:func:`fingerprint` hashes the whole statement: the program's structure
(:mod:`usim.rasp.fingerprint`), the layouts, the output, the target and the
preconditions as sympy writes them (``srepr``), the domain and the padding.
A certificate records it for every obligation.
"""

from __future__ import annotations

import hashlib
from typing import Any

import sympy

from usim.engine.claim import Obligation
from usim.engine.replay import entry_names, symbolic_blocks, symbolic_target
from usim.errors import InputError, ShapeError, UsimError
from usim.rasp.fingerprint import fingerprint as program_fingerprint
from usim.transformer.model import Network


def _where(ob: Obligation) -> str:
    return f"{ob.claim_id} {ob.label}" + (f" [{ob.mutant}]" if ob.mutant else "")


def _preconditions(ob: Obligation, matrices) -> list[Any]:
    if ob.preconditions is None:
        return []
    relations = ob.preconditions({k: sympy.Matrix(v) for k, v in matrices.items()})
    out = []
    for r in relations:
        r = sympy.sympify(r)
        if not isinstance(r, sympy.logic.boolalg.Boolean):
            raise UsimError(f"{_where(ob)}: the precondition {r} is not a relation (write e.g. "
                            "sympy.Ne(det, 0))")
        out.append(r)
    return out


def validate(ob: Obligation) -> tuple[list[Any], list[Any]]:
    """Check the statement; return its symbolic target sequence and preconditions."""
    try:
        blocks = symbolic_blocks(ob)
    except UsimError:
        raise
    except Exception as error:  # the user's target function failed on the symbolic inputs
        raise UsimError(f"{_where(ob)}: the target cannot be computed: {type(error).__name__}: {error}") from None
    wanted = {b.name: (b.shape.rows, b.shape.cols) for b in ob.construction.output_layout.blocks}
    given = set(blocks) if hasattr(blocks, "keys") else set()
    if given != set(wanted):
        raise ShapeError(f"{_where(ob)}: the target gives the blocks {sorted(given)}, the output layout "
                         f"has {sorted(wanted)}")
    try:
        matrices, expected = symbolic_target(ob)
    except ShapeError as error:
        raise ShapeError(f"{_where(ob)}: {error}") from None
    names = entry_names(ob.construction.output_layout)
    for p, e in enumerate(expected):
        if isinstance(e, float) or (isinstance(e, sympy.Basic) and e.has(sympy.Float)):
            raise InputError(f"{_where(ob)}: the target at {names[p]} holds a floating-point number ({e}): "
                             "proofs are over exact numbers; write it as sympy.Rational('...')")
    preconditions = _preconditions(ob, matrices)
    for r in preconditions:
        if r.has(sympy.Float):
            raise InputError(f"{_where(ob)}: the precondition {r} holds a floating-point number: "
                             "proofs are over exact numbers; write it as sympy.Rational('...')")
    return expected, preconditions


def _construction_parts(ob: Obligation) -> list[str]:
    """What a fingerprint says of the construction: its program, output and layouts."""
    return [
        "program " + (program.fingerprint() if isinstance(program := ob.construction.program, Network)
                      else program_fingerprint(program)),
        "output " + ob.output_name,
        "input " + ob.construction.input_layout.describe() + f" length {ob.construction.input_layout.length}",
        "layout " + ob.construction.output_layout.describe(),
    ]


def fingerprint(ob: Obligation) -> str:
    """sha256 of the whole statement (validated first)."""
    expected, preconditions = validate(ob)
    parts = _construction_parts(ob) + [
        "target " + sympy.srepr(sympy.Tuple(*expected)),
        "preconditions " + sympy.srepr(sympy.Tuple(*preconditions)),
        f"domain {ob.domain} values {ob.values!r} padding {sympy.srepr(sympy.sympify(ob.padding))}",
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def table_fingerprint(ob: Obligation) -> str:
    """sha256 of a finite domain's statement as a table, for a target that is
    evaluated at each input (:func:`usim.engine.replay.tabulated`): the same
    parts as :func:`fingerprint`, the target and preconditions replaced by,
    at every input of the domain in order, whether the preconditions hold and
    the target's sequence there. On a finite domain the table is the statement.
    A float in the target is refused here too."""
    from usim.encodings.domain import Undefined
    from usim.engine.replay import domain_inputs, preconditions_hold, target_at

    if ob.values is None:
        raise UsimError(f"{_where(ob)}: a target is tabulated only on a finite domain")
    table = hashlib.sha256()
    for point in domain_inputs(ob):
        if not preconditions_hold(ob, point):
            table.update(b"-\n")
            continue
        values = target_at(ob, point)
        if any(not isinstance(v, Undefined) and sympy.sympify(v).has(sympy.Float) for v in values):
            raise UsimError(f"{_where(ob)}: the target holds a floating-point number (not exact; write it as a "
                            "Rational)")
        table.update((repr([v if isinstance(v, Undefined) else sympy.srepr(v) for v in values]) + "\n").encode())
    parts = _construction_parts(ob) + [
        "target table " + table.hexdigest(),
        f"domain {ob.domain} values {ob.values!r} padding {sympy.srepr(sympy.sympify(ob.padding))}",
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()

