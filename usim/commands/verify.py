"""``usim verify CERT.json``: run a certificate again and say whether its verdicts hold.

Every obligation the certificate records (and every broken variant) is built
again, from the registered claim or from the listing embedded in the
certificate, checked to be the same statement (its fingerprint), and proved
again with the recorded engines and timeout (:mod:`usim.engine.verify`). Exit
status 0 when every verdict is reproduced, 1 when one is not, 2 when the file
is not a valid, unedited certificate.
"""

from __future__ import annotations

import argparse
import sys

from typing import TYPE_CHECKING

from usim.errors import UsimError

if TYPE_CHECKING:  # pragma: no cover
    from usim.engine.certificate import Certificate


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "verify", help="re-run a certificate and check that its verdicts are reproduced",
        description=__doc__.split("\n\n")[1] if __doc__ else None)
    parser.add_argument("certificate", help="a JSON certificate from usim prove --json or usim check --json")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    parser.add_argument("--run-spec-code", action="store_true",
                        help="a certificate of usim check --spec-file embeds the spec file (Python): "
                        "run it to build the obligations again (only for a certificate you trust)")
    parser.set_defaults(func=run)


def _source(cert: Certificate, run_spec_code: bool = False):
    from usim.proofs import get
    from usim.engine.verify import obligations_of_claim

    source = cert.data.get("source") or {}
    if source.get("kind") == "claim":
        claim = get(cert.claim_id)
        return obligations_of_claim(claim), claim.engines
    if source.get("kind") == "listing":
        from usim.engine.listing import listing_source
        from usim.proofs.specs import spec_from_source

        return listing_source(source, lambda spec_source: spec_from_source(spec_source, run_spec_code))
    raise UsimError(f"the certificate of {cert.claim_id} does not say where its construction came from")


def run(args: argparse.Namespace) -> int:
    from usim.engine.certificate import read_certificates
    from usim.proofs import all_claims
    from usim.engine.verify import verify

    certs = read_certificates(args.certificate, {c.id: c for c in all_claims()})
    show = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    ok = True
    for cert in certs:
        source, engines = _source(cert, args.run_spec_code)
        result = verify(cert, source, tuple(engines), progress=show)
        if cert.data.get("all_sizes") is not None:
            from usim.engine.verify import verify_all_sizes
            from usim.proofs import family

            again = verify_all_sizes(cert, family(cert.claim_id), progress=show)
            result.checked += again.checked
            result.differences += again.differences
            result.notes += again.notes
        if result.reproduced:
            every = f"; for every size {cert.all_sizes_status.value}" if cert.all_sizes_status else ""
            print(f"{cert.claim_id}: reproduced ({result.checked} obligation(s), status {cert.status.value}{every})")
        else:
            ok = False
            print(f"{cert.claim_id}: NOT reproduced")
            for line in result.differences:
                print(f"  {line}")
        for line in result.notes:
            print(f"  note: {line}")
    return 0 if ok else 1
