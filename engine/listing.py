"""A RASP listing checked against a spec: the library behind ``usim check``.

A listing (a file in the RASP REPL's language, :mod:`usim.rasp.syntax`) is
checked against a *spec*: a claim whose construction the listing's function
replaces, keeping the claim's layouts, target and preconditions. For each shape:

1. the program is interpreted under every interpretation at one random rational
   input, and they are compared (cross-validation, exactly: a rational result
   is compared as a rational);
2. the obligation is proved or refuted by the engines, with its definedness
   check and witness, as any claim's;
3. powers are flagged (``b ^ x`` with a constant base is a power, never exp;
   ``length ^ 0.5`` is exact only at perfect squares), and for a spec that asks
   for exp the deviation is measured on random inputs (never proof).

How shapes are chosen. The paper's listings hard-code some dimensions and read
the rest from ``length``. A parameter of the function named after a dimension
(``r``, ``c``, ``k``, or ``rows``, ``cols``, ``inner``) is set to it for each
shape; a dimension the function (or the file) assigns an integer constant to
under such a name (``r = 3;``) is fixed to that value (even above N); every
other dimension ranges over 1..N.
"""

from __future__ import annotations

import dataclasses
import random
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import sympy

from usim.constructions.base import Construction
from usim.engine.claim import Claim, Obligation, ObligationResult, Shape, Status
from usim.errors import NotExactError, ShapeError, UsimError
from usim.rasp import expr as E
from usim.rasp.cost import Cost, cost, repl_heads
from usim.rasp.program import Program, topological_order
from usim.rasp.syntax import RaspFile, load_file, load_text


@dataclass(frozen=True)
class Spec:
    """What a listing must compute: a claim's statement, its dimensions by name."""

    name: str
    claim: Claim
    dims: tuple[str, ...]
    wants_exp: bool = False

    @property
    def dims_text(self) -> str:
        return " x ".join(self.dims)


# names under which a listing may hold a dimension
ALIASES = {
    "r": ("r", "rows", "n_rows", "num_rows"),
    "c": ("c", "cols", "columns", "n_cols", "num_cols"),
    "k": ("k", "inner", "n_inner"),
}


def _dimension_of(name: str) -> str | None:
    for dim, names in ALIASES.items():
        if name in names:
            return dim
    return None


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


# -- shapes -----------------------------------------------------------------------

@dataclass(frozen=True)
class ShapePlan:
    """Which shapes to check, and why."""

    shapes: tuple[Shape, ...]
    parameters: Mapping[str, str]          # function parameter -> dimension
    fixed: Mapping[str, tuple[str, int]]   # dimension -> (variable name, value)
    warnings: tuple[str, ...] = ()

    def describe(self, spec: Spec) -> str:
        parts = []
        if self.parameters:
            parts.append("parameters " + ", ".join(f"{p} = {d}" for p, d in self.parameters.items()))
        if self.fixed:
            parts.append("hard-coded " + ", ".join(f"{d} = {v} (as {n})" for d, (n, v) in self.fixed.items()))
        free = [d for d in spec.dims if d not in self.fixed]
        text = "; ".join(parts) if parts else "no parameters or hard-coded dimensions"
        return f"{text}; shapes {spec.dims_text} with {', '.join(free) or 'nothing'} free"


def _arguments(parameters: Mapping[str, str], spec: Spec, shape: Shape) -> dict[str, int]:
    values = dict(zip(spec.dims, shape))
    return {p: values[d] for p, d in parameters.items()}


