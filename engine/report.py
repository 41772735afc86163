"""Closing tables, certificates (JSON) and their Markdown rendering.

A certificate records what was proved and how: the claim and its statement,
the bound, every obligation with its shape, each engine's status and time (and
counterexample), the construction's cost, the numeric cross-check, the versions
of usim, sympy, z3, numpy and Python, and the git commit of the source.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any, Sequence

from usim import __version__
from usim.engine.claim import Claim, ObligationResult, Status
from usim.engine.engines import ENGINES
from usim.engine.runner import ClaimReport, prove_claim
from usim.errors import UsimError

CERTIFICATE_VERSION = 1


def _git_commit() -> str:
    here = Path(__file__).resolve().parent
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                             text=True, timeout=5).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    if not sha:
        return "unknown"
    return sha + ("+modified" if dirty else "")


def versions() -> dict[str, str]:
    import numpy
    import sympy
    import z3

    found = {
        "usim": __version__,
        "python": platform.python_version(),
        "sympy": sympy.__version__,
        "z3": z3.get_version_string(),
        "numpy": numpy.__version__,
    }
    for optional in ("flint", "cvc5"):  # flint: canonical-form fast path; cvc5: optional engine
        try:
            module = __import__(optional)
            found[optional] = str(getattr(module, "__version__", "installed"))
        except ImportError:
            found[optional] = "absent"
    return found


def _engines_text(result: ObligationResult) -> str:
    return ", ".join(f"{r.engine} {r.status.value}" for r in result.results)


def certificate(report: ClaimReport, timeout: float) -> dict[str, Any]:
    claim = report.claim
    obligations = []
    for r in report.results:
        row = r.as_dict()
        row["label"] = r.label
        row["cost"] = report.costs.get(r.label)
        row["numeric_max_error"] = report.crosscheck.get(r.label)
        obligations.append(row)
    return {
        "usim_certificate": CERTIFICATE_VERSION,
        "claim": {"id": claim.id, "paper": claim.paper, "title": claim.title,
                  "statement": claim.statement, "semantics": claim.semantics, "notes": claim.notes,
                  "expected": claim.expected.value},
        "bound": report.max_n,
        "status": report.status.value,
        "engines": report.engines,
        "timeout_seconds": timeout,
        "obligations": obligations,
        "mutants": [dict(r.as_dict(), label=r.label) for r in report.mutant_results],
        "measures": report.measures,
        "cost": report.costs,
        "seconds": round(report.seconds, 3),
        "versions": versions(),
        "commit": _git_commit(),
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def _cost_text(cost: dict | None) -> str:
    if not cost:
        return "-"
    heads = ",".join(map(str, cost["heads_per_layer"]))
    text = f"{cost['layers']} layer(s) [{heads}]"
    if cost.get("uses_length"):
        text += f"; +length {cost['layers_with_length']}"
    return text


def table(rows: Sequence[Sequence[str]], header: Sequence[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def summary_row(report: ClaimReport) -> list[str]:
    largest = report.results[-1].label if report.results else None
    row = [report.claim.id, f"{len(report.results)} (N={report.max_n})",
           str(report.count(Status.PROVED)), str(report.count(Status.REFUTED)),
           str(report.count(Status.UNKNOWN) + report.count(Status.ERROR)),
           "+".join(report.engines), f"{report.seconds:.1f} s",
           _cost_text(report.costs.get(largest)) + (f" at {largest}" if largest else "")]
    if report.mutant_results:
        refuted = sum(r.status is Status.REFUTED for r in report.mutant_results)
        row.append(f"{refuted}/{len(report.mutant_results)} refuted")
    else:
        row.append("-")
    return row


def describe_failures(report: ClaimReport) -> list[str]:
    lines = []
    if report.claim.is_erratum:
        refuted = [r for r in report.results if r.status is Status.REFUTED]
        lines.append(f"  erratum: the published construction is REFUTED at {len(refuted)}/"
                     f"{len(report.results)} shapes"
                     + (f"; correct at {', '.join(r.label for r in report.results if r.status is Status.PROVED)}"
                        if any(r.status is Status.PROVED for r in report.results) else ""))
        if refuted and refuted[0].counterexample:
            lines.append(f"    e.g. at {refuted[0].label}: {refuted[0].counterexample.describe()}")
        others = [r for r in report.results if r.status not in (Status.REFUTED, Status.PROVED)]
        for r in others:
            lines.append(f"  {r.label}: {r.status.value} ({_engines_text(r)})")
        return lines
    for r in report.results:
        if r.status is Status.PROVED:
            if any(e.status is not Status.PROVED for e in r.results):
                lines.append(f"  {r.label}: PROVED by "
                             + ", ".join(e.engine for e in r.results if e.status is Status.PROVED)
                             + "; " + "; ".join(f"{e.engine} {e.status.value}: {e.detail}"
                                                for e in r.results if e.status is not Status.PROVED))
            continue
        lines.append(f"  {r.label}: {r.status.value} ({_engines_text(r)})")
        for e in r.results:
            if e.status is not Status.PROVED:
                lines.append(f"    {e.engine}: {e.detail}")
        if r.counterexample:
            lines.append(f"    counterexample: {r.counterexample.describe()}")
    by_mutant: dict[str, list[ObligationResult]] = {}
    for r in report.mutant_results:
        by_mutant.setdefault(r.mutant or "?", []).append(r)
    for name, rows in by_mutant.items():
        refuted = [r for r in rows if r.status is Status.REFUTED]
        agree = [r.label for r in rows if r.status is Status.PROVED]
        other = [f"{r.label} {r.status.value}" for r in rows if r.status not in (Status.REFUTED, Status.PROVED)]
        verdict = "refuted" if refuted and not other else "NOT REFUTED everywhere it should be"
        text = f"  mutant {name}: {verdict}: REFUTED at {len(refuted)}/{len(rows)} shapes"
        if agree:
            text += f"; equal to the target (so correct) at {', '.join(agree)}"
        if other:
            text += f"; {', '.join(other)}"
        lines.append(text)
        if refuted and refuted[-1].counterexample:
            lines.append(f"    e.g. at {refuted[-1].label}: {refuted[-1].counterexample.describe()}")
    return lines


def verdict(report: ClaimReport) -> str:
    """One line: the claim's status up to its bound, errata marked as such."""
    claim, n = report.claim, report.max_n
    if claim.is_erratum:
        if report.status is Status.REFUTED:
            return f"REFUTED as published (erratum; expected): counterexample above, N={n}"
        return (f"{report.status.value}: the published construction was expected to be refuted "
                f"(erratum) but was not, up to N={n}")
    if report.status is Status.PROVED:
        return f"PROVED for every shape up to N={n}"
    return f"{report.status.value} (not proved for every shape up to N={n})"


