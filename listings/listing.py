"""A RASP listing checked against a spec: the library behind ``usim check``.

A listing (a file in the RASP REPL's language, :mod:`usim.repl`) is
checked against a :class:`Spec`: for every shape, a :class:`Statement` (input
and output layouts, a target written in sympy, preconditions, the domain of
the inputs) whose construction is the listing's function. The specs of the
paper's claims are listed in :mod:`usim.listings.specs`; a user writes one in a
Python file (:mod:`usim.listings.user_spec`). For each shape:

1. the program is interpreted under every interpretation at one random rational
   input, and they are compared (cross-validation, exactly: a rational result
   is compared as a rational);
2. the obligation is proved or refuted by the engines, with its definedness
   check and witness, as any claim's: each in a child process under the
   runner's deadline, killed past it (UNKNOWN), as ``usim prove`` runs them;
3. powers are flagged (``b ^ x`` with a constant base is a power, never exp;
   ``length ^ 0.5`` is exact only at perfect squares), and for a spec that asks
   for exp the deviation is measured on random inputs (never proof).

How shapes are chosen (:func:`plan_shapes`). The paper's listings hard-code
some dimensions and read the rest from ``length``; the plan reads the same
things from the listing itself:

* a parameter of the function named after a dimension (``r``, ``c``, ``k``,
  ``h``, ``p``, ``n`` or a longer alias, :data:`ALIASES`) is set to it;
* a dimension the function (or the file) assigns a whole number to under such a
  name (``r = 3;``) is fixed to that value (even above N);
* ``k = length / (a + b)`` with two whole numbers, in a spec whose length is a
  multiple of the sum of two dimensions (the product's ``k (r + c)``), fixes
  those two to a and b (the authors' ``Matmul_3dot4``: r = 3, c = 4);
* a dimension read from ``length`` (``c = length / 3``; ``k = length / (h*(r+c))``),
  and a side ``n`` read through a square root (``n = length ^ 0.5``: every
  matrix dimension is n), keep only the shapes where that value, computed
  exactly at the shape's length, is the shape's dimension;
* every other dimension ranges over 1..N.

Matching the file's examples to shapes uses the spec's length formula and the
same plan, and builds an obligation only for the shapes that match.
"""

from __future__ import annotations

import dataclasses
import random
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import sympy

from usim.constructions.base import Construction
from usim.encodings.digits import exact as exact_value, significant
from usim.encodings.layout import SequenceLayout
from usim.engine.claim import Claim, Matrices, Obligation, ObligationResult, Shape, Status, shape_label
from usim.errors import NotExactError, ShapeError, UsimError
from usim.rasp import expr as E
from usim.rasp.cost import Cost, cost, repl_heads
from usim.rasp.program import Program, topological_order
from usim.repl import RaspFile, load_file, load_text
from usim.repl import tree as T

Target = Callable[[Matrices], Mapping[str, Any]]
Preconditions = Callable[[Matrices], list[Any]]
Replacement = "str | Callable[[E.Expr], E.Expr]"
"""A broken variant replaces named nodes of the listing: by a RASP expression
(text, in which the node's own name is the original node) or a Python function."""


@dataclass(frozen=True)
class Statement:
    """What one shape of a spec states, without a program: the layouts, the
    target (input blocks -> output blocks, in sympy), the preconditions, and the
    inputs' domain (``values``: a finite set each entry ranges over)."""

    input_layout: SequenceLayout
    output_layout: SequenceLayout
    target: Target
    preconditions: Preconditions | None = None
    domain: str = "real"
    values: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class Spec:
    """What a listing's function must compute, shape by shape.

    ``dims`` name the dimensions in shape order; ``shapes(N)`` lists the shapes
    with dimensions up to N; ``length(shape)`` is the input sequence's length
    (cheap: no program is built); ``statement(shape)`` is the shape's statement.
    ``square`` are the dimensions a side read through a square root stands for;
    ``sums`` the two dimensions whose sum divides the length (the product's
    r + c). ``mutants`` are broken variants of the listing (name -> named node
    -> replacement) that must come out REFUTED. ``source`` says how to build the
    spec again (for certificates).
    """

    name: str
    title: str
    dims: tuple[str, ...]
    shapes: Callable[[int], Iterable[Shape]]
    length: Callable[[Shape], int]
    statement: Callable[[Shape], Statement]
    engines: tuple[str, ...] = ("sympy", "z3")
    default_max_n: int = 4
    wants_exp: bool = False
    claim_id: str | None = None
    square: tuple[str, ...] = ()
    sums: tuple[str, str] | None = None
    mutants: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    source: Mapping[str, Any] = field(default_factory=dict)
    notes: str = ""
    reads: str = "number"    # "symbol": the input is read as symbols (codes over an alphabet)
    writes: str = "number"   # "symbol": the output is symbols

    @property
    def dims_text(self) -> str:
        return " x ".join(self.dims)

    @property
    def id(self) -> str:
        """The claim id certificates and obligations carry."""
        return self.claim_id or f"spec:{self.name}"

    def label(self, shape: Shape) -> str:
        return shape_label(shape)


