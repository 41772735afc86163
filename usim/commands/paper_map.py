"""``usim paper-map --certificates DIR [--file paper_map.md] [--write]``.

Checks (or, with ``--write``, rewrites) the status and bound columns of
paper_map.md's claims table against the certificates in DIR (:mod:`usim.paper_map`),
each read as ``usim site`` reads them (compared with the registry:
:func:`usim.registry.read_checked`). Exit status 0 when every cell is backed by
a certificate, 1 when one is not (each listed), 2 for bad input, and for a
certificate the check refuses (then nothing is written).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from usim.errors import UsimError


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "paper-map", help="check paper_map.md's status and bound columns against certificates",
        description="Check the status and bound cells of paper_map.md's claims table against the "
        "certificates of `usim prove ... --json-dir DIR`; --write rewrites those cells (the prose "
        "stays). Exit status 1 when a cell says more, or other, than a certificate backs; 2 (nothing "
        "written) when a certificate is damaged, inconsistent with its own rows, states something other "
        "than the registry, or shows an erratum PROVED.")
    parser.add_argument("--certificates", required=True, metavar="DIR", help="one certificate per claim")
    parser.add_argument("--file", default="paper_map.md", help="the table's file (default: paper_map.md in the current folder)")
    parser.add_argument("--write", action="store_true", help="rewrite the cells from the certificates")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from usim.proofs import all_claims
    from usim.registry import refusing_malformed

    path = Path(args.file)
    if not path.is_file():
        raise UsimError(f"no such file: {args.file}")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsimError(f"cannot read {args.file} as UTF-8 text: {error}") from None
    with refusing_malformed(args.certificates):
        return _check_or_write(args, path, text, all_claims())


def _check_or_write(args: argparse.Namespace, path: Path, text: str, claims: list) -> int:
    """Check the table's cells against the certificates, or write them (--write)."""
    from usim.paper_map import check, update

    if args.write:
        new = update(text, claims, Path(args.certificates))
        path.write_text(new)
        print(f"{args.file}: status and bound cells written from {args.certificates}")
        return 0
    drift = check(text, claims, Path(args.certificates))
    for d in drift:
        print(d.describe())
    print(f"{args.file}: " + ("every status and bound cell is backed by a certificate" if not drift
                              else f"{len(drift)} cell(s) not backed by the certificates"))
    return 1 if drift else 0
