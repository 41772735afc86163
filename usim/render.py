"""Text for people: closing tables, verdict lines, and certificates as Markdown.

The engine returns data (:class:`usim.engine.runner.ClaimReport`, checked
:class:`usim.engine.certificate.Certificate`); the commands print what this
module makes of it. Every status shown is derived from the engines' verdicts
(a certificate's recorded statuses are checked against them when it is read).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from usim.encodings.notation import shape_label
from usim.engine.cache import VerdictCache
from usim.engine.certificate import Certificate
from usim.engine.claim import EngineResult, ObligationResult, Status
from usim.engine.runner import ClaimReport
from usim.text_layout import LINE_WIDTH, fitted, table  # noqa: F401 (the commands import them from here)


def cost_text(cost: dict | None) -> str:
    if not cost:
        return "-"
    heads = ",".join(map(str, cost["heads_per_layer"]))
    text = f"{cost['layers']} layer(s) [{heads}]"
    if cost.get("uses_length"):
        text += f"; +length {cost['layers_with_length']}"
    return text


CACHED = " (cached)"
"""The mark of an answer reused from the verdict cache, wherever a verdict is shown."""


def _mark(answer: EngineResult | None) -> str:
    return CACHED if answer is not None and answer.cached else ""


def engines_text(result: ObligationResult) -> str:
    parts = [f"{r.engine} {r.status.value}{_mark(r)}" for r in result.results]
    parts.append(f"defined {result.definedness_status.value}{_mark(result.definedness)}")
    parts.append(f"witness {result.witness_status.value}{_mark(result.witness)}")
    return ", ".join(parts)


def cache_words(reused: int, answers: int, ignored: Mapping[str, int]) -> str:
    """How a run used the verdict cache, in words: the answers it reused and the
    entries it ignored (they did not check out, and were computed again), by reason.

    Args:
        reused: answers reused from the cache.
        answers: all the run's answers.
        ignored: reason -> how many entries were ignored for it.

    Returns:
        E.g. "2 of 8 answers from the cache; 4 cache entries ignored and recomputed,
        integrity tag does not check out: 4".
    """
    text = f"{reused} of {answers} answers from the cache"
    count = sum(ignored.values())
    if count:
        text += (f"; {count} cache {'entry' if count == 1 else 'entries'} ignored and recomputed, "
                 + ", ".join(f"{reason}: {n}" for reason, n in ignored.items()))
    return text


def cache_problem(cache: VerdictCache | None) -> str | None:
    """The line that says why the verdict cache was not used (its key), or None.

    Args:
        cache: the run's cache (None: ``--no-cache``).

    Returns:
        One line, or None when the cache was not asked for or could be used.
    """
    if cache is None or cache.problem is None:
        return None
    return f"the verdict cache was not used: {cache.problem}"


def cache_cell(report: ClaimReport) -> str:
    """The table's cell: answers from the cache of all, entries ignored; "-" if the cache was not read."""
    if not report.cache_use.read:
        return "-"
    ignored = len(report.cache_use.ignored)
    return f"{report.cached}/{len(report.answers())}" + (f", {ignored} ignored" if ignored else "")


SUMMARY_HEADER = ["claim", "shapes", "proved", "refuted", "unknown", "engines", "time", "cost", "mutants", "cache"]


def summary_row(report: ClaimReport) -> list[str]:
    largest = report.results[-1].label if report.results else None
    row = [report.claim.id, f"{len(report.results)} (N={report.max_n})",
           str(report.count(Status.PROVED)), str(report.count(Status.REFUTED)),
           str(report.count(Status.UNKNOWN) + report.count(Status.ERROR) + report.count(Status.VACUOUS)),
           "+".join(report.engines), f"{report.seconds:.1f} s",
           cost_text(report.costs.get(largest)) + (f" at {largest}" if largest else "")]
    if report.mutant_results:
        refuted = sum(r.status is Status.REFUTED for r in report.mutant_results)
        row.append(f"{refuted}/{len(report.mutant_results)} refuted")
    else:
        row.append("-")
    row.append(cache_cell(report))
    return row


