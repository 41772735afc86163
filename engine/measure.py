"""Measurements in floating point: cross-validation and deviations, never proof.

A claim's report carries, next to its proofs, the largest difference between
construction and target on random float64 inputs (a cross-check that the
numeric interpretation agrees with the exact ones), and an approximate variant
(the paper's 2.718 for e) its measured deviation. Nothing here decides a
verdict, but a number given is right: the runs are checked (float64, else long
double; an undefined value or one beyond both types' range is an error, never
left out of the maximum).
"""

from __future__ import annotations

import numpy as np
import sympy

from usim.engine.claim import Obligation
from usim.rasp.expr import Op


def numeric_deviation(ob: Obligation, seed: int = 0, batch: int = 8, scale: float = 1.0,
                      relative: bool = False) -> float:
    """Largest |construction - target| (or that over |target| with ``relative``) on
    random inputs that meet the preconditions: cross-validation and measurement
    only, never proof. Real inputs are drawn from N(0, scale^2).

    The run is checked as ``usim run`` checks one: the construction and the
    target (its terms through the same strict arithmetic,
    :func:`_evaluated`) in float64, or, where that leaves float64's range,
    in long double. A value that is undefined at an input, or beyond both
    types' range, is an error naming it, never left out of the measurement.

    Args:
        ob: the obligation (its construction, target and preconditions).
        seed: the random inputs' seed.
        batch: how many random inputs.
        scale: the inputs' standard deviation (real domains).
        relative: divide each difference by |target| (where the target is not 0).

    Returns:
        The largest deviation the run's type computed, as a float (which holds
        it: see RangeError); 0.0 when the output is empty.

    Raises:
        UndefinedError: the construction or the target is undefined (NaN) at an
            input meeting the preconditions.
        RangeError: a value leaves the range of float64 and of long double, or
            the deviation is not a float64 number (a long double beyond its range).
        UsimError: no random input meets the preconditions.
    """
    from usim.encodings.digits import significant
    from usim.encodings.runners import run_evaluator_in_range
    from usim.engine.replay import output_of, symbolic_target
    from usim.errors import RangeError, UsimError

    layout = ob.construction.input_layout
    rng = np.random.default_rng(seed)
    if ob.values is not None:
        pool = np.asarray([float(v) for v in ob.values])
        draw = lambda shape: rng.choice(pool, size=shape)  # noqa: E731
    elif ob.domain == "integer":
        draw = lambda shape: rng.integers(-9, 10, size=shape).astype(float)  # noqa: E731
    else:
        draw = lambda shape: rng.normal(scale=scale, size=shape)  # noqa: E731
    arrays = {b.name: draw((batch, b.shape.rows, b.shape.cols)) for b in layout.blocks}
    sym, expected_exprs = symbolic_target(ob)
    symbols = [s for m in sym.values() for row in m for s in row]
    columns = [arrays[b.name][:, i, j] for b in layout.blocks
               for i in range(b.shape.rows) for j in range(b.shape.cols)]
    valid = np.ones(batch, dtype=bool)
    if ob.preconditions is not None:  # only inputs the claim is about (e.g. eps > 0), and only those run
        relations = ob.preconditions({k: sympy.Matrix(v) for k, v in sym.items()})
        with np.errstate(all="ignore"):
            for relation in relations:
                holds = _lambdified([relation], symbols)(*columns)[0]
                valid &= np.broadcast_to(np.asarray(holds, dtype=bool), (batch,))
    if not valid.any():
        raise UsimError(f"none of the {batch} random inputs meets the preconditions: nothing measured")
    if not expected_exprs:
        return 0.0
    tokens = layout.encode_numeric({k: v[valid] for k, v in arrays.items()})
    columns = [c[valid] for c in columns]

    def both(interp, array):
        target = _target_values(expected_exprs, symbols, columns, interp)
        return {"construction": output_of(ob, interp, array), "target": target}

    outputs, _ = run_evaluator_in_range(both, tokens)
    got, expected = outputs["construction"], outputs["target"]
    error = np.abs(got - expected)
    if relative:
        target = np.abs(expected)
        error = np.where(target == 0, error, error / np.where(target == 0, 1, target))
    largest = np.max(error)
    as_float = float(largest)
    if largest != 0 and not np.finfo(np.float64).smallest_normal <= abs(as_float) <= np.finfo(np.float64).max:
        raise RangeError(f"the measured deviation {significant(largest)} is beyond float64's range "
                         "(the run was in long double)")
    return as_float


