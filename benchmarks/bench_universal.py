"""How far the proofs of U go: time per bound, per part and engine.

    python benchmarks/bench_universal.py [--max-n 8] [--timeout 60] [--claims theorem6,corollary6_1]

For each claim, each bound N and each engine, the stage obligations of U_N at
the header n = d = N (H = 2 for the multi-head claims): the total and slowest
time, with the status (PROVED, UNKNOWN = timeout); for Theorem 6 also the
whole program at n = d = N (the claim ``hierarchy`` at N x N x N). The sweeps
over every size (stages once, the padding lemma per size) are
``bench_sweeps.py``. Each obligation runs in a forked process with a
deadline. Figures, not tests: read them as orders of magnitude on a shared
machine.
"""

from __future__ import annotations

import argparse
import time

from usim.engine.claim import Status
from usim.proofs import get
from usim.engine.children import run_tasks
from usim.engine.runner import _run_engine

HEADS = {"theorem9": 2, "corollary9_1": 2}  # H of the multi-head claims' U


def bench(claim_id: str, n: int, engine: str, timeout: float) -> str:
    claim = get(claim_id)
    shapes = [s for s in claim.shapes(n) if s[-1] != 0 and s[-3] in (0, n) and s[-2] in (0, n)
              and (claim_id not in HEADS or s[1] == HEADS[claim_id])]
    start = time.perf_counter()
    tasks = [((s, None), engine, (lambda ob=claim.obligation(s): _run_engine(engine, ob, timeout)))
             for s in shapes]
    if claim_id == "theorem6":
        whole = get("hierarchy").obligation((n, n, n))
        tasks.append((((n, n, n), "whole"), engine, lambda: _run_engine(engine, whole, timeout)))
    built = time.perf_counter() - start
    results = run_tasks(tasks, timeout, jobs=1)
    whole = [r for (s, part), rs in results.items() if part == "whole" for r in rs]
    stages = [r for (s, part), rs in results.items() if part is None for r in rs]
    parts = []
    if whole:
        parts.append(f"whole {whole[0].status.value} {whole[0].seconds:.1f}s")
    ok = all(r.status is Status.PROVED for r in stages)
    slowest = max(stages, key=lambda r: r.seconds)
    parts.append(f"{len(stages)} stages {'PROVED' if ok else 'NOT ALL PROVED'} "
                 f"total {sum(r.seconds for r in stages):.1f}s, slowest {slowest.seconds:.1f}s "
                 f"({slowest.status.value}); building {built:.1f}s")
    return "; ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-n", type=int, default=6)
    parser.add_argument("--min-n", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--claims", default="theorem6,corollary6_1,theorem9")
    parser.add_argument("--engines", default="sympy,z3")
    args = parser.parse_args()
    for claim_id in args.claims.split(","):
        for engine in args.engines.split(","):
            for n in range(args.min_n, args.max_n + 1):
                print(f"{claim_id:14s} {engine:6s} N={n}: {bench(claim_id, n, engine, args.timeout)}", flush=True)


if __name__ == "__main__":
    main()
