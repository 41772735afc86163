"""Proof sweeps of the claims about U: every size up to a bound, by reuse.

    python benchmarks/bench_sweeps.py [--jobs 2] [--timeout 60] [--runs theorem6:8,theorem6:32x32]

Each run proves one claim about U for every size up to a bound N (``CLAIM:N``:
U_N's stages once or per header size they read, the padding lemma at every
n, d <= N; H <= min(4, N) for the multi-head claims), or for one size only
(``CLAIM:NxN``: U_N at n = d = N: its stages and the padding lemma there), with
``usim prove``'s runner (forked children with deadlines, ``--jobs`` at a time)
and the claim's own engines (``--engines`` to override). It prints the wall
time, the obligations and the claim's verdict, then per engine and check the
summed time, the verdicts and the slowest obligation, and per part (stages
proved for every header, per n, per (n, d); padding lemmas) the summed time.
With ``--json-dir DIR`` each run over every size writes its certificate,
DIR/CLAIM.json, as ``usim prove CLAIM --max-n N --json-dir DIR`` would (the
committed ones in docs/certificates are written so, see their README).
Figures, not tests: read them as orders of magnitude on a shared machine.
The default runs are the issue's: Theorem 6 at N = 8, 12, 16 and at
n = d = 32; Corollary 6.1, Theorem 9 and Corollary 9.1 at N = 8.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from usim.engine.certificate import certificate
from usim.engine.claim import Status
from usim.engine.runner import prove_claim
from usim.proofs import get

RUNS = "theorem6:8,theorem6:12,theorem6:16,theorem6:32x32,corollary6_1:8,theorem9:8,corollary9_1:8"


def _part(shape: tuple[int, ...]) -> str:
    n, d, k = shape[-3:]
    if k == 0:
        return "padding lemmas"
    return {(False, False): "stages, every header", (True, False): "stages per n",
            (False, True): "stages per d", (True, True): "stages per (n, d)"}[(n > 0, d > 0)]


def run(spec: str, jobs: int, timeout: float, engines: list[str] | None, folder: Path | None = None) -> None:
    claim_id, _, bound_text = spec.partition(":")
    claim = get(claim_id)
    single = "x" in bound_text
    bound = int(bound_text.split("x")[0])
    shapes = list(claim.shapes(bound))
    if single:  # U_N at n = d = N only: the stages at that header, the padding lemma there
        shapes = [s for s in shapes if s[-3] in (0, bound) and s[-2] in (0, bound)]
    start = time.perf_counter()
    report = prove_claim(claim, bound, engines=engines, timeout=timeout, jobs=jobs, shapes=shapes)
    wall = time.perf_counter() - start
    what = f"n = d = {bound}" if single else f"every n, d <= {bound}"
    heads = sorted({s[1] for s in shapes}) if len(shapes[0]) == 5 else None
    if heads:
        what += f", H = {heads[0]}..{heads[-1]}"
    print(f"{claim_id} ({what}): {report.status.value}, {len(report.results)} obligations, "
          f"{wall:.1f} s wall ({jobs} jobs)", flush=True)
    by_engine: dict[str, list] = defaultdict(list)
    by_part: dict[str, list[float]] = defaultdict(list)
    for r in report.results:
        checks = list(r.results) + [c for c in (r.definedness, r.witness) if c is not None]
        for c in checks:
            by_engine[c.engine].append((c.seconds, c.status, r.label))
        by_part[_part(r.shape)].append(sum(c.seconds for c in checks))
    for engine, rows in by_engine.items():
        counts = defaultdict(int)
        for _, status, _ in rows:
            counts[status.value] += 1
        slowest = max(rows, key=lambda row: row[0])
        verdicts = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
        print(f"    {engine:12s} {sum(row[0] for row in rows):8.1f} s  {verdicts}; slowest {slowest[0]:.1f} s "
              f"at {slowest[2]}", flush=True)
    for part, seconds in by_part.items():
        print(f"    {part:24s} {len(seconds):4d} obligations, {sum(seconds):8.1f} s of tasks", flush=True)
    not_proved = [r for r in report.results if r.status is not Status.PROVED]
    for r in not_proved[:5]:
        print(f"    NOT PROVED {r.label}: {r.status.value}", flush=True)
    if folder is not None and not single:
        path = folder / f"{claim_id}.json"
        path.write_text(json.dumps(certificate(report, timeout), indent=2) + "\n")
        print(f"    certificate written to {path}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", default=RUNS, help=f"comma-separated CLAIM:N or CLAIM:NxN (default {RUNS})")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--engines", default=None, help="override the claims' engines (comma-separated)")
    parser.add_argument("--json-dir", type=Path, default=None, help="write each full run's certificate there")
    args = parser.parse_args()
    engines = args.engines.split(",") if args.engines else None
    if args.json_dir is not None:
        args.json_dir.mkdir(parents=True, exist_ok=True)
    for spec in args.runs.split(","):
        run(spec, args.jobs, args.timeout, engines, args.json_dir)


if __name__ == "__main__":
    main()