# names under which a listing may hold a dimension
ALIASES = {
    "r": ("r", "rows", "n_rows", "num_rows"),
    "c": ("c", "cols", "columns", "n_cols", "num_cols"),
    "k": ("k", "inner", "n_inner"),
    "h": ("h", "heads", "n_heads", "num_heads"),
    "p": ("p", "modulus", "mod"),
    "n": ("n", "size"),
}
SIDE = "n"  # a square's side, when n is not itself a dimension of the spec


def _dimension_of(name: str, spec: Spec) -> str | None:
    """The dimension of ``spec`` a listing's variable or parameter names (its
    own name, or an alias of r, c, k, h, p, n), or ``n`` for a square's side."""
    if name in spec.dims:
        return name
    for dim, names in ALIASES.items():
        if name in names:
            return dim
    return None


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


# -- shapes -----------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Derived:
    """A dimension the listing reads from ``length``: a variable whose value is
    the same number at every position and does not depend on the tokens. When
    the function takes dimensions as parameters, the variable is read again
    from the call for each shape (``c = length / r`` depends on r)."""

    variable: str
    dims: tuple[str, ...]  # what it stands for (every matrix dimension, for a square's side)
    node: E.SOp            # its value in the first call
    _values: dict = field(default_factory=dict, repr=False)

    def value(self, n: int, node: E.SOp | None = None) -> Fraction | None | str:
        """Its exact value at length n; None where it is undefined or irrational
        (a square root of a non-square); ``"varies"`` if it differs across positions."""
        node = self.node if node is None else node
        key = (node.id, n)
        if key not in self._values:
            self._values[key] = _static_value(node, n)
        return self._values[key]

    @property
    def text(self) -> str:
        from usim.rasp.printing import expression

        return f"{self.variable} = {expression(self.node)[0]}"


def _static_value(node: E.SOp, n: int) -> Fraction | None | str:
    from usim.encodings.domain import Undefined
    from usim.encodings.evaluate import EXACT, evaluate_sops

    try:
        values = evaluate_sops((node,), EXACT, [0] * n)[0]
    except (UsimError, ArithmeticError, ValueError):
        return None
    if any(isinstance(v, Undefined) for v in values):
        return None
    if len({Fraction(v) for v in values}) > 1:
        return "varies"
    return Fraction(values[0])


def _depends_on_tokens(node: E.Expr) -> bool:
    return any(isinstance(n, E.Tokens) for n in topological_order([node]))


def _has_square_root(node: E.Expr) -> bool:
    return any(isinstance(n, E.Map) and n.op is E.Op.POW and isinstance(n.args[1], E.Constant)
               and not isinstance(n.args[1].value, bool) and Fraction(n.args[1].value) == Fraction(1, 2)
               for n in topological_order([node]))


@dataclass(frozen=True)
class ShapePlan:
    """Which shapes to check, and why."""

    shapes: tuple[Shape, ...]
    parameters: Mapping[str, str]           # function parameter -> dimension
    fixed: Mapping[str, tuple[str, int]]    # dimension -> (how the listing fixes it, value)
    derived: tuple[Derived, ...] = ()
    warnings: tuple[str, ...] = ()
    call: Callable[[Shape], Mapping[str, Any]] | None = field(default=None, compare=False, repr=False)
    """The function's local variables in its call at a shape (when it takes
    dimensions as parameters)."""

    def describe(self, spec: Spec) -> str:
        parts = []
        if self.parameters:
            parts.append("parameters " + ", ".join(f"{p} = {d}" for p, d in self.parameters.items()))
        if self.fixed:
            parts.append("hard-coded " + ", ".join(f"{d} = {v} ({how})" for d, (how, v) in self.fixed.items()))
        for d in self.derived:
            parts.append(f"read from length: {d.text} (= {' = '.join(d.dims)})")
        free = [d for d in spec.dims if d not in self.fixed]
        text = "; ".join(parts) if parts else "no parameters or hard-coded dimensions"
        return f"{text}; shapes {spec.dims_text} with {', '.join(free) or 'nothing'} free"

    def misfit(self, spec: Spec, shape: Shape) -> str | None:
        """Why the listing is not meant for ``shape`` (None if it is)."""
        values = dict(zip(spec.dims, shape))
        for dim, (how, value) in self.fixed.items():
            if values[dim] != value:
                return f"{dim} = {values[dim]}, but the listing fixes {dim} = {value} ({how})"
        n = spec.length(shape)
        scope = self.call(shape) if self.call is not None and self.derived else {}
        for d in self.derived:
            node = scope.get(d.variable) if scope else None
            value = d.value(n, node if isinstance(node, E.SOp) else None)
            if value == "varies":
                continue
            if value is None:
                return f"{d.text} has no exact value at length {n}"
            wrong = [x for x in d.dims if values[x] != value]
            if wrong:
                return f"{d.text} is {value} at length {n}, but {wrong[0]} = {values[wrong[0]]}"
        return None

    def fits(self, spec: Spec, shape: Shape) -> bool:
        return self.misfit(spec, shape) is None


