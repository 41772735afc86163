"""Concrete inputs: the expected sequence, replaying a counterexample, finding one.

A candidate counterexample (from a z3 model or a random point) is only reported
after it is *replayed*: the construction is run on it again, exactly where
possible (the exact interpretation), else at 50 significant digits (the
symbolic interpretation on exact numbers, evaluated with mpmath), and compared
with the target evaluated the same way. Where the construction and target
first differ is reported, and, when the obligation carries a reference
construction, the first named sub-expression whose values differ from the
reference's. A construction whose program is a compiled network
(:mod:`usim.transformer`) is run by the network's own forward pass, and where
it diverges is the first residual dimension that differs from the right network's.
"""

from __future__ import annotations

import itertools
import random
import time
import weakref
import zlib
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np
import sympy

from usim.encodings.domain import Undefined
from usim.encodings.evaluate import evaluate_all, evaluate_sops
from usim.encodings.exact import EXACT
from usim.encodings.layout import SequenceLayout
from usim.encodings.runners import traces_at
from usim.encodings.symbolic import PointInterpretation
from usim.encodings.written import Power, written_powers
from usim.engine.claim import Counterexample, Obligation
from usim.errors import EvaluationError, NotExactError, UndefinedError
from usim.rasp.expr import SOp
from usim.rasp.printing import expression
from usim.transformer.forward import first_difference
from usim.transformer.forward import run as run_network
from usim.transformer.model import Network

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


def expected_sequence(ob: Obligation, matrices: Mapping[str, Any] | None,
                      blocks: Mapping[str, Any] | None = None) -> list[Any]:
    """The target's output blocks (computed from ``matrices``, or given) laid
    out, padding after them."""
    if blocks is None:
        blocks = ob.target({k: sympy.Matrix(v) for k, v in (matrices or {}).items()})
    layout = ob.construction.output_layout
    return layout.encode({k: sympy.Matrix(v) if not hasattr(v, "shape") else v
                          for k, v in blocks.items()}, fill=sympy.sympify(ob.padding))


_SYMBOLIC_TARGETS: dict[int, dict[str, Any]] = {}


def _memo(ob: Obligation) -> dict[str, Any]:
    """What is computed once about ``ob``'s symbolic statement (see
    :func:`symbolic_target`), kept while the obligation lives."""
    key = id(ob)
    found = _SYMBOLIC_TARGETS.get(key)
    if found is not None and found["ob"]() is ob:
        return found
    found = {"ob": weakref.ref(ob)}
    _SYMBOLIC_TARGETS[key] = found
    weakref.finalize(ob, _SYMBOLIC_TARGETS.pop, key, None)
    return found


def domain_inputs(ob: Obligation) -> Iterator[dict[str, Fraction]]:
    """Every input of ``ob``'s finite domain (entry name -> value), in order,
    padding entries left out (as many as :func:`domain_size` says: the caller bounds it)."""
    names = [n for n in entry_names(ob.construction.input_layout) if not n.startswith("padding")]
    for values in itertools.product(ob.values or (), repeat=len(names)):
        yield dict(zip(names, (Fraction(v) for v in values)))


def domain_size(ob: Obligation) -> int:
    """How many inputs ``ob``'s finite domain has."""
    names = [n for n in entry_names(ob.construction.input_layout) if not n.startswith("padding")]
    return len(ob.values or ()) ** len(names)


def tabulate(ob: Obligation) -> None:
    """Mark ``ob``'s target as evaluated at each input, never built as one
    expression (a finite domain whose target did not build in time:
    :func:`usim.engine.runner.check_obligation`); the exhaustive engine reads
    the mark (in children forked after it is set)."""
    _memo(ob)["tabulated"] = True


def untabulate(ob: Obligation) -> None:
    """Undo :func:`tabulate`: the target is built as one expression again."""
    _memo(ob).pop("tabulated", None)


def tabulated(ob: Obligation) -> bool:
    """Whether ``ob``'s target is evaluated at each input (:func:`tabulate`)."""
    return bool(_memo(ob).get("tabulated"))


def symbolic_blocks(ob: Obligation) -> Mapping[str, Any]:
    """The target's output blocks on the input's symbol matrices (computed once
    per obligation; an error of the target function is raised as it is). The
    divisions and roots written while they are built are kept too
    (:func:`written_target_powers`)."""
    memo = _memo(ob)
    if "blocks" not in memo:
        matrices = symbol_matrices(ob.construction.input_layout, ob.domain)
        with written_powers() as powers:
            blocks = ob.target({k: sympy.Matrix(v) for k, v in matrices.items()})
        memo["blocks"], memo["powers"] = blocks, frozenset(powers)
    return memo["blocks"]


