"""``usim check FILE.rasp --function NAME --spec SPEC (--shape S | --max-n N)``.

Reads a program written in the original RASP REPL's language
(:mod:`usim.rasp.syntax`), takes the sequence the function ``NAME`` returns, and
for each shape:

1. interprets it under every interpretation (numeric, exact where the values are
   rational, symbolic, smt) at one random rational input and says whether they agree;
2. proves or refutes it against the spec with the proof engine: the obligation is
   the paper claim's own (``lemma3`` for transpose, ``lemma4`` for softmax, ``lemma5``
   for matmul: its layouts and its independent target) with the parsed program as the
   construction. PROVED, REFUTED (with a replayed counterexample) or UNKNOWN.

It also runs the program on the file's examples (``set example X`` and applications
``f()(X)``), checking each against the spec where the example's length fits a shape,
reports the cost (attention layers and heads per layer, without and with the layer
that computes ``length``, and heads as the REPL counts them: distinct selectors per
layer, ``selector_width`` being two), and flags non-integral powers: ``b ^ x`` with
a constant base is a power, never ``exp(x)`` (for a softmax spec the deviation from
the exact softmax is measured on random inputs), and ``length ^ 0.5`` is exact only
where length is a perfect square.

How shapes are chosen. The paper's listings hard-code some dimensions and read the
rest from ``length``. A parameter of the function named after a dimension (``r``,
``c``, ``k``, or ``rows``, ``cols``, ``inner``) is set to it for each shape; a
dimension the function (or the file) assigns an integer constant to under such a
name (``r = 3;``) is fixed to that value (even above N); every other dimension ranges
over 1..N.
``--shape`` checks exactly the shapes given (with a warning if one contradicts a
hard-coded dimension). The exit status is 0 only if every shape is PROVED.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping, Sequence

import numpy as np
import sympy

from usim.constructions.base import Construction
from usim.encodings.layout import parse_dims
from usim.engine.claim import Obligation, ObligationResult, Status
from usim.errors import NotExactError, ShapeError, UsimError
from usim.rasp import expr as E
from usim.rasp.cost import Cost, cost
from usim.rasp.program import Program, topological_order
from usim.rasp.syntax import RaspFile, load_file

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Spec:
    name: str
    claim: str
    dims: tuple[str, ...]
    wants_exp: bool = False

    @property
    def dims_text(self) -> str:
        return " x ".join(self.dims)


SPECS = {
    "transpose": Spec("transpose", "lemma3", ("r", "c")),
    "softmax": Spec("softmax", "lemma4", ("r", "c"), wants_exp=True),
    "matmul": Spec("matmul", "lemma5", ("r", "k", "c")),
}

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


def _claim(spec: Spec):
    from usim.proofs import get

    return get(spec.claim)


def _arguments(parameters: Mapping[str, str], spec: Spec, shape: Shape) -> dict[str, int]:
    values = dict(zip(spec.dims, shape))
    return {p: values[d] for p, d in parameters.items()}


def plan_shapes(rasp: RaspFile, function: str, spec: Spec, shapes: Sequence[Shape] | None,
                max_n: int | None) -> ShapePlan:
    claim = _claim(spec)
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
    claim = _claim(spec)
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
        reference = [Fraction(v) for v in output_of(ob, EXACT, tokens)]
        out["exact"] = "ok"
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
            bad = [p for p, (v, r) in enumerate(zip(values, reference)) if sympy.nsimplify(v) != r]
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

def repl_heads(program: Program, with_length: bool = True) -> tuple[int, ...]:
    """Heads per layer as the REPL's analyser counts them.

    The REPL (``width_and_depth``) puts each aggregate at the layer after its inputs
    (as usim does) and counts, per layer, the distinct selectors its aggregates use:
    two aggregates over one selector are one head. Its library computes
    ``selector_width`` with two aggregates over two selectors (two heads), and, with
    ``with_length``, ``length`` takes a head in layer 1 of its own.
    """
    depth: dict[int, int] = {}
    heads: dict[int, set] = {}
    for node in topological_order(sop for _, sop in program.outputs):
        below = max((depth[c.id] for c in node.children()), default=0)
        if isinstance(node, E.Aggregate):
            depth[node.id] = below + 1
            heads.setdefault(below + 1, set()).add(node.selector.id)
        elif isinstance(node, E.SelectorWidth):
            depth[node.id] = below + 1
            heads.setdefault(below + 1, set()).update({(node.id, 0), (node.id, 1)})
        elif isinstance(node, E.Length) and with_length:
            depth[node.id] = 1
            heads.setdefault(1, set()).add("length")
        else:
            depth[node.id] = below
    top = max(heads, default=0)
    return tuple(len(heads.get(layer, ())) for layer in range(1, top + 1))


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

    claim = _claim(spec)
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


def check(path: str, function: str, spec_name: str, shapes: Sequence[Shape] | None = None,
          max_n: int | None = None, engines: Sequence[str] | None = None, timeout: float = 60.0,
          seed: int = 0, samples: int = 500, progress=None, on_plan=None) -> CheckReport:
    """Everything ``usim check`` does, as data (the command prints it)."""
    from usim.engine.runner import check_obligation

    if spec_name not in SPECS:
        raise UsimError(f"no spec {spec_name!r}; specs: {', '.join(SPECS)}")
    spec = SPECS[spec_name]
    rasp = load_file(path)
    rasp.get(function)
    plan = plan_shapes(rasp, function, spec, shapes, max_n)
    if on_plan:
        on_plan(plan)
    examples = _example_lines(rasp, function, spec, plan)
    report = CheckReport(path, function, spec, plan, set(), examples)
    claim = _claim(spec)
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


def _print_shape(s: ShapeReport) -> None:
    if s.error:
        print(f"  shape {s.label}: ERROR: {s.error}")
        return
    engines = ", ".join(f"{r.engine} {r.status.value} {r.seconds:.2f}s" for r in s.result.results)
    print(f"  shape {s.label}: {s.status.value} ({engines})")
    if s.status is not Status.PROVED:
        for r in s.result.results:
            if r.detail and r.status is not Status.PROVED:
                print(f"      {r.engine}: {r.detail}")
    counter = s.result.counterexample
    if counter is not None:
        print(f"      counterexample: {counter.describe()}")
    print("      interpretations: " + "; ".join(f"{k} {v}" for k, v in s.interpretations.items()))
    for finding in s.findings:
        print(f"      power: {finding}")
    if s.deviation is not None:
        print(f"      largest relative deviation from the spec: {s.deviation[0]:.3e} ({s.deviation[1]})")


def listing_claim(report: CheckReport):
    """The claim a checked listing stands for: the spec's claim, its construction the listing's."""
    claim = _claim(report.spec)
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


def listing_source(source: Mapping[str, Any]):
    """How ``usim verify`` builds a checked listing's obligations again: from the
    embedded text, the function, the spec and the parameters."""
    from usim.rasp.syntax import load_text

    spec = SPECS.get(source.get("spec"))
    if spec is None or not isinstance(source.get("text"), str):
        raise UsimError("the certificate's listing source is incomplete (spec or text missing)")
    rasp = load_text(source["text"], str(source.get("file", "<certificate>")))
    function = str(source.get("function"))
    parameters = dict(source.get("parameters") or {})

    def build(shape: Shape, mutant: str | None) -> Obligation:
        if mutant is not None:
            raise UsimError("a checked listing has no broken variants")
        return obligation_for(rasp, function, spec, shape, parameters)

    return build, _claim(spec).engines


def run(args: argparse.Namespace) -> int:
    from usim.commands.prove import check_writable, engines_option

    started = time.perf_counter()
    spec = SPECS[args.spec]
    shapes = [parse_dims(text, len(spec.dims)) for text in args.shape] if args.shape else None
    if shapes is None and args.max_n is None:
        raise UsimError(f"give --shape ({'x'.join(spec.dims)}) or --max-n N")
    if args.max_n is not None and args.max_n < 1:
        raise UsimError("--max-n must be at least 1")
    if not (args.timeout > 0 and args.timeout < float("inf")):
        raise UsimError(f"--timeout must be a positive number of seconds, not {args.timeout:g}")
    if args.json:
        check_writable(args.json, "--json")
    engines = engines_option(args.engine)
    print(f"{args.file}: function {args.function}, spec {spec.name} (claim {spec.claim})")
    printed = {"header": False}

    def on_plan(plan: ShapePlan) -> None:
        print(f"shapes chosen: {plan.describe(spec)}")
        for warning in plan.warnings:
            print(f"warning: {warning}")

    def progress(s: ShapeReport) -> None:
        if not printed["header"]:
            printed["header"] = True
            print("shapes:")
        _print_shape(s)

    report = check(args.file, args.function, args.spec, shapes, args.max_n, engines, args.timeout,
                   args.seed, args.samples, progress=progress, on_plan=on_plan)
    uses = sorted(report.uses)
    if uses:
        print("reads/uses: " + ", ".join(uses)
              + ("  (usim additions are not in the original REPL)" if any("addition" in u for u in uses) else ""))
    if "tokens_int" in report.uses or "tokens_str" in report.uses or "tokens_bool" in report.uses:
        print("note: tokens_int, tokens_str and tokens_asis are read as the numeric input (the REPL "
              "would convert with int() or str()); tokens_bool is tokens != 0; the spec is checked "
              "for all real inputs")
    if report.examples:
        print("examples:")
        for line in report.examples:
            print(f"  {line}")
    costs: dict[str, list[str]] = {}
    for s in report.shapes:
        if s.cost:
            costs.setdefault("; ".join(s.cost), []).append(s.label)
    for text, labels in costs.items():
        where = "every shape" if len(costs) == 1 else ", ".join(labels)
        print(f"cost ({where}): {text}")
    if report.deviation is not None:
        value, where, label = report.deviation
        print(f"exp: the spec asks for exp, the program computes a power instead: largest relative "
              f"deviation from the exact {spec.name} {value:.3e} (at {label}, {where}, {args.samples} "
              "random inputs per scale; a measurement, not a proof)")
    total = len(report.shapes)
    print(f"summary: {total} shape(s): {report.count(Status.PROVED)} PROVED, "
          f"{report.count(Status.REFUTED)} REFUTED, {report.count(Status.UNKNOWN)} UNKNOWN"
          + (f", {report.count(Status.ERROR)} ERROR" if report.count(Status.ERROR) else ""))
    if args.json:
        import json
        from pathlib import Path

        Path(args.json).write_text(json.dumps(
            listing_certificate(report, args.timeout, time.perf_counter() - started), indent=2) + "\n")
        print(f"certificate written to {args.json} (check it again with usim verify {args.json})")
    return 0 if report.ok else 1


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "check",
        help="read a program in the RASP REPL's language and prove it against a spec",
        description=(
            "Read FILE.rasp (the original RASP REPL's language), take the sequence the function "
            "NAME returns, interpret it under every interpretation, run it on the file's examples, "
            "and prove or refute it against the spec for each shape (the claims lemma3, lemma4, "
            "lemma5 with the parsed program as construction). How shapes are chosen: a parameter "
            "of NAME named after a dimension (r/rows, c/cols, k/inner) is set to it; a dimension "
            "NAME (or the file) assigns an integer to under such a name (r = 3;) is fixed to that "
            "value (even above N); the other dimensions range over 1..N. Exit status 0 only if every "
            "shape is PROVED."
        ),
    )
    parser.add_argument("file", help="a .rasp file")
    parser.add_argument("--function", "-f", required=True, help="the function (or sequence) to check")
    parser.add_argument("--spec", required=True, choices=sorted(SPECS),
                        help="transpose (r x c), softmax (r x c), matmul (r x k x c)")
    parser.add_argument("--shape", action="append",
                        help="a shape such as 3x4 (matmul: 2x3x2); repeatable")
    parser.add_argument("--max-n", type=int, default=None,
                        help="check every shape the function supports: free dimensions up to N, "
                        "hard-coded ones (r = 3;) at their value")
    parser.add_argument("--engine", default="all", help="sympy, z3, or all (default)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds per shape and engine; over it: UNKNOWN (default 60)")
    parser.add_argument("--samples", type=int, default=500,
                        help="random inputs per scale for measured deviations (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    parser.add_argument("--json", metavar="FILE",
                        help="write a certificate (JSON) with the listing embedded; usim verify re-runs it")
    parser.set_defaults(func=run)
