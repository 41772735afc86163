"""What a certificate states, re-derived: the check ``usim verify``, ``report``, ``site``
and ``paper-map`` share.

A certificate's digest (:func:`usim.engine.certificate.digest`) is an unkeyed
sha256 that anyone can recompute: it detects accidental damage and an edit
that was not re-sealed, and nothing more. It is not a signature. So nothing a
certificate says about *what* was proved is taken from it: every field that
states the claim is re-derived here, from the registered claim (and its
statement for every size), or, for a certificate of ``usim check``, from the
listing and spec embedded in it, and compared with what the certificate says.

:data:`FIELDS` is the table: one :class:`Field` per stated thing, with how to
read it from the certificate and how to derive it. Claim id, paper number,
title, statement, semantics, notes and expected outcome; the source; the
shapes (those of the claim up to the recorded bound); the broken variants
(the claim's, at its shapes, each once); the engines (the rows' own); the costs
(the rows' own); and, for a verdict for every size: that the claim has one at
all, what it is about (the claim's program or the family alone), the family's
own verdict, the bounded cross-check it records (the rows' bound and status),
its conditions (and so its dimensions), the fingerprint of its family,
the tie's bound and number of shapes, for a verdict proved in parts its
parts (claim, conditions, tie) and its chain (derived again), what the verdict rests on (derived from
the record's own steps, tie and witness and the bounded rows, the times
aside), and its broken variants. The ``claim`` and ``all_sizes`` sections
hold no field the table does not know: a new field is one more row of the
table, saying how to derive it.

What is not here, because it needs the obligations built: each obligation's
fingerprint (its program, layouts, target, preconditions, domain) and cost;
``usim verify`` builds every obligation again and compares both
(:mod:`usim.engine.verify`), then proves it again. The statuses, too, are
re-checked only by running again: reading derives them from the rows
(:mod:`usim.engine.certificate`), and :func:`refuse_unverified` keeps a
renderer from showing as true what the registry says is false (an erratum
recorded PROVED).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from usim.encodings.notation import shape_label
from usim.engine.certificate import Certificate, CertificateError, read_certificates
from usim.engine.claim import Claim, Shape, Status
from usim.engine.engines import ENGINES
from usim.engine.options import MAX_BOUND
from usim.engine.parametric.allsizes import beyond_bound, rests_on_record
from usim.engine.parametric.composed import ComposedClaim
from usim.engine.parametric.statement import ALL_SIZES_BUDGET, FamilyClaim
from usim.rasp.fingerprint import fingerprint as fingerprint_of_program

REGISTRY = "the registry"
LISTING = "the embedded listing and spec"


@dataclass(frozen=True)
class Reference:
    """What this usim says a certificate of one claim must state.

    ``shapes`` is None for a checked listing (its shapes were chosen when it
    was checked: ``--shape``, or the plan read from the listing); ``dims`` is
    then the number of dimensions of each; ``mutants`` the broken variants the
    claim (or the spec) has; ``family`` the claim's statement for every size.
    """

    claim: Claim
    whence: str
    shapes: Callable[[int], Iterable[Shape]] | None
    mutants: tuple[str, ...]
    family: FamilyClaim | ComposedClaim | None = None
    dims: int | None = None
    source: Mapping[str, Any] | None = None  # where the claim came from; None: the registry ({"kind": "claim"})


def registered(claim: Claim, family: FamilyClaim | ComposedClaim | None) -> Reference:
    """The reference of a registered claim.

    Args:
        claim: the claim in the registry.
        family: its statement for every size, if it has one.

    Returns:
        The reference certificates of ``usim prove`` are compared with.
    """
    return Reference(claim, REGISTRY, claim.shapes, tuple(claim.mutants), family)


def of_code(claim: Claim, whence: str, source: Mapping[str, Any]) -> Reference:
    """The reference of a certificate of a claim made by code outside the registry.

    Args:
        claim: the claim, made again by that code.
        whence: the code, in words (for what a difference is measured against).
        source: the certificate's ``source`` record as this usim derives it now.

    Returns:
        The reference: the claim's shapes and broken variants, as for a registered claim.
    """
    return Reference(claim, whence, claim.shapes, tuple(claim.mutants), None, None, source)


def of_listing(claim: Claim, dims: int, mutants: Sequence[str]) -> Reference:
    """The reference of a certificate of ``usim check``.

    Args:
        claim: the claim the listing stands for, from its embedded source
            (:func:`usim.listings.certificate.listing_claim_of`).
        dims: how many dimensions the spec's shapes have.
        mutants: the spec's broken variants.

    Returns:
        The reference the certificate is compared with.
    """
    return Reference(claim, LISTING, None, tuple(mutants), None, dims)


@dataclass(frozen=True)
class FieldDifference:
    """A field a certificate states otherwise than this usim derives it."""

    field: str
    recorded: Any
    derived: Any
    whence: str
    problem: str = ""  # a record too malformed to compare: what is wrong with it

    def describe(self) -> str:
        if self.problem:
            return f"{self.field}: {self.problem}"
        recorded, derived = self.recorded, self.derived
        if isinstance(recorded, list) and isinstance(derived, list) and len(recorded) + len(derived) > 8:
            missing = [x for x in derived if x not in recorded]
            extra = [x for x in recorded if x not in derived]
            detail = "; ".join(part for part in (f"missing {_few(missing)}" if missing else "",
                                                 f"extra {_few(extra)}" if extra else "") if part)
            return (f"{self.field}: the certificate lists {len(recorded)}, {self.whence} "
                    f"{len(derived)} ({detail or 'in another order'})")
        return f"{self.field}: the certificate says {_short(recorded)}, {self.whence} {_short(derived)}"


def _few(items: list) -> str:
    return ", ".join(map(str, items[:5])) + (f", ... ({len(items)} in all)" if len(items) > 5 else "")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 160 else text[:150] + " ..."


# -- reading a certificate's fields -------------------------------------------------

Data = Mapping[str, Any]


def _claim(data: Data) -> Mapping[str, Any]:
    return data["claim"]


def _rows(data: Data) -> list[Mapping[str, Any]]:
    return list(data["obligations"])


def _mutant_rows(data: Data) -> list[Mapping[str, Any]]:
    return list(data.get("mutants") or [])


def _section(data: Data) -> Mapping[str, Any]:
    return data["all_sizes"]


def _engines_of(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    return list(dict.fromkeys(e["engine"] for row in rows for e in row["engines"]))


def _sorted(value: Any) -> Any:
    return sorted(value) if isinstance(value, list) and all(isinstance(x, str) for x in value) else value


def _bound(data: Data) -> int:
    return data["bound"]


def _shapes(ref: Reference, data: Data) -> list[Shape]:
    assert ref.shapes is not None
    bound = _bound(data)
    if bound > MAX_BOUND:  # the registry's shapes up to it would take hours to list
        raise ValueError(f"the bound {bound} is above the largest usim proves to ({MAX_BOUND})")
    return [tuple(s) for s in ref.shapes(bound)]


def _mutant_labels(data: Data) -> list[str]:
    return sorted(shape_label(row["shape"], row.get("mutant")) for row in _mutant_rows(data))


def _derived_mutants(ref: Reference, data: Data) -> list[str]:
    """The recorded broken variants that are the claim's, at its shapes, each once (a
    variant has no row where it breaks nothing, so not every pair has one)."""
    recorded = set(_mutant_labels(data))
    if not recorded:
        return []  # proved without --mutants
    return sorted(recorded & {shape_label(s, m) for s in _shapes(ref, data) for m in ref.mutants})


TIME = re.compile(r" \(\d+\.\d+ s\)$")


def _untimed(lines: Any) -> Any:
    """Lines without the time each step took (a measurement, not part of the statement)."""
    if not isinstance(lines, list):
        return lines
    return [TIME.sub("", line) if isinstance(line, str) else line for line in lines]


def _rests_on(ref: Reference, data: Data) -> list[str]:
    # the bounded status as recorded (reading checked it is the rows' own), and what the
    # verdict is about as recorded (compared with the registry in its own row)
    section = _section(data)
    return _untimed(rests_on_record(section["result"], section["about"], _bound(data), data["status"],
                                    data["engines"]))


def _witness_sizes(data: Data) -> list[str]:
    engine = _section(data)["result"].get("engine")
    return list(engine.get("witness_sizes") or {}) if engine is not None else []


def _parts(data: Data) -> Any:
    """A verdict proved in parts: each part's claim, broken variant, conditions and tie, as recorded."""
    parts = _section(data)["result"].get("parts")
    if parts is None:
        return None
    return [[p.get("claim"), p.get("mutant"), p.get("conditions"),
             {k: (p.get("tie") or {}).get(k) for k in ("bound", "shapes", "beyond")}] for p in parts]