def _arguments(parameters: Mapping[str, str], spec: Spec, shape: Shape) -> dict[str, int]:
    values = dict(zip(spec.dims, shape))
    return {p: values[d] for p, d in parameters.items()}


def _sum_rule(rasp: RaspFile, function: str, spec: Spec) -> dict[str, tuple[str, int]]:
    """``k = length / (a + b)`` with whole numbers a, b: the two summed
    dimensions of the spec are a and b."""
    found = rasp.function_of(function)
    if spec.sums is None or found is None:
        return {}
    for statement in found.body:
        if not (isinstance(statement, T.Assign) and len(statement.names) == len(statement.values)):
            continue
        for name, value in zip(statement.names, statement.values):
            dim = _dimension_of(name, spec)
            if dim is None or dim in spec.sums or dim not in spec.dims:
                continue
            if not (isinstance(value, T.Binary) and value.op == "/" and isinstance(value.left, T.Name)
                    and value.left.id == "length"):
                continue
            total = value.right
            if isinstance(total, T.Binary) and total.op == "+" and all(
                    isinstance(x, T.Number) and _is_int(x.value) and x.value > 0 for x in (total.left, total.right)):
                a, b = total.left.value, total.right.value
                how = f"from {name} = length / ({a} + {b})"
                return {spec.sums[0]: (how, a), spec.sums[1]: (how, b)}
    return {}


def _assigned(statements: Iterable[T.Node]) -> set[str]:
    """The names these statements assign directly (not in a loop's body: a loop
    counter left behind is no dimension)."""
    return {name for st in statements if isinstance(st, T.Assign) for name in st.names}


def _mentions(node: Any, name: str) -> bool:
    """Whether the syntax tree reads the variable ``name`` anywhere."""
    if isinstance(node, T.Name):
        return node.id == name
    if isinstance(node, (tuple, list)):
        return any(_mentions(x, name) for x in node)
    if dataclasses.is_dataclass(node):
        return any(_mentions(getattr(node, f.name), name) for f in dataclasses.fields(node))
    return False


