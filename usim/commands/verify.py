"""``usim verify CERT.json``: run a certificate again and say whether its verdicts hold.

This is the check to run on a certificate someone else sent: its digest
detects accidental damage and edits that were not re-sealed, but it is not a
signature, and anyone can re-seal an edited one. What the certificate states (claim, paper number, title, statement,
expected outcome, shapes, engines, broken variants, the statement for every
size) is compared with the registered claim, or with the listing and spec
embedded in it, and every difference is listed, naming the field and both
values. Then every obligation it records (and every broken variant) is built
again, checked to be the same statement (its fingerprint) and cost, and
proved again with the recorded engines and timeout (:mod:`usim.engine.verify`).
Exit status 0 when everything is reproduced, 1 when something is not, 2 when
the file is not a certificate, its digest does not match, or its statuses are
not what its own rows say.
"""

from __future__ import annotations

import argparse
import sys

from usim.commands.options import add_jobs, check_jobs, help_text


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "verify", help="re-run a certificate and check that its verdicts are reproduced",
        description=help_text(__doc__.split("\n\n")[1]) if __doc__ else None)
    parser.add_argument("certificate", help="a JSON certificate from usim prove --json or usim check --json")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    add_jobs(parser, "how many families of a proof for every size are proved again at once")
    parser.add_argument("--run-spec-code", action="store_true",
                        help="a certificate of usim check --spec-file embeds the spec file (Python): "
                        "run it to build the obligations again (only for a certificate you trust)")
    parser.add_argument("--run-claim-code", action="store_true",
                        help="a certificate of usim prove FILE.py:NAME (a claim outside the registry) names "
                        "that code: import it again, if the file is unchanged, to build the obligations "
                        "(it runs: only for code you trust)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from usim.api import verify

    check_jobs(args.jobs)
    show = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    results = verify(args.certificate, args.run_spec_code, args.run_claim_code, progress=show, jobs=args.jobs)
    for result in results:
        if result.mismatch is not None:
            print(f"{result.claim_id}: NOT reproduced (it does not match {result.mismatch}; not run again)")
        elif result.reproduced:
            every = f"; for every size {result.every_size}" if result.every_size else ""
            print(f"{result.claim_id}: reproduced ({result.checked} obligation(s), status {result.status}{every})")
        else:
            print(f"{result.claim_id}: NOT reproduced")
        for line in result.differences:
            print(f"  {line}")
        for line in result.notes:
            print(f"  note: {line}")
    return 0 if all(r.reproduced for r in results) else 1
