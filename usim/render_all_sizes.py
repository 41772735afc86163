"""Text for the verdicts for every size: closing lines and the certificate's Markdown section.

The engine returns data (:class:`usim.engine.parametric.allsizes.AllSizesReport`,
a certificate's ``all_sizes`` record, whose statuses are checked as it is
read); this module writes what people read.
"""

from __future__ import annotations

from typing import Any, Mapping

from usim.encodings.notation import shape_label
from usim.engine.claim import Status
from usim.engine.parametric.allsizes import AllSizesReport, AllSizesResult, rests_on
from usim.engine.parametric.composed import ComposedReport, ComposedResult
from usim.engine.parametric.statement import ABOUT_CLAIM, ALL_SIZES_BUDGET
from usim.text_layout import fitted


def _refutation(result: AllSizesResult) -> str:
    cx = result.counterexample.counterexample if result.counterexample else None
    text = f"REFUTED at {result.label}"
    if cx is not None:
        text += f": {cx.describe()}"
    return text + f" (sizes from {result.found_by})"


def result_line(result: AllSizesResult) -> str:
    if result.status is Status.REFUTED:
        return _refutation(result)
    if result.status is Status.PROVED:
        return f"PROVED ({result.seconds:.2f} s, {result.verdict.cases} case(s))"
    reason = result.note or result.verdict.reason
    return f"{result.status.value}: {reason}"


def composed_line(result: ComposedResult) -> str:
    if result.status is Status.REFUTED:
        refuted = next(p for p in result.parts if p.status is Status.REFUTED)
        return f"{_refutation(refuted)}; the part {refuted.claim_id} alone, replayed"
    if result.status is Status.PROVED:
        return f"PROVED ({result.seconds:.2f} s, {len(result.parts)} parts and their composition)"
    return f"{result.status.value}: {result.note}"


def composed_lines(report: ComposedReport) -> list[str]:
    """The closing text of a claim proved for every size in parts."""
    result = report.result
    lines = [f"{report.family.id} for every size ({result.conditions}): {composed_line(result)}",
             "  what it rests on:"]
    lines += [f"    - {line}" for line in report.as_dict()["rests_on"]]
    if report.mutants:
        lines.append("  broken variants for every size (each must be REFUTED at a concrete size, replayed):")
        for m in report.mutants:
            lines.append(f"    {m.mutant}: {composed_line(m)}")
    return fitted(lines)


def all_sizes_lines(report: AllSizesReport | ComposedReport) -> list[str]:
    """The closing text of one claim proved for every size."""
    if isinstance(report, ComposedReport):
        return composed_lines(report)
    result = report.result
    lines = [f"{report.family.id} for every size ({result.conditions}): {result_line(result)}"]
    if report.about != ABOUT_CLAIM:
        lines.append("  about the family alone: the claim builds its program apart from the family, so this is "
                     "not the claim's verdict")
    if result.status is not Status.PROVED and result.verdict.status is not Status.PROVED:
        lines.append(f"  the parametric engine: {result.verdict.reason}")
    lines.append("  what it rests on:")
    lines += [f"    - {line}" for line in rests_on(report)]
    if report.mutants:
        lines.append("  broken variants for every size (each must be REFUTED at a concrete size, replayed):")
        for m in report.mutants:
            lines.append(f"    {m.mutant}: {result_line(m)}")
    return fitted(lines)


def cross_check_note(status: str, max_n: Any) -> str:
    """What to say beside a verdict for every size when the bounded cross-check
    did not prove the claim (empty when it did)."""
    if status == Status.PROVED.value:
        return ""
    return f"; the bounded cross-check up to N={max_n} is {status}, not PROVED"


def all_sizes_verdict(report: AllSizesReport | ComposedReport) -> str:
    """One line: the claim's verdict for every size (with the bounded
    cross-check's where it is not PROVED, and what the verdict is about)."""
    conditions = report.result.conditions
    cross = cross_check_note(report.bounded.status.value, report.bounded.max_n)
    if report.status is Status.PROVED:
        return f"PROVED for every size ({conditions}){cross}"
    if report.result.status is Status.PROVED and report.about != ABOUT_CLAIM:
        return (f"UNKNOWN for every size: the family alone is PROVED for every size ({conditions}), but the "
                f"claim builds its program apart from it (not one definition){cross}")
    if report.status is Status.ERROR and report.bounded.status is Status.REFUTED:
        return "ERROR: proved for every size but refuted by the bounded cross-check (a bug to report)"
    if report.status is Status.REFUTED:
        return f"REFUTED at {report.result.label} (replayed by the bounded engines)"
    reason = report.result.note if isinstance(report, ComposedReport) else \
        report.result.note or report.result.verdict.reason
    return f"{report.status.value} for every size: {reason}"


def all_sizes_markdown(section: Mapping[str, Any]) -> list[str]:
    """A certificate's all-sizes record as Markdown."""
    result = section["result"]
    cross = section["cross_check"]
    about = "" if section["about"] == ABOUT_CLAIM else \
        f" The family alone is {section['family_status']} for every size: the claim builds its program apart from it."
    how = (f"{len(result['parts'])} parts, each proved by the parametric engine, and their composition"
           if "parts" in result else f"the parametric engine: {result['engine']['status']}, "
                                     f"{result['engine']['reason']}")
    budget = section.get(ALL_SIZES_BUDGET)
    budget_note = f" Each family's proof had {budget:g} s." if isinstance(budget, (int, float)) else ""
    lines = ["", "## For every size", "",
             f"**{section['status']}** for every size with {section['conditions']} ({how})"
             f"{cross_check_note(cross['status'], cross.get('max_n'))}.{about}{budget_note}", "",
             "What it rests on:", ""]
    lines += [f"- {line}" for line in section.get("rests_on", [])]
    if result.get("shape"):
        lines += ["", f"Counterexample at {shape_label(result['shape'])}, found from "
                      f"{result.get('found_by')}."]
    if section.get("mutants"):
        lines += ["", "| broken variant | verdict for every size | at |", "|---|---|---|"]
        for m in section["mutants"]:
            at = shape_label(m["shape"]) if m.get("shape") else "-"
            lines.append(f"| {m['mutant']} | {m['status']} | {at} |")
    return lines