def counterexample_text(r: ObligationResult) -> str:
    """The obligation's counterexample in words, said to come from the cache
    (replayed again in this run) when the answer that carries it does."""
    found = next(a for a in (*r.results, r.definedness) if a is not None and a.counterexample is not None)
    return found.counterexample.describe() + (" (cached; replayed again in this run)" if found.cached else "")


def _not_proved_lines(r: ObligationResult) -> list[str]:
    lines = [f"  {r.label}: {r.status.value} ({engines_text(r)})"]
    for e in r.results:
        if e.status is not Status.PROVED:
            lines.append(f"    {e.engine}: {e.detail}")
    for check in (r.definedness, r.witness):
        if check is not None and check.status is not Status.PROVED:
            lines.append(f"    {check.engine}: {check.detail}")
    if r.counterexample:
        lines.append(f"    counterexample: {counterexample_text(r)}")
    return lines


def describe_failures(report: ClaimReport, detail: bool = True) -> list[str]:
    """What is not simply PROVED, in full: refutations with their counterexamples,
    an erratum's, broken variants not refuted; with ``detail``, also the engines
    that did not answer where another proved."""
    lines = []
    if report.claim.is_erratum:
        refuted = [r for r in report.results if r.status is Status.REFUTED]
        lines.append(f"  erratum: the published construction is REFUTED at {len(refuted)}/"
                     f"{len(report.results)} shapes"
                     + (f"; correct at {', '.join(r.label for r in report.results if r.status is Status.PROVED)}"
                        if any(r.status is Status.PROVED for r in report.results) else ""))
        if refuted and refuted[0].counterexample:
            lines.append(f"    e.g. at {refuted[0].label}: {counterexample_text(refuted[0])}")
        for r in report.results:
            if r.status not in (Status.REFUTED, Status.PROVED):
                lines.extend(_not_proved_lines(r))
        return lines
    for r in report.results:
        if r.status is Status.PROVED:
            if detail and any(e.status is not Status.PROVED for e in r.results):
                lines.append(f"  {r.label}: PROVED by "
                             + ", ".join(e.engine for e in r.results if e.status is Status.PROVED)
                             + "; " + "; ".join(f"{e.engine} {e.status.value}: {e.detail}"
                                                for e in r.results if e.status is not Status.PROVED))
            continue
        lines.extend(_not_proved_lines(r))
    by_mutant: dict[str, list[ObligationResult]] = {name: [] for name in report.unbroken}
    for r in report.mutant_results:
        by_mutant.setdefault(r.mutant or "?", []).append(r)
    for name, rows in by_mutant.items():
        refuted = [r for r in rows if r.status is Status.REFUTED]
        agree = [r.label for r in rows if r.status is Status.PROVED]
        other = [f"{r.label} {r.status.value}" for r in rows if r.status not in (Status.REFUTED, Status.PROVED)]
        verdict_ = "refuted" if refuted and not other else "NOT REFUTED everywhere it should be"
        text = f"  mutant {name}: {verdict_}: REFUTED at {len(refuted)}/{len(rows)} shapes"
        if agree:
            text += f"; equal to the target (so correct) at {', '.join(agree)}"
        if other:
            text += f"; {', '.join(other)}"
        if report.unbroken.get(name):
            text += (f"; no variant at {', '.join(report.unbroken[name])} (it breaks nothing there: the "
                     "unbroken obligation, not counted)")
        lines.append(text)
        if refuted and refuted[-1].counterexample:
            lines.append(f"    e.g. at {refuted[-1].label}: {counterexample_text(refuted[-1])}")
    return lines


def verdict(report: ClaimReport) -> str:
    """One line: the claim's status up to its bound, errata marked as such."""
    claim, n = report.claim, report.max_n
    if claim.is_erratum:
        if report.status is Status.REFUTED:
            return f"REFUTED as published (an erratum, as expected), N={n}"
        return (f"{report.status.value}: the published construction was expected to be refuted "
                f"(erratum) but was not, up to N={n}")
    if report.status is Status.PROVED:
        return f"PROVED for every shape up to N={n}" + (
            "; broken variants:" if report.mutant_results or report.unbroken else "")
    if report.status is Status.VACUOUS:
        return (f"VACUOUS: no input meets the preconditions at some shape up to N={n}; "
                "the statement says nothing there (not proved)")
    return f"{report.status.value} (not proved for every shape up to N={n})"


