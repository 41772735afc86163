"""Sympy terms as an SMT-LIB 2 script (what the cvc5 engine hands to cvc5).

:class:`SmtLib` writes every distinct compound sub-term once, numbers
exactly, exp as the real exponential; a term it cannot state raises
:class:`SmtLibError`, never approximated.
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from usim.encodings.symbolic import IsInteger


class SmtLibError(Exception):
    """A term the SMT-LIB writer cannot state."""


class SmtLib:
    """Sympy terms as an SMT-LIB 2 script: every distinct compound sub-term once,
    as a ``define-fun`` (so shared sub-terms stay shared), numbers exactly.

    Symbols are declared Real (Int for the integer domain); ``exp`` is cvc5's
    real exponential; Piecewise, Max, Min and Abs are ``ite``; floor is
    ``to_int`` and Mod(a, b) is a - b floor(a/b); relations and connectives are
    Booleans. Anything else raises :class:`SmtLibError`, never approximated.

    A definition is written where it is read: the global scope (:attr:`lines`)
    holds the declarations and the assertions made there (:meth:`assertion`),
    with the definitions they read, and each check (:meth:`check_differs`)
    states the definitions it reads inside its own ``push``/``pop``. cvc5
    spends time on every global definition at every ``check-sat``: one of U's
    stages at n = d = 32 (67 000 definitions, 3 075 checks) ran past 60 s
    with them global, and takes about a second so.
    """

    def __init__(self, sort: str = "Real") -> None:
        self.sort = sort
        self.lines = ["(set-logic ALL)"]
        self.names: dict[sympy.Basic, str] = {}
        self.declared: dict[str, str] = {}
        self.definitions: dict[str, tuple[str, tuple[str, ...]]] = {}  # name -> (define-fun, names it reads)
        self.global_names: set[str] = set()  # definitions written in the global scope
        self._reading: list[list[str]] = []  # the definitions each compound being written reads

    def declare(self, name: str) -> str:
        if name not in self.declared:
            quoted = "|" + name.replace("|", "_").replace("\\", "_") + "|"
            self.declared[name] = quoted
            self.lines.append(f"(declare-const {quoted} {self.sort})")
        return self.declared[name]

    @staticmethod
    def number(q: Fraction) -> str:
        text = f"{abs(q.numerator)}.0" if q.denominator == 1 else f"(/ {abs(q.numerator)}.0 {q.denominator}.0)"
        return f"(- {text})" if q < 0 else text

    def term(self, e: object) -> str:
        """The term's text: a number, a constant, or the name of its definition."""
        e = sympy.sympify(e)
        name = self.names.get(e)
        if name is None:
            if e is sympy.true:
                return "true"
            if e is sympy.false:
                return "false"
            if isinstance(e, sympy.Symbol):
                return self.declare(e.name)
            if isinstance(e, sympy.Rational):
                return self.number(Fraction(int(e.p), int(e.q)))
            if isinstance(e, sympy.Float):  # not an exact number: never rounded into a proof
                raise SmtLibError(f"the floating-point number {e} is not exact")
            self._reading.append([])
            try:
                body = self._compound(e)
            finally:
                reads = tuple(dict.fromkeys(self._reading.pop()))
            name = f"t{len(self.names)}"
            kind = "Bool" if isinstance(e, sympy.logic.boolalg.Boolean) else "Real"
            self.definitions[name] = (f"(define-fun {name} () {kind} {body})", reads)
            self.names[e] = name
        if self._reading:
            self._reading[-1].append(name)
        return name

    def definitions_for(self, *texts: str) -> list[str]:
        """The definitions the terms ``texts`` read, directly or through others,
        that the global scope lacks, each before those that read it."""
        needed: set[str] = set()
        stack = [t for t in texts if t in self.definitions]
        while stack:
            name = stack.pop()
            if name in needed or name in self.global_names:
                continue
            needed.add(name)
            stack.extend(self.definitions[name][1])
        return [self.definitions[name][0] for name in sorted(needed, key=lambda t: int(t[1:]))]

    def assertion(self, relation: object) -> None:
        """``relation`` asserted in the global scope (a precondition)."""
        text = self.term(relation)
        for line in self.definitions_for(text):
            self.lines.append(line)
            self.global_names.add(line.split()[1])
        self.lines.append(f"(assert {text})")

    def check_differs(self, got: object, expected: object) -> str:
        """A check in its own scope: can ``got`` differ from ``expected``?"""
        g, e = self.term(got), self.term(expected)
        return f"(push 1){''.join(self.definitions_for(g, e))}(assert (not (= {g} {e})))(check-sat)(pop 1)"

    def script(self, checks: list[str]) -> str:
        """The whole script: the global scope, then the checks."""
        return "\n".join(self.lines + checks) + "\n"

    def _compound(self, e: sympy.Basic) -> str:
        go = self.term
        relations = {sympy.Eq: "=", sympy.Lt: "<", sympy.Le: "<=", sympy.Gt: ">", sympy.Ge: ">="}
        if isinstance(e, sympy.Add):
            return "(+ " + " ".join(go(a) for a in e.args) + ")"
        if isinstance(e, sympy.Mul):
            return "(* " + " ".join(go(a) for a in e.args) + ")"
        if isinstance(e, sympy.Pow) and e.exp.is_Integer:
            k, base = int(e.exp), go(e.base)
            power = base if abs(k) == 1 else "(* " + " ".join([base] * abs(k)) + ")"
            return power if k > 0 else ("1.0" if k == 0 else f"(/ 1.0 {power})")
        if isinstance(e, sympy.exp):
            return f"(exp {go(e.args[0])})"
        if isinstance(e, sympy.Piecewise):
            *branches, (last, condition) = e.args
            if condition is not sympy.true:
                raise SmtLibError("a Piecewise with no otherwise-branch")
            out = go(last)
            for value, cond in reversed(branches):
                out = f"(ite {go(cond)} {go(value)} {out})"
            return out
        if isinstance(e, (sympy.Max, sympy.Min)):
            out, pick = go(e.args[0]), ">=" if isinstance(e, sympy.Max) else "<="
            for a in e.args[1:]:
                out = f"(ite ({pick} {out} {go(a)}) {out} {go(a)})"
            return out
        if isinstance(e, sympy.Abs):
            a = go(e.args[0])
            return f"(ite (>= {a} 0.0) {a} (- {a}))"
        if isinstance(e, sympy.floor):
            return f"(to_real (to_int {go(e.args[0])}))"
        if isinstance(e, sympy.Mod):
            a, b = go(e.args[0]), go(e.args[1])
            return f"(- {a} (* {b} (to_real (to_int (/ {a} {b})))))"
        if type(e) in relations:
            return f"({relations[type(e)]} {go(e.lhs)} {go(e.rhs)})"
        if isinstance(e, sympy.Ne):
            return f"(not (= {go(e.lhs)} {go(e.rhs)}))"
        if isinstance(e, (sympy.And, sympy.Or)):
            return f"({'and' if isinstance(e, sympy.And) else 'or'} " + " ".join(go(a) for a in e.args) + ")"
        if isinstance(e, sympy.Not):
            return f"(not {go(e.args[0])})"
        if isinstance(e, sympy.Implies):
            return f"(=> {go(e.args[0])} {go(e.args[1])})"
        if isinstance(e, IsInteger):
            return f"(is_int {go(e.args[0])})"
        raise SmtLibError(f"no SMT-LIB term for {type(e).__name__}")
