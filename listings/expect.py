"""Expected verdicts: telling a documented refutation from a regression.

``usim check`` exits 1 whenever a shape is not PROVED, which is right for a
listing meant to be correct and useless for one whose faults are documented
(the paper's ``Matmul4x4`` is REFUTED at 2x2x2 by design of its hard-coded
heads). An :class:`Expectations` says which verdict each shape should get, and
:func:`unmet` lists the shapes whose verdict is another one: a script then
exits 0 exactly when every verdict is the documented one.

Written as ``refuted`` (every shape), or shape by shape, ``2x2x2=refuted,
4x4x4=proved, *=refuted`` (``*``: every shape not named; without it, a shape
not named is expected PROVED), or one pair per line in a file (``#`` starts a
comment). The verdicts are the engine's statuses: proved, refuted, unknown,
vacuous, error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from usim.engine.claim import Status
from usim.errors import InputError
from usim.listings.report import CheckReport

ANY_SHAPE = "*"


@dataclass(frozen=True)
class Expectations:
    """The verdict expected at each shape (by its label, e.g. ``3x3``), and at the others."""

    by_shape: Mapping[str, Status] = field(default_factory=dict)
    otherwise: Status = Status.PROVED

    def at(self, label: str) -> Status:
        """The verdict expected at the shape labelled ``label``."""
        return self.by_shape.get(label, self.otherwise)


@dataclass(frozen=True)
class Unmet:
    """A shape whose verdict is not the one expected."""

    label: str
    expected: Status
    got: Status | None
    """None: the check did not reach that shape (it is not one the listing is meant for, or above --max-n)."""


def _status(word: str, where: str) -> Status:
    try:
        return Status[word.strip().upper()]
    except KeyError:
        names = ", ".join(s.name.lower() for s in Status)
        raise InputError(f"{where}: {word.strip()!r} is not a verdict (one of {names})") from None


def parse_expectations(pairs: Sequence[str], where: str = "--expect") -> Expectations:
    """Expectations from their written form.

    Args:
        pairs: items such as ``refuted`` (every shape), ``2x2=refuted`` or
            ``*=proved``, one per item (a comma-separated ``--expect`` split, or
            a file's lines without comments).
        where: what to name in an error (the option or ``FILE:LINE``).

    Returns:
        The expectations.

    Raises:
        InputError: an item that is not a verdict or ``SHAPE=VERDICT``, a shape
            given twice, or nothing at all.
    """
    by_shape: dict[str, Status] = {}
    otherwise = Status.PROVED
    items = [p.strip() for p in pairs if p.strip()]
    if not items:
        raise InputError(f"{where}: no expected verdict (give e.g. refuted, or 2x2=refuted,*=proved)")
    for item in items:
        shape, equals, verdict = item.partition("=")
        if not equals:
            if len(items) > 1:
                raise InputError(f"{where}: {item!r} without a shape: give one verdict alone, or SHAPE=VERDICT pairs")
            otherwise = _status(item, where)
            continue
        shape = shape.strip()
        if not shape or shape in by_shape:
            raise InputError(f"{where}: {item!r}: " + ("a shape is missing" if not shape else f"{shape} is given twice"))
        if shape == ANY_SHAPE:
            otherwise = _status(verdict, where)
        else:
            by_shape[shape] = _status(verdict, where)
    return Expectations(by_shape, otherwise)


def read_expectations(text: str, filename: str) -> Expectations:
    """Expectations from a file: one ``SHAPE=VERDICT`` (or ``SHAPE VERDICT``) per line.

    Args:
        text: the file's text (``#`` starts a comment).
        filename: its name, for errors.

    Returns:
        The expectations.
    """
    pairs = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            parts = line.split()
            pairs.append("=".join(parts) if len(parts) == 2 and "=" not in line else line)
    return parse_expectations(pairs, filename)


def unmet(report: CheckReport, expectations: Expectations) -> list[Unmet]:
    """The shapes of ``report`` whose verdict is not the expected one; a shape
    named in ``expectations`` that the check did not reach counts as unmet.

    Args:
        report: what ``usim check`` found.
        expectations: what was expected.

    Returns:
        The unmet expectations, in the order of the shapes.
    """
    found = [Unmet(s.label, expectations.at(s.label), s.status) for s in report.shapes
             if s.status is not expectations.at(s.label)]
    checked = {s.label for s in report.shapes}
    missing = [Unmet(label, status, None) for label, status in expectations.by_shape.items()
               if label not in checked]
    return found + missing
