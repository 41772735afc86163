"""What is checked of a listing besides its obligation: the interpretations' cross-check, its powers, its deviation from exp.

At each shape the program is interpreted under every interpretation at one
random rational input, and they are compared (cross-validation, exactly: a
rational result is compared as a rational); powers are flagged (``b ^ x`` with
a constant base is a power, never exp; ``length ^ 0.5`` is exact only at
perfect squares), and for a spec that asks for exp the deviation is measured
on random inputs. None of it is proof: the obligation is
(:mod:`usim.listings.check`).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any, Sequence

import numpy as np
import sympy

from usim.encodings.digits import exact as exact_value, significant
from usim.engine.claim import Obligation
from usim.errors import NotExactError, UsimError
from usim.listings.plan import depends_on_tokens
from usim.listings.spec import ListingSpec
from usim.rasp import expr as E
from usim.rasp.program import Program


def _close(a: Any, b: Any) -> bool:
    """|a - b| <= 1e-9 max(1, |b|) for a numeric value of any width (taken exactly)
    against an exact reference (a Fraction: exactly) or a 30-digit one (mpmath)."""
    import mpmath

    try:
        value = exact_value(a)
    except (TypeError, ValueError):  # not a finite number
        return False
    if isinstance(b, Fraction):
        return abs(value - b) <= Fraction(1, 10**9) * max(1, abs(b))
    with mpmath.workprec(128):
        return bool(abs(mpmath.mpf(value.numerator) / value.denominator - b) <= mpmath.mpf(10)**-9 * max(1, abs(b)))


def _as_real(x: Any) -> Any:
    """A number of sympy's as a Fraction (a rational) or an mpmath number (a
    float, its digits kept: never through float64), None when it is not a finite real."""
    import mpmath

    if isinstance(x, sympy.Rational):
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, sympy.Float) and x.is_finite:
        return mpmath.mpf(x._mpf_)
    return None


def _numeric_output(ob: Obligation, tokens: Sequence[Any]) -> tuple[np.ndarray, type]:
    """The obligation's output in the strict numeric interpretation (float64, else
    long double: an error rather than a wrong number), in the type it needed."""
    from usim.encodings.runners import run_numeric_in_range

    sop = dict(ob.construction.program.outputs)[ob.output_name]
    outputs, dtype = run_numeric_in_range(Program.of(ob.output_name, {ob.output_name: sop}),
                                          np.asarray([float(t) for t in tokens]))
    return outputs[ob.output_name][0], dtype


def interpretations(ob: Obligation, seed: int = 0) -> dict[str, str]:
    """Run the program under every interpretation at one random rational input.

    Exact is the reference where it exists (else the symbolic values to 30
    digits); the others are compared with it (the numeric one, checked in float64
    or long double, to 1e-9, from its values taken exactly; the symbolic and smt
    ones after substituting the input, exactly). Agreement here is
    cross-validation, not proof.

    Args:
        ob: the listing's obligation at one shape.
        seed: the seed of the random input.

    Returns:
        Each interpretation's finding (exact, symbolic, numeric, smt): ``ok``,
        or what differs, or why it was not compared.
    """
    import z3

    from usim.encodings.domain import Undefined
    from usim.encodings.exact import EXACT
    from usim.encodings.numeric import type_name
    from usim.encodings.smt import SmtInterpretation
    from usim.encodings.symbolic import SymbolicInterpretation
    from usim.engine.replay import entry_names, output_of, random_point, symbol_matrices

    layout = ob.construction.input_layout
    point = random_point(ob, random.Random(seed))
    names = entry_names(layout)
    tokens = [point.get(name, Fraction(0)) for name in names]
    out: dict[str, str] = {}
    reference: list[Any] | None = None
    try:
        exact = output_of(ob, EXACT, tokens)
        undefined = next((p for p, v in enumerate(exact) if isinstance(v, Undefined)), None)
        if undefined is None:
            reference = [Fraction(v) for v in exact]
            out["exact"] = "ok"
        else:
            out["exact"] = f"undefined at position {undefined} ({exact[undefined]})"
    except NotExactError as error:
        reason = str(error).split(": ", 1)[-1].split(":")[0].split(";")[0]
        out["exact"] = f"n/a ({reason})"
    except UsimError as error:
        out["exact"] = f"failed: {error}"
    reference_numeric: list[Any] | None = reference
    try:
        symbolic = output_of(ob, SymbolicInterpretation(), layout.encode(symbol_matrices(layout, ob.domain)))
        subs = {sympy.Symbol(n, **({"integer": True} if ob.domain == "integer" else {"real": True})):
                sympy.Rational(point[n].numerator, point[n].denominator)
                for n in names if n in point}
        values = [sympy.sympify(v).subs(subs) for v in symbolic]
        if reference is None:
            reference_numeric = [_as_real(sympy.N(v, 30)) for v in values]
            out["symbolic"] = "ok (the reference: exact values are irrational here)"
        else:
            bad = [p for p, (v, r) in enumerate(zip(values, reference))
                   if sympy.simplify(v - sympy.Rational(r.numerator, r.denominator)) != 0]
            out["symbolic"] = "ok" if not bad else f"DIFFERS from exact at position {bad[0]}"
    except (UsimError, TypeError) as error:
        out["symbolic"] = f"failed: {error}"
    try:
        numeric, dtype = _numeric_output(ob, tokens)
        wider = "" if dtype is np.float64 else f" (in {type_name(dtype)}: float64's range was not enough)"
        if reference_numeric is None:
            out["numeric"] = "ran (nothing to compare with)" + wider
        else:
            bad = [p for p, (v, r) in enumerate(zip(numeric, reference_numeric))
                   if r is None or not _close(v, r)]
            if not bad:
                out["numeric"] = "ok" + wider
            elif reference_numeric[bad[0]] is None:
                out["numeric"] = f"not compared at position {bad[0]} (no real reference value there)"
            else:
                out["numeric"] = (f"DIFFERS at position {bad[0]}: {significant(numeric[bad[0]], 12)} vs "
                                  f"{significant(reference_numeric[bad[0]], 12)}" + wider)
    except UsimError as error:
        out["numeric"] = f"failed: {error}"
    try:
        interp = SmtInterpretation()
        terms = output_of(ob, interp, [z3.Real(n) for n in names])
        if reference is None:
            out["smt"] = "built (exp is uninterpreted: not compared)"
        else:
            pairs = [(z3.Real(n), z3.RealVal(str(point[n]))) for n in names if n in point]
            differs, undecided = [], []
            for p, (t, r) in enumerate(zip(terms, reference)):
                term = t if not z3.is_bool(t) else z3.If(t, z3.RealVal(1), z3.RealVal(0))
                value = z3.simplify(z3.substitute(z3.ToReal(term) if z3.is_int(term) else term, *pairs))
                if not z3.is_rational_value(value):
                    undecided.append(p)
                elif value.as_fraction() != r:
                    differs.append((p, value.as_fraction(), r))
            if differs:  # two interpretations of one program disagree: a fault of usim's, said loudly
                p, got, r = differs[0]
                out["smt"] = f"DIFFERS from exact at position {p}: {got} where the exact run gives {r}"
            elif undecided:
                out["smt"] = (f"not compared at position {undecided[0]}: z3's simplify leaves a term there (such "
                              "as a power it does not evaluate); the engines' verdict does not rest on this")
            else:
                out["smt"] = "ok"
    except (UsimError, z3.Z3Exception) as error:
        out["smt"] = f"failed: {error}"
    return out


def input_power_base(node: E.Expr) -> Fraction | None:
    """The base of ``node`` where it is a constant raised to a power that
    depends on the input (``2.718 ^ tokens``: a listing's stand-in for exp), else None."""
    if isinstance(node, E.Map) and node.op is E.Op.POW:
        base, exponent = node.args
        if isinstance(base, E.Constant) and depends_on_tokens(exponent):
            return Fraction(base.value)
    return None


def input_power_bases(program: Program) -> tuple[Fraction, ...]:
    """Every constant a listing raises to an input-dependent power, sorted.

    Args:
        program: the listing's program at one shape.

    Returns:
        The bases (none: the listing has no such power).
    """
    return tuple(sorted({b for b in map(input_power_base, program.nodes()) if b is not None}))


def power_findings(program: Program, spec: ListingSpec, n: int) -> list[str]:
    """Non-integral powers in ``program`` at length n, said plainly.

    Args:
        program: the listing's program at one shape.
        spec: the spec (whether it asks for exp).
        n: the input sequence's length.

    Returns:
        One finding per power with a constant base or a non-integral exponent.
    """
    from usim.encodings.domain import Undefined
    from usim.encodings.evaluate import evaluate
    from usim.encodings.exact import EXACT
    from usim.encodings.exact import exact_pow
    from usim.rasp.printing import expression

    found = []
    for node in program.nodes():
        if not (isinstance(node, E.Map) and node.op is E.Op.POW):
            continue
        base, exponent = node.args
        text = expression(node)[0]
        b = input_power_base(node)
        if b is not None:
            found.append(
                f"{text}: a power to the base {b} ({significant(b, 12)}), not exp"
                + (" (the spec asks for exp; deviation measured below)" if spec.wants_exp else ""))
            continue
        if isinstance(exponent, E.Constant) and not isinstance(exponent.value, bool) \
                and Fraction(exponent.value).denominator != 1:
            if depends_on_tokens(base):
                found.append(f"{text}: a non-integral power of an input-dependent value: "
                             "exact only where the value is a perfect power, undefined where it is negative")
                continue
            try:
                values = evaluate(Program.of("base", {"base": base}), EXACT, [0] * n)["base"]
            except UsimError as error:
                found.append(f"{text} at n = {n}: its base has no value ({error})")
                continue
            undefined = sorted({Fraction(v) for v in values if not isinstance(v, Undefined) and v < 0})
            if undefined:
                found.append(f"{text} at n = {n}: undefined for the negative base {undefined[0]} "
                             "(a negative number has no real root)")
                continue
            irrational = sorted({Fraction(v) for v in values
                                 if not isinstance(v, Undefined) and not _rational_power(v, exponent.value, exact_pow)})
            if irrational:
                shown = ", ".join(str(v) for v in irrational[:3])
                found.append(f"{text} at n = {n}: irrational for base {shown} (not a perfect power): "
                             "no exact value; the symbolic and smt interpretations keep the root")
            else:
                found.append(f"{text} at n = {n}: exact (the base is a perfect power)")
    return found


def _rational_power(base: Any, exponent: Any, exact_pow) -> bool:
    try:
        exact_pow(Fraction(base), Fraction(exponent))
        return True
    except (UsimError, ZeroDivisionError):
        return False


def relative_deviation(ob: Obligation, samples: int = 500, seed: int = 0) -> tuple[float | None, str]:
    """Largest relative |program - spec| / |spec| on random normal inputs at scales
    1 and 5 (a checked float run: :func:`usim.engine.measure.numeric_deviation`):
    a measurement, never a proof. The value is None, and the text says why, when
    a scale's run has no right number (a value undefined or beyond long double).

    Args:
        ob: the listing's obligation at one shape.
        samples: random inputs per scale.
        seed: their seed.

    Returns:
        The largest relative deviation (None: not measured) and where it was
        found (or why it was not measured).
    """
    from usim.engine.measure import numeric_deviation

    worst, where = 0.0, ""
    for scale in (1.0, 5.0):
        try:
            value = numeric_deviation(ob, seed, samples, scale=scale, relative=True)
        except UsimError as error:
            return None, f"not measured at entries ~ N(0, {scale:g}^2): {error}"
        if value > worst:
            worst, where = value, f"entries ~ N(0, {scale:g}^2)"
    return worst, where
