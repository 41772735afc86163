"""How far the proofs of U go: time per size, per part and engine.

    python benchmarks/bench_universal.py [--max-n 8] [--timeout 60] [--claims theorem6,corollary6_1]

For each claim and each n = d = N (H = 2 for the multi-head claims), prints the
time of the whole-program obligation (part 0, Theorem 6 only) and the total and
slowest time of the stage obligations, per engine, with the status (PROVED,
UNKNOWN = timeout). Each obligation runs in a forked process with a deadline.
Figures, not tests: read them as orders of magnitude on a shared machine.
"""

from __future__ import annotations

import argparse
import time

from usim.engine.claim import Status
from usim.proofs import get
from usim.engine.runner import _run_engine, run_tasks

SIZES = {  # claim -> the size prefix of its shapes at bound N
    "theorem6": lambda n: (n, n),
    "theorem6_users": lambda n: (n, n),
    "corollary6_1": lambda n: (n, n),
    "theorem9": lambda n: (n, n, 2),
    "corollary9_1": lambda n: (n, n, 2),
}


def bench(claim_id: str, n: int, engine: str, timeout: float) -> str:
    claim = get(claim_id)
    size = SIZES[claim_id](n)
    shapes = [s for s in claim.shapes(n) if s[:-1] == size]
    start = time.perf_counter()
    tasks = [((s, None), engine, (lambda ob=claim.obligation(s): _run_engine(engine, ob, timeout)))
             for s in shapes]
    built = time.perf_counter() - start
    results = run_tasks(tasks, timeout, jobs=1)
    whole = [r for (s, _), rs in results.items() if s[-1] == 0 for r in rs]
    stages = [r for (s, _), rs in results.items() if s[-1] != 0 for r in rs]
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