def plan_shapes(rasp: RaspFile, function: str, spec: Spec, shapes: Sequence[Shape] | None,
                max_n: int | None) -> ShapePlan:
    claim = spec.claim
    parameters: dict[str, str] = {}
    for p in rasp.parameters(function):
        dim = _dimension_of(p)
        if dim is None or dim not in spec.dims:
            raise UsimError(
                f"{function} has the parameter {p!r}, which is not a dimension of the {spec.name} "
                f"spec ({spec.dims_text}; accepted names: "
                + "; ".join(f"{d}: {', '.join(ALIASES[d])}" for d in spec.dims) + ")")
        parameters[p] = dim
    bound = max_n or claim.default_max_n
    candidates = list(shapes) if shapes else list(claim.shapes(bound))
    if not candidates:
        raise UsimError(f"no {spec.name} shape up to {bound}")
    # a first call shows the constants the function assigns (its local variables)
    probe = rasp.build(function, _arguments(parameters, spec, candidates[0]))
    fixed: dict[str, tuple[str, int]] = {}
    for scope in (rasp.env.vars, probe.locals):  # the function's own constants win
        for name, value in scope.items():
            dim = _dimension_of(name)
            if dim in spec.dims and dim not in parameters.values() and _is_int(value) and value > 0:
                fixed[dim] = (name, value)
    warnings = []
    if shapes:
        for shape in shapes:
            values = dict(zip(spec.dims, shape))
            for dim, (name, value) in fixed.items():
                if values[dim] != value:
                    warnings.append(f"shape {'x'.join(map(str, shape))} has {dim} = {values[dim]}, but "
                                    f"{function} hard-codes {name} = {value}: checked anyway")
        chosen = candidates
    else:
        # hard-coded dimensions keep their value (even above N); the others range over 1..N
        wide = max([bound] + [v for _, v in fixed.values()])
        chosen = []
        for s in claim.shapes(wide):
            values = dict(zip(spec.dims, s))
            if all(values[d] == v for d, (_, v) in fixed.items()) and \
                    all(values[d] <= bound for d in spec.dims if d not in fixed):
                chosen.append(s)
        if not chosen:
            raise UsimError(f"{function} hard-codes " + ", ".join(f"{n} = {v}" for n, v in fixed.values())
                            + f": no {spec.name} shape with the other dimensions up to {bound} fits")
    return ShapePlan(tuple(chosen), parameters, fixed, tuple(warnings))


# -- one shape ---------------------------------------------------------------------

def obligation_for(rasp: RaspFile, function: str, spec: Spec, shape: Shape,
                   parameters: Mapping[str, str]) -> Obligation:
    """The claim's obligation for ``shape`` with the parsed program as its construction."""
    claim = spec.claim
    original = claim.obligation(shape)
    built = rasp.build(function, _arguments(parameters, spec, shape))
    program = Program.of(function, {function: built.sop}, f"{function} from {rasp.filename}")
    label = "x".join(map(str, shape))
    construction = Construction(
        name=f"{function} ({rasp.filename}) {label}",
        program=program,
        input_layout=original.construction.input_layout,
        output_layout=original.construction.output_layout,
        semantics="rasp",
        notes=f"parsed from {rasp.filename}",
    )
    return dataclasses.replace(original, construction=construction, output=None, mutant=None)


def _close(a: Any, b: Any) -> bool:
    try:
        fa, fb = float(a), float(b)
    except (TypeError, ValueError, OverflowError):
        return False
    return abs(fa - fb) <= 1e-9 * max(1.0, abs(fb))


def interpretations(ob: Obligation, seed: int = 0) -> dict[str, str]:
    """Run the program under every interpretation at one random rational input.

    Exact is the reference where it exists; the others are compared with it (the
    numeric one to 1e-9, the symbolic and smt ones after substituting the input).
    Agreement here is cross-validation, not proof.
    """
    import z3

    from usim.encodings.domain import Undefined
    from usim.encodings.evaluate import EXACT
    from usim.encodings.numeric import NumericInterpretation
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
    try:
        symbolic = output_of(ob, SymbolicInterpretation(), layout.encode(symbol_matrices(layout, ob.domain)))
        subs = {sympy.Symbol(n, **({"integer": True} if ob.domain == "integer" else {"real": True})):
                sympy.Rational(point[n].numerator, point[n].denominator)
                for n in names if n in point}
        values = [sympy.sympify(v).subs(subs) for v in symbolic]
        if reference is None:
            reference_numeric = [sympy.N(v, 30) for v in values]
            out["symbolic"] = "ok (the reference: exact values are irrational here)"
        else:
            bad = [p for p, (v, r) in enumerate(zip(values, reference))
                   if sympy.simplify(v - sympy.Rational(r.numerator, r.denominator)) != 0]
            out["symbolic"] = "ok" if not bad else f"DIFFERS from exact at position {bad[0]}"
            reference_numeric = reference
    except (UsimError, TypeError) as error:
        out["symbolic"] = f"failed: {error}"
        reference_numeric = reference
    try:
        numeric = output_of(ob, NumericInterpretation(), np.asarray([[float(t) for t in tokens]]))
        numeric = np.broadcast_to(np.asarray(numeric, dtype=float), (1, len(tokens)))[0]
        if reference_numeric is None:
            out["numeric"] = "ran (nothing to compare with)"
        else:
            bad = [p for p, (v, r) in enumerate(zip(numeric, reference_numeric)) if not _close(v, r)]
            out["numeric"] = "ok" if not bad else f"DIFFERS at position {bad[0]}: {numeric[bad[0]]} vs {float(reference_numeric[bad[0]])}"
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