def _derived_parts(ref: Reference, data: Data) -> Any:
    statement = ref.family
    if not isinstance(statement, ComposedClaim):
        return None
    bound = _bound(data)
    return [[p.id, None, p.describe_conditions(),
             {"bound": bound, "shapes": len(list(p.claim.shapes(bound))),
              "beyond": [list(s) for s in beyond_bound(p, bound)]}] for p in statement.parts]


def _chain(data: Data) -> Any:
    return _section(data)["result"].get("chain")


def _derived_chain(ref: Reference, data: Data) -> Any:
    return ref.family.chain().as_dict() if isinstance(ref.family, ComposedClaim) else None


def _mutant_parts(data: Data) -> list:
    return sorted([str(m.get("mutant")), [[p.get("claim"), p.get("mutant")] for p in m.get("parts") or []]]
                  for m in _section(data).get("mutants") or [])


def _derived_mutant_parts(ref: Reference, data: Data) -> list:
    statement = ref.family
    recorded = {str(m.get("mutant")) for m in _section(data).get("mutants") or []}
    if not isinstance(statement, ComposedClaim):
        return sorted([name, []] for name in recorded)
    return sorted([name, [[statement.parts[i].id, broken]]] for name, (i, broken) in statement.mutants.items()
                  if name in recorded)


