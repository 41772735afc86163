"""``usim check FILE.rasp --function F (--spec NAME | --spec-file SPEC.py:NAME) [--shape S | --max-n N]``.

Reads a program written in the original RASP REPL's language and proves or
refutes it against a spec, shape by shape (:mod:`usim.listings.listing` says how
shapes are chosen and what is checked; :mod:`usim.listings.specs` lists the
built-in specs, :mod:`usim.listings.user_spec` says how to write one). It also
runs the program on the file's examples, reports the cost as usim and as the
REPL count it, and flags non-integral powers. Every answer is computed in the
run: it never reads or writes the verdict cache. The exit status is 0 only if
every shape is PROVED (and, with --mutants, every broken variant is refuted);
1 otherwise; 2 for bad input.
"""

from __future__ import annotations

import argparse
import re
import time
from fractions import Fraction

from usim.commands.options import add_engine, add_max_n, add_timeout
from usim.engine.options import ENGINE_NAMES
from usim.errors import UsimError
from usim.listings.options import SPEC_NAMES


_LONG_NUMBER = re.compile(r"(?<![\d.])-?\d+(/\d+)?(?![\d.])")


def _abbreviate(text: str, limit: int = 24) -> str:
    """Exact numbers longer than ``limit`` characters as ~ their float (the
    certificate keeps them in full)."""
    def short(match: re.Match) -> str:
        number = match.group(0)
        return number if len(number) <= limit else f"~{float(Fraction(number)):.12g}"
    return _LONG_NUMBER.sub(short, text)


def _print_shape(s, shown=lambda s: None) -> None:
    head = f"  shape {s.label}" + (f" [{s.mutant}]" if s.mutant else "")
    if s.error:
        print(f"{head}: ERROR: {s.error}")
        return
    engines = ", ".join(f"{r.engine} {r.status.value} {r.seconds:.2f}s" for r in s.result.results)
    print(f"{head}: {s.status.value} ({engines})")
    if s.mutant:  # a broken variant: its verdict and its counterexample say enough
        if s.result.counterexample is not None:
            print(f"      counterexample: {_abbreviate(shown(s) or s.result.counterexample.describe())}")
        return
    if s.status.value != "PROVED":
        for r in s.result.results:
            if r.detail and r.status.value != "PROVED":
                print(f"      {r.engine}: {r.detail}")
        for check in (s.result.definedness, s.result.witness):
            if check is not None and check.status.value not in ("PROVED",) and check.detail:
                print(f"      {check.engine}: {check.status.value}: {check.detail}")
    counter = s.result.counterexample
    if counter is not None:
        print(f"      counterexample: {_abbreviate(shown(s) or counter.describe())}")
    if s.interpretations:
        print("      interpretations: " + "; ".join(f"{k} {v}" for k, v in s.interpretations.items()))
    for finding in s.findings:
        print(f"      power: {finding}")
    if s.deviation is not None and s.deviation[1]:
        value, where = s.deviation
        print(f"      largest relative deviation from the spec: "
              + (where if value is None else f"{value:.3e} ({where})"))


def _spec(args: argparse.Namespace):
    from usim.listings.specs import parse_base, spec as spec_named

    if (args.spec is None) == (args.spec_file is None):
        raise UsimError("give one of --spec NAME or --spec-file SPEC.py:NAME")
    if args.spec_file is not None:
        from usim.listings.user_spec import load_spec_file

        if args.base is not None:
            raise UsimError("--base applies to the built-in softmax specs; a spec file states its own")
        return load_spec_file(args.spec_file)
    return spec_named(args.spec, parse_base(args.base))