def _target_values(exprs: list, symbols: list, columns: list, interp) -> np.ndarray:
    """The target's values (B, P) on the inputs' columns, in ``interp``'s type and
    through its arithmetic (strict: every term's range checked); terms
    :func:`_evaluated` has no rule for (Piecewise, Mod, ...) by lambdify in
    float64, checked to be finite only."""
    from usim.encodings.numeric import RangeFault

    dtype = interp.dtype
    typed = [np.asarray(c, dtype=dtype) for c in columns]
    batch = len(columns[0]) if columns else 1
    try:
        values = _evaluated(exprs, dict(zip(symbols, typed)), interp)
    except _Unsupported:
        with np.errstate(all="ignore"):
            values = _lambdified(exprs, symbols)(*[np.asarray(c, dtype=np.float64) for c in columns])
        values = [np.asarray(v, dtype=np.float64) for v in values]
        for p, v in enumerate(values):
            if np.isinf(v).any():
                raise RangeFault(f"the target's value at position {p} overflows float64 on a random input "
                                 "(evaluated by lambdify in float64)", "overflow")
    return np.stack([np.broadcast_to(np.asarray(v, dtype=dtype), (batch,)) for v in values], axis=1)


class _Unsupported(Exception):
    """A term :func:`_evaluated` has no rule for (lambdify takes it)."""


_FOLDS = {sympy.Add: Op.ADD, sympy.Mul: Op.MUL, sympy.Max: Op.MAXIMUM, sympy.Min: Op.MINIMUM}
_UNARY = {sympy.exp: Op.EXP, sympy.Abs: Op.ABS}
_KINDS = {"overflow": "overflows", "subnormal": "is subnormal (too few digits left)",
          "underflow": "underflows to 0 from non-zero arguments", "undefined": "compares an undefined value"}


def _evaluated(exprs: list, columns: dict, interp=None) -> list:
    """The float values of ``exprs`` with each symbol's column of inputs, every
    shared sub-term once, by ``interp``'s arithmetic (the numeric
    interpretation's ``map``: a strict one checks each term's range; unchecked
    float64 by default): sums, products, powers, exp, log, abs, max and min
    (:class:`_Unsupported` for anything else). lambdify prints a term as Python
    source first, which for one of U's stages at n = d = 32 took longer than
    the stage's proofs. log is undefined (NaN) at 0 and below, as a power
    outside its domain is (:mod:`usim.encodings.domain`).

    A term that leaves the range of a strict ``interp``'s type raises its
    :class:`~usim.encodings.numeric.RangeFault`, naming the output position
    whose value needs it."""
    from usim.encodings.numeric import NumericInterpretation, RangeFault, type_name

    interp = interp if interp is not None else NumericInterpretation()
    memo: dict = {}

    def value(e):
        found = memo.get(e)
        if found is not None:
            return found
        if e.is_Symbol:
            out = columns[e]
        elif e.is_Number or e.is_NumberSymbol:
            out = interp.lift([_constant(e)])[0, 0]
        elif type(e) in _FOLDS:
            op = _FOLDS[type(e)]
            out = value(e.args[0])
            for a in e.args[1:]:
                out = interp.map(op, [out, value(a)])
        elif type(e) is sympy.Pow:
            out = interp.map(Op.POW, [value(e.base), value(e.exp)])
        elif type(e) in _UNARY:
            out = interp.map(_UNARY[type(e)], [value(e.args[0])])
        elif type(e) is sympy.log:
            x = np.asarray(value(e.args[0]))
            with np.errstate(all="ignore"):
                out = np.where(x > 0, np.log(np.where(x > 0, x, 1)), np.nan).astype(x.dtype)
        else:
            raise _Unsupported(type(e).__name__)
        memo[e] = out
        return out

    results = []
    for p, e in enumerate(exprs):
        try:
            results.append(value(sympy.sympify(e)))
        except (RecursionError, KeyError, OverflowError, TypeError) as error:  # deep, a stray symbol, zoo
            raise _Unsupported(type(error).__name__) from None
        except RangeFault as fault:  # its message's positions are the inputs': say which value needs it
            largest = "" if fault.magnitude is None else f", largest argument magnitude {fault.magnitude:.6g}"
            raise RangeFault(f"the target's value at position {p} leaves {type_name(interp.dtype)}'s range "
                             f"on a random input (a term {_KINDS.get(fault.kind, fault.kind)}{largest})",
                             fault.kind, fault.magnitude) from None
    return results


def _constant(e):
    """A sympy number as the numeric interpretation lifts one: a Rational exactly, else its float."""
    from fractions import Fraction

    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    return float(e)


def _lambdified(exprs: list, symbols: list):
    """lambdify over ``symbols`` (names like A[1,2] are no Python identifiers:
    lambdify would replace each one in turn through every expression, which is
    quadratic; they are renamed in one pass instead)."""
    plain = [sympy.Symbol(f"_x{i}") for i in range(len(symbols))]
    rename = dict(zip(symbols, plain))
    return sympy.lambdify(plain, [sympy.sympify(e).xreplace(rename) for e in exprs], modules="numpy")


def numeric_crosscheck(ob: Obligation, seed: int = 0, batch: int = 8) -> float:
    """Largest |construction - target| on random float inputs (cross-validation
    only); a :class:`~usim.errors.UsimError` where there is no right number
    (:func:`numeric_deviation`)."""
    return numeric_deviation(ob, seed, batch)
