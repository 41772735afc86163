"""``usim report FILE.json [--out FILE.md]``: a certificate as Markdown.

The certificate is checked as it is read (:mod:`usim.engine.certificate`): a
file that is not one, was edited after it was written, or whose recorded
statuses are not what its own rows say, is refused with one line (exit 2).
Every status shown is derived from the engines' verdicts.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from usim.errors import UsimError


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("report", help="render a proof certificate as Markdown",
                            description="Render a certificate written by 'usim prove --json' "
                            "as Markdown a person can read and cite. The certificate is checked "
                            "first: an edited or inconsistent one is refused (exit 2).")
    parser.add_argument("certificate", help="the JSON file")
    parser.add_argument("--out", help="write the Markdown here instead of printing it")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from usim.commands.prove import check_writable
    from usim.engine.certificate import read_certificates
    from usim.proofs import all_claims
    from usim.render import markdown

    if args.out:
        check_writable(args.out, "--out")
    claims = {c.id: c for c in all_claims()}
    text = "\n\n".join(markdown(c) for c in read_certificates(args.certificate, claims))
    if args.out:
        try:
            Path(args.out).write_text(text)
        except OSError as error:
            raise UsimError(f"cannot write {args.out}: {error.strerror}") from None
        print(f"written to {args.out}")
    else:
        print(text)
    return 0
