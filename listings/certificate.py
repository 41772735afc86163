"""A certificate of ``usim check``, and how ``usim verify`` builds its obligations again.

The certificate embeds the listing (and, for a user's spec, the spec file), so
that every obligation can be built again from it alone: :func:`listing_source`.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from usim.engine.claim import Claim, Obligation, Shape
from usim.errors import UsimError
from usim.listings.obligation import mutant_obligation, obligation_for
from usim.listings.report import CheckReport
from usim.listings.spec import ListingSpec
from usim.repl import load_text


def listing_claim(report: CheckReport) -> Claim:
    """The claim a checked listing stands for: the spec's statement with the
    listing's function as construction (for certificates).

    Args:
        report: the check's report.

    Returns:
        The claim (:func:`listing_claim_of` its spec, function and file).
    """
    return listing_claim_of(report.spec, report.function, report.filename)


def listing_claim_of(spec: ListingSpec, function: str, filename: str) -> Claim:
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
    the spec file) embedded so that ``usim verify`` can build every obligation again.

    Args:
        report: the check's report (its shapes that were checked are recorded).
        timeout: the seconds per shape and engine it was checked with.
        seconds: how long the whole check took.

    Returns:
        The certificate, as the JSON object written.
    """
    from usim.engine.certificate import certificate
    from usim.engine.runner import ClaimReport

    done = [s for s in report.shapes if s.checked]
    broken = [s for s in report.mutants if s.checked]
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


def listing_source(source: Mapping[str, Any], resolve: Callable[[Mapping[str, Any]], ListingSpec]):
    """How ``usim verify`` builds a checked listing's obligations again: from the
    embedded text, the function, the spec (``resolve`` builds it from the
    certificate's spec source) and the parameters.

    Args:
        source: the certificate's ``source`` record (kind ``listing``).
        resolve: builds the spec from the certificate's spec source.

    Returns:
        The builder of an obligation (shape, broken variant or None) and the
        spec's engines. A source with no text is a UsimError.
    """
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