def _depends_on_tokens(node: E.Expr) -> bool:
    return any(isinstance(n, E.Tokens) for n in topological_order([node]))


def power_findings(program: Program, spec: Spec, n: int) -> list[str]:
    """Non-integral powers in ``program`` at length n, said plainly."""
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
                f"{text}: a power to the base {b} ({float(b)}), not exp"
                + (" (the spec asks for exp; deviation measured below)" if spec.wants_exp else ""))
            continue
        if isinstance(exponent, E.Constant) and not isinstance(exponent.value, bool) \
                and Fraction(exponent.value).denominator != 1:
            if _depends_on_tokens(base):
                found.append(f"{text}: a non-integral power of an input-dependent value: "
                             "exact only where the value is a perfect power")
                continue
            values = evaluate(Program.of("base", {"base": base}), EXACT, [0] * n)["base"]
            irrational = sorted({Fraction(v) for v in values
                                 if not _rational_power(v, exponent.value, exact_pow)})
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
    except (NotExactError, ZeroDivisionError):
        return False


def relative_deviation(ob: Obligation, samples: int = 500, seed: int = 0) -> tuple[float, str]:
    """Largest relative |program - spec| / |spec| on random normal inputs at scales
    1 and 5 (floats): a measurement, never a proof."""
    from usim.engine.measure import numeric_deviation

    worst, where = 0.0, ""
    for scale in (1.0, 5.0):
        value = numeric_deviation(ob, seed, samples, scale=scale, relative=True)
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
    deviation: tuple[float, str] | None = None  # measured relative deviation from the spec

    @property
    def label(self) -> str:
        return "x".join(map(str, self.shape))

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

    @property
    def ok(self) -> bool:
        return bool(self.shapes) and all(s.status is Status.PROVED for s in self.shapes)

    def count(self, status: Status) -> int:
        return sum(s.status is status for s in self.shapes)


def _run(program: Program, name: str, values: Sequence[Any]) -> str:
    """The program's output on ``values``: exact if it can be, else floats."""
    from usim.encodings.runners import run_exact, run_numeric

    try:
        out = [str(v) for v in run_exact(program, list(values))[name]]
    except NotExactError:
        out = [f"{v:.6g}" for v in run_numeric(program, [float(v) for v in values])[name][0]]
    return "[" + ", ".join(out) + "]"


def _example_lines(rasp: RaspFile, function: str, spec: Spec, plan: ShapePlan) -> list[str]:
    from usim.engine.replay import entry_names, replay

    claim = spec.claim
    lines, seen = [], set()
    for example in rasp.examples:
        if example.values in seen:
            continue
        seen.add(example.values)
        head = f"line {example.line} ({example.kind}) {list(example.values)}"
        if not example.numeric:
            lines.append(f"{head}: skipped (not numbers)")
            continue
        n = len(example.values)
        shapes = [s for s in claim.shapes(n)
                  if all(dict(zip(spec.dims, s))[d] == v for d, (_, v) in plan.fixed.items())
                  and claim.obligation(s).construction.input_layout.length == n][:6]
        if not shapes:
            if plan.parameters:
                lines.append(f"{head}: no {spec.name} shape of length {n} to call {function} with")
                continue
            try:
                out = _run(rasp.program(function), function, example.values)
            except UsimError as error:
                lines.append(f"{head}: failed: {error}")
                continue
            lines.append(f"{head} -> {out}; no {spec.name} shape has length {n}"
                         + (" with the hard-coded dimensions" if plan.fixed else ""))
            continue
        for shape in shapes:
            label = "x".join(map(str, shape))
            try:
                ob = obligation_for(rasp, function, spec, shape, plan.parameters)
                out = _run(ob.construction.program, function, example.values)
            except UsimError as error:
                lines.append(f"{head} as {label}: failed: {error}")
                continue
            point = {name: Fraction(v) for name, v in
                     zip(entry_names(ob.construction.input_layout), example.values)}
            counter = replay(ob, point)
            verdict = "agrees with the spec" if counter is None else (
                f"DIFFERS from the spec: at {counter.entry} expected {counter.expected}, got {counter.got}")
            lines.append(f"{head} as {label} -> {out}: {verdict}")
    return lines


