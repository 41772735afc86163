"""Concrete inputs: the expected sequence, replaying a counterexample, finding one.

A candidate counterexample (from a z3 model or a random point) is only reported
after it is *replayed*: the construction is run on it again, exactly where
possible (the exact interpretation), else at 50 significant digits (the
symbolic interpretation on exact numbers, evaluated with mpmath), and compared
with the target evaluated the same way. Where the construction and target
first differ is reported, and, when the obligation carries a reference
construction, the first named sub-expression whose values differ from the
reference's.
"""

from __future__ import annotations

import random
import zlib
from fractions import Fraction
from typing import Any, Mapping, Sequence

import numpy as np
import sympy

from usim.encodings.evaluate import EXACT, evaluate, evaluate_all
from usim.encodings.layout import SequenceLayout
from usim.encodings.numeric import NumericInterpretation
from usim.encodings.symbolic import SymbolicInterpretation
from usim.engine.claim import Counterexample, Obligation
from usim.errors import EvaluationError, NotExactError
from usim.rasp.expr import SOp
from usim.rasp.printing import expression

DIGITS = 50


def entry_names(layout: SequenceLayout) -> list[str]:
    """The name of each input position, e.g. ``A[1,2]``, in layout order."""
    names = [f"padding[{p}]" for p in range(layout.length)]
    for b in layout.blocks:
        for i in range(b.shape.rows):
            for j in range(b.shape.cols):
                names[b.position(i, j)] = f"{b.name}[{i},{j}]"
    return names


def symbol_matrices(layout: SequenceLayout, domain: str = "real") -> dict[str, list[list[sympy.Symbol]]]:
    kw = {"integer": True} if domain == "integer" else {"real": True}
    return layout.symbols(lambda name: sympy.Symbol(name, **kw))


def expected_sequence(ob: Obligation, matrices: Mapping[str, Any]) -> list[Any]:
    """The target's output blocks laid out, padding after them."""
    sympy_matrices = {k: sympy.Matrix(v) for k, v in matrices.items()}
    blocks = ob.target(sympy_matrices)
    layout = ob.construction.output_layout
    return layout.encode({k: sympy.Matrix(v) if not hasattr(v, "shape") else v
                          for k, v in blocks.items()}, fill=sympy.sympify(ob.padding))


def output_of(ob: Obligation, interp, tokens: Sequence[Any]) -> list[Any]:
    outputs = evaluate(ob.construction.program, interp, tokens)
    sop = dict(ob.construction.program.outputs)[ob.output_name]
    value = outputs[ob.output_name]
    return interp.to_number(value) if sop.is_bool else value


def _matrices(layout: SequenceLayout, point: Mapping[str, Any]) -> dict[str, list[list[Any]]]:
    return {b.name: [[point[f"{b.name}[{i},{j}]"] for j in range(b.shape.cols)]
                     for i in range(b.shape.rows)] for b in layout.blocks}


def _show(x: Any) -> str:
    if isinstance(x, Fraction):
        return str(x)
    if isinstance(x, sympy.Basic) and not x.is_Rational:
        return str(sympy.N(x, 12))
    return str(x)


def preconditions_hold(ob: Obligation, point: Mapping[str, Any]) -> bool:
    if ob.preconditions is None:
        return True
    matrices = {k: sympy.Matrix([[sympy.Rational(x) for x in row] for row in v])
                for k, v in _matrices(ob.construction.input_layout, point).items()}
    for relation in ob.preconditions(matrices):
        if sympy.sympify(relation) is not sympy.true:
            return False
    return True


