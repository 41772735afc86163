"""``usim prove CLAIM... --all-sizes``: the verdict for every size, and what it rests on.

For each claim with a statement for every size (the blocks, U's routing head,
U's stages, and Theorem 6 composed of its stages) this runs the bounded proof up to ``--max-n``
(default: the claim's CI bound; the cross-check, and the bound up to which the
family is checked to be the builder's program), then the parametric proof
(:mod:`usim.engine.parametric`; for a claim composed of parts, each part and the
chain that composes them, :mod:`usim.engine.parametric.composed`), and with
``--mutants`` each broken variant for every size, which must be REFUTED with a concrete size and a replayed input.
Exit status 0 only if every claim is PROVED for every size (and, with
``--mutants``, every variant refuted).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from usim.errors import UsimError

if TYPE_CHECKING:  # pragma: no cover
    from usim.engine.claim import Claim


def run_all_sizes(args: argparse.Namespace, claims: Sequence["Claim"], engines: list[str] | None) -> int:
    from usim.engine.cache import VerdictCache, default_folder
    from usim.engine.certificate import bundle, certificate, write_certificate
    from usim.engine.parametric.composed import prove_claim_all_sizes
    from usim.progress import ProveDisplay
    from usim.proofs import family
    from usim.render import LINE_WIDTH, SUMMARY_HEADER, cache_problem, describe_failures, fitted, summary_row, table
    from usim.render_all_sizes import all_sizes_lines, all_sizes_verdict

    if getattr(args, "cluster", None):
        raise UsimError("--all-sizes runs here: the proof for every size is one solver run per claim "
                        "(leave out --cluster)")
    if "all" in args.claim:  # every claim stated for every size
        from usim.proofs import statements

        families = list(statements().values())
    else:
        families = [family(c.id) for c in claims]
    show = (lambda line: print("\n".join(fitted([line])), file=sys.stderr, flush=True)) if not args.quiet else None
    cache = None if args.no_cache else VerdictCache(default_folder())
    reports = []
    with ProveDisplay(len(families), quiet=args.quiet, verbose=args.verbose) as display:
        for fc in families:
            max_n = args.max_n or fc.claim.ci_max_n
            if show:
                show(f"{fc.id} ({fc.claim.paper}): {fc.claim.title}; every size ({fc.describe_conditions()}), "
                     f"cross-checked up to N={max_n}")
            report = prove_claim_all_sizes(fc, max_n, engines, args.timeout, args.jobs, mutants=args.mutants,
                                           progress=display.event, say=show, cache=cache,
                                           locate=family, family_timeout=args.all_sizes_timeout)
            display.claim_done(report.bounded)
            reports.append(report)
    print(table([summary_row(r.bounded) for r in reports], SUMMARY_HEADER, width=LINE_WIDTH))
    for report in reports:
        failures = describe_failures(report.bounded)
        if failures:
            print(f"\n{report.family.id} (bounded cross-check):")
            print("\n".join(failures))
        print()
        print("\n".join(all_sizes_lines(report)))
        print(f"\n{report.family.id}: {all_sizes_verdict(report)}")
    if (note := cache_problem(cache)) is not None:
        print(note, file=sys.stderr)
    certs = {r.family.id: certificate(r.bounded, args.timeout, all_sizes=r.as_dict()) for r in reports}
    if args.json:
        write_certificate(Path(args.json), bundle(list(certs.values())))
        print(f"certificate written to {args.json}")
    if getattr(args, "json_dir", None):  # beside the bounded ones: usim site and paper-map read both
        folder = Path(args.json_dir)
        folder.mkdir(exist_ok=True)
        for claim_id, cert in certs.items():
            write_certificate(folder / f"{claim_id}.all-sizes.json", cert)
        print(f"{len(certs)} certificate(s) written to {folder}/")
    from usim.engine.claim import Status

    ok = all(r.status is Status.PROVED for r in reports)
    if args.mutants:
        ok = ok and all(r.mutants_refuted and r.bounded.mutants_refuted for r in reports)
    return 0 if ok else 1