def written_target_powers(ob: Obligation) -> frozenset[Power]:
    """Every division and root the target wrote as it was built on the input's
    symbols, sympy's cancellations notwithstanding (:func:`usim.encodings.written.written_powers`).

    Args:
        ob: the obligation.

    Returns:
        Its (base, exponent) pairs.
    """
    symbolic_blocks(ob)
    return _memo(ob)["powers"]


def symbolic_target(ob: Obligation) -> tuple[dict[str, list[list[sympy.Symbol]]], list[Any]]:
    """The input's symbol matrices and the target's sequence over them, computed
    once per obligation.

    Building the target of one of U's stages at n = d = 32 takes seconds of
    sympy arithmetic, and the statement's validation, its fingerprint, the float
    cross-check and every engine and check (run in children forked from the
    process that built it) read the same one. It is kept while the obligation
    lives, keyed by the obligation object itself: the same object is the same
    statement (obligations are frozen), and the symbols are sympy's cached
    symbols, the same in every call."""
    memo = _memo(ob)
    if "expected" not in memo:
        memo["expected"] = tuple(expected_sequence(ob, None, symbolic_blocks(ob)))
    matrices = symbol_matrices(ob.construction.input_layout, ob.domain)
    return matrices, list(memo["expected"])


def output_of(ob: Obligation, interp, tokens: Sequence[Any]) -> list[Any]:
    """The obligation's output sequence in ``interp``. In the exact
    interpretation an undefined position holds an :class:`Undefined` value
    (it is not raised: the caller says what an undefined position means)."""
    program = ob.construction.program
    if isinstance(program, Network):  # a compiled network: its own forward pass
        return run_network(program, interp, tokens)[ob.output_name]
    sop = dict(program.outputs)[ob.output_name]
    value = evaluate_sops((sop,), interp, tokens)[0]
    return interp.to_number(value) if sop.is_bool else value


def _matrices(layout: SequenceLayout, point: Mapping[str, Any]) -> dict[str, list[list[Any]]]:
    return {b.name: [[point[f"{b.name}[{i},{j}]"] for j in range(b.shape.cols)]
                     for i in range(b.shape.rows)] for b in layout.blocks}


def _show(x: Any) -> str:
    if isinstance(x, Undefined):
        return str(x)
    if isinstance(x, Fraction):
        return str(x)
    if isinstance(x, sympy.Basic) and not x.is_Rational:
        return str(sympy.N(x, 12))
    return str(x)


def _rational_matrices(layout: SequenceLayout, point: Mapping[str, Any]) -> dict[str, sympy.Matrix]:
    return {k: sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) for x in row] for row in v])
            for k, v in _matrices(layout, point).items()}


def preconditions_hold(ob: Obligation, point: Mapping[str, Any]) -> bool:
    """Every precondition is defined and true at ``point`` (exactly)."""
    if ob.preconditions is None:
        return True
    matrices = _rational_matrices(ob.construction.input_layout, {k: Fraction(v) for k, v in point.items()})
    try:
        relations = ob.preconditions(matrices)
        return all(sympy.sympify(r) is sympy.true for r in relations)
    except (TypeError, ValueError, ArithmeticError):  # e.g. a comparison with zoo: not met
        return False


def _undefined_number(x: sympy.Basic) -> bool:
    """A sympy value at a rational point that is not a finite real number."""
    if x is sympy.true or x is sympy.false:
        return False
    if x.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
        return True
    return x.is_extended_real is False or x.is_finite is False or x.is_real is False


@dataclass(frozen=True)
class Evaluation:
    """Construction and target at one input that meets the preconditions.

    ``got`` and ``expected`` hold, position by position, an exact value (a
    Fraction, or a sympy number evaluated to 50 digits where the exact
    interpretation has none) or an :class:`Undefined`.
    """

    tokens: tuple[Fraction, ...]
    matrices: Mapping[str, list[list[Fraction]]]
    got: tuple[Any, ...]
    expected: tuple[Any, ...]
    mode: str  # "exact" or "numeric (50 digits)"

    def undefined(self) -> tuple[int, str, Undefined] | None:
        """The first position where a side is undefined: (position, side, value)."""
        for p, (g, e) in enumerate(zip(self.got, self.expected)):
            if isinstance(g, Undefined):
                return p, "construction", g
            if isinstance(e, Undefined):
                return p, "target", e
        return None

    def differences(self) -> list[int]:
        """Positions where both sides are defined and differ."""
        out = []
        for p, (g, e) in enumerate(zip(self.got, self.expected)):
            if isinstance(g, Undefined) or isinstance(e, Undefined):
                continue
            if self.mode == "exact":
                if g != e:
                    out.append(p)
            elif abs(g - e) > sympy.Float(10) ** (-(DIGITS - 10)) * max(1, abs(e)):
                out.append(p)
        return out