CLAIM_FIELDS = ("id", "paper", "title", "statement", "semantics", "notes", "expected")
"""The fields of a certificate's ``claim`` section (see :data:`FIELDS`)."""

ALL_SIZES_FIELDS = ("scope", "status", "about", "family_status", "cross_check", "conditions", "family",
                    "rests_on", "result", "mutants")
"""The fields of a certificate's ``all_sizes`` section: ``scope``, ``status`` and
``result`` are checked as it is read (:func:`usim.engine.certificate.all_sizes_status`:
every verdict derived from its parts), the others in :data:`FIELDS`. Since 2026-12-05 also
``timeout_seconds`` (each family's budget,
:data:`~usim.engine.parametric.statement.ALL_SIZES_BUDGET`), absent from older ones."""


def _all_sizes_fields(section: Mapping[str, Any]) -> list[str]:
    """The fields an ``all_sizes`` section of this usim has: :data:`ALL_SIZES_FIELDS`,
    and the budget where the section records one."""
    return sorted(ALL_SIZES_FIELDS + ((ALL_SIZES_BUDGET,) if ALL_SIZES_BUDGET in section else ()))


@dataclass(frozen=True)
class Field:
    """One thing a certificate states: how to read it, and how to derive it.

    ``name`` may hold ``{bound}``, the certificate's bound. ``applies`` says
    whether the field is stated at all (a listing has no
    registered shapes; a bounded certificate no verdict for every size);
    ``whence`` overrides the reference's (for fields derived from the
    certificate's own rows: what they must agree with).
    """

    name: str
    recorded: Callable[[Data], Any]
    derived: Callable[[Reference, Data], Any]
    applies: Callable[[Reference, Data], bool] = lambda ref, data: True
    whence: str | None = None


def _registered(ref: Reference, data: Data) -> bool:
    return ref.shapes is not None


def _listing(ref: Reference, data: Data) -> bool:
    return ref.shapes is None


def _every_size(ref: Reference, data: Data) -> bool:
    return "all_sizes" in data and ref.family is not None


def _claim_field(name: str, derive: Callable[[Claim], Any]) -> Field:
    return Field(f"claim.{name}", lambda data: _claim(data).get(name), lambda ref, data: derive(ref.claim))