def run_and_report(claims: list[Claim], args: argparse.Namespace) -> int:
    """Prove ``claims`` as ``args`` says, print progress and the closing table."""
    engines = None if args.engine in (None, "all") else [e.strip() for e in args.engine.split(",")]
    show = (lambda line: print(line, file=sys.stderr, flush=True)) if not args.quiet else None
    unknown = [e for e in engines or () if e not in ENGINES]
    if unknown:
        raise UsimError(f"no engine {unknown[0]!r}; engines: {', '.join(ENGINES)}")
    if args.timeout <= 0:
        raise UsimError("--timeout must be positive")
    if args.max_n is not None and args.max_n < 1:
        raise UsimError("--max-n must be at least 1")
    reports = []
    for claim in claims:
        max_n = args.max_n or (claim.ci_max_n if getattr(args, "quick", False) else claim.default_max_n)
        if show:
            show(f"{claim.id} ({claim.paper}): {claim.title}; bound N={max_n}")
        reports.append(prove_claim(claim, max_n, engines, args.timeout, args.jobs,
                                   mutants=args.mutants, progress=show))
    header = ["claim", "shapes", "proved", "refuted", "unknown", "engines", "time", "cost", "mutants"]
    print(table([summary_row(r) for r in reports], header))
    for report in reports:
        notes = describe_failures(report) + [f"  {m}" for m in report.measures]
        if notes:
            print(f"\n{report.claim.id}:")
            print("\n".join(notes))
        print(f"\n{report.claim.id}: {verdict(report)}")
    if args.json:
        certs = [certificate(r, args.timeout) for r in reports]
        data = certs[0] if len(certs) == 1 else {"usim_certificates": CERTIFICATE_VERSION, "certificates": certs}
        try:
            Path(args.json).write_text(json.dumps(data, indent=2) + "\n")
        except OSError as error:
            raise UsimError(f"cannot write the certificate to {args.json}: {error.strerror}") from None
        print(f"certificate written to {args.json}")
    ok = all(r.status is r.claim.expected for r in reports)
    if args.mutants:
        ok = ok and all(r.mutants_refuted for r in reports)
    return 0 if ok else 1