def target_at(ob: Obligation, point: Mapping[str, Any]) -> list[Any]:
    """The target's sequence at ``point`` (input name -> rational), the spec
    called on rational matrices: each position a sympy number, or an
    :class:`Undefined` where the target is not a real number there."""
    layout = ob.construction.input_layout
    return _target_at(ob, layout, {k: Fraction(v) for k, v in point.items()})


def _target_at(ob: Obligation, layout: SequenceLayout, point: Mapping[str, Fraction]) -> list[Any]:
    n = layout.length
    try:
        expected = expected_sequence(ob, _rational_matrices(layout, point))
    except (TypeError, ValueError, ArithmeticError) as error:  # e.g. the inverse of a singular matrix
        return [Undefined(f"the target cannot be evaluated here: {error}", "the target")] * n
    out = []
    for e in expected:
        e = sympy.sympify(e)
        out.append(Undefined("not a real number", f"the target ({e})") if _undefined_number(e) else e)
    return out


def evaluate_at(ob: Obligation, point: Mapping[str, Any]) -> Evaluation | None:
    """Construction and target at ``point`` (input name -> rational), or None
    where a precondition does not hold."""
    layout = ob.construction.input_layout
    point = {k: Fraction(v) for k, v in point.items()}
    if not preconditions_hold(ob, point):
        return None
    matrices = _matrices(layout, point)
    tokens = layout.encode(matrices)
    expected = _target_at(ob, layout, point)
    try:
        got: list[Any] = output_of(ob, EXACT, tokens)
        if not all(isinstance(e, Undefined) or e.is_Rational for e in expected):
            raise NotExactError("the target is irrational here")
        return Evaluation(tuple(tokens), matrices, tuple(got),
                          tuple(e if isinstance(e, Undefined) else Fraction(int(e.p), int(e.q))
                                for e in expected), "exact")
    except UndefinedError as error:  # a selector over an undefined value: every output undefined
        undefined = error.value if isinstance(error.value, Undefined) else Undefined(str(error))
        return Evaluation(tuple(tokens), matrices, (undefined,) * len(tokens), tuple(expected), "exact")
    except NotExactError:
        pass
    point = PointInterpretation()
    try:
        exprs = output_of(ob, point, [sympy.Rational(t.numerator, t.denominator) for t in tokens])
    except UndefinedError as error:
        undefined = error.value if isinstance(error.value, Undefined) else Undefined(str(error))
        exprs = [undefined] * len(tokens)
    got = []
    for g in exprs:
        if isinstance(g, Undefined):
            got.append(g)
            continue
        value = sympy.N(g, DIGITS) if not isinstance(g, (bool, sympy.logic.boolalg.BooleanAtom)) else g
        got.append(Undefined("not a real number", "the construction (numeric replay)")
                   if _undefined_number(value) else value)
    expected = [e if isinstance(e, Undefined) else sympy.N(e, DIGITS) for e in expected]
    return Evaluation(tuple(tokens), matrices, tuple(got), tuple(expected), f"numeric ({DIGITS} digits)")


def _counterexample(ob: Obligation, evaluation: Evaluation, position: int, got: Any, expected: Any,
                    with_divergence: bool = True) -> Counterexample:
    out_names = entry_names(ob.construction.output_layout)
    shown_expected, shown_got = _show(expected), _show(got)
    if shown_expected == shown_got and not isinstance(got, Undefined) and not isinstance(expected, Undefined):
        # they differ past 12 digits (e.g. base 2.718281828459045 against e): show all 50
        shown_expected, shown_got = str(sympy.N(expected, DIGITS)), str(sympy.N(got, DIGITS))
    return Counterexample(
        inputs={k: [[_show(x) for x in row] for row in v] for k, v in evaluation.matrices.items()},
        position=position,
        entry=out_names[position],
        expected=shown_expected,
        got=shown_got,
        replay=evaluation.mode,
        divergence=divergence(ob, evaluation.tokens) if with_divergence else None,
    )


def _evaluation(ob: Obligation, point: Mapping[str, Any]) -> Evaluation | None:
    """evaluate_at, or None where it fails or a precondition does not hold."""
    try:
        return evaluate_at(ob, point)
    except (EvaluationError, ZeroDivisionError):
        return None


def replay(ob: Obligation, point: Mapping[str, Any]) -> Counterexample | None:
    """A confirmed counterexample to equality at ``point``: the preconditions
    hold, and at some position both sides are defined and differ. Else None."""
    evaluation = _evaluation(ob, point)
    differences = evaluation.differences() if evaluation is not None else []
    if not differences:
        return None
    p = differences[0]
    return _counterexample(ob, evaluation, p, evaluation.got[p], evaluation.expected[p])


