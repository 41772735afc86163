"""``usim report FILE.json [--out FILE.md]``: a certificate as Markdown."""

from __future__ import annotations

import argparse
from pathlib import Path

from usim.engine.report import load_certificates, markdown
from usim.errors import UsimError


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("report", help="render a proof certificate as Markdown",
                            description="Render a certificate written by 'usim prove --json' "
                            "as Markdown a person can read and cite.")
    parser.add_argument("certificate", help="the JSON file")
    parser.add_argument("--out", help="write the Markdown here instead of printing it")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    text = "\n\n".join(markdown(c) for c in load_certificates(args.certificate))
    if args.out:
        try:
            Path(args.out).write_text(text)
        except OSError as error:
            raise UsimError(f"cannot write {args.out}: {error.strerror}") from None
        print(f"written to {args.out}")
    else:
        print(text)
    return 0