# -- Markdown ----------------------------------------------------------------------

def load_certificates(path: str) -> list[dict]:
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise UsimError(f"no such file: {path}") from None
    except json.JSONDecodeError as error:
        raise UsimError(f"{path} is not JSON (line {error.lineno}: {error.msg})") from None
    if isinstance(data, dict) and "certificates" in data:
        certs = data["certificates"]
    else:
        certs = [data]
    for cert in certs:
        if not isinstance(cert, dict) or "usim_certificate" not in cert or "claim" not in cert:
            raise UsimError(f"{path} is not a usim certificate (write one with usim prove --json)")
    return certs


def markdown(cert: dict) -> str:
    claim = cert["claim"]
    lines = [
        f"# {claim['paper']}: {claim['title']}",
        "",
        (f"**Erratum: the construction as published is {cert['status']}** (expected REFUTED) "
         if claim.get("expected") == "REFUTED" else f"**Status: {cert['status']}** ")
        + f"for every shape up to N = {cert['bound']} "
        f"(claim `{claim['id']}`, engines: {', '.join(cert['engines'])}, "
        f"timeout {cert['timeout_seconds']} s per obligation and engine).",
        "",
        f"> {claim['statement']}",
        "",
    ]
    if claim.get("semantics"):
        lines += [f"Empty-row semantics: {claim['semantics']}.", ""]
    if claim.get("notes"):
        lines += [claim["notes"], ""]
    lines += ["## Obligations", "",
              "| shape | status | engines | cost | numeric cross-check (max abs error) |",
              "|---|---|---|---|---|"]
    for ob in cert["obligations"]:
        engines = "; ".join(f"{e['engine']}: {e['status']} ({e['seconds']:.3f} s)" for e in ob["engines"])
        err = ob.get("numeric_max_error")
        lines.append(f"| {ob['label']} | {ob['status']} | {engines} | {_cost_text(ob.get('cost'))} | "
                     f"{'-' if err is None else f'{err:.2e}'} |")
    details = [(ob, e) for ob in cert["obligations"] for e in ob["engines"]
               if e["status"] != "PROVED" or e.get("counterexample")]
    if details:
        lines += ["", "### Not proved by every engine", ""]
        for ob, e in details:
            lines.append(f"- {ob['label']}, {e['engine']}: {e['status']}: {e['detail']}")
            if e.get("counterexample"):
                lines.append(f"  - counterexample: {_cx_text(e['counterexample'])}")
    if cert.get("mutants"):
        lines += ["", "## Deliberately broken variants (must be REFUTED)", "",
                  "| variant | shape | status | counterexample |", "|---|---|---|---|"]
        for m in cert["mutants"]:
            cx = next((e["counterexample"] for e in m["engines"] if e.get("counterexample")), None)
            lines.append(f"| {m['mutant']} | {m['label']} | {m['status']} | {_cx_text(cx) if cx else '-'} |")
    if cert.get("measures"):
        lines += ["", "## Measurements (not proofs)", ""] + [f"- {m}" for m in cert["measures"]]
    v = cert.get("versions", {})
    lines += ["", "## Provenance", "",
              f"usim {v.get('usim')}, Python {v.get('python')}, sympy {v.get('sympy')}, "
              f"z3 {v.get('z3')}, numpy {v.get('numpy')}; commit `{cert.get('commit')}`; "
              f"created {cert.get('created')}; {cert.get('seconds')} s in all.", ""]
    return "\n".join(lines)


def _cx_text(cx: dict) -> str:
    inputs = " ".join(f"{k} = [" + "; ".join(", ".join(r) for r in v) + "]" for k, v in cx["inputs"].items())
    text = (f"{inputs}; position {cx['position']} ({cx['entry']}): expected {cx['expected']}, "
            f"got {cx['got']} (replayed {cx['replay']})")
    if cx.get("divergence"):
        text += f"; first diverges at `{cx['divergence']}`"
    return text
