"""``usim prove CLAIM|all [--max-n N] [--engine E] [--timeout S] [--jobs J] [--json FILE]``."""

from __future__ import annotations

import argparse

from usim.engine.registry import all_claims, get
from usim.engine.report import run_and_report, table
from usim.engine.runner import add_prove_options
from usim.errors import UsimError


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "prove",
        help="prove a claim of the paper for every shape up to a bound",
        description="Prove a claim for every shape up to N: each obligation is discharged by "
        "the claim's engines (sympy canonical forms, z3; exhaustive for finite domains). "
        "Prints progress, a closing table and, for anything not proved, the reason or a "
        "replayed counterexample. Exit status 0 only if every obligation is PROVED.",
    )
    parser.add_argument("claim", nargs="?", help="a claim id (see --list), or 'all'")
    parser.add_argument("--list", action="store_true", help="list every claim and exit")
    add_prove_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.list:
        rows = [[c.id, c.paper, c.title] for c in all_claims()]
        print(table(rows, ["claim", "paper", "statement"]))
        return 0
    if not args.claim:
        raise UsimError("name a claim (usim prove --list shows them) or 'all'")
    claims = all_claims() if args.claim == "all" else [get(args.claim)]
    return run_and_report(claims, args)