# -- certificates as Markdown ---------------------------------------------------------

def markdown(cert: Certificate) -> str:
    data = cert.data
    claim = data["claim"]
    status = cert.status.value
    if (data.get("source") or {}).get("kind") == "listing":  # the shapes the check was given, not every one up to N
        scope = "at the shapes checked, " + ", ".join(r.label for r in cert.obligations) + " "
    else:
        scope = f"for every shape up to N = {data['bound']} "
    lines = [
        f"# {claim.get('paper', claim['id'])}: {claim.get('title', '')}",
        "",
        (f"**Erratum: the construction as published is {status}** (expected REFUTED) "
         if claim.get("expected") == "REFUTED" else f"**Status: {status}** ")
        + scope
        + f"(claim `{claim['id']}`, engines: {', '.join(map(str, data.get('engines', [])))}, "
        f"timeout {data.get('timeout_seconds')} s per obligation and engine). Every obligation "
        "also carries a well-definedness check and a witness for its preconditions.",
        "",
        f"> {claim.get('statement', '')}",
        "",
    ]
    lines += [_cache_paragraph(cert), ""]
    source = data.get("source") or {}
    if source.get("kind") == "listing":
        lines += [f"Construction: function `{source.get('function')}` of the listing "
                  f"`{source.get('file')}` (embedded in the certificate), spec `{source.get('spec')}`.", ""]
    if claim.get("semantics"):
        lines += [f"Empty-row semantics: {claim['semantics']}.", ""]
    if claim.get("notes"):
        lines += [claim["notes"], ""]
    lines += ["## Obligations", "",
              "| shape | status | equality | defined | witness | cost | numeric cross-check |",
              "|---|---|---|---|---|---|---|"]
    rows = {tuple(r["shape"]): r for r in data["obligations"]}
    for ob in cert.obligations:
        row = rows[tuple(ob.shape)]
        engines = "; ".join(f"{e.engine}: {e.status.value} "
                            + (f"(cached; {e.seconds:.3f} s when computed)" if e.cached else f"({e.seconds:.3f} s)")
                            for e in ob.results)
        err = row.get("numeric_max_error")
        lines.append(f"| {ob.label} | {ob.status.value} | {engines} | "
                     f"{ob.definedness_status.value}{_mark(ob.definedness)} | "
                     f"{ob.witness_status.value}{_mark(ob.witness)} | {cost_text(row.get('cost'))} | "
                     f"{'-' if err is None else f'{err:.2e}'} |")
    details = []
    for row in data["obligations"]:
        label = shape_label(row["shape"])
        for e in row["engines"] + [c for c in (row.get("definedness"), row.get("witness")) if c]:
            if e["status"] != "PROVED" or e.get("counterexample"):
                details.append((label, e))
    if details:
        lines += ["", "### Not proved by every engine", ""]
        for label, e in details:
            lines.append(f"- {label}, {e['engine']}: {e['status']}{CACHED if e.get('cached') is True else ''}: "
                         f"{e['detail']}")
            if e.get("counterexample"):
                lines.append(f"  - counterexample: {_cx_text(e['counterexample'])}")
    if data.get("mutants"):
        lines += ["", "## Deliberately broken variants (must be REFUTED)", "",
                  "| variant | shape | status | counterexample |", "|---|---|---|---|"]
        for m, row in zip(cert.mutants, data["mutants"]):
            checks = row["engines"] + [c for c in (row.get("definedness"),) if c]
            cx = next((e["counterexample"] for e in checks if e.get("counterexample")), None)
            lines.append(f"| {m.mutant} | {m.label} | {m.status.value}{_row_mark(m)} | "
                         f"{_cx_text(cx) if cx else '-'} |")
    if data.get("measures"):
        lines += ["", "## Measurements (not proofs)", ""] + [f"- {m}" for m in data["measures"]]
    if data.get("all_sizes"):
        from usim.render_all_sizes import all_sizes_markdown

        lines += all_sizes_markdown(data["all_sizes"])
    v = data.get("versions", {})
    lines += ["", "## Provenance", "",
              f"usim {v.get('usim')}, Python {v.get('python')}, sympy {v.get('sympy')}, "
              f"z3 {v.get('z3')}, numpy {v.get('numpy')}, flint {v.get('flint')}, cvc5 {v.get('cvc5')}; "
              f"commit `{data.get('commit')}`; created {data.get('created')}; {data.get('seconds')} s in all; "
              f"digest `{data.get('digest')}`. Check it again with `usim verify`.", ""]
    return "\n".join(lines)


