"""``usim prove CLAIM... | all [--max-n N] [--engine E] [--timeout S] [--jobs J] [--json FILE] [--cluster ADDRESS] [--no-cache]``.

Every option is checked before anything runs (a bad one is one line and exit
status 2): the timeout, the bound and the engines as
:mod:`usim.commands.options` says (the bound at most
:data:`~usim.engine.options.MAX_BOUND`), the jobs a positive count, the
certificate's folder exists and the path is not a folder. With ``--cluster``
the obligations run on the workers of a Dask cluster
(:mod:`usim.engine.cluster`), which must be reachable and run this usim.
Definitive answers are reused from the verdict cache (:mod:`usim.engine.cache`)
unless ``--no-cache``: only from entries that check out (their tag under the
user's key, their statement, engine, source and versions; a REFUTED replays
again), marked cached in every report; the closing line counts the entries
ignored.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from typing import TYPE_CHECKING, Any, Iterator

from usim.commands.options import (PROVE_LARGEST_N, add_engine, add_jobs, add_max_n, add_timeout, check_jobs,
                                   check_max_n, check_timeout, check_writable, engines_option)
from usim.engine.options import ALL_SIZES_TIMEOUT, ENGINE_NAMES
from usim.errors import UsimError

if TYPE_CHECKING:  # pragma: no cover
    from usim.engine.claim import Claim
    from usim.engine.runner import Dispatch


def add_prove_options(parser: argparse.ArgumentParser) -> None:
    add_max_n(parser, f"bound N: every dimension up to N (default: the claim's own; at most {PROVE_LARGEST_N})")
    add_engine(parser, f"one or more of {', '.join(ENGINE_NAMES)} (comma-separated), or all: "
               "the claim's own engines (default)")
    add_timeout(parser, "obligation")
    add_jobs(parser, "engine processes in parallel; with --all-sizes also how many families (parts, broken "
                     "variants) are proved for every size at once")
    parser.add_argument("--json", metavar="FILE", help="write the certificate(s) (JSON) to FILE")
    parser.add_argument("--json-dir", metavar="DIR",
                        help="write one certificate per claim, DIR/CLAIM.json (what usim site and "
                        "usim paper-map read); the folder is created")
    parser.add_argument("--mutants", action="store_true",
                        help="also run the deliberately broken variants (they must be REFUTED)")
    parser.add_argument("--quick", action="store_true",
                        help="each claim at its representative small bound (the one CI runs) "
                        "instead of its default bound; --max-n overrides both")
    parser.add_argument("--quiet", "-q", action="store_true", help="no live progress display")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="also a line per task, the table with costs, and the measurements")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "prove",
        help="prove a claim of the paper for every shape up to a bound",
        description="Prove a claim for every shape up to N: each obligation is discharged by "
        "the claim's engines (sympy canonical forms, z3; exhaustive for finite domains), its "
        "well-definedness is checked, and an input meeting its preconditions is exhibited. "
        "Prints progress, a closing table and, for anything not proved, the reason or a "
        "replayed counterexample. Exit status 0 only if every claim has its expected outcome "
        "(PROVED, or REFUTED for a construction as published that is wrong); 2 for a bad option.",
    )
    parser.add_argument("claim", nargs="*", help="claim ids (see --list), 'all', or claims of your own: "
                        "path/to/claims.py[:NAME] or package.module[:NAME] (the code runs; NAME: a claim or "
                        "a tuple of them; left out: the file's CLAIMS)")
    parser.add_argument("--list", action="store_true",
                        help="list every registered claim (or those the named files make) and exit")
    add_prove_options(parser)
    parser.add_argument("--all-sizes", action="store_true",
                        help="prove the claim for every size (lemma3, lemma4, lemma5, routing): the parametric "
                        "engine, with the bounded proof up to --max-n (default: the claim's CI bound) as "
                        "its cross-check and the bound of the family-equals-builder check")
    parser.add_argument("--all-sizes-timeout", type=float, default=ALL_SIZES_TIMEOUT, metavar="S",
                        help="with --all-sizes: seconds for each family's proof for every size (each part of a "
                        "claim in parts, each broken variant); over it: UNKNOWN (default "
                        f"{ALL_SIZES_TIMEOUT:g}; --timeout is each bounded obligation's, per engine)")
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="run the obligations on the Dask cluster whose scheduler is at ADDRESS "
                        "(tcp://host:8786; `dask scheduler` and `dask worker ADDRESS` start one; every "
                        "worker runs this usim) instead of this machine's --jobs processes; needs "
                        'pip install "usim[dask]"')
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor write the verdict cache, as for a release certificate (default: "
                        "reuse an engine's PROVED or REFUTED on an identical statement from an earlier run, "
                        "if its entry's tag checks out with your key and a REFUTED replays; reused answers "
                        "are marked cached; folder $USIM_CACHE, else ~/.cache/usim; key $USIM_CACHE_KEY, "
                        "else ~/.config/usim/cache.key)")
    parser.set_defaults(func=run)


def check_options(args: argparse.Namespace) -> None:
    """Refuse a bad option before any work is done."""
    check_timeout(args.timeout)
    if getattr(args, "all_sizes_timeout", None) is not None:
        check_timeout(args.all_sizes_timeout, "--all-sizes-timeout")
    check_jobs(args.jobs)
    check_max_n(args.max_n, PROVE_LARGEST_N)
    if args.json:
        check_writable(args.json, "--json")
    if getattr(args, "json_dir", None):
        folder = Path(args.json_dir)
        if folder.exists() and not folder.is_dir():
            raise UsimError(f"--json-dir {args.json_dir} is a file, not a folder")
        if not folder.exists() and not folder.parent.is_dir():
            raise UsimError(f"--json-dir {args.json_dir}: the folder {folder.parent} does not exist")


def claims_named(names: list[str]) -> list[tuple["Claim", Any]]:
    """The claims the command line names (ids, ``all``, ``claims.py[:NAME]``,
    ``package.module[:NAME]``), each with the code it came from (None: the registry)."""
    from usim.api import claims_with_code

    if not names:
        raise UsimError("name a claim (usim prove --list shows them), 'all', or a file of claims (claims.py:NAME)")
    found: dict[str, tuple["Claim", Any]] = {}
    for name in dict.fromkeys(names):
        for claim, code in claims_with_code(name):
            if claim.id in found and found[claim.id][0] is not claim:
                raise UsimError(f"two claims named {claim.id!r} (from {name} and an earlier name): give each "
                                "claim its own id")
            found[claim.id] = (claim, code)
    return list(found.values())


def run(args: argparse.Namespace) -> int:
    import time

    from usim.engine.cache import VerdictCache, default_folder
    from usim.api import certificate as sealed
    from usim.api import prove
    from usim.engine.certificate import bundle, write_certificate
    from usim.proofs import all_claims
    from usim.progress import ProveDisplay, summary
    from usim.render import LINE_WIDTH, SUMMARY_HEADER, cache_problem, describe_failures, summary_row, table, verdict

    if args.list:
        listed = [c for c, _ in claims_named(args.claim)] if args.claim else all_claims()
        print(table([[c.id, c.paper, c.title] for c in listed], ["claim", "paper", "statement"], width=LINE_WIDTH))
        return 0
    engines = engines_option(args.engine)
    check_options(args)  # every option before any code of the user's runs
    named = claims_named(args.claim)
    claims = [c for c, _ in named]
    code = {c.id: source for c, source in named}
    if getattr(args, "cluster", None) and any(code.values()):
        raise UsimError("claims from files run here, not on a cluster (its workers build registered claims): "
                        "leave out --cluster")
    if args.all_sizes:
        from usim.commands.prove_all_sizes import run_all_sizes

        if any(code.values()):
            raise UsimError("--all-sizes proves the registered claims stated for every size; a claim from a "
                            "file is proved up to a bound (leave out --all-sizes)")

        return run_all_sizes(args, claims, engines)
    cache = None if args.no_cache else VerdictCache(default_folder())
    started = time.perf_counter()
    reports = []
    with on_cluster(getattr(args, "cluster", None)) as dispatch, \
            ProveDisplay(len(claims), quiet=args.quiet, verbose=args.verbose) as display:
        for claim in claims:
            max_n = args.max_n or (claim.ci_max_n if args.quick else claim.default_max_n)
            report = prove(claim, max_n, engines, args.mutants, args.timeout, args.jobs, cache=cache,
                           progress=display.event, dispatch=dispatch)
            display.claim_done(report)
            reports.append(report)
    if args.verbose:
        print()
        print(table([summary_row(r) for r in reports], SUMMARY_HEADER, width=LINE_WIDTH))
    for report in reports:
        notes = describe_failures(report, detail=args.verbose)
        if args.verbose:
            notes += [f"  {m}" for m in report.measures]
        if notes:
            print(f"\n{report.claim.id}: {verdict(report)}")
            print("\n".join(notes))
    print()
    print(summary(reports, time.perf_counter() - started))
    if (note := cache_problem(cache)) is not None:
        print(note, file=sys.stderr)
    if args.json:
        write_certificate(Path(args.json), bundle([sealed(r, args.timeout, code[r.claim.id]) for r in reports]))
        print(f"certificate written to {args.json}")
    if getattr(args, "json_dir", None):
        folder = Path(args.json_dir)
        folder.mkdir(exist_ok=True)
        for r in reports:
            write_certificate(folder / f"{r.claim.id}.json", sealed(r, args.timeout, code[r.claim.id]))
        print(f"{len(reports)} certificate(s) written to {folder}/")
    ok = all(r.status is r.claim.expected for r in reports)
    if args.mutants:
        ok = ok and all(r.mutants_refuted for r in reports)
    return 0 if ok else 1


@contextlib.contextmanager
def on_cluster(address: str | None) -> Iterator["Dispatch | None"]:
    """Where the tasks run: None (this machine's processes) without an address;
    else the Dask cluster at ``address``, checked first (a worker, the same usim
    on each) and said in one line, its client closed at the end."""
    if address is None:
        yield None
        return
    if not address.strip():
        raise UsimError("--cluster needs the scheduler's address, e.g. tcp://host:8786")
    from usim.engine.cluster import ClusterDispatch, connect
    from usim.proofs import registered_obligation

    client = connect(address.strip())
    try:
        workers = client.scheduler_info().get("workers", {})
        threads = sum(w.get("nthreads", 0) for w in workers.values())
        print(f"on the cluster at {client.scheduler.address}: {len(workers)} worker(s), {threads} thread(s)",
              flush=True)
        yield ClusterDispatch(client, registered_obligation)
    finally:
        client.close()
