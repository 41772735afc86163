"""Measurements in floating point: cross-validation and deviations, never proof.

A claim's report carries, next to its proofs, the largest difference between
construction and target on random float64 inputs (a cross-check that the
numeric interpretation agrees with the exact ones), and an approximate variant
(the paper's 2.718 for e) its measured deviation. Nothing here decides a
verdict.
"""

from __future__ import annotations

import numpy as np
import sympy

from usim.engine.claim import Obligation


def numeric_deviation(ob: Obligation, seed: int = 0, batch: int = 8, scale: float = 1.0,
                      relative: bool = False) -> float:
    """Largest |construction - target| (or that over |target| with ``relative``) on
    random float64 inputs that meet the preconditions: cross-validation and
    measurement only, never proof. Real inputs are drawn from N(0, scale^2)."""
    from usim.encodings.numeric import NumericInterpretation
    from usim.engine.replay import output_of, symbolic_target

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
    tokens = layout.encode_numeric(arrays)
    sym, expected_exprs = symbolic_target(ob)
    symbols = [s for m in sym.values() for row in m for s in row]
    columns = [arrays[b.name][:, i, j] for b in layout.blocks
               for i in range(b.shape.rows) for j in range(b.shape.cols)]
    with np.errstate(all="ignore"):
        got = np.broadcast_to(np.asarray(output_of(ob, NumericInterpretation(), tokens), dtype=float),
                              tokens.shape)
        try:
            values = _evaluated(expected_exprs, dict(zip(symbols, columns)))
        except _Unsupported:
            values = _lambdified(expected_exprs, symbols)(*columns)
        expected = np.stack([np.broadcast_to(np.asarray(v, dtype=float), (batch,)) for v in values], axis=1)
        valid = np.ones(batch, dtype=bool)
        if ob.preconditions is not None:  # only inputs the claim is about (e.g. eps > 0)
            relations = ob.preconditions({k: sympy.Matrix(v) for k, v in sym.items()})
            for relation in relations:
                holds = _lambdified([relation], symbols)(*columns)[0]
                valid &= np.broadcast_to(np.asarray(holds, dtype=bool), (batch,))
        if not valid.any() or not got.size:
            return 0.0
        error = np.abs(got[valid] - expected[valid])
        if relative:
            target = np.abs(expected[valid])
            error = np.where(target == 0, error, error / np.maximum(target, 1e-300))
        return float(np.nanmax(error))


class _Unsupported(Exception):
    """A term :func:`_evaluated` has no numpy rule for (lambdify takes it)."""


_FOLDS = {sympy.Add: np.add, sympy.Mul: np.multiply, sympy.Max: np.maximum, sympy.Min: np.minimum}
_UNARY = {sympy.exp: np.exp, sympy.log: np.log, sympy.Abs: np.abs}


def _evaluated(exprs: list, columns: dict) -> list:
    """The float values of ``exprs`` with each symbol's column of inputs, every
    shared sub-term once: sums, products, powers, exp, log, abs, max and min
    (:class:`_Unsupported` for anything else). lambdify prints a term as Python
    source first, which for one of U's stages at n = d = 32 took longer than
    the stage's proofs."""
    memo: dict = {}

    def value(e):
        found = memo.get(e)
        if found is not None:
            return found
        if e.is_Symbol:
            out = columns[e]
        elif e.is_Number or e.is_NumberSymbol:
            out = np.float64(float(e))
        elif type(e) in _FOLDS:
            fold = _FOLDS[type(e)]
            out = value(e.args[0])
            for a in e.args[1:]:
                out = fold(out, value(a))
        elif type(e) is sympy.Pow:
            out = np.power(value(e.base), value(e.exp))
        elif type(e) in _UNARY:
            out = _UNARY[type(e)](value(e.args[0]))
        else:
            raise _Unsupported(type(e).__name__)
        memo[e] = out
        return out

    try:
        return [value(sympy.sympify(e)) for e in exprs]
    except (RecursionError, KeyError, OverflowError, TypeError) as error:  # deep, a stray symbol, zoo
        raise _Unsupported(type(error).__name__) from None


def _lambdified(exprs: list, symbols: list):
    """lambdify over ``symbols`` (names like A[1,2] are no Python identifiers:
    lambdify would replace each one in turn through every expression, which is
    quadratic; they are renamed in one pass instead)."""
    plain = [sympy.Symbol(f"_x{i}") for i in range(len(symbols))]
    rename = dict(zip(symbols, plain))
    return sympy.lambdify(plain, [sympy.sympify(e).xreplace(rename) for e in exprs], modules="numpy")


def numeric_crosscheck(ob: Obligation, seed: int = 0, batch: int = 8) -> float:
    """Largest |construction - target| on random float inputs (cross-validation only)."""
    return numeric_deviation(ob, seed, batch)