def _answers(ob: ObligationResult) -> list[EngineResult]:
    return [a for a in (*ob.results, ob.definedness, ob.witness) if a is not None]


def _row_mark(ob: ObligationResult) -> str:
    """" (cached)" if every answer of the row came from the cache, " (k of m answers cached)" if some did."""
    answers = _answers(ob)
    reused = sum(a.cached for a in answers)
    if not reused:
        return ""
    return CACHED if reused == len(answers) else f" ({reused} of {len(answers)} answers cached)"


@dataclass(frozen=True)
class CertificateCacheUse:
    """How a certificate's run used the verdict cache: the answers it reused
    (counted from its rows, where each is marked), all its answers, the entries
    it ignored by reason and whether it read the cache at all (as the run
    recorded them; None: a certificate that does not say)."""

    reused: int
    answers: int
    ignored: Mapping[str, int]
    read: bool | None

    @property
    def words(self) -> str | None:
        """:func:`cache_words`, or None where no answer came from the cache and no entry was ignored."""
        return cache_words(self.reused, self.answers, self.ignored) if self.reused or self.ignored else None


def certificate_cache_use(cert: Certificate) -> CertificateCacheUse:
    """How the run of ``cert`` used the verdict cache (see :class:`CertificateCacheUse`).

    Args:
        cert: a checked certificate.

    Returns:
        Its use of the cache.
    """
    answers = [a for ob in cert.obligations + cert.mutants for a in _answers(ob)]
    record = cert.data.get("verdict_cache")
    record = record if isinstance(record, dict) else {}
    why = record.get("ignored_why")
    ignored = {str(k): n for k, n in why.items() if isinstance(n, int) and not isinstance(n, bool) and n > 0} \
        if isinstance(why, dict) else {}
    read = record.get("read")
    return CertificateCacheUse(sum(a.cached for a in answers), len(answers), ignored,
                               read if isinstance(read, bool) else None)


def _cache_paragraph(cert: Certificate) -> str:
    """How the run used the verdict cache, in a sentence or two for the report."""
    use = certificate_cache_use(cert)
    if use.read is False:
        return "The verdict cache was not read: every answer was computed in this run."
    if use.words is None:
        return ("The verdict cache was read; no answer came from it." if use.read
                else "No answer is marked as coming from the verdict cache.")
    return (f"**Verdict cache:** {use.words}. Each reused answer is marked "
            "*cached*: an engine gave it to the identical statement (fingerprint, engine, usim source, "
            "solver versions) in an earlier run, in an entry whose tag checked out with the user's key; a "
            "cached REFUTED was replayed again in this run. A release certificate is made with "
            "`usim prove --no-cache`; `usim verify` runs every obligation again.")


def _cx_text(cx: dict[str, Any]) -> str:
    inputs = " ".join(f"{k} = [" + "; ".join(", ".join(r) for r in v) + "]" for k, v in cx["inputs"].items())
    text = (f"{inputs}; position {cx['position']} ({cx['entry']}): expected {cx['expected']}, "
            f"got {cx['got']} (replayed {cx['replay']})")
    if cx.get("divergence"):
        text += f"; first diverges at `{cx['divergence']}`"
    return text
