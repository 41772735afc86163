"""The registry's side of a certificate: what it must state, and how to build it again.

The engine compares a certificate with a reference
(:mod:`usim.engine.statement_check`) but cannot read the registry, which sits
above it (:mod:`usim.proofs`); the commands get the reference here. A
certificate of ``usim prove`` is compared with the registered claim of its id
(and its statement for every size); one of ``usim check`` with the claim its
embedded listing and spec stand for (a spec file embedded in it is Python: it
is run only when asked, ``--run-spec-code``); one of a claim made by code
outside the registry (``usim prove claims.py:NAME``, :mod:`usim.claim_code`)
with that claim, its code imported again only when asked
(``--run-claim-code``) and only if its file is unchanged; one of ``usim check
--tracr`` with the spec's claim about the program, the program's (and its broken
variants') code imported again on the same terms. ``usim site`` and ``paper-map``
speak for the registered claims, and read only certificates of ``usim
prove``: a checked listing carries its spec's claim id, but it is about the
listing.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Callable, Iterator

from usim.claim_code import CLAIM_CODE
from usim.engine.certificate import Certificate, CertificateError
from usim.listings.tracr_check import TRACR

if TYPE_CHECKING:  # pragma: no cover
    from usim.engine.claim import Claim, Obligation, Shape
    from usim.listings.spec import ListingSpec
    from usim.engine.statement_check import Reference


@contextlib.contextmanager
def refusing_malformed(where: str) -> Iterator[None]:
    """Inside, a certificate whose record is not of the form usim writes (a list
    where an object belongs, a number where a text does) is refused in one line
    naming the file, whichever part of the reading or rendering meets it first.

    Args:
        where: the certificate file (or folder) being read.

    Raises:
        CertificateError: in place of the KeyError, TypeError, ... a malformed
            record raised.
    """
    from usim.engine.statement_check import MALFORMED

    try:
        yield
    except MALFORMED as error:
        raise CertificateError(f"{where}: a certificate there is malformed ({type(error).__name__}: {error})") \
            from None


def _spec(cert: Certificate, run_spec_code: bool) -> "ListingSpec":
    from usim.listings.specs import spec_from_source

    source = cert.data["source"]
    return spec_from_source(source.get("spec_source") or {"kind": "builtin", "name": source.get("spec")},
                            run_spec_code)


def _tracr_code(cert: Certificate, run_claim_code: bool) -> None:
    """Refuse to run a certificate's tracr program unless asked (``--run-claim-code``)."""
    if not run_claim_code:
        program = cert.data["source"].get("program") or {}
        raise CertificateError(f"{cert.where} ({cert.claim_id}) is of the tracr program {program.get('reference')} "
                               f"({program.get('file')}): usim runs that code only when asked (--run-claim-code)")


def claim_of_code(cert: Certificate, run_claim_code: bool) -> tuple["Claim", dict[str, str]]:
    """The claim a certificate of code outside the registry was made from, loaded again.

    Args:
        cert: a certificate whose source is of kind ``claim_code``.
        run_claim_code: import that code (it runs); without, refuse.

    Returns:
        The claim (its file unchanged since the certificate, else
        CertificateError), and the source record its certificate would have now.
    """
    from usim.claim_code import reload_claim
    from usim.errors import InputError

    source = cert.data["source"]
    at = f"{cert.where} ({cert.claim_id})"
    if not run_claim_code:
        raise CertificateError(f"{at} is of a claim made by the code {source.get('reference')} ({source.get('file')}): "
                               "usim runs that code only when asked (--run-claim-code)")
    try:
        return reload_claim(source, cert.claim_id)
    except InputError as error:
        raise CertificateError(f"{at}: {error}") from None