def replay(ob: Obligation, point: Mapping[str, Any]) -> Counterexample | None:
    """A confirmed counterexample at ``point`` (input name -> rational), or None."""
    layout = ob.construction.input_layout
    point = {k: Fraction(v) for k, v in point.items()}
    if not preconditions_hold(ob, point):
        return None
    matrices = _matrices(layout, point)
    tokens = layout.encode(matrices)
    expected = [sympy.nsimplify(e) if isinstance(e, float) else sympy.sympify(e)
                for e in expected_sequence(ob, {k: [[sympy.Rational(x) for x in r] for r in v]
                                                for k, v in matrices.items()})]
    mode = "exact"
    try:
        got: list[Any] = output_of(ob, EXACT, tokens)
        if not all(e.is_Rational for e in expected):
            raise NotExactError("the target is irrational here")
        differs = [Fraction(int(e.p), int(e.q)) != Fraction(g) for g, e in zip(got, expected)]
    except NotExactError:
        mode = f"numeric ({DIGITS} digits)"
        symbolic = SymbolicInterpretation()
        try:
            got_exprs = output_of(ob, symbolic, [sympy.Rational(t.numerator, t.denominator) for t in tokens])
        except EvaluationError:
            return None
        got = [sympy.N(g, DIGITS) for g in got_exprs]
        expected = [sympy.N(e, DIGITS) for e in expected]
        differs = []
        for g, e in zip(got, expected):
            if not (g.is_real and e.is_real):
                differs.append(True)
                continue
            differs.append(abs(g - e) > sympy.Float(10) ** (-(DIGITS - 10)) * max(1, abs(e)))
    except (EvaluationError, ZeroDivisionError):
        return None
    if not any(differs):
        return None
    position = differs.index(True)
    out_names = entry_names(ob.construction.output_layout)
    return Counterexample(
        inputs={k: [[_show(x) for x in row] for row in v] for k, v in matrices.items()},
        position=position,
        entry=out_names[position],
        expected=_show(expected[position]),
        got=_show(got[position]),
        replay=mode,
        divergence=divergence(ob, tokens),
    )


def divergence(ob: Obligation, tokens: Sequence[Fraction]) -> str | None:
    """The first named sequence (in evaluation order) whose values differ from
    the same-named sequence of the reference construction, at these tokens."""
    if ob.reference is None or ob.reference is ob.construction:
        return None
    program, reference = ob.construction.program, ob.reference.program
    try:
        mine, theirs = evaluate_all(program, EXACT, list(tokens)), evaluate_all(reference, EXACT, list(tokens))
        close = lambda a, b: a == b  # noqa: E731
    except (NotExactError, EvaluationError, ZeroDivisionError):
        numeric = NumericInterpretation()
        array = np.asarray([[float(t) for t in tokens]])
        mine, theirs = evaluate_all(program, numeric, array), evaluate_all(reference, numeric, array)
        close = lambda a, b: bool(np.allclose(a, b, rtol=1e-9, atol=1e-12))  # noqa: E731
    by_name = {n.name: n for n in reference.nodes() if isinstance(n, SOp) and n.has_name}
    for node in program.nodes():
        if not (isinstance(node, SOp) and node.has_name and node.name in by_name):
            continue
        a = np.asarray(mine[node.id], dtype=object).reshape(-1)
        b = np.asarray(theirs[by_name[node.name].id], dtype=object).reshape(-1)
        if a.shape != b.shape:
            continue
        for p, (x, y) in enumerate(zip(a, b)):
            if not close(x, y):
                text = expression(node)[0]
                return (f"{node.name} = {text} (position {p}: the correct construction has "
                        f"{_show(y)}, this one {_show(x)})")
    return None


def random_point(ob: Obligation, rng: random.Random) -> dict[str, Fraction]:
    """A random input: small integers, fractions and larger integers mixed."""
    point = {}
    for name in entry_names(ob.construction.input_layout):
        if name.startswith("padding"):
            continue
        if ob.values is not None:
            point[name] = Fraction(rng.choice(ob.values))
            continue
        kind = rng.random()
        if kind < 0.4:
            value = Fraction(rng.randint(-3, 3))
        elif kind < 0.7 or ob.domain == "integer":
            value = Fraction(rng.randint(-50, 50))
        else:
            value = Fraction(rng.randint(-20, 20), rng.randint(1, 7))
        point[name] = value
    return point


def search_witness(ob: Obligation, tries: int = 200, seed: int = 0) -> Counterexample | None:
    """Random points until one is a confirmed counterexample (None if none is)."""
    rng = random.Random(zlib.crc32(repr((ob.claim_id, ob.shape, ob.mutant, seed)).encode()))
    for _ in range(tries):
        found = replay(ob, random_point(ob, rng))
        if found is not None:
            return found
    return None