def plan_shapes(rasp: RaspFile, function: str, spec: Spec, shapes: Sequence[Shape] | None,
                max_n: int | None) -> ShapePlan:
    parameters: dict[str, str] = {}
    for p in rasp.parameters(function):
        dim = _dimension_of(p, spec)
        if dim is None or dim not in spec.dims:
            raise UsimError(
                f"{function} has the parameter {p!r}, which is not a dimension of the {spec.name} "
                f"spec ({spec.dims_text}; accepted names: "
                + "; ".join(f"{d}: {', '.join(ALIASES.get(d, (d,)))}" for d in spec.dims)
                + "); to pass other arguments, check an expression such as --function 'F(G())'")
        parameters[p] = dim
    bound = max_n or spec.default_max_n
    candidates = list(shapes) if shapes else list(spec.shapes(bound))
    if not candidates:
        raise UsimError(f"no {spec.name} shape up to {bound}")
    # a first call shows the constants the function assigns (its local variables)
    probe = rasp.build(function, _arguments(parameters, spec, candidates[0]))
    fixed: dict[str, tuple[str, int]] = _sum_rule(rasp, function, spec)
    derived: dict[str, Derived] = {}
    # a dimension is fixed by a variable the function assigns itself, or by a file-level
    # one the file reads somewhere; never by a loop counter or a variable nothing reads
    found = rasp.function_of(function)
    body = found.body if found is not None else ()
    own = _assigned(body) | set(found.params if found is not None else ())  # a parameter: bound by the call
    statements = rasp.tree.statements
    file_level = {n: v for n, v in rasp.env.vars.items() if n in _assigned(statements) and _mentions(statements, n)}
    local = {n: v for n, v in probe.locals.items() if found is None or n in own}
    for scope in (file_level, local):  # the function's own variables win
        for name, value in scope.items():
            dim = _dimension_of(name, spec)
            if dim in spec.dims and dim not in parameters.values():
                if _is_int(value) and value > 0:
                    fixed[dim] = (f"as {name}", value)
                    derived.pop(dim, None)
                elif isinstance(value, E.SOp) and not _depends_on_tokens(value) and dim not in fixed:
                    derived[dim] = Derived(name, (dim,), value)
            elif dim == SIDE and spec.square and isinstance(value, E.SOp) \
                    and not _depends_on_tokens(value) and _has_square_root(value):
                derived[SIDE] = Derived(name, spec.square, value)
    calls: dict[tuple, Mapping[str, Any]] = {}

    def call(shape: Shape) -> Mapping[str, Any]:
        arguments = _arguments(parameters, spec, shape)
        key = tuple(sorted(arguments.items()))
        if key not in calls:
            try:
                calls[key] = rasp.build(function, arguments).locals
            except UsimError:
                calls[key] = {}
        return calls[key]

    plan = ShapePlan((), parameters, fixed, tuple(derived.values()), call=call if parameters else None)
    warnings = []
    if shapes:
        for shape in shapes:
            reason = plan.misfit(spec, shape)
            if reason:
                warnings.append(f"shape {spec.label(shape)}: {reason}: checked anyway")
        chosen = candidates
    else:
        # hard-coded dimensions keep their value (even above N); the others range over 1..N
        wide = max([bound] + [v for _, v in fixed.values()])
        chosen = []
        for s in spec.shapes(wide):
            values = dict(zip(spec.dims, s))
            if all(values[d] <= bound for d in spec.dims if d not in fixed) and plan.fits(spec, s):
                chosen.append(s)
        if not chosen:
            raise UsimError(f"{function} is meant for no {spec.name} shape with the free dimensions "
                            f"up to {bound} ({plan.describe(spec)})")
    return dataclasses.replace(plan, shapes=tuple(chosen), warnings=tuple(warnings))


# -- one shape ---------------------------------------------------------------------

PADDING_MODES = ("zero", "any")


def obligation_for(rasp: RaspFile, function: str, spec: Spec, shape: Shape,
                   parameters: Mapping[str, str], padding: str = "zero") -> Obligation:
    """The spec's obligation at ``shape`` with the listing's function as construction.

    ``padding="any"``: positions past the output blocks are not compared (the
    output is masked there to 0 before the comparison, and that is said)."""
    statement = spec.statement(shape)
    built = rasp.build(function, _arguments(parameters, spec, shape))
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
        sop = E.where(E.indices < statement.output_layout.used, sop, 0).named(f"{_output_name(function)}_masked")
    elif padding not in PADDING_MODES:
        raise UsimError(f"padding must be one of {', '.join(PADDING_MODES)}, not {padding!r}")
    name = _output_name(function)
    program = Program.of(name, {name: sop}, f"{function} from {rasp.filename}")
    construction = Construction(
        name=f"{function} ({rasp.filename}) {spec.label(shape)}",
        program=program,
        input_layout=statement.input_layout,
        output_layout=statement.output_layout,
        semantics="rasp",
        notes=f"parsed from {rasp.filename}",
    )
    return Obligation(spec.id, tuple(shape), construction, statement.target,
                      preconditions=statement.preconditions, domain=statement.domain,
                      values=statement.values)


def _output_name(function: str) -> str:
    from usim.repl import is_name

    return function if is_name(function) else "out"


def mutant_obligation(rasp: RaspFile, ob: Obligation, name: str,
                      replacements: Mapping[str, Any]) -> Obligation:
    """``ob`` with the listing's named nodes replaced: a broken variant."""
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
    """
    import z3

    from usim.encodings.domain import Undefined
    from usim.encodings.evaluate import EXACT
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
            bad = []
            for p, (t, r) in enumerate(zip(terms, reference)):
                term = t if not z3.is_bool(t) else z3.If(t, z3.RealVal(1), z3.RealVal(0))
                value = z3.simplify(z3.substitute(z3.ToReal(term) if z3.is_int(term) else term, *pairs))
                if not (z3.is_rational_value(value) and value.as_fraction() == r):
                    bad.append(p)
            out["smt"] = "ok" if not bad else f"DIFFERS from exact at position {bad[0]} (or not decided by simplify)"
    except (UsimError, z3.Z3Exception) as error:
        out["smt"] = f"failed: {error}"
    return out


# -- powers ----------------------------------------------------------------------

def power_findings(program: Program, spec: Spec, n: int) -> list[str]:
    """Non-integral powers in ``program`` at length n, said plainly."""
    from usim.encodings.domain import Undefined
    from usim.encodings.evaluate import EXACT, evaluate
    from usim.encodings.exact import exact_pow
    from usim.rasp.printing import expression

    found = []
    for node in program.nodes():
        if not (isinstance(node, E.Map) and node.op is E.Op.POW):
            continue
        base, exponent = node.args
        text = expression(node)[0]
        if isinstance(base, E.Constant) and _depends_on_tokens(exponent):
            b = Fraction(base.value)
            found.append(
                f"{text}: a power to the base {b} ({significant(b, 12)}), not exp"
                + (" (the spec asks for exp; deviation measured below)" if spec.wants_exp else ""))
            continue
        if isinstance(exponent, E.Constant) and not isinstance(exponent.value, bool) \
                and Fraction(exponent.value).denominator != 1:
            if _depends_on_tokens(base):
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
    a scale's run has no right number (a value undefined or beyond long double)."""
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