def reference(cert: Certificate, run_spec_code: bool = False, listings: bool = True,
              run_claim_code: bool = False) -> "Reference":
    """What ``cert`` must state, as this usim derives it.

    Args:
        cert: a certificate, checked as it was read.
        run_spec_code: run a spec file the certificate embeds (Python).
        listings: accept a certificate of ``usim check``.
        run_claim_code: import the code a certificate of a claim outside the
            registry names (:func:`claim_of_code`).

    Returns:
        The reference to compare it with (CertificateError, or another
        UsimError, where there is none).
    """
    from usim.engine.statement_check import of_listing, registered
    from usim.proofs import all_claims, statements

    kind = cert.data["source"].get("kind")
    at = f"{cert.where} ({cert.claim_id})"
    if kind == "claim":
        claims = {c.id: c for c in all_claims()}
        if cert.claim_id not in claims:
            raise CertificateError(f"{at}: no claim {cert.claim_id!r} in this usim's registry")
        return registered(claims[cert.claim_id], statements().get(cert.claim_id))
    if kind == CLAIM_CODE:
        if not listings:  # site and paper-map speak for the registry's claims
            raise CertificateError(f"{at} is of a claim made by code outside the registry "
                                   f"({cert.data['source'].get('reference')}), not of a registered claim")
        from usim.engine.statement_check import of_code

        claim, source = claim_of_code(cert, run_claim_code)
        return of_code(claim, f"the claim {source['reference']} makes", source)
    if kind == "listing":
        if not listings:
            raise CertificateError(f"{at} is a certificate of usim check (a listing checked against a spec), "
                                   "not of the registered claim: write these with usim prove --json-dir")
        from usim.listings.certificate import listing_claim_of

        source = cert.data["source"]
        spec = _spec(cert, run_spec_code)
        return of_listing(listing_claim_of(spec, str(source.get("function")), str(source.get("file"))),
                          len(spec.dims), tuple(spec.mutants))
    if kind == TRACR:
        if not listings:
            raise CertificateError(f"{at} is a certificate of usim check --tracr (a tracr program checked against "
                                   "a spec), not of the registered claim: write these with usim prove --json-dir")
        from usim.listings.tracr_check import tracr_claim_of

        spec = _spec(cert, run_spec_code)  # what it states needs the spec only; its program runs in obligations
        source = cert.data["source"]
        names = tuple(str(b.get("name")) for b in source.get("broken") or [])
        return of_listing(tracr_claim_of(spec, str(source["program"].get("reference"))), 1, names)
    raise CertificateError(f"{at}: it does not say where its construction came from (source {kind!r})")


def obligations(cert: Certificate, run_spec_code: bool = False, run_claim_code: bool = False,
                claim: "Claim | None" = None) -> tuple[Callable[["Shape", str | None], "Obligation"], tuple[str, ...]]:
    """How ``usim verify`` builds the obligations of ``cert`` again, and the engines that apply.

    Args:
        cert: a certificate that states what its reference says.
        run_spec_code: run a spec file the certificate embeds (Python).
        run_claim_code: import the code of a claim outside the registry.
        claim: the claim its reference was made from (:func:`reference`), so
            that a claim from code is not loaded, and its code run, a second time.

    Returns:
        The builder of an obligation (shape, broken variant) and the claim's engines.
    """
    from usim.engine.verify import obligations_of_claim
    from usim.proofs import get

    if cert.data["source"].get("kind") == "listing":
        from usim.listings.certificate import listing_source

        spec = _spec(cert, run_spec_code)
        build, engines = listing_source(cert.data["source"], lambda spec_source: spec)
        return build, tuple(engines)
    if cert.data["source"].get("kind") == TRACR:
        from usim.claim_code import reload_object
        from usim.errors import InputError
        from usim.listings.tracr_check import tracr_source

        _tracr_code(cert, run_claim_code)

        def load(record):
            try:
                return reload_object(record, "tracr program")
            except InputError as error:
                raise CertificateError(f"{cert.where} ({cert.claim_id}): {error}") from None

        build, engines = tracr_source(cert.data["source"], _spec(cert, run_spec_code), load)
        return build, tuple(engines)
    if claim is None:
        claim = claim_of_code(cert, run_claim_code)[0] if cert.data["source"].get("kind") == CLAIM_CODE \
            else get(cert.claim_id)
    return obligations_of_claim(claim), tuple(claim.engines)


def read_checked(path: str, run_spec_code: bool = False, listings: bool = True) -> list[Certificate]:
    """Every certificate in ``path``, checked as it is read, stating what this
    usim derives for it, and fit to be rendered without being run again
    (:func:`usim.engine.statement_check.read_stated`): what ``usim report``,
    ``site`` and ``paper-map`` read.

    Args:
        path: the certificate file.
        run_spec_code: run a spec file a certificate embeds (Python).
        listings: accept certificates of ``usim check``.

    Returns:
        The certificates, in the file's order.
    """
    from usim.engine.statement_check import read_stated

    return read_stated(path, lambda cert: reference(cert, run_spec_code, listings))
