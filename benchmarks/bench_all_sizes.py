"""Proofs for every size: how long each verdict takes.

For each claim stated for every size (lemma3, lemma4, lemma5 by default;
``--claims`` names others, such as U's stages theorem6_stage1 ... theorem6_stage4,
or theorem6, proved in parts) this script times, ``--repeat`` times (the median
is printed):

* the parametric proof alone (:func:`usim.engine.parametric.prove.prove_family`),
  with its number of z3 queries;
* the whole all-sizes verdict (:func:`usim.engine.parametric.allsizes.prove_all_sizes`):
  the proof, the witness input, and the tie to the bounded claim up to the
  claim's CI bound (``--tie`` to change it);
* each broken variant's refutation for every size: the sizes found, how they
  were found, and the time including the bounded engines' replay there.

For a claim proved in parts (theorem6, theorem6_users: its padded stages and
their composition, :mod:`usim.engine.parametric.composed`) it times the whole
verdict for every size (every part with its witness and tie, and the chain), the chain
alone (for a claim composed by an equation, the equation proved again), and
each broken variant (its part's refutation, replayed).

It also prints, for comparison, the bounded proof of the same claim up to the
claim's CI bound (``usim prove CLAIM --quick``, one job).

Usage::

    python -P benchmarks/bench_all_sizes.py [--claims lemma3,lemma4,lemma5] [--repeat 3] [--tie N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from usim.engine.parametric.allsizes import prove_all_sizes
from usim.engine.parametric.composed import ComposedClaim, prove_composed
from usim.engine.parametric.prove import prove_family
from usim.engine.runner import prove_claim
from usim.proofs import statements


def median_time(run, repeat: int):
    times, last = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        last = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", default="lemma3,lemma4,lemma5")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tie", type=int, default=None, help="tie bound (default: each claim's CI bound)")
    args = parser.parse_args()
    found = statements()
    print(f"{'claim':<16} {'variant':<24} {'verdict':<9} {'at':<8} {'seconds':>8}  detail")
    for claim_id in args.claims.split(","):
        fc = found[claim_id]
        if isinstance(fc, ComposedClaim):
            composed(fc, args)
            continue
        seconds, verdict = median_time(lambda: prove_family(fc), args.repeat)
        queries = sum(s.proved + s.failed + s.unknown for s in verdict.steps if s.solver == "z3")
        print(f"{claim_id:<16} {'(the proof alone)':<24} {verdict.status.value:<9} {'-':<8} {seconds:8.3f}  "
              f"{queries} z3 queries, {verdict.cases} case(s)")
        seconds, result = median_time(lambda: prove_all_sizes(fc, tie_bound=args.tie), args.repeat)
        print(f"{claim_id:<16} {'(with witness and tie)':<24} {result.status.value:<9} {'-':<8} {seconds:8.3f}  "
              f"tie up to N={result.tie.bound if result.tie else '-'} "
              f"({result.tie.shapes if result.tie else 0} shapes)")
        for mutant in fc.mutants:
            seconds, result = median_time(lambda: prove_all_sizes(fc, mutant), args.repeat)
            how = "z3 model" if "z3" in result.found_by else ("search" if result.found_by else "-")
            print(f"{claim_id:<16} {mutant:<24} {result.status.value:<9} {result.label or '-':<8} "
                  f"{seconds:8.3f}  sizes from: {how}")
        start = time.perf_counter()
        bounded = prove_claim(fc.claim, fc.claim.ci_max_n, jobs=1)
        print(f"{claim_id:<16} {'(bounded, N=' + str(fc.claim.ci_max_n) + ')':<24} {bounded.status.value:<9} "
              f"{'-':<8} {time.perf_counter() - start:8.3f}  {len(bounded.results)} shapes, {'+'.join(bounded.engines)}, 1 job")


def composed(cc: ComposedClaim, args: argparse.Namespace) -> None:
    """The verdict of a claim proved in parts, and each broken variant's."""
    seconds, result = median_time(lambda: prove_composed(cc, tie_bound=args.tie), args.repeat)
    print(f"{cc.id:<16} {'(all parts and chain)':<24} {result.status.value:<9} {'-':<8} {seconds:8.3f}  "
          + ", ".join(f"{p.claim_id.rsplit('_', 1)[-1]} {p.seconds:.1f} s" for p in result.parts))
    seconds, chain = median_time(cc.chain, args.repeat)
    print(f"{cc.id:<16} {'(the chain alone)':<24} {'ok' if chain.ok else 'PROBLEM':<9} {'-':<8} {seconds:8.3f}  "
          f"{len(chain.checks)} checks (an equation among them, for a claim composed by one)")
    for mutant in cc.mutants:
        seconds, result = median_time(lambda: prove_composed(cc, mutant, tie_bound=args.tie), args.repeat)
        print(f"{cc.id:<16} {mutant:<24} {result.status.value:<9} {result.parts[0].label or '-':<8} "
              f"{seconds:8.3f}  its part alone")


if __name__ == "__main__":
    main()
