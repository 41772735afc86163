"""Text for people of ``usim check``: the plan, each shape's lines, the examples, the costs, the summary.

The listings layer returns data (:class:`usim.listings.report.CheckReport`
and its parts); the command prints what this module makes of it, as it comes
(:class:`usim.listings.check.CheckObserver`) and at the end.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from usim.encodings.digits import significant
from usim.encodings.notation import shape_label
from usim.engine.claim import NOT_RUN, TABULATED, Status
from usim.listings.examples import ExampleRun, shown_counterexample
from usim.listings.expect import Unmet
from usim.listings.plan import ShapePlan
from usim.listings.report import CheckReport, ListingCost, ShapeReport
from usim.listings.spec import ListingSpec

SHOWN_EXACTLY = 24  # characters of an exact value shown as it is; longer ones as ~ a float

_LONG_NUMBER = re.compile(r"(?<![\d.])-?\d+(/\d+)?(?![\d.])")


def show_value(v: Any, decimal: bool = False) -> str:
    """A value for a report: 3, 1/3 (or 0.25 with ``decimal``, as a listing
    writes its inputs), a long exact value as ~ its float; never Fraction(...).

    Args:
        v: a value of a listing's input or output (a number, a symbol, a boolean).
        decimal: show a rational with a short decimal expansion as that decimal.

    Returns:
        The text.
    """
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


def abbreviate(text: str, limit: int = 24) -> str:
    """Exact numbers longer than ``limit`` characters as ~ their float (the
    certificate keeps them in full)."""
    def short(match: re.Match) -> str:
        number = match.group(0)
        return number if len(number) <= limit else f"~{float(Fraction(number)):.12g}"
    return _LONG_NUMBER.sub(short, text)


def header_lines(path: str, function: str, spec: ListingSpec, bound_given: bool) -> list[str]:
    """What is checked, before anything is read (and the spec's default bound when none was given)."""
    lines = [f"{path}: function {function}, spec {spec.name} ({spec.title}"
             + (f"; claim {spec.claim_id}" if spec.claim_id else "") + ")"]
    if not bound_given:
        lines.append(f"bound: N = {spec.default_max_n} (the spec's default; --max-n N or --shape S to choose)")
    lines += ["interpretations: at each shape the listing also runs at one random input in every",
              "  interpretation, each against the exact run: a check of usim, not of the listing"]
    return lines


def plan_lines(plan: ShapePlan, spec: ListingSpec) -> list[str]:
    """The shapes chosen, and the warnings of shapes the listing is not meant for."""
    return [f"shapes chosen: {plan.describe(spec)}", *(f"warning: {w}" for w in plan.warnings)]


def alphabet_lines(alphabet: Any) -> list[str]:
    """What a spec of symbols' input ranges over (nothing for a spec of numbers)."""
    if alphabet is None:
        return []
    return [f"symbols: the input ranges over {', '.join(map(repr, alphabet.inputs))}"
            + (f" (codes in the order of {', '.join(map(repr, alphabet.symbols))})"
               if alphabet.symbols != alphabet.inputs else "")]


def shape_lines(s: ShapeReport, spec: ListingSpec, alphabet: Any = None, noun: str = "shape") -> list[str]:
    """One shape's (or broken variant's) verdict, the engines', and what else was found there.

    Args:
        s: the shape's report.
        spec: the spec it was checked against.
        alphabet: the symbols' codes of a spec of symbols (its counterexample
            is shown in symbols), None for numbers.
        noun: what a shape is called (``length`` for a tracr program's).

    Returns:
        The lines, the first one the verdict.
    """
    head = f"  {noun} {s.label}" + (f" [{s.mutant}]" if s.mutant else "")
    if s.error:
        return [f"{head}: {s.status.value}: {s.error}"]
    lines = []
    engines = ", ".join(f"{r.engine} not run" if r.detail.startswith(NOT_RUN) else
                        f"{r.engine} {r.status.value} {r.seconds:.2f}s" for r in s.result.results)
    lines.append(f"{head}: {s.status.value} ({engines})")
    if s.result.engine_choice == TABULATED:
        lines.append("      target: " + TABULATED.split(": ", 1)[1])
    counter = s.result.counterexample
    described = None if counter is None else abbreviate(shown_counterexample(counter, alphabet, spec).describe())
    if s.mutant:  # a broken variant: its verdict and its counterexample say enough
        if described is not None:
            lines.append(f"      counterexample: {described}")
        return lines
    if s.status is not Status.PROVED:
        for r in s.result.results:
            if r.detail and r.status is not Status.PROVED:
                lines.append(f"      {r.engine}: {r.detail}")
    else:  # proved by one engine: why another that ran could not decide
        for r in s.result.results:
            if r.detail and r.status is Status.UNKNOWN and not r.detail.startswith(NOT_RUN):
                lines.append(f"      {r.engine}: {r.detail}")
        for check in (s.result.definedness, s.result.witness):
            if check is not None and check.status is not Status.PROVED and check.detail:
                lines.append(f"      {check.engine}: {check.status.value}: {check.detail}")
    if described is not None:
        lines.append(f"      counterexample: {described}")
    if s.interpretations:
        lines.append("      interpretations: " + "; ".join(f"{k} {v}" for k, v in s.interpretations.items()))
    for finding in s.findings:
        lines.append(f"      power: {finding}")
    if s.deviation is not None and s.deviation[1]:
        value, where = s.deviation
        lines.append("      largest relative deviation from the spec: "
                     + (where if value is None else f"{value:.3e} ({where})"))
    return lines


def cost_lines(c: ListingCost) -> list[str]:
    """A listing's cost as usim counts it (with and without the layer that computes length) and as the REPL does."""
    u = c.usim
    lines = [f"usim: {u.layers} attention layer(s), heads per layer "
             f"[{', '.join(map(str, u.heads_per_layer)) or '-'}]"]
    if u.uses_length:
        lines.append(f"counting the layer that computes length: {u.layers_with_length} layer(s), "
                     f"heads per layer [{', '.join(map(str, u.heads_per_layer_with_length))}]")
    lines.append("as the REPL counts (distinct selectors per layer"
                 + (", length layer included" if u.uses_length else "") + f"): {len(c.repl_heads)} layer(s), "
                 f"heads per layer [{', '.join(map(str, c.repl_heads)) or '-'}]")
    return lines


def _values(values: Sequence[Any], decimal: bool = False) -> str:
    return "[" + ", ".join(show_value(v, decimal) for v in values) + "]"


def example_lines(runs: Sequence[ExampleRun], spec: ListingSpec, function: str) -> list[str]:
    """One line per example (and per shape it is run at): its output and whether it agrees with the spec.

    Args:
        runs: the examples run (:func:`usim.listings.examples.run_examples`).
        spec: the spec they are compared with.
        function: the listing's function.

    Returns:
        The lines.
    """
    lines = []
    for run in runs:
        head = f"line {run.line} ({run.kind}) {_values(run.values, True)}"
        n = len(run.values)
        if run.skipped is not None:
            lines.append(f"{head}: skipped (not {run.skipped})")
        elif run.shapes:
            for at in run.shapes:
                label = shape_label(at.shape)
                if at.error is not None:
                    lines.append(f"{head} as {label}: failed: {at.error}")
                    continue
                counter = at.counterexample
                verdict = "agrees with the spec" if counter is None else (
                    f"DIFFERS from the spec: at {counter.entry} expected {counter.expected}, got {counter.got}")
                lines.append(f"{head} as {label} -> {_values(at.output)}: {verdict}")
        elif run.uncalled:
            lines.append(f"{head}: no {spec.name} shape of length {n} to call {function} with")
        elif run.error is not None:
            lines.append(f"{head}: failed: {run.error}")
        else:
            lines.append(f"{head} -> {_values(run.output)}; no {spec.name} shape of length {n} "
                         "that the listing is meant for")
    return lines


def base_warning(report: CheckReport) -> list[str]:
    """One line where the base given (``--base``) is none of the bases the listing
    raises to the input: the verdicts are then against a softmax to another base."""
    given = report.spec.source.get("base")
    if given is None or not report.bases or Fraction(given) in report.bases:
        return []
    used = ", ".join(f"{b} ({significant(b, 12)})" for b in report.bases)
    return [f"warning: --base {Fraction(given)} ({significant(Fraction(given), 12)}) is not a base the listing "
            f"uses (it raises {used} to the input): the verdicts are against a softmax to the base given"]


def report_lines(report: CheckReport, samples: int, mutants: bool) -> list[str]:
    """What follows the shapes: what the listing reads, the examples, the costs, the deviation, the summary.

    Args:
        report: the check's report.
        samples: random inputs per scale of the measured deviation (said with it).
        mutants: the broken variants were checked (a line says whether each was refuted).

    Returns:
        The lines.
    """
    lines = base_warning(report)
    uses = sorted(report.uses)
    if uses:
        lines.append("reads/uses: " + ", ".join(uses)
                     + ("  (usim additions are not in the original REPL)" if any("addition" in u for u in uses)
                        else ""))
    if "tokens_int" in report.uses or "tokens_str" in report.uses or "tokens_bool" in report.uses:
        lines.append("note: tokens_int, tokens_str and tokens_asis are read as the numeric input (the REPL "
                     "would convert with int() or str()); tokens_bool is tokens != 0; the spec says which "
                     "inputs are checked (all reals unless it states a domain)")
    if report.padding == "any":
        lines.append("note: --padding any: positions past the result are not compared (masked to 0)")
    examples = example_lines(report.examples, report.spec, report.function)
    if examples:
        lines.append("examples:")
        lines += [f"  {line}" for line in examples]
    costs: dict[str, list[str]] = {}
    for s in report.shapes:
        if s.cost is not None:
            costs.setdefault("; ".join(cost_lines(s.cost)), []).append(s.label)
    for text, labels in costs.items():
        where = "every shape" if len(costs) == 1 else ", ".join(labels)
        lines.append(f"cost ({where}): {text}")
    if report.deviation is not None:
        value, where, label = report.deviation
        lines.append(f"exp: the spec asks for exp, the program computes a power instead: largest relative "
                     f"deviation from the exact {report.spec.name} {value:.3e} (at {label}, {where}, {samples} "
                     "random inputs per scale; a measurement, not a proof)")
    lines.append(f"summary: {len(report.shapes)} shape(s): {report.count(Status.PROVED)} PROVED, "
                 f"{report.count(Status.REFUTED)} REFUTED, {report.count(Status.UNKNOWN)} UNKNOWN"
                 + (f", {report.count(Status.VACUOUS)} VACUOUS" if report.count(Status.VACUOUS) else "")
                 + (f", {report.count(Status.ERROR)} ERROR" if report.count(Status.ERROR) else ""))
    if mutants:
        names = sorted({s.mutant for s in report.mutants})
        lines.append(f"broken variants: {len(names)} ({', '.join(names)}): "
                     + ("every one refuted" if report.mutants_refuted else "NOT every one refuted")
                     + f" ({report.count(Status.REFUTED, mutants=True)} REFUTED, "
                       f"{report.count(Status.PROVED, mutants=True)} PROVED where the variant happens to be right)")
    return lines


def expectation_lines(unmet: Sequence[Unmet], shapes: int) -> list[str]:
    """Whether every shape got its expected verdict (``usim check --expect``).

    Args:
        unmet: the shapes whose verdict is not the expected one.
        shapes: how many shapes were checked.

    Returns:
        One line when every verdict is the expected one, else a line per shape that is not.
    """
    if not unmet:
        return [f"expected verdicts: all {shapes} met (documented refutations included)"]
    lines = [f"expected verdicts: {len(unmet)} not met (a regression, or expectations to update)"]
    for u in unmet:
        got = "not checked (not a shape of this check)" if u.got is None else u.got.name
        lines.append(f"  shape {u.label}: expected {u.expected.name}, got {got}")
    return lines
