"""Keeping paper_map.md true: its status and bound columns come from certificates.

The claims table of ``paper_map.md`` is written by hand except two columns:
for every row that names registered claims in its "usim claim" cell, the
"status" cell says what the claims' certificates give (the category's words
when the outcome is the expected one, else "NOT ...") and the "bound" cell the
bound each was proved to, with its obligations and engines, and "all sizes"
where a certificate of ``usim prove --all-sizes`` proves it for every size
(:mod:`usim.site` derives both from the checked certificates). :func:`check`
lists every cell that says something else (a bound raised by hand, a status a
certificate does not back); :func:`update` rewrites those cells and leaves the
prose alone. ``docs/certificates/`` holds the certificates of the bounds the
table states, and the tests check the table against them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from usim.engine.claim import Claim
from usim.errors import InputError
from usim.site import ClaimEntry, entries

CLAIM_CELL = re.compile(r"`([a-z0-9_]+)`")


@dataclass(frozen=True)
class Drift:
    """A cell of the table that its certificates do not back."""

    line: int
    claims: tuple[str, ...]
    column: str
    written: str
    certified: str

    def describe(self) -> str:
        return (f"paper_map.md line {self.line} ({', '.join(self.claims)}): the {self.column} says "
                f"{self.written!r}; the certificates say {self.certified!r}")


def _cells(line: str) -> list[str]:
    """The cells of a table row (a ``\\|`` inside a cell is a pipe, not a border)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])]


def _join(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def status_cell(items: Sequence[ClaimEntry]) -> str:
    words = [e.words for e in items]
    return words[0] if len(set(words)) == 1 else "; ".join(f"{e.claim.id}: {e.words}" for e in items)


def bound_cell(items: Sequence[ClaimEntry]) -> str:
    def one(e: ClaimEntry) -> str:
        if e.certificate is None:
            return "no certificate"
        count = len(e.certificate.obligations)
        text = f"N={e.certificate.data['bound']} ({count} obligation{'s' if count != 1 else ''}; {e.engines})"
        return text + (f"; **{e.every_size}**" if e.every_size else "")
    texts = [one(e) for e in items]
    return texts[0] if len(items) == 1 else "; ".join(f"{e.claim.id}: {t}" for e, t in zip(items, texts))


def _table(lines: list[str]) -> tuple[int, list[str]] | None:
    """The index of the claims table's header line and its column names."""
    for i, line in enumerate(lines):
        if line.startswith("|") and "usim claim" in line and "status" in line and "| bound" in line:
            return i, _cells(line)
    return None


def _rows(text: str, claims: Iterable[Claim], folder: Path):
    lines = text.splitlines()
    found = _table(lines)
    if found is None:
        raise InputError("the file has no claims table (a header with 'usim claim', 'status', 'bound')")
    header, columns = found
    known = {c.id for c in claims}
    by_id = {e.claim.id: e for e in entries(claims, folder)}
    where = {name: next(i for i, c in enumerate(columns) if c.startswith(name))
             for name in ("usim claim", "status", "bound")}
    for i in range(header + 2, len(lines)):
        if not lines[i].startswith("|"):
            break
        cells = _cells(lines[i])
        if len(cells) != len(columns):
            raise InputError(f"paper_map.md line {i + 1}: {len(cells)} cells, the header has {len(columns)}")
        ids = tuple(x for x in CLAIM_CELL.findall(cells[where["usim claim"]]) if x in known)
        if ids:
            yield i, cells, where, [by_id[x] for x in ids]


def check(text: str, claims: Iterable[Claim], folder: Path) -> list[Drift]:
    """Every status or bound cell of the table that the certificates in ``folder`` do not back."""
    claims = list(claims)
    drift = []
    for i, cells, where, items in _rows(text, claims, folder):
        ids = tuple(e.claim.id for e in items)
        for column, wanted in (("status", status_cell(items)), ("bound", bound_cell(items))):
            if cells[where[column]] != wanted:
                drift.append(Drift(i + 1, ids, column, cells[where[column]], wanted))
    return drift


def update(text: str, claims: Iterable[Claim], folder: Path) -> str:
    """``text`` with every status and bound cell of the table as the certificates say."""
    claims = list(claims)
    lines = text.splitlines()
    for i, cells, where, items in list(_rows(text, claims, folder)):
        cells[where["status"]] = status_cell(items)
        cells[where["bound"]] = bound_cell(items)
        lines[i] = _join(cells)
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")