# -- cost ------------------------------------------------------------------------

def cost_text(program: Program) -> list[str]:
    c: Cost = cost(program)
    lines = [f"usim: {c.layers} attention layer(s), heads per layer "
             f"[{', '.join(map(str, c.heads_per_layer)) or '-'}]"]
    if c.uses_length:
        lines.append(f"counting the layer that computes length: {c.layers_with_length} layer(s), "
                     f"heads per layer [{', '.join(map(str, c.heads_per_layer_with_length))}]")
    repl = repl_heads(program, with_length=c.uses_length)
    lines.append("as the REPL counts (distinct selectors per layer"
                 + (", length layer included" if c.uses_length else "") + f"): {len(repl)} layer(s), "
                 f"heads per layer [{', '.join(map(str, repl)) or '-'}]")
    return lines


# -- the whole check ---------------------------------------------------------------

@dataclass
class ShapeReport:
    shape: Shape
    result: ObligationResult | None
    interpretations: dict[str, str]
    cost: list[str]
    findings: list[str]
    error: str | None = None
    seconds: float = 0.0
    deviation: tuple[float | None, str] | None = None  # measured relative deviation from the spec (None: why not)
    mutant: str | None = None

    @property
    def label(self) -> str:
        return shape_label(self.shape)

    @property
    def status(self) -> Status:
        if self.result is None:
            return Status.ERROR
        return self.result.status


@dataclass
class CheckReport:
    filename: str
    function: str
    spec: Spec
    plan: ShapePlan
    uses: set[str]
    examples: list[str]
    shapes: list[ShapeReport] = field(default_factory=list)
    deviation: tuple[float, str, str] | None = None  # (value, where, shape), shapes that fit
    padding: str = "zero"
    mutants: list[ShapeReport] = field(default_factory=list)
    source_text: str = ""
    parameters: Mapping[str, str] = field(default_factory=dict)
    alphabet: Any = None  # the symbols' codes, for a spec of symbols

    def counterexample_text(self, shape: "ShapeReport") -> str | None:
        """The shape's counterexample, symbols shown as themselves (not their codes)."""
        counter = shape.result.counterexample if shape.result is not None else None
        return None if counter is None else shown_counterexample(counter, self.alphabet, self.spec).describe()


    @property
    def ok(self) -> bool:
        proved = bool(self.shapes) and all(s.status is Status.PROVED for s in self.shapes)
        return proved and self.mutants_refuted

    def count(self, status: Status, mutants: bool = False) -> int:
        return sum(s.status is status for s in (self.mutants if mutants else self.shapes))

    @property
    def mutants_refuted(self) -> bool:
        """Every broken variant is refuted at some shape and nowhere UNKNOWN or
        ERROR (where a variant happens to be right, it is rightly PROVED)."""
        by_mutant: dict[str, list[Status]] = {}
        for s in self.mutants:
            by_mutant.setdefault(s.mutant or "?", []).append(s.status)
        return all(Status.REFUTED in v and set(v) <= {Status.REFUTED, Status.PROVED}
                   for v in by_mutant.values())


def shown_counterexample(counter, alphabet: Any, spec: Spec):
    """``counter`` with the symbols' codes replaced by the symbols (for a spec of symbols)."""
    if alphabet is None:
        return counter

    def symbol(text: str) -> str:
        try:
            return repr(alphabet.symbol(Fraction(text)))
        except (UsimError, ValueError, ZeroDivisionError):
            return text
    inputs = {k: [[symbol(x) for x in row] for row in v] for k, v in counter.inputs.items()}
    shown = dataclasses.replace(counter, inputs=inputs)
    if spec.writes == "symbol":
        shown = dataclasses.replace(shown, expected=symbol(counter.expected), got=symbol(counter.got))
    return shown


