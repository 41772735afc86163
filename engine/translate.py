"""From a sympy target to z3 terms, over the same input names.

The target of a claim is written once, in sympy. The z3 engine needs it as z3
terms over the very constants the SMT interpretation of the construction uses;
this module translates it: symbols by name, rational numbers exactly (a float
is refused: it is not an exact number), + * and integer
powers, exp through the interpretation's uninterpreted exp (so both sides share
the function and its positivity facts), Piecewise/Max/Min/Abs as If,
floor/Mod with floor semantics, relations and connectives as z3 Booleans.
Anything else is refused with an error naming it, never approximated.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping

import sympy
import z3

from usim.encodings.smt import SmtInterpretation, real
from usim.encodings.symbolic import IsInteger


class TranslationError(Exception):
    pass


def model_point(model: z3.ModelRef, consts: Mapping[str, z3.ExprRef]) -> dict[str, Fraction]:
    """The input a z3 model gives, by name: rationals exactly, an algebraic
    number as a close rational (only a candidate: replay decides)."""
    point = {}
    for name, c in consts.items():
        v = model.eval(c, model_completion=True)
        if isinstance(v, z3.IntNumRef):
            point[name] = Fraction(v.as_long())
        elif isinstance(v, z3.RatNumRef):
            point[name] = v.as_fraction()
        else:
            point[name] = Fraction(v.approx(30).as_fraction())
    return point


def to_z3(expr: object, names: Mapping[str, z3.ExprRef], interp: SmtInterpretation) -> z3.ExprRef:
    expr = sympy.sympify(expr)
    cache: dict[sympy.Basic, z3.ExprRef] = {}

    def go(e: sympy.Basic) -> z3.ExprRef:
        if e in cache:
            return cache[e]
        out = _translate(e, go, names, interp)
        cache[e] = out
        return out

    return go(expr)


def _translate(e, go, names, interp: SmtInterpretation):
    if e is sympy.true or e is True:
        return z3.BoolVal(True)
    if e is sympy.false or e is False:
        return z3.BoolVal(False)
    if isinstance(e, sympy.Symbol):
        if e.name not in names:
            raise TranslationError(f"the target uses {e.name}, which is not an input")
        return names[e.name]
    if isinstance(e, sympy.Integer):
        return z3.IntVal(int(e))
    if isinstance(e, sympy.Rational):
        return z3.Q(int(e.p), int(e.q))
    if isinstance(e, sympy.Float):  # a float is not an exact number: never rounded into a proof
        raise TranslationError(f"the floating-point number {e} is not exact; write it as a Rational")
    if isinstance(e, sympy.Add):
        return z3.Sum(*[go(a) for a in e.args])
    if isinstance(e, sympy.Mul):
        terms = [go(a) for a in e.args]
        out = terms[0]
        for t in terms[1:]:
            out = out * t
        return out
    if isinstance(e, sympy.Pow):  # the interpretation's own power: the same terms as the program's
        return interp.power(go(e.args[0]), go(e.args[1]))
    if isinstance(e, sympy.exp):
        argument = e.args[0]
        if argument.could_extract_minus_sign():  # sympy writes 1/exp(x) as exp(-x)
            return 1 / real(interp.exp(go(-argument)))
        return interp.exp(go(argument))
    if isinstance(e, sympy.Piecewise):
        *branches, (value, cond) = e.args
        if not (cond is sympy.true or cond is True):
            raise TranslationError(f"a Piecewise with no otherwise-branch is partial: {e}")
        out = go(value)
        for value, cond in reversed(branches):
            out = z3.If(go(cond), go(value), out)
        return out
    if isinstance(e, (sympy.Max, sympy.Min)):
        args = [go(a) for a in e.args]
        out = args[0]
        for a in args[1:]:
            out = z3.If(a >= out, a, out) if isinstance(e, sympy.Max) else z3.If(a <= out, a, out)
        return out
    if isinstance(e, sympy.Abs):
        a = go(e.args[0])
        return z3.If(a >= 0, a, -a)
    if isinstance(e, sympy.floor):
        a = go(e.args[0])
        return a if isinstance(a, z3.ArithRef) and a.is_int() else z3.ToInt(real(a))
    if isinstance(e, sympy.Mod):
        return interp.mod(go(e.args[0]), go(e.args[1]))
    relations = {
        sympy.Eq: lambda a, b: a == b,
        sympy.Ne: lambda a, b: a != b,
        sympy.Lt: lambda a, b: a < b,
        sympy.Le: lambda a, b: a <= b,
        sympy.Gt: lambda a, b: a > b,
        sympy.Ge: lambda a, b: a >= b,
    }
    for kind, make in relations.items():
        if isinstance(e, kind):
            return make(go(e.args[0]), go(e.args[1]))
    if isinstance(e, sympy.And):
        return z3.And(*[go(a) for a in e.args])
    if isinstance(e, sympy.Or):
        return z3.Or(*[go(a) for a in e.args])
    if isinstance(e, sympy.Not):
        return z3.Not(go(e.args[0]))
    if isinstance(e, sympy.Implies):
        return z3.Implies(go(e.args[0]), go(e.args[1]))
    if isinstance(e, sympy.ITE):  # sympy's Boolean if-then-else (a Piecewise of truth values folded)
        return z3.If(go(e.args[0]), go(e.args[1]), go(e.args[2]))
    if isinstance(e, sympy.Xor):  # true where an odd number of the arguments are
        args = [go(a) for a in e.args]
        out = args[0]
        for a in args[1:]:
            out = z3.Xor(out, a)
        return out
    if isinstance(e, sympy.Equivalent):  # true where all the arguments are equal
        args = [go(a) for a in e.args]
        return z3.And(*[a == b for a, b in zip(args, args[1:])]) if len(args) > 1 else z3.BoolVal(True)
    if isinstance(e, sympy.Nand):
        return z3.Not(z3.And(*[go(a) for a in e.args]))
    if isinstance(e, sympy.Nor):
        return z3.Not(z3.Or(*[go(a) for a in e.args]))
    if isinstance(e, IsInteger):
        a = go(e.args[0])
        return z3.BoolVal(True) if isinstance(a, z3.ArithRef) and a.is_int() else z3.IsInt(a)
    raise TranslationError(f"cannot translate {type(e).__name__} ({e}) to z3")