FIELDS: tuple[Field, ...] = (
    Field("claim (its fields)", lambda data: sorted(_claim(data)), lambda ref, data: sorted(CLAIM_FIELDS),
          whence="a certificate of this usim"),
    _claim_field("id", lambda c: c.id),
    _claim_field("paper", lambda c: c.paper),
    _claim_field("title", lambda c: c.title),
    _claim_field("statement", lambda c: c.statement),
    _claim_field("semantics", lambda c: c.semantics.value),
    _claim_field("notes", lambda c: c.notes),
    _claim_field("expected", lambda c: c.expected.value),
    Field("source", lambda data: data.get("source"),
          lambda ref, data: dict(ref.source) if ref.source is not None else {"kind": "claim"}, _registered),
    Field("shapes up to N={bound}", lambda data: sorted(shape_label(r["shape"]) for r in _rows(data)),
          lambda ref, data: sorted(shape_label(s) for s in _shapes(ref, data)), _registered),
    Field("shapes (their dimensions)", lambda data: sorted({len(r["shape"]) for r in _rows(data)}),
          lambda ref, data: [ref.dims], _listing),
    Field("bound", _bound, lambda ref, data: max(max(r["shape"]) for r in _rows(data)), _listing,
          whence="its largest shape"),
    Field("obligations (their claim)", lambda data: sorted({r.get("claim") for r in _rows(data) + _mutant_rows(data)},
                                                           key=repr),
          lambda ref, data: [ref.claim.id]),
    Field("obligations (their broken variant)", lambda data: sorted({r.get("mutant") for r in _rows(data)}, key=repr),
          lambda ref, data: [None], whence="an obligation of the claim itself"),
    Field("mutants up to N={bound}", _mutant_labels, _derived_mutants, _registered),
    Field("mutants (their names)", lambda data: sorted({str(r.get("mutant")) for r in _mutant_rows(data)}),
          lambda ref, data: sorted({str(r.get("mutant")) for r in _mutant_rows(data)} & set(ref.mutants)),
          _listing),
    Field("engines", lambda data: _sorted(data.get("engines")), lambda ref, data: sorted(_engines_of(_rows(data))),
          whence="its rows"),
    Field("engines (their names)", lambda data: sorted(set(_engines_of(_rows(data) + _mutant_rows(data)))),
          lambda ref, data: sorted(set(_engines_of(_rows(data) + _mutant_rows(data))) & set(ENGINES)),
          whence="usim's engines"),
    Field("cost", lambda data: data.get("cost"),
          lambda ref, data: {r["label"]: r["cost"] for r in _rows(data) if r.get("cost") is not None},
          whence="its rows"),
    Field("all_sizes", lambda data: "a verdict for every size",
          lambda ref, data: f"no statement for every size of {ref.claim.id}",
          lambda ref, data: "all_sizes" in data and ref.family is None),
    Field("all_sizes (its fields)", lambda data: sorted(_section(data)), lambda ref, data: _all_sizes_fields(_section(data)),
          _every_size, whence="a certificate of this usim"),
    Field("all_sizes.about", lambda data: _section(data).get("about"), lambda ref, data: ref.family.about,
          _every_size),
    Field("all_sizes.family_status", lambda data: _section(data).get("family_status"),
          lambda ref, data: _section(data)["result"]["status"], _every_size, whence="its own verdict"),
    Field("all_sizes.cross_check", lambda data: _section(data).get("cross_check"),
          lambda ref, data: {"max_n": _bound(data), "status": data["status"]}, _every_size,
          whence="its bounded rows"),
    Field("all_sizes.conditions", lambda data: _section(data).get("conditions"),
          lambda ref, data: ref.family.describe_conditions(), _every_size),
    Field("all_sizes.family", lambda data: _section(data).get("family"),
          lambda ref, data: fingerprint_of_program(ref.family.family()), _every_size),
    Field("all_sizes.result (claim, broken variant, conditions)",
          lambda data: [_section(data)["result"].get(k) for k in ("claim", "mutant", "conditions")],
          lambda ref, data: [ref.claim.id, None, ref.family.describe_conditions()], _every_size),
    Field("all_sizes.result.engine.witness_sizes (dimensions)", _witness_sizes,
          lambda ref, data: list(ref.family.dims) if _witness_sizes(data) else [], _every_size),
    Field("all_sizes.result.tie", lambda data: {k: _section(data)["result"]["tie"].get(k)
                                                for k in ("bound", "shapes", "beyond")},
          lambda ref, data: {"bound": _bound(data), "shapes": len(_shapes(ref, data)),
                             "beyond": [list(s) for s in beyond_bound(ref.family, _bound(data))]},
          lambda ref, data: _every_size(ref, data) and _section(data)["result"].get("tie") is not None),
    Field("all_sizes.result.parts (claim, broken variant, conditions, tie)", _parts, _derived_parts, _every_size),
    Field("all_sizes.result.chain", _chain, _derived_chain, _every_size,
          whence="the chain derived again from the registry's family"),
    Field("all_sizes.mutants (their parts)", _mutant_parts, _derived_mutant_parts, _every_size),
    Field("all_sizes.rests_on", lambda data: _untimed(_section(data).get("rests_on")), _rests_on, _every_size,
          whence="its own record (steps, tie, witness, bounded rows)"),
    Field("all_sizes.mutants", lambda data: sorted(str(m.get("mutant")) for m in _section(data).get("mutants") or []),
          lambda ref, data: sorted(ref.family.mutants) if _section(data).get("mutants") else [], _every_size),
    Field("all_sizes.mutants (claim, conditions)",
          lambda data: sorted({(m.get("claim"), m.get("conditions")) for m in _section(data).get("mutants") or []},
                              key=repr),
          lambda ref, data: [(ref.claim.id, ref.family.describe_conditions())] if _section(data).get("mutants")
          else [], _every_size),
)
"""Every field a certificate states, and how it is derived (see the module docstring)."""