SHOWN_EXACTLY = 24  # characters of an exact value shown as it is; longer ones as ~ a float


def show_value(v: Any, decimal: bool = False) -> str:
    """A value for a report: 3, 1/3 (or 0.25 with ``decimal``, as a listing
    writes its inputs), a long exact value as ~ its float; never Fraction(...)."""
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, (int, Fraction)):
        v = Fraction(v)
        if v.denominator == 1:
            text = str(v.numerator)
        elif decimal and Fraction(significant(v, 15)) == v:
            text = significant(v, 15)
        else:
            text = str(v)
        return text if len(text) <= SHOWN_EXACTLY else f"~{significant(v, 6)}"
    if isinstance(v, (float, np.floating)):
        return significant(v, 6)
    return str(v)


def _run(program: Program, name: str, values: Sequence[Any]) -> str:
    """The program's output on ``values``: exact if it can be, else floats
    (checked, in float64 or long double, and shown in the type they needed)."""
    from usim.encodings.runners import run_exact, run_numeric_in_range

    try:
        out = [show_value(v) for v in run_exact(program, list(values))[name]]
    except NotExactError:
        outputs, _ = run_numeric_in_range(program, np.asarray([float(v) for v in values]))
        out = [significant(v, 6) for v in outputs[name][0]]
    return "[" + ", ".join(out) + "]"


MAX_EXAMPLE_SHAPES = 6


def example_shapes(spec: Spec, plan: ShapePlan, n: int) -> list[Shape]:
    """The shapes of length n the listing is meant for (by the spec's length
    formula and the plan: nothing is built)."""
    found = []
    for s in spec.shapes(n):
        if spec.length(s) == n and plan.fits(spec, s):
            found.append(s)
            if len(found) == MAX_EXAMPLE_SHAPES:
                break
    return found


def _example_lines(rasp: RaspFile, function: str, spec: Spec, plan: ShapePlan, padding: str) -> list[str]:
    from usim.engine.replay import entry_names, replay

    lines, seen = [], set()
    for example in rasp.examples:
        if example.values in seen:
            continue
        seen.add(example.values)
        head = f"line {example.line} ({example.kind}) [{', '.join(show_value(v, True) for v in example.values)}]"
        symbols = rasp.alphabet is not None
        if not (example.symbols if symbols else example.numeric):
            lines.append(f"{head}: skipped (not {'symbols' if symbols else 'numbers'})")
            continue
        n = len(example.values)
        shapes = example_shapes(spec, plan, n)
        if not shapes:
            if plan.parameters:
                lines.append(f"{head}: no {spec.name} shape of length {n} to call {function} with")
                continue
            try:
                out = _run_listing(rasp, function, example.values)
            except UsimError as error:
                lines.append(f"{head}: failed: {error}")
                continue
            lines.append(f"{head} -> {out}; no {spec.name} shape of length {n} that the listing is meant for")
            continue
        for shape in shapes:
            label = spec.label(shape)
            try:
                ob = obligation_for(rasp, function, spec, shape, plan.parameters, padding)
                out = _run_listing(rasp, function, example.values, _arguments(plan.parameters, spec, shape))
                # encoded after the build: a build may widen the alphabet (strings made by +)
                values = rasp.alphabet.encode(example.values) if symbols else list(example.values)
            except UsimError as error:
                lines.append(f"{head} as {label}: failed: {error}")
                continue
            point = {name: Fraction(v) for name, v in
                     zip(entry_names(ob.construction.input_layout), values)}
            counter = replay(ob, point)
            if counter is not None:
                counter = shown_counterexample(counter, rasp.alphabet, spec)
            verdict = "agrees with the spec" if counter is None else (
                f"DIFFERS from the spec: at {counter.entry} expected {counter.expected}, got {counter.got}")
            lines.append(f"{head} as {label} -> {out}: {verdict}")
    return lines


def _run_listing(rasp: RaspFile, function: str, values: Sequence[Any],
                 arguments: Mapping[str, Any] | None = None) -> str:
    """The listing's output on one input, as the REPL shows it (symbols as themselves)."""
    built = rasp.build(function, arguments)
    if rasp.alphabet is not None:
        return "[" + ", ".join(show_value(v) for v in rasp.evaluator.run(built.sop, list(values))) + "]"
    name = _output_name(function)
    return _run(Program.of(name, {name: built.sop}), name, values)