def replay_undefined(ob: Obligation, point: Mapping[str, Any]) -> Counterexample | None:
    """A confirmed counterexample to well-definedness at ``point``: the
    preconditions hold, and the construction or the target is undefined at some
    position. Else None."""
    evaluation = _evaluation(ob, point)
    found = evaluation.undefined() if evaluation is not None else None
    if found is None:
        return None
    p = found[0]
    return _counterexample(ob, evaluation, p, evaluation.got[p], evaluation.expected[p],
                           with_divergence=False)


def recorded_point(ob: Obligation, inputs: Mapping[str, Any]) -> dict[str, Fraction] | None:
    """The input a counterexample records (block name -> rows of numbers written
    as text), as a point of ``ob``: exactly the blocks of its input layout, each
    of its shape, every entry an exact number in the statement's domain (an
    integer for an integer domain, one of the finite domain's values). None if
    it is not one: such a record refutes nothing about ``ob``.

    Args:
        ob: the obligation the counterexample is said to refute.
        inputs: :attr:`Counterexample.inputs` as recorded.

    Returns:
        The point by entry name (``A[1,2]``), or None.
    """
    layout = ob.construction.input_layout
    if not isinstance(inputs, Mapping) or set(inputs) != {b.name for b in layout.blocks}:
        return None
    allowed = None if ob.values is None else {Fraction(v) for v in ob.values}
    point = {}
    for b in layout.blocks:
        rows = inputs[b.name]
        if not (isinstance(rows, list) and len(rows) == b.shape.rows
                and all(isinstance(r, list) and len(r) == b.shape.cols for r in rows)):
            return None
        for i, row in enumerate(rows):
            for j, text in enumerate(row):
                try:
                    value = Fraction(text) if isinstance(text, str) else None
                except (ValueError, ZeroDivisionError):
                    value = None
                if value is None or (ob.domain == "integer" and value.denominator != 1) \
                        or (allowed is not None and value not in allowed):
                    return None
                point[f"{b.name}[{i},{j}]"] = value
    return point


def replayed_again(ob: Obligation, recorded: Counterexample, definedness: bool) -> Counterexample | None:
    """``recorded`` replayed on ``ob`` now: its input is run again (as
    :func:`replay`, or :func:`replay_undefined` for a counterexample to
    well-definedness) and must give the same refutation, to the letter: the
    same position and entry, the same expected and obtained values, the same
    kind of replay. Where the program first diverges from a reference is not
    compared (the reference is not part of the statement); the fresh one is
    returned.

    Args:
        ob: the obligation ``recorded`` is said to refute.
        recorded: the counterexample as it was kept (e.g. in the verdict cache).
        definedness: ``recorded`` refutes well-definedness, not equality.

    Returns:
        The counterexample as replayed now, or None if it does not replay exactly.
    """
    point = recorded_point(ob, recorded.inputs)
    if point is None:
        return None
    again = (replay_undefined if definedness else replay)(ob, point)
    if again is None or replace(again, divergence=None) != replace(recorded, divergence=None):
        return None
    return again


def divergence(ob: Obligation, tokens: Sequence[Fraction]) -> str | None:
    """The first named sequence (in evaluation order) whose values differ from
    the same-named sequence of the reference construction, at these tokens."""
    if ob.reference is None or ob.reference is ob.construction:
        return None
    program, reference = ob.construction.program, ob.reference.program
    if isinstance(program, Network) or isinstance(reference, Network):
        return first_difference(program, reference, tokens)
    (mine, theirs), close = traces_at(tokens, lambda i, t: evaluate_all(program, i, t),
                                      lambda i, t: evaluate_all(reference, i, t))
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


def search_witness(ob: Obligation, tries: int = 200, seed: int = 0,
                   confirm: Callable[[Obligation, Mapping[str, Any]], Counterexample | None] = replay,
                   until: float | None = None) -> Counterexample | None:
    """Random points until one is a confirmed counterexample (None if none is):
    to equality by default, to well-definedness with ``confirm=replay_undefined``.
    With ``until`` (a ``time.perf_counter()`` reading) the search stops there,
    after its first point: one exact replay of a large program takes seconds."""
    rng = random.Random(zlib.crc32(repr((ob.claim_id, ob.shape, ob.mutant, seed)).encode()))
    for attempt in range(tries):
        if attempt and until is not None and time.perf_counter() > until:
            return None
        found = confirm(ob, random_point(ob, rng))
        if found is not None:
            return found
    return None