def check(path: str, function: str, spec: Spec, shapes: Sequence[Shape] | None = None,
          max_n: int | None = None, engines: Sequence[str] | None = None, timeout: float = 60.0,
          seed: int = 0, samples: int = 500, progress: Callable[["ShapeReport"], None] | None = None,
          on_plan: Callable[["ShapePlan"], None] | None = None) -> CheckReport:
    """Everything ``usim check`` does, as data (the command prints it)."""
    from usim.engine.runner import check_obligation
    rasp = load_file(path)
    rasp.get(function)
    plan = plan_shapes(rasp, function, spec, shapes, max_n)
    if on_plan:
        on_plan(plan)
    examples = _example_lines(rasp, function, spec, plan)
    report = CheckReport(path, function, spec, plan, set(), examples)
    claim = spec.claim
    for shape in plan.shapes:
        start = time.perf_counter()
        label = "x".join(map(str, shape))
        try:
            ob = obligation_for(rasp, function, spec, shape, plan.parameters)
        except (UsimError, ShapeError) as error:
            report.shapes.append(ShapeReport(shape, None, {}, [], [], error=str(error)))
            continue
        program = ob.construction.program
        n = ob.construction.input_layout.length
        findings = power_findings(program, spec, n)
        interp = interpretations(ob, seed)
        result = check_obligation(ob, engines=engines, timeout=timeout, claim_engines=claim.engines)
        shape_report = ShapeReport(shape, result, interp, cost_text(program), findings,
                                   seconds=time.perf_counter() - start)
        report.shapes.append(shape_report)
        if spec.wants_exp and any("not exp" in f for f in findings):
            shape_report.deviation = relative_deviation(ob, samples, seed)
            value, where = shape_report.deviation
            fits = all(dict(zip(spec.dims, shape))[d] == v for d, (_, v) in plan.fixed.items())
            if fits and (report.deviation is None or value > report.deviation[0]):
                report.deviation = (value, where, label)
        if progress:
            progress(shape_report)
    report.uses = rasp.uses
    return report


def listing_claim(report: CheckReport) -> Claim:
    """The claim a checked listing stands for: the spec's claim, its construction the listing's."""
    claim = report.spec.claim
    return dataclasses.replace(
        claim, title=f"{report.function} ({report.filename}) against the {report.spec.name} spec",
        mutants={}, measure=None)


def listing_certificate(report: CheckReport, timeout: float, seconds: float) -> dict:
    """A certificate of ``usim check``, with the listing embedded so that
    ``usim verify`` can build every obligation again."""
    from pathlib import Path

    from usim.engine.certificate import certificate
    from usim.engine.runner import ClaimReport

    done = [s for s in report.shapes if s.result is not None]
    engines = []
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
        listing_claim(report), max(max(s.shape) for s in done) if done else 1, [s.result for s in done], [],
        {}, {}, measures, seconds, engines)
    source = {"kind": "listing", "file": report.filename, "text": Path(report.filename).read_text(),
              "function": report.function, "spec": report.spec.name,
              "parameters": dict(report.plan.parameters)}
    return certificate(claim_report, timeout, source)


def listing_source(source: Mapping[str, Any], specs: Mapping[str, Spec]):
    """How ``usim verify`` builds a checked listing's obligations again: from the
    embedded text, the function, the spec and the parameters."""
    spec = specs.get(source.get("spec"))
    if spec is None or not isinstance(source.get("text"), str):
        raise UsimError("the certificate's listing source is incomplete (spec or text missing)")
    rasp = load_text(source["text"], str(source.get("file", "<certificate>")))
    function = str(source.get("function"))
    parameters = dict(source.get("parameters") or {})

    def build(shape: Shape, mutant: str | None) -> Obligation:
        if mutant is not None:
            raise UsimError("a checked listing has no broken variants")
        return obligation_for(rasp, function, spec, shape, parameters)

    return build, spec.claim.engines


