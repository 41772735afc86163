"""``usim report FILE.json [--out FILE.md]``: a certificate as Markdown.

The certificate is checked as it is read (:mod:`usim.engine.certificate`): a
file that is not one, whose digest does not match, or whose recorded statuses
are not what its own rows say, is refused with one line (exit 2). What it
states (claim, title, statement, expected outcome, shapes, engines, the
statement for every size) must be what the registry says, or, for a
certificate of ``usim check``, what its embedded listing and spec say
(:mod:`usim.engine.statement_check`); else it is refused, naming the field.
Every status shown is derived from the engines' verdicts, which are not run
again here: an erratum recorded PROVED is refused, and ``usim verify`` is the
check that the verdicts hold.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from usim.errors import UsimError


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("report", help="render a proof certificate as Markdown",
                            description="Render a certificate written by 'usim prove --json' "
                            "as Markdown a person can read and cite. The certificate is checked "
                            "first: one that is damaged, inconsistent with its own rows, or that states "
                            "something other than the registry is refused (exit 2). Its verdicts are "
                            "not run again: usim verify does that.")
    parser.add_argument("certificate", help="the JSON file")
    parser.add_argument("--out", help="write the Markdown here instead of printing it")
    parser.add_argument("--run-spec-code", action="store_true",
                        help="a certificate of usim check --spec-file embeds the spec file (Python): "
                        "run it to derive the statement (only for a certificate you trust)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from usim.commands.options import check_writable
    from usim.registry import read_checked, refusing_malformed
    from usim.render import markdown

    if args.out:
        check_writable(args.out, "--out")
    with refusing_malformed(args.certificate):
        text = "\n\n".join(markdown(c) for c in read_checked(args.certificate, args.run_spec_code))
    if args.out:
        try:
            Path(args.out).write_text(text)
        except OSError as error:
            raise UsimError(f"cannot write {args.out}: {error.strerror}") from None
        print(f"written to {args.out}")
    else:
        print(text)
    return 0