def run(args: argparse.Namespace) -> int:
    from usim.commands.options import CHECK_LARGEST_N, check_max_n, check_timeout, check_writable, engines_option
    from usim.encodings.layout import parse_dims
    from usim.engine.claim import Status
    from usim.listings.listing import ShapePlan, ShapeReport, check, listing_certificate
    from usim.repl.symbols import parse_alphabet

    started = time.perf_counter()
    spec = _spec(args)
    shapes = [parse_dims(text, len(spec.dims)) for text in args.shape] if args.shape else None
    check_max_n(args.max_n, CHECK_LARGEST_N)
    check_timeout(args.timeout)
    if args.json:
        check_writable(args.json, "--json")
    engines = engines_option(args.engine)
    print(f"{args.file}: function {args.function}, spec {spec.name} ({spec.title}"
          + (f"; claim {spec.claim_id}" if spec.claim_id else "") + ")")
    if shapes is None and args.max_n is None:
        print(f"bound: N = {spec.default_max_n} (the spec's default; --max-n N or --shape S to choose)")
    printed = {"header": False}

    def on_plan(plan: ShapePlan) -> None:
        print(f"shapes chosen: {plan.describe(spec)}")
        for warning in plan.warnings:
            print(f"warning: {warning}")

    alphabet = parse_alphabet(args.alphabet) if args.alphabet is not None else None
    shown_by: dict = {}

    def progress(s: ShapeReport) -> None:
        if not printed["header"]:
            printed["header"] = True
            print("shapes:")
        _print_shape(s, lambda shape: shown_by["report"](shape) if "report" in shown_by else None)

    def on_report(report) -> None:
        shown_by["report"] = report.counterexample_text
        if report.alphabet is not None:
            print(f"symbols: the input ranges over {', '.join(map(repr, report.alphabet.inputs))}"
                  + (f" (codes in the order of {', '.join(map(repr, report.alphabet.symbols))})"
                     if report.alphabet.symbols != report.alphabet.inputs else ""))

    report = check(args.file, args.function, spec, shapes, args.max_n, engines, args.timeout,
                   args.seed, args.samples, progress=progress, on_plan=on_plan, padding=args.padding,
                   mutants=args.mutants, alphabet=alphabet, on_report=on_report)
    uses = sorted(report.uses)
    if uses:
        print("reads/uses: " + ", ".join(uses)
              + ("  (usim additions are not in the original REPL)" if any("addition" in u for u in uses) else ""))
    if "tokens_int" in report.uses or "tokens_str" in report.uses or "tokens_bool" in report.uses:
        print("note: tokens_int, tokens_str and tokens_asis are read as the numeric input (the REPL "
              "would convert with int() or str()); tokens_bool is tokens != 0; the spec says which "
              "inputs are checked (all reals unless it states a domain)")
    if args.padding == "any":
        print("note: --padding any: positions past the result are not compared (masked to 0)")
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
          + (f", {report.count(Status.VACUOUS)} VACUOUS" if report.count(Status.VACUOUS) else "")
          + (f", {report.count(Status.ERROR)} ERROR" if report.count(Status.ERROR) else ""))
    if args.mutants:
        names = sorted({s.mutant for s in report.mutants})
        print(f"broken variants: {len(names)} ({', '.join(names)}): "
              + ("every one refuted" if report.mutants_refuted else "NOT every one refuted")
              + f" ({report.count(Status.REFUTED, mutants=True)} REFUTED, "
                f"{report.count(Status.PROVED, mutants=True)} PROVED where the variant happens to be right)")
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
            "F returns (or the expression F, e.g. 'Det(Cofactor())'), interpret it under every "
            "interpretation, run it on the file's examples, and prove or refute it against the "
            "spec for each shape. How shapes are chosen: a parameter of F named after a dimension "
            "(r/rows, c/cols, k/inner, h/heads, p/modulus, n) is set to it; a dimension F (or the "
            "file) assigns a whole number to (r = 3;) is fixed to that value (even above N); "
            "k = length / (3 + 4) fixes r = 3 and c = 4 of a product; a dimension read from length "
            "(c = length / 3, n = length ^ 0.5 for a square) keeps the shapes where it is that "
            "dimension; the other dimensions range over 1..N. Every answer is computed in this run: "
            "usim check never reads or writes the verdict cache. Exit status 0 only if every shape is "
            "PROVED."
        ),
    )
    parser.add_argument("file", help="a .rasp file")
    parser.add_argument("--function", "-f", required=True,
                        help="the function (or sequence) to check, or an expression such as 'Det(Cofactor())'")
    parser.add_argument("--spec", choices=SPEC_NAMES, metavar="NAME",
                        help="a built-in spec: " + ", ".join(SPEC_NAMES) + " (usim.listings.specs lists "
                        "what each states)")
    parser.add_argument("--spec-file", metavar="SPEC.py:NAME",
                        help="a spec of your own: the function NAME of a Python file, declared with "
                        "@spec(inputs=..., outputs=...) from usim.listings.user_spec (see the README)")
    parser.add_argument("--base", help="softmax specs: the base the listing should use in place of e "
                        "(e, the default, or a number such as 2.718 or 2.73)")
    parser.add_argument("--shape", action="append",
                        help="a shape such as 3x4 (matmul: 2x3x2); repeatable")
    add_max_n(parser, "check every shape the function is meant for: free dimensions up to N, "
              "hard-coded ones at their value (default: the spec's N)")
    parser.add_argument("--alphabet", metavar="SYMBOLS",
                        help="specs of symbols (reverse, histogram, sort, most_frequent, or a spec file's): "
                        "the symbols an input entry ranges over, e.g. abc or 'x,y,z' (default: the symbols "
                        "of the file's examples)")
    parser.add_argument("--padding", choices=("zero", "any"), default="zero",
                        help="zero (default): positions past the result must hold 0, as the paper's "
                        "layouts say; any: they are not compared")
    parser.add_argument("--mutants", action="store_true",
                        help="also check the broken variants a spec file declares (each must be refuted)")
    add_engine(parser, f"{', '.join(ENGINE_NAMES)}, or all (default)")
    add_timeout(parser, "shape")
    parser.add_argument("--samples", type=int, default=500,
                        help="random inputs per scale for measured deviations (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    parser.add_argument("--json", metavar="FILE",
                        help="write a certificate (JSON) with the listing embedded; usim verify re-runs it")
    parser.set_defaults(func=run)