def _settle_alphabet(rasp: RaspFile, function: str, spec: Spec, plan: ShapePlan) -> None:
    """Build the function at every shape once before anything is proved: a ``+``
    of symbols may make strings the alphabet has no code for yet, and the file
    is then read again with a wider alphabet (:meth:`RaspFile.build`), which
    renumbers every symbol. After this, every shape's obligation, the examples'
    runs and the report use one alphabet."""
    for shape in plan.shapes:
        try:
            rasp.build(function, _arguments(plan.parameters, spec, shape))
        except (UsimError, ShapeError):
            pass  # reported with its shape when the shape is checked


def check(path: str, function: str, spec: Spec, shapes: Sequence[Shape] | None = None,
          max_n: int | None = None, engines: Sequence[str] | None = None, timeout: float = 60.0,
          seed: int = 0, samples: int = 500, progress: Callable[["ShapeReport"], None] | None = None,
          on_plan: Callable[["ShapePlan"], None] | None = None, padding: str = "zero",
          mutants: bool = False, text: str | None = None,
          alphabet: Sequence[str] | None = None,
          on_report: Callable[["CheckReport"], None] | None = None) -> CheckReport:
    """Everything ``usim check`` does, as data (the command prints it).

    ``text`` is the listing's source when it is not read from ``path``. For a
    spec of symbols the input ranges over ``alphabet`` (by default the symbols
    of the file's examples)."""
    from usim.engine.runner import check_obligation

    if padding not in PADDING_MODES:
        raise UsimError(f"padding must be one of {', '.join(PADDING_MODES)}, not {padding!r}")
    symbols = spec.reads == "symbol"
    if alphabet is not None and not symbols:
        raise UsimError(f"the {spec.name} spec reads numbers: --alphabet applies to a spec of symbols")
    if text is None:
        rasp = load_file(path, symbols, alphabet)
        text = rasp.source
    else:
        rasp = load_text(text, path, symbols, alphabet)
    rasp.get(function)
    plan = plan_shapes(rasp, function, spec, shapes, max_n)
    if on_plan:
        on_plan(plan)
    if symbols:
        _settle_alphabet(rasp, function, spec, plan)
    examples = _example_lines(rasp, function, spec, plan, padding)
    report = CheckReport(path, function, spec, plan, set(), examples, padding=padding, source_text=text,
                         parameters=dict(plan.parameters), alphabet=rasp.alphabet)
    if on_report:
        on_report(report)
    if mutants and not spec.mutants:
        raise UsimError(f"the {spec.name} spec gives no broken variants of a listing (a spec file may "
                        "declare them: mutants={...})")
    unmeasured: list[str] = []  # shapes whose deviation has no right number (its line says why)
    for shape in plan.shapes:
        start = time.perf_counter()
        try:
            ob = obligation_for(rasp, function, spec, shape, plan.parameters, padding)
            if rasp.alphabet is not report.alphabet:  # codes of one alphabet in every obligation
                raise UsimError(f"{function} made new strings at {spec.label(shape)} after the alphabet "
                                "was settled (usim's fault: please report it)")
            # the statement itself may be refused here (a float in the target, ...)
            # each engine in a child under the runner's deadline and hard kill, as usim prove runs it
            result = check_obligation(ob, engines=engines, timeout=timeout, claim_engines=spec.engines, jobs=1)
        except (UsimError, ShapeError) as error:
            shape_report = ShapeReport(shape, None, {}, [], [], error=str(error),
                                       seconds=time.perf_counter() - start)
            report.shapes.append(shape_report)
            if progress:
                progress(shape_report)
            continue
        program = ob.construction.program
        n = ob.construction.input_layout.length
        findings = power_findings(program, spec, n)
        interp = interpretations(ob, seed)
        shape_report = ShapeReport(shape, result, interp, cost_text(program), findings,
                                   seconds=time.perf_counter() - start)
        report.shapes.append(shape_report)
        if spec.wants_exp and any("not exp" in f for f in findings):
            shape_report.deviation = relative_deviation(ob, samples, seed)
            value, where = shape_report.deviation
            if value is None and plan.fits(spec, shape):
                unmeasured.append(spec.label(shape))
            elif plan.fits(spec, shape) and (report.deviation is None or value > report.deviation[0]):
                report.deviation = (value, where, spec.label(shape))
        if progress:
            progress(shape_report)
        if mutants:
            for name, replacements in spec.mutants.items():
                start = time.perf_counter()
                try:
                    broken = mutant_obligation(rasp, ob, name, replacements)
                    result = check_obligation(broken, engines=engines, timeout=timeout,
                                              claim_engines=spec.engines, jobs=1)
                    mutant_report = ShapeReport(shape, result, {}, [], [], seconds=time.perf_counter() - start,
                                                mutant=name)
                except UsimError as error:
                    mutant_report = ShapeReport(shape, None, {}, [], [], error=str(error), mutant=name,
                                                seconds=time.perf_counter() - start)
                report.mutants.append(mutant_report)
                if progress:
                    progress(mutant_report)
    if unmeasured and report.deviation is not None:  # the largest of those measured, and which were not
        value, where, label = report.deviation
        report.deviation = (value, f"{where}; not measured at {', '.join(unmeasured)}", label)
    report.uses = rasp.uses
    return report


