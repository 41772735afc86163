"""Re-running a certificate: are its verdicts reproduced by this usim?

This is the check a reviewer runs on a certificate someone else sent (its
digest proves nothing about who wrote it: :mod:`usim.engine.certificate`).
What the certificate states is compared first, field by field, with the
registered claim or the listing embedded in it
(:mod:`usim.engine.statement_check`; the command does that, and runs nothing
when a field differs). Then, for every obligation it records (and every
broken variant), the obligation is built again; its fingerprint must equal the
recorded one (else the claim now states something else, and the old verdict
says nothing about it; a row without a fingerprint is not reproduced), and so
must its cost where one is recorded (the layers and heads the claim is
about); then its engines, definedness check and witness search run again with
the recorded timeout, and the verdict must equal the recorded one.

An engine that was UNKNOWN (a timeout) and now answers, or the reverse, is a
note, not a failure, as long as the obligation's verdict is the same: speed
depends on the machine, verdicts must not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from usim.encodings.notation import shape_label
from usim.engine.certificate import Certificate, CertificateError
from usim.engine.claim import TABULATED, Claim, Counterexample, Obligation, ObligationResult, Shape
from usim.engine.options import timeout_wanted
from usim.engine.parametric.composed import ComposedClaim, prove_verdicts
from usim.engine.parametric.fresh import Locate
from usim.engine.parametric.statement import ALL_SIZES_BUDGET, FamilyClaim
from usim.engine.replay import replayed_again
from usim.engine.runner import check_obligation
from usim.engine.statement import fingerprint, table_fingerprint
from usim.errors import DeadlineError, UsimError


@dataclass
class Verification:
    """What re-running one certificate found."""

    claim_id: str
    checked: int = 0
    differences: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    mismatch: str | None = None  # what the certificate did not state as (then it was not run again)
    status: str | None = None  # the certificate's recorded status
    every_size: str | None = None  # its recorded status for every size, if it has one

    @property
    def reproduced(self) -> bool:
        return self.checked > 0 and not self.differences


ObligationSource = Callable[[Shape, str | None], Obligation]


def timeout_of(cert: Certificate, all_sizes: bool = False) -> float:
    """The timeout a certificate's obligations were proved with (60 s where none is
    recorded), or with ``all_sizes`` each family's budget of its proof for every size
    (its section's own, else the obligations': certificates before 2026-12-05 have one).

    Args:
        cert: a certificate, checked as it was read.
        all_sizes: the budget of the proof for every size, not of the bounded obligations.

    Returns:
        The timeout in seconds (CertificateError if it is not a positive number).
    """
    value = cert.data.get("timeout_seconds", 60.0)
    if all_sizes:
        value = (cert.data.get("all_sizes") or {}).get(ALL_SIZES_BUDGET, value)
    wanted = timeout_wanted(value)
    if wanted is not None:
        raise CertificateError(f"{cert.where} ({cert.claim_id}): the timeout {value!r} is not {wanted}")
    return float(value)


def obligations_of_claim(claim: Claim) -> ObligationSource:
    def build(shape: Shape, mutant: str | None) -> Obligation:
        if mutant is None:
            return claim.obligation(shape)
        if mutant not in claim.mutants:
            raise UsimError(f"claim {claim.id} has no broken variant {mutant!r} any more")
        found = claim.mutants[mutant](shape)
        if found is None:
            raise UsimError(f"claim {claim.id}'s broken variant {mutant!r} breaks nothing at "
                            f"{shape_label(shape)} any more")
        return found
    return build


def _replays(ob: Obligation, row: Mapping) -> list[str]:
    """The counterexamples a certificate row records that do not replay on
    ``ob`` to the same refutation, to the letter
    (:func:`usim.engine.replay.replayed_again`): a counterexample that report
    and site show is one that holds."""
    problems = []
    answers = [(e, False) for e in row.get("engines") or []]
    if isinstance(row.get("definedness"), dict):
        answers.append((row["definedness"], True))
    for answer, definedness in answers:
        data = answer.get("counterexample") if isinstance(answer, dict) else None
        if data is None:
            continue
        name = answer.get("engine")
        try:
            recorded = Counterexample.from_dict(data)
        except (KeyError, TypeError, ValueError, AttributeError):
            problems.append(f"the counterexample recorded by {name} is malformed")
            continue
        if replayed_again(ob, recorded, definedness) is None:
            problems.append(f"the counterexample recorded by {name} does not replay to the same refutation "
                            f"({recorded.describe()})")
    return problems


def _missing_variant_rows(cert: Certificate, source: ObligationSource, mutants: Sequence[str]) -> list[str]:
    """Broken-variant rows a run with --mutants writes that the certificate
    lacks: every variant (``mutants``, the claim's) at every shape where it
    breaks something."""
    if not cert.mutants:
        return []
    names = set(mutants) | {m.mutant for m in cert.mutants if m.mutant}
    have = {(m.shape, m.mutant) for m in cert.mutants}
    missing = []
    for shape in sorted({r.shape for r in cert.obligations}):
        for name in sorted(names):
            if (shape, name) in have:
                continue
            try:
                source(shape, name)
            except UsimError:
                continue  # the variant breaks nothing there: no row
            missing.append(f"{shape_label(shape)} [{name}]: the broken variant's row is missing")
    return missing


def verify(cert: Certificate, source: ObligationSource, claim_engines: tuple[str, ...],
           progress: Callable[[str], None] | None = None, mutants: Sequence[str] = ()) -> Verification:
    """Re-run every obligation of ``cert``, built by ``source(shape, mutant)``;
    ``mutants``: the claim's broken variants, whose rows must all be there."""
    timeout = timeout_of(cert)
    out = Verification(cert.claim_id)
    out.differences.extend(_missing_variant_rows(cert, source, mutants))
    rows = {(tuple(row["shape"]), row.get("mutant")): row
            for row in list(cert.data["obligations"]) + list(cert.data.get("mutants") or [])}
    for recorded in cert.obligations + cert.mutants:
        where = f"{recorded.label}" + (f" [{recorded.mutant}]" if recorded.mutant else "")
        try:
            ob = source(recorded.shape, recorded.mutant)
        except UsimError as error:
            out.differences.append(f"{where}: cannot be built again: {error}")
            continue
        by_table = recorded.engine_choice == TABULATED  # decided by its table: the table is the statement
        if by_table and ob.values is None:
            out.differences.append(f"{where}: the certificate says its target was evaluated at each input, but "
                                   "its domain is not finite: there is no table to reproduce")
            continue
        now = table_fingerprint(ob) if by_table else fingerprint(ob)
        if recorded.fingerprint is None:
            out.differences.append(f"{where}: the certificate records no fingerprint of the obligation "
                                   f"(now {now[:16]}...): there is no statement to reproduce")
            continue
        if now != recorded.fingerprint:
            out.differences.append(f"{where}: the obligation is no longer the one certified "
                                   "(its fingerprint differs: the construction or target changed)")
            continue
        cost = rows.get((recorded.shape, recorded.mutant), {}).get("cost")
        if cost is not None and cost != ob.claimed_cost.as_dict():
            out.differences.append(f"{where}: cost: the certificate says {cost}, the obligation built now "
                                   f"costs {ob.claimed_cost.as_dict()}")
        row = rows.get((recorded.shape, recorded.mutant), {})
        out.differences.extend(f"{where}: {problem}" for problem in _replays(ob, row))
        engines = [r.engine for r in recorded.results]
        try:
            again = check_obligation(ob, None if by_table else (engines or None), timeout, claim_engines, jobs=1,
                                     tabulate=by_table)
        except DeadlineError as error:  # a timeout reproduces nothing: said, never passed over
            out.differences.append(f"{where}: not checked again: {error}")
            continue
        out.checked += 1
        _compare(where, recorded, again, out)
        if progress:
            progress(f"{cert.claim_id} {where}: recorded {recorded.status.value}, now {again.status.value}")
    return out


def _compare(where: str, recorded: ObligationResult, again: ObligationResult, out: Verification) -> None:
    if again.status is not recorded.status:
        out.differences.append(f"{where}: recorded {recorded.status.value}, now {again.status.value}")
    before: Mapping[str, str] = {r.engine: r.status.value for r in recorded.results}
    for r in again.results:
        if r.engine in before and before[r.engine] != r.status.value:
            out.notes.append(f"{where}: {r.engine} was {before[r.engine]}, now {r.status.value}")


def verify_all_sizes(cert: Certificate, family: FamilyClaim | ComposedClaim,
                     progress: Callable[[str], None] | None = None,
                     locate: Locate | None = None, jobs: int = 1) -> Verification:
    """Re-run a certificate's verdicts for every size: the claim's verdict and
    each broken variant's must come out the same (the sizes of a refutation may
    differ: z3's models are not unique; that is a note). A claim proved in parts
    is proved again part by part, with its chain. What the section
    states (its conditions, the family's fingerprint, its broken variants) is
    compared before (:func:`usim.engine.statement_check.differences`). With
    ``locate`` (which finds a statement by its id), each family is proved in
    an interpreter of its own (:mod:`usim.engine.parametric.fresh`), ``jobs`` at
    a time, so the re-run does not depend on what this process ran before (the
    bounded verdicts). Each family gets the section's budget (:func:`timeout_of`),
    its witness and replays the certificate's timeout per engine and its engines
    (those of its bounded rows, which ``usim prove --all-sizes`` replayed with),
    as when proved.

    Args:
        cert: the certificate, read and checked, with an ``all_sizes`` section.
        family: the statement for every size it names, as this usim states it.
        progress: told each verdict as it is reached, and each comparison.
        locate: finds a statement by its id (each family in an interpreter of its own).
        jobs: with ``locate``, how many families are proved at once.

    Returns:
        What was checked, and every difference and note.
    """
    section = cert.data["all_sizes"]
    out = Verification(cert.claim_id)
    timeout = timeout_of(cert, all_sizes=True)
    checks = timeout_of(cert)
    engines = tuple(cert.data.get("engines") or ()) or None  # checked against its rows as it was read
    bound = int(cert.data["bound"])
    recorded = [(None, section["result"])] + [(m.get("mutant"), m) for m in section.get("mutants") or []]
    names = [name for name, _ in recorded if name is None or name in family.mutants]
    found = dict(zip(names, prove_verdicts(family, names, timeout, bound, engines, say=progress, locate=locate,
                                           jobs=jobs, check_timeout=checks)))
    for name, row in recorded:
        where = "all sizes" + (f" [{name}]" if name else "")
        if name not in found:
            out.differences.append(f"{where}: claim {family.id} has no such broken variant any more")
            continue
        again = found[name]
        out.checked += 1
        if again.status.value != row.get("status"):
            out.differences.append(f"{where}: recorded {row.get('status')}, now {again.status.value}"
                                   + (f" ({again.reason})" if again.reason else ""))
        elif again.shape is not None and list(again.shape) != row.get("shape"):
            out.notes.append(f"{where}: refuted at {again.label} now, at "
                             f"{shape_label(row.get('shape') or [])} when certified")
        if progress:
            progress(f"{cert.claim_id} {where}: recorded {row.get('status')}, now {again.status.value}")
    return out
