"""``usim site --certificates DIR --out SITE``: one page for the whole paper.

Built from the certificates of ``usim prove all --json-dir DIR``
(:mod:`usim.site`); each claim links to its own page drawn by ``usim show``
(needs the ``plot`` extra; ``--no-pictures`` skips them).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from usim.commands.options import add_jobs, check_jobs
from usim.errors import UsimError


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "site", help="one static HTML page for the whole paper, from certificates",
        description="Write SITE/index.html from the certificates of `usim prove all --json-dir DIR`: "
        "every claim with the paper's number, its status as its certificate says, bound, engines, "
        "cost, an erratum's counterexample, versions and digests, and a link to the claim's own "
        "page of pictures (usim show). A certificate that is damaged, inconsistent with its own rows or "
        "states something other than the registry, or an erratum recorded PROVED, is refused; the "
        "verdicts are not run again (usim verify does that).")
    parser.add_argument("--certificates", required=True, metavar="DIR",
                        help="the folder usim prove all --json-dir wrote")
    parser.add_argument("--out", required=True, metavar="SITE", help="the folder to write (created)")
    parser.add_argument("--no-pictures", action="store_true", help="no per-claim pages of pictures")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress (a bar, or a line per page)")
    add_jobs(parser, "claim pages drawn at once")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from usim.proofs import all_claims
    from usim.site import build_site

    check_jobs(args.jobs)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsimError(f"--out {args.out} is a file, not a folder")
    from usim.registry import refusing_malformed

    from usim.progress import StepsDisplay

    with refusing_malformed(args.certificates):
        index = build_site(all_claims(), Path(args.certificates), out, pictures=not args.no_pictures,
                           display=lambda pages: StepsDisplay(pages, "claim pages", quiet=args.quiet),
                           jobs=args.jobs)
    print(f"written {index}")
    return 0