# -- certificates ------------------------------------------------------------------

def listing_claim(report: CheckReport) -> Claim:
    """The claim a checked listing stands for: the spec's statement with the
    listing's function as construction (for certificates)."""
    return listing_claim_of(report.spec, report.function, report.filename)


def listing_claim_of(spec: Spec, function: str, filename: str) -> Claim:
    """The claim a certificate of ``usim check`` states: written into it, and
    re-derived from its embedded source when it is read.

    Args:
        spec: the spec the listing was checked against.
        function: the listing's function.
        filename: the listing's file as the certificate names it.

    Returns:
        The claim (its obligations are built from the certificate's source).
    """
    def obligation(shape: Shape) -> Obligation:
        raise UsimError("a checked listing's obligations are rebuilt from its certificate's source")

    return Claim(id=spec.id, paper=spec.claim_id or "(a user's spec)",
                 title=f"{function} ({filename}) against the {spec.name} spec",
                 statement=spec.title, shapes=lambda n: [], obligation=obligation,
                 engines=spec.engines, notes=spec.notes)


def listing_certificate(report: CheckReport, timeout: float, seconds: float) -> dict:
    """A certificate of ``usim check``, with the listing (and, for a user's spec,
    the spec file) embedded so that ``usim verify`` can build every obligation again."""
    from usim.engine.certificate import certificate
    from usim.engine.runner import ClaimReport

    done = [s for s in report.shapes if s.result is not None]
    broken = [s for s in report.mutants if s.result is not None]
    engines: list[str] = []
    for s in done:
        for r in s.result.results:
            if r.engine not in engines:
                engines.append(r.engine)
    measures = []
    if report.deviation is not None:
        value, where, label = report.deviation
        measures.append(f"largest relative deviation from the exact {report.spec.name}: {value:.3e} "
                        f"(at {label}, {where}; a measurement, not a proof)")
    claim_report = ClaimReport(
        listing_claim(report), max(max(s.shape) for s in done) if done else 1, [s.result for s in done],
        [s.result for s in broken], {}, {}, measures, seconds, engines)
    source = {"kind": "listing", "file": report.filename, "text": report.source_text,
              "function": report.function, "spec": report.spec.name,
              "spec_source": dict(report.spec.source), "padding": report.padding,
              "parameters": dict(report.parameters)}
    if report.alphabet is not None:
        source["alphabet"] = list(report.alphabet.inputs)
        if report.alphabet.symbols != report.alphabet.inputs:  # the codes' order (strings + makes)
            source["symbols"] = list(report.alphabet.symbols)
    return certificate(claim_report, timeout, source)


def listing_source(source: Mapping[str, Any], resolve: Callable[[Mapping[str, Any]], Spec]):
    """How ``usim verify`` builds a checked listing's obligations again: from the
    embedded text, the function, the spec (``resolve`` builds it from the
    certificate's spec source) and the parameters."""
    if not isinstance(source.get("text"), str):
        raise UsimError("the certificate's listing source is incomplete (its text is missing)")
    spec_source = source.get("spec_source") or {"kind": "builtin", "name": source.get("spec")}
    spec = resolve(spec_source)
    alphabet = source.get("alphabet")
    rasp = load_text(source["text"], str(source.get("file", "<certificate>")), spec.reads == "symbol",
                     list(alphabet) if alphabet else None)
    symbols = source.get("symbols")
    if symbols is not None:
        if rasp.alphabet is None or not isinstance(symbols, list) or not all(isinstance(x, str) for x in symbols):
            raise UsimError("the certificate's listing source is malformed (its symbols are not a list of "
                            "strings of a listing read with symbols)")
        rasp.widen(symbols)  # the alphabet the obligations were proved with
    function = str(source.get("function"))
    parameters = dict(source.get("parameters") or {})
    padding = str(source.get("padding") or "zero")

    def build(shape: Shape, mutant: str | None) -> Obligation:
        ob = obligation_for(rasp, function, spec, shape, parameters, padding)
        if mutant is None:
            return ob
        if mutant not in spec.mutants:
            raise UsimError(f"the spec {spec.name} has no broken variant {mutant!r} any more")
        return mutant_obligation(rasp, ob, mutant, spec.mutants[mutant])

    return build, spec.engines
