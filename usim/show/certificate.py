"""Reading a proof certificate (``usim prove CLAIM --json FILE``) for the page.

The certificate is checked as it is read (:func:`usim.engine.certificate.read_certificates`):
one that is not a certificate, whose digest does not match (damaged, or edited
and not re-sealed), or whose recorded statuses are not what its own engines'
verdicts say, is refused (the page states the registry's claim; ``usim site``
compares its certificates with the registry before drawing the pages). So the
status the page shows for a shape, as the certificate states it, is the one its
engines gave. Only a certificate for the claim being shown is accepted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from usim.encodings.notation import shape_label
from usim.engine.certificate import read_certificates
from usim.errors import InputError

KNOWN_STATUSES = ("PROVED", "REFUTED", "UNKNOWN", "VACUOUS", "ERROR")


@dataclass(frozen=True)
class EngineLine:
    engine: str
    status: str
    seconds: float | None
    detail: str
    cached: bool = False  # reused from the verdict cache: ``seconds`` is the run that computed it


@dataclass(frozen=True)
class ShapeStatus:
    shape: str  # "2x3x2"
    status: str  # as written in the certificate (UNKNOWN when absent or unreadable)
    engines: tuple[EngineLine, ...]
    mutant: str | None = None
    counterexample: str | None = None


@dataclass(frozen=True)
class ShownCertificate:
    path: str
    claim_id: str | None
    statement: str | None
    bound: str | None
    shapes: tuple[ShapeStatus, ...]  # the claim's obligations
    mutants: tuple[ShapeStatus, ...]  # deliberately broken variants (should be REFUTED)
    versions: dict[str, str]
    commit: str | None
    notes: tuple[str, ...]  # what could not be read
    status: str | None = None  # the claim's overall status, as the certificate states it
    costs: dict[str, dict] | None = None  # shape label -> cost as recorded

    def status_of(self, shape: str) -> str | None:
        for s in self.shapes:
            if s.shape == shape:
                return s.status
        return None

    @property
    def summary(self) -> str:
        """Counts per status over the claim's shapes, e.g. '9 PROVED'."""
        counts: dict[str, int] = {}
        for s in self.shapes:
            counts[s.status] = counts.get(s.status, 0) + 1
        if not counts:
            return "no obligation listed"
        return ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _shape(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return shape_label(value)
    return str(value) if value is not None else "?"


def _status(value: Any) -> str:
    text = str(value).upper() if value is not None else "UNKNOWN"
    return text if text in KNOWN_STATUSES else f"UNKNOWN ({value})"


def _counterexample(value: Any) -> str | None:
    if not isinstance(value, dict):
        return None if value is None else str(value)
    parts = []
    inputs = value.get("inputs")
    if isinstance(inputs, dict):
        for name, rows in inputs.items():
            try:
                parts.append(f"{name} = [" + "; ".join(", ".join(str(x) for x in r) for r in rows) + "]")
            except TypeError:
                parts.append(f"{name} = {rows}")
    if "position" in value:
        parts.append(f"at position {value.get('position')} ({value.get('entry')}) "
                     f"expected {value.get('expected')}, got {value.get('got')}")
    return "; ".join(parts) or json.dumps(value)


def _obligation(entry: Any, mutant: bool = False) -> ShapeStatus:
    """One obligation; ``mutant`` marks an entry of a list of broken variants."""
    if not isinstance(entry, dict):
        return ShapeStatus(_shape(None), _status(None), (), "?" if mutant else None)
    engines = []
    counterexample = None
    for e in entry.get("engines") or ():
        if not isinstance(e, dict):
            continue
        seconds = e.get("seconds")
        engines.append(EngineLine(
            engine=str(e.get("engine", "?")),
            status=_status(e.get("status")),
            seconds=float(seconds) if isinstance(seconds, (int, float)) else None,
            detail=str(e.get("detail") or ""),
            cached=e.get("cached") is True,
        ))
        counterexample = counterexample or _counterexample(e.get("counterexample"))
    return ShapeStatus(
        shape=_shape(entry.get("shape")),
        status=_status(entry.get("status")),
        engines=tuple(engines),
        mutant=_text(entry.get("mutant") or (entry.get("name") or "?" if mutant else None)),
        counterexample=counterexample or _counterexample(entry.get("counterexample")),
    )


def _claim_id(data: dict) -> str | None:
    claim = data.get("claim")
    return _text(claim.get("id")) if isinstance(claim, dict) else _text(claim)


def read_certificate(path: str | Path, claim_id: str) -> ShownCertificate:
    """The certificate at ``path``; an error if it is unreadable or for another claim."""
    path = Path(path)
    try:
        certificates = [c.data for c in read_certificates(str(path))]  # checked: digest, statuses
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read the certificate {str(path)!r}: {error}") from None
    ids = [_claim_id(c) for c in certificates]
    if claim_id not in ids:
        raise InputError(f"the certificate {str(path)!r} is for the claim(s) "
                         f"{', '.join(repr(i) for i in ids)}, not {claim_id!r}")
    data = certificates[ids.index(claim_id)]
    notes = []
    claim = data.get("claim")
    statement = _text(claim.get("statement")) if isinstance(claim, dict) else None
    cert_id = claim_id
    entries = data.get("obligations")
    if not isinstance(entries, list):
        notes.append("the certificate lists no obligations")
        entries = []
    read = [_obligation(e) for e in entries]
    mutants = data.get("mutants")
    if isinstance(mutants, list):
        read += [_obligation(e, mutant=True) for e in mutants]
    versions = data.get("versions")
    bound = data.get("bound")
    if isinstance(bound, dict):
        bound = ", ".join(f"{k} = {v}" for k, v in bound.items())
    return ShownCertificate(
        path=str(path),
        claim_id=cert_id,
        statement=statement,
        bound=_text(bound),
        shapes=tuple(s for s in read if s.mutant is None),
        mutants=tuple(s for s in read if s.mutant is not None),
        versions={str(k): str(v) for k, v in versions.items()} if isinstance(versions, dict) else {},
        commit=_text(data.get("commit")),
        notes=tuple(notes),
        status=_status(data.get("status")) if "status" in data else None,
        costs={str(k): v for k, v in data["cost"].items() if isinstance(v, dict)}
        if isinstance(data.get("cost"), dict) else None,
    )
