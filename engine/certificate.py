"""Certificates: what was proved, by what, and what reading one checks.

A certificate (version 2) records one claim's run: the claim and its statement,
the bound, every obligation with its shape, the fingerprint of what it states
(:mod:`usim.engine.statement`), each engine's verdict (marked ``cached`` where
it was reused from the verdict cache), the definedness check's and the
witness's, the counterexamples, costs and measurements, how the run used the
verdict cache (``verdict_cache``: read or not, answers reused, entries
ignored because they did not check out, by reason), the versions
of usim and every solver, the commit, and where the construction came from (a
registered claim, or the embedded source of a checked listing). Its ``digest``
is the sha256 of everything else in it, in canonical JSON.

What the digest guarantees: that the file is as it was written, unless whoever
changed it also recomputed the digest. It detects accidental damage and an
edit that was not re-sealed; it is not a signature (there is no key: anyone
can recompute it with :func:`digest`).

Nothing in a certificate is believed as written. :func:`read_certificates`
refuses, with one line saying why, a file that is not a certificate, one whose
digest does not match, and one whose recorded statuses differ from the
statuses derived from its own rows (every status is recomputed from the
engines' verdicts by the same rules the engine uses).
:mod:`usim.engine.statement_check` then compares what it states (the claim,
its shapes, engines, the statement for every size) with the registry, and
:mod:`usim.engine.verify` runs it again: the check a reviewer runs on a
certificate someone else sent.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from usim import __version__
from usim.encodings.notation import shape_label
from usim.engine.claim import Claim, EngineResult, ObligationResult, Status, claim_status
from usim.engine.parametric.statement import (ABOUT_CLAIM, ABOUT_FAMILY, ALL_SIZES_BUDGET, claim_all_sizes_status,
                                              composed_status)
from usim.engine.options import timeout_wanted
from usim.errors import UsimError

VERSION = 2


class CertificateError(UsimError):
    """A file that is not a valid usim certificate, or not one as it was sealed."""


# -- writing -----------------------------------------------------------------------

def git_commit() -> str:
    """The commit of the usim that runs (:func:`usim.engine.provenance.running_commit`)."""
    import usim
    from usim.engine.provenance import running_commit

    return running_commit(Path(usim.__file__).parent)


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


def canonical_json(data: Mapping[str, Any]) -> str:
    """``data`` as canonical JSON: sorted keys, no spaces, ASCII only (what a digest or tag is taken of).

    Args:
        data: a JSON object.

    Returns:
        Its one canonical text.
    """
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def digest(cert: Mapping[str, Any]) -> str:
    """sha256 of the certificate without its digest, as canonical JSON."""
    body = {k: v for k, v in cert.items() if k != "digest"}
    return "sha256:" + hashlib.sha256(canonical_json(body).encode()).hexdigest()


def _row(result: ObligationResult, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    row = result.as_dict()
    row["label"] = result.label
    row.update(extra or {})
    return row


def certificate(report: Any, timeout: float, source: Mapping[str, Any] | None = None,
                all_sizes: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The certificate of a :class:`usim.engine.runner.ClaimReport`.

    ``source`` says where the construction came from: by default the registered
    claim; for a checked listing, ``{"kind": "listing", ...}`` with its text.
    ``all_sizes``: the verdict for every size and what it rests on
    (:meth:`usim.engine.parametric.allsizes.AllSizesReport.as_dict`), recorded
    beside the bounded rows (which are then its cross-check).
    """
    claim: Claim = report.claim
    obligations = [_row(r, {"cost": report.costs.get(r.label),
                            "numeric_max_error": report.crosscheck.get(r.label)})
                   for r in report.results]
    cert = {
        "usim_certificate": VERSION,
        "claim": {"id": claim.id, "paper": claim.paper, "title": claim.title,
                  "statement": claim.statement, "semantics": claim.semantics.value, "notes": claim.notes,
                  "expected": claim.expected.value},
        "source": dict(source or {"kind": "claim"}),
        "bound": report.max_n,
        "status": report.status.value,
        "engines": list(report.engines),
        "timeout_seconds": timeout,
        "obligations": obligations,
        "mutants": [_row(r) for r in report.mutant_results],
        "measures": list(report.measures),
        "cost": report.costs,
        "seconds": round(report.seconds, 3),
        "verdict_cache": report.cache_use.as_dict(report.cached),
        "versions": versions(),
        "commit": git_commit(),
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    if all_sizes is not None:
        cert["all_sizes"] = dict(all_sizes)
    cert["digest"] = digest(cert)
    return cert


def bundle(certs: list[dict[str, Any]]) -> dict[str, Any]:
    """One certificate as it is, several in one file."""
    return certs[0] if len(certs) == 1 else {"usim_certificates": VERSION, "certificates": certs}


# -- reading -----------------------------------------------------------------------

def _engine_result(data: Any, where: str) -> EngineResult:
    if not isinstance(data, dict) or not isinstance(data.get("engine"), str):
        raise CertificateError(f"{where}: an engine entry is malformed")
    try:
        status = Status(data.get("status"))
    except ValueError:
        raise CertificateError(f"{where}: unknown status {data.get('status')!r}") from None
    seconds = data.get("seconds", 0.0)
    if not isinstance(seconds, (int, float)):
        raise CertificateError(f"{where}: the time of {data['engine']} is not a number")
    return EngineResult(data["engine"], status, float(seconds), str(data.get("detail", "")),
                        cached=data.get("cached") is True)


def obligation_result(row: Any, claim_id: str, where: str) -> ObligationResult:
    """An ObligationResult rebuilt from a certificate row (its statuses only)."""
    if not isinstance(row, dict):
        raise CertificateError(f"{where}: an obligation is not an object")
    shape = row.get("shape")
    if not (isinstance(shape, list) and all(isinstance(d, int) and not isinstance(d, bool) for d in shape)):
        raise CertificateError(f"{where}: an obligation has no valid shape")
    label = shape_label(shape)
    at = f"{where}, shape {label}"
    if "label" in row and row["label"] != label:
        raise CertificateError(f"{at}: the row is labelled {row['label']!r} (its costs and reports are keyed by "
                               "the label: it must be its shape's)")
    engines = row.get("engines")
    if not isinstance(engines, list):
        raise CertificateError(f"{at}: no list of engines")
    checks = {}
    for key in ("definedness", "witness"):
        checks[key] = _engine_result(row[key], f"{at} ({key})") if row.get(key) is not None else None
    fingerprint = row.get("fingerprint")
    if fingerprint is not None and not isinstance(fingerprint, str):
        raise CertificateError(f"{at}: the fingerprint is not a string")
    choice = row.get("engine_choice")
    if choice is not None and not isinstance(choice, str):
        raise CertificateError(f"{at}: the engine choice is not a string")
    return ObligationResult(claim_id, tuple(shape), tuple(_engine_result(e, at) for e in engines),
                            row.get("mutant"), checks["definedness"], checks["witness"], fingerprint, choice)


@dataclass(frozen=True)
class Certificate:
    """A certificate that was read and checked: its data and its rows rebuilt."""

    data: Mapping[str, Any]
    obligations: tuple[ObligationResult, ...]
    mutants: tuple[ObligationResult, ...]
    where: str = "the certificate"  # the file (and its place in a bundle), for messages

    @property
    def claim_id(self) -> str:
        return self.data["claim"]["id"]

    @property
    def status(self) -> Status:
        return claim_status(r.status for r in self.obligations)

    @property
    def all_sizes_status(self) -> Status | None:
        """The verdict for every size, derived from its record (None: bounded only)."""
        section = self.data.get("all_sizes")
        return None if section is None else all_sizes_status(section, self.status, self.claim_id, "")


def _all_sizes_result(result: Any, claim_id: str, at: str) -> Status:
    """One all-sizes verdict derived from its parts (never taken as written):
    REFUTED only with a bounded counterexample row that is REFUTED at the
    recorded shape; PROVED only with the engine's PROVED, a tie without
    problems and a proved witness. A verdict proved in parts is derived from
    its parts, each one family's record (:func:`_composed_result`)."""
    if isinstance(result, dict) and "parts" in result:
        return _composed_result(result, at)
    return _family_result(result, claim_id, at)


def _family_result(result: Any, claim_id: str, at: str) -> Status:
    """One family's verdict for every size, derived as :func:`_all_sizes_result` says."""
    if not isinstance(result, dict) or not isinstance(result.get("engine"), dict) \
            or "parts" in result or "chain" in result:
        raise CertificateError(f"{at}: an all-sizes verdict is malformed")
    row = result.get("counterexample")
    if row is not None:
        found = obligation_result(row, claim_id, f"{at} (counterexample)")
        if found.status is not Status.REFUTED or list(found.shape) != result.get("shape"):
            raise CertificateError(f"{at}: the recorded counterexample is not a refutation at {result.get('shape')}")
        return Status.REFUTED
    engine = result["engine"].get("status")
    if engine == Status.VACUOUS.value:
        return Status.VACUOUS
    if engine != Status.PROVED.value:
        return Status.UNKNOWN
    tie = result.get("tie")
    if tie is not None and not isinstance(tie, dict):
        raise CertificateError(f"{at}: the tie of the family to the builder is malformed")
    if tie is not None and (tie.get("problems") or not tie.get("shapes")):
        return Status.ERROR
    if result.get("mutant") is None and tie is None:
        return Status.UNKNOWN
    witness = result.get("witness")
    if not isinstance(witness, dict):
        return Status.UNKNOWN
    try:
        return Status(witness.get("status"))
    except ValueError:
        raise CertificateError(f"{at}: the witness has no status usim knows ({witness.get('status')!r})") from None


def _composed_result(result: dict, at: str) -> Status:
    """A verdict proved in parts, derived from its parts' records (each derived
    as one family's, under the part's own claim) and its chain's
    (:func:`usim.engine.parametric.statement.composed_status`): what the parts
    and the chain are is compared with the registry by
    :mod:`usim.engine.statement_check`."""
    parts, chain = result.get("parts"), result.get("chain")
    if not isinstance(parts, list) or not parts or not all(isinstance(p, dict) for p in parts):
        raise CertificateError(f"{at}: the parts of a verdict proved in parts are malformed")
    statuses = []
    for i, part in enumerate(parts, start=1):
        where = f"{at}, part {i} ({part.get('claim')})"
        derived = _family_result(part, str(part.get("claim")), where)  # a part is one family, never in parts
        if derived.value != part.get("status"):
            raise CertificateError(f"{where}: the recorded verdict {part.get('status')} is not what its parts say "
                                   f"({derived.value})")
        statuses.append(derived)
    if result.get("mutant") is None:
        if not isinstance(chain, dict) or not isinstance(chain.get("checks"), list) \
                or not isinstance(chain.get("problems"), list) or not isinstance(chain.get("undecided", []), list):
            raise CertificateError(f"{at}: the chain that composes the parts is malformed")
        chain_ok: bool | None = not chain["problems"] and bool(chain["checks"])
        if chain_ok and chain.get("undecided"):  # a check left undecided: the claim is UNKNOWN
            chain_ok = None
    elif chain is not None:
        raise CertificateError(f"{at}: a broken variant's record has a chain (it is one part's)")
    else:
        chain_ok = None
    status = composed_status(statuses, chain_ok)
    refuted = [p.get("shape") for p, s in zip(parts, statuses) if s is Status.REFUTED]
    if result.get("shape") != (refuted[0] if refuted else None):
        raise CertificateError(f"{at}: the recorded shape {result.get('shape')} is not its refuted part's")
    return status


def all_sizes_status(section: Any, bounded: Status, claim_id: str, where: str) -> Status:
    """The all-sizes verdict of a certificate's section, checked: every
    recorded status must be the derived one; a bounded refutation of what is
    proved for every size is an ERROR."""
    at = f"{where} all sizes".strip()
    if not isinstance(section, dict) or section.get("scope") != "all sizes":
        raise CertificateError(f"{at}: the all-sizes section is malformed")
    main = _all_sizes_result(section.get("result"), claim_id, at)
    if main.value != section["result"].get("status"):
        raise CertificateError(f"{at}: the recorded verdict {section['result'].get('status')} is not what its "
                               f"parts say ({main.value})")
    for m in section.get("mutants") or []:
        derived = _all_sizes_result(m, claim_id, f"{at} [{m.get('mutant') if isinstance(m, dict) else '?'}]")
        if derived.value != m.get("status"):
            raise CertificateError(f"{at} [{m.get('mutant')}]: the recorded verdict {m.get('status')} is not what "
                                   f"its parts say ({derived.value})")
    if ALL_SIZES_BUDGET in section and (wanted := timeout_wanted(section[ALL_SIZES_BUDGET])) is not None:
        raise CertificateError(f"{at}: the recorded budget {section[ALL_SIZES_BUDGET]!r} is not {wanted}")
    about = section.get("about")
    if about not in (ABOUT_CLAIM, ABOUT_FAMILY):
        raise CertificateError(f"{at}: the all-sizes section does not say what it is about (the claim's "
                               f"program or the family alone): {about!r}")
    cross = section.get("cross_check")
    if not isinstance(cross, dict) or cross.get("status") != bounded.value:
        raise CertificateError(f"{at}: the recorded bounded cross-check {cross!r} is not the certificate's "
                               f"bounded verdict ({bounded.value})")
    status = claim_all_sizes_status(main, bounded, about)
    if status.value != section.get("status"):
        raise CertificateError(f"{at}: the recorded status {section.get('status')} is not what its verdicts say "
                               f"({status.value})")
    return status


def check(data: Any, where: str) -> Certificate:
    """``data`` as a checked Certificate, or CertificateError saying what is wrong
    (what it states is compared with the registry by :mod:`usim.engine.statement_check`)."""
    if not isinstance(data, dict) or "usim_certificate" not in data:
        raise CertificateError(f"{where} is not a usim certificate (write one with usim prove --json)")
    if data["usim_certificate"] != VERSION:
        raise CertificateError(f"{where} is a version {data['usim_certificate']!r} certificate; this usim "
                               f"reads version {VERSION} (prove the claim again to write one)")
    if data.get("digest") != digest(data):
        raise CertificateError(f"{where} was damaged or edited after it was written (its digest does not match)")
    claim = data.get("claim")
    if not isinstance(claim, dict) or not isinstance(claim.get("id"), str):
        raise CertificateError(f"{where} names no claim")
    claim_id = claim["id"]
    at = f"{where} ({claim_id})"
    rows = data.get("obligations")
    if not isinstance(rows, list) or not rows:
        raise CertificateError(f"{at} lists no obligation")
    obligations = tuple(obligation_result(r, claim_id, at) for r in rows)
    mutants = tuple(obligation_result(r, claim_id, f"{at} mutants") for r in data.get("mutants") or [])
    for result, row in zip(obligations + mutants, list(rows) + list(data.get("mutants") or [])):
        if row.get("status") != result.status.value:
            raise CertificateError(
                f"{at}, shape {result.label}{' [' + result.mutant + ']' if result.mutant else ''}: the "
                f"recorded status {row.get('status')} is not what its engines say ({result.status.value})")
    cert = Certificate(data, obligations, mutants, where)
    if data.get("status") != cert.status.value:
        raise CertificateError(f"{at}: the recorded status {data.get('status')} is not what its obligations "
                               f"say ({cert.status.value})")
    bound = data.get("bound")
    if not isinstance(bound, int) or isinstance(bound, bool) or bound < 1:
        raise CertificateError(f"{at}: the bound {bound!r} is not a positive integer")
    if "all_sizes" in data:
        all_sizes_status(data["all_sizes"], cert.status, claim_id, at)
    if not isinstance(data.get("source"), dict) or not isinstance(data["source"].get("kind"), str):
        raise CertificateError(f"{at}: it does not say where its construction came from")
    return cert


def write_certificate(path: Path, data: Mapping[str, Any]) -> None:
    """A certificate (or a bundle) written as indented JSON."""
    try:
        path.write_text(json.dumps(data, indent=2) + "\n")
    except OSError as error:
        raise UsimError(f"cannot write the certificate to {path}: {error.strerror}") from None


def read_json(path: str) -> Any:
    """The JSON in the certificate file at ``path`` (gzip-compressed where it is named ``*.gz``).

    Raises:
        CertificateError: no such file, a directory, not text, empty, or not JSON.
    """
    file = Path(path)
    if file.is_dir():
        raise CertificateError(f"{path} is a directory, not a certificate file")
    try:
        raw = file.read_bytes()
        if file.suffix == ".gz":
            import gzip

            raw = gzip.decompress(raw)
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise CertificateError(f"no such file: {path}") from None
    except UnicodeDecodeError:
        raise CertificateError(f"{path} is not a text file (a certificate is JSON)") from None
    except (OSError, EOFError) as error:  # gzip's own errors are OSError (BadGzipFile) or EOFError
        raise CertificateError(f"cannot read {path}: {getattr(error, 'strerror', None) or error}") from None
    if not text.strip():
        raise CertificateError(f"{path} is empty")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise CertificateError(f"{path} is not JSON (line {error.lineno}: {error.msg}); truncated?") from None
    return data


COMPILATION = "usim_compilation"
"""The key that marks a certificate of ``usim compile`` over finite value sets (:mod:`usim.compile_certificate`)."""


def read_certificates(path: str) -> list[Certificate]:
    """Every certificate in the file at ``path`` (JSON, or gzip-compressed JSON
    named ``*.gz``), each checked (see :func:`check`; what each states is
    compared with the registry by :func:`usim.engine.statement_check.read_stated`)."""
    data = read_json(path)
    if isinstance(data, dict) and COMPILATION in data:
        raise CertificateError(f"{path} is a certificate of usim compile (a compiled network), not of a claim: "
                               "usim verify --run-claim-code runs it again")
    if isinstance(data, dict) and "certificates" in data:
        items = data["certificates"]
        if not isinstance(items, list) or not items:
            raise CertificateError(f"{path} holds no certificate")
        return [check(c, f"{path} [{i}]") for i, c in enumerate(items)]
    return [check(data, path)]
