"""``usim check FILE.rasp --function NAME --spec SPEC (--shape S | --max-n N)``.

Reads a program written in the original RASP REPL's language and proves or
refutes it against a spec, shape by shape (:mod:`usim.engine.listing` says how
shapes are chosen and what is checked; :mod:`usim.proofs.specs` lists the
specs). It also runs the program on the file's examples, reports the cost as
usim and as the REPL count it, and flags non-integral powers. The exit status
is 0 only if every shape is PROVED; 2 for bad input.
"""

from __future__ import annotations

import argparse
import time

from usim.errors import UsimError

SPEC_NAMES = ("matmul", "softmax", "transpose")  # usim.proofs.specs.TABLE (checked by a test)


def _print_shape(s) -> None:
    if s.error:
        print(f"  shape {s.label}: ERROR: {s.error}")
        return
    engines = ", ".join(f"{r.engine} {r.status.value} {r.seconds:.2f}s" for r in s.result.results)
    print(f"  shape {s.label}: {s.status.value} ({engines})")
    if s.status.value != "PROVED":
        for r in s.result.results:
            if r.detail and r.status.value != "PROVED":
                print(f"      {r.engine}: {r.detail}")
    counter = s.result.counterexample
    if counter is not None:
        print(f"      counterexample: {counter.describe()}")
    print("      interpretations: " + "; ".join(f"{k} {v}" for k, v in s.interpretations.items()))
    for finding in s.findings:
        print(f"      power: {finding}")
    if s.deviation is not None:
        print(f"      largest relative deviation from the spec: {s.deviation[0]:.3e} ({s.deviation[1]})")


def run(args: argparse.Namespace) -> int:
    from usim.commands.prove import check_writable, engines_option
    from usim.encodings.layout import parse_dims
    from usim.engine.claim import Status
    from usim.engine.listing import ShapePlan, ShapeReport, check, listing_certificate
    from usim.proofs.specs import spec as spec_named

    started = time.perf_counter()
    spec = spec_named(args.spec)
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
    print(f"{args.file}: function {args.function}, spec {spec.name} (claim {spec.claim.id})")
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

    report = check(args.file, args.function, spec, shapes, args.max_n, engines, args.timeout,
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
    parser.add_argument("--spec", required=True, choices=sorted(SPEC_NAMES),
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