MALFORMED = (KeyError, TypeError, AttributeError, ValueError, IndexError)
"""What reading or deriving a field of a malformed record raises."""


def differences(cert: Certificate, reference: Reference) -> list[FieldDifference]:
    """Every field of :data:`FIELDS` that ``cert`` states otherwise than ``reference``.

    Args:
        cert: a certificate, checked as it was read (:func:`read_certificates`).
        reference: what this usim derives for its claim.

    Returns:
        The differences, in the order of the table (none: it states what the
        registry, or its embedded listing and spec, says).
    """
    data = cert.data
    out = []
    for field in FIELDS:
        whence = field.whence or reference.whence
        name = field.name.format(bound=data.get("bound"))
        try:
            if not field.applies(reference, data):
                continue
            recorded = field.recorded(data)
            derived = field.derived(reference, data)
        except MALFORMED as error:
            out.append(FieldDifference(name, None, None, reference.whence,
                                       f"the record is malformed ({type(error).__name__}: {error})"))
            continue
        if recorded != derived:
            out.append(FieldDifference(name, recorded, derived, whence))
    return out


def check_statement(cert: Certificate, reference: Reference) -> None:
    """Refuse ``cert`` (:class:`CertificateError`, one line naming the first
    difference) unless it states what ``reference`` says.

    Args:
        cert: a certificate, checked as it was read.
        reference: what this usim derives for its claim.
    """
    found = differences(cert, reference)
    if found:
        more = f" (and {len(found) - 1} more; usim verify lists them)" if len(found) > 1 else ""
        raise CertificateError(f"{cert.where} ({cert.claim_id}): {found[0].describe()}{more}")


def refuse_unverified(cert: Certificate, reference: Reference) -> None:
    """Refuse to render as true what the registry says is false.

    A renderer (``usim report``, ``site``, ``paper-map``) shows a
    certificate's verdicts without proving anything again; they were derived
    from its rows as it was read, but rows can be written by anyone. A verdict
    the registry expects is rendered as recorded, and so is one that says less
    (UNKNOWN, ERROR, a claim refuted: "NOT proved"). An erratum (the published
    construction, expected REFUTED) recorded PROVED, bounded or for every size,
    would say the published construction is right: it is refused, one line.
    Either the rows were written by hand, or the bound is too small to reach a
    counterexample; ``usim verify`` runs it again, and proving the claim to its
    default bound shows the erratum.

    Args:
        cert: a certificate that states what ``reference`` says.
        reference: what this usim derives for its claim.
    """
    if not reference.claim.is_erratum:
        return
    for scope, status in ((f"up to N={cert.data['bound']}", cert.status), ("for every size", cert.all_sizes_status)):
        if status is Status.PROVED:
            raise CertificateError(
                f"{cert.where} ({cert.claim_id}): the certificate records the erratum {cert.claim_id} PROVED "
                f"{scope}, which {reference.whence} expects REFUTED; usim does not render an erratum as proved "
                f"from a certificate (usim verify runs it again)")


Resolve = Callable[[Certificate], Reference]
"""What the command line gives the engine: the reference of a certificate
(the registry is above the engine)."""


def read_stated(path: str, resolve: Resolve, rendering: bool = True) -> list[Certificate]:
    """Every certificate in the file at ``path``, read and checked
    (:func:`read_certificates`), each stating what ``resolve`` derives for it
    (:func:`check_statement`), and, to be ``rendering``, none an erratum
    recorded PROVED (:func:`refuse_unverified`).

    Args:
        path: a certificate file (or a bundle of several).
        resolve: the reference of each certificate (CertificateError or
            another UsimError where it has none).
        rendering: whether the certificates are to be rendered without being
            run again.

    Returns:
        The certificates, in the file's order.
    """
    certs = read_certificates(path)
    for cert in certs:
        reference = resolve(cert)
        check_statement(cert, reference)
        if rendering:
            refuse_unverified(cert, reference)
    return certs
