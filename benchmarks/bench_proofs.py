"""How far N goes: the time to prove every shape of a claim up to N, per engine.

For each registered claim (``--claims`` to restrict) and each engine that
applies to it (the claim's engines, plus ``exhaustive`` when its inputs range
over a finite set; ``--engines`` to restrict), this script runs
:func:`usim.engine.runner.prove_claim` with that one engine for N = 1, 2, 3, ...
and prints, per N: the number of shapes up to N, how many are proved / refuted
/ unknown / error, and the seconds taken to prove every shape up to N. It
stops a claim and engine at the first N whose time exceeds the budget
(``--budget``, default 60 s) and reports the largest N reached within it.

How the time is measured. The shapes up to N are those up to N - 1 plus the
new ones; only the new ones are run at N (in chunks of ``2 * jobs`` shapes,
``prove_claim(..., shapes=chunk, jobs=jobs)``), and seconds(N) is the wall time
of every chunk so far: the time a run of ``usim prove CLAIM --max-n N
--engine E --jobs J`` spends proving, without re-running the smaller shapes at
every N. The budget is checked between chunks; the per-obligation timeout is
the budget left, so an N that runs over is stopped soon after (and its shapes
not reached are counted as not run). The claim's ``measure`` (findings that
are not proofs, e.g. the 2.718 deviation) is left out; the numeric
cross-check that ``prove_claim`` does per shape is included.

Robustness: each claim and engine runs in its own forked process group with a
hard deadline (twice the budget plus 60 s); an exception, a crash or the
deadline ends that claim and engine with a line saying so, and the script goes
on with the next. N stops at ``--max-n`` (default 64) and when three N in a
row add no shape (claims with fixed shapes, e.g. the 3x3 inverse).

Usage::

    python benchmarks/bench_proofs.py [--budget 60] [--claims lemma3,lemma4] [--engines sympy,z3]
                                      [--jobs 1] [--max-n 64]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import select
import signal
import sys
import time
from typing import Iterator

from usim.engine.claim import Claim, Status


def engines_for(claim: Claim, max_n: int) -> list[str]:
    """The claim's engines, and ``exhaustive`` when its inputs range over a finite set."""
    names = list(claim.engines)
    for n in range(1, max_n + 1):
        shapes = list(claim.shapes(n))
        if shapes:
            if claim.obligation(shapes[0]).values is not None and "exhaustive" not in names:
                names.append("exhaustive")
            break
    return names


def measure(claim: Claim, engine: str, budget: float, jobs: int, max_n: int) -> Iterator[dict]:
    """Rows (one per N) for one claim and engine, until the budget is exceeded."""
    from usim.engine.runner import prove_claim

    claim = dataclasses.replace(claim, measure=None)
    done: list[tuple] = []
    counts = {s: 0 for s in Status}
    seconds = 0.0
    idle = 0
    for n in range(1, max_n + 1):
        shapes = list(claim.shapes(n))
        seen = set(done)
        new = [s for s in shapes if s not in seen]
        if not new:
            idle += 1
            if done and idle >= 3:
                return
            continue
        idle = 0
        chunk_size = max(1, 2 * jobs)
        over = False
        for start in range(0, len(new), chunk_size):
            left = budget - seconds
            if left <= 0:
                over = True
                break
            chunk = new[start:start + chunk_size]
            report = prove_claim(claim, n, engines=[engine], timeout=max(1.0, left), jobs=jobs, shapes=chunk)
            seconds += report.seconds
            for r in report.results:
                counts[r.status] += 1
            done.extend(chunk)
        over = over or seconds > budget
        yield {"n": n, "shapes": len(shapes), "run": len(done),
               "proved": counts[Status.PROVED], "refuted": counts[Status.REFUTED],
               "unknown": counts[Status.UNKNOWN], "error": counts[Status.ERROR],
               "seconds": seconds, "over": over}
        if over:
            return


def _child(claim: Claim, engine: str, budget: float, jobs: int, max_n: int, write: int) -> None:
    out = os.fdopen(write, "w")
    try:
        for row in measure(claim, engine, budget, jobs, max_n):
            out.write(json.dumps(row) + "\n")
            out.flush()
    except BaseException as error:  # noqa: BLE001 - reported, never stops the script
        out.write(json.dumps({"failure": f"{type(error).__name__}: {error}"}) + "\n")
    out.flush()


def run_one(claim: Claim, engine: str, budget: float, jobs: int, max_n: int) -> Iterator[dict]:
    """``measure`` in a forked process group killed at a hard deadline; rows as they come."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)  # the engine processes prove_claim forks belong to this group
        os.close(read)
        try:
            _child(claim, engine, budget, jobs, max_n, write)
        finally:
            os._exit(0)
    os.close(write)
    deadline = time.perf_counter() + 2 * budget + 60
    buffer = b""
    while True:
        ready, _, _ = select.select([read], [], [], max(0.0, deadline - time.perf_counter()))
        if not ready:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            os.close(read)
            yield {"failure": f"killed at the hard deadline ({2 * budget + 60:g} s)"}
            return
        chunk = os.read(read, 1 << 16)
        if not chunk:
            break
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield json.loads(line)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        yield {"failure": f"the benchmark process ended with status {status}"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per claim and engine (default 60)")
    parser.add_argument("--claims", default="", help="comma-separated claim ids (default: every claim)")
    parser.add_argument("--engines", default="", help="comma-separated engines (default: those that apply)")
    parser.add_argument("--jobs", "-j", type=int, default=1, help="engine processes in parallel (default 1)")
    parser.add_argument("--max-n", type=int, default=64, help="never go past this N (default 64)")
    args = parser.parse_args(argv)

    from usim.engine.engines import ENGINES
    from usim.proofs import all_claims

    claims = all_claims()
    if args.claims:
        wanted = [c for c in args.claims.split(",") if c]
        known = {c.id: c for c in claims}
        missing = [c for c in wanted if c not in known]
        if missing:
            print(f"no claim {missing[0]!r}; claims: {', '.join(known)}", file=sys.stderr)
            return 2
        claims = [known[c] for c in wanted]
    requested = [e for e in args.engines.split(",") if e]
    for e in requested:
        if e not in ENGINES:
            print(f"no engine {e!r}; engines: {', '.join(ENGINES)}", file=sys.stderr)
            return 2

    summary = []
    for claim in claims:
        try:
            engines = engines_for(claim, args.max_n)
        except Exception as error:  # noqa: BLE001 - a claim that fails must not stop the script
            print(f"\n{claim.id}: cannot build an obligation ({type(error).__name__}: {error})")
            summary.append((claim.id, "-", None, None, "cannot build"))
            continue
        if requested:
            engines = [e for e in engines if e in requested]
        for engine in engines:
            print(f"\n{claim.id} / {engine}  (budget {args.budget:g} s, jobs {args.jobs})", flush=True)
            print(f"  {'N':>3} {'shapes':>7} {'proved':>7} {'refuted':>8} {'unknown':>8} {'error':>6} {'seconds':>9}")
            best, best_seconds, note = None, None, ""
            for row in run_one(claim, engine, args.budget, args.jobs, args.max_n):
                if "failure" in row:
                    print(f"  stopped: {row['failure']}", flush=True)
                    note = row["failure"]
                    break
                not_run = row["shapes"] - row["run"]
                print(f"  {row['n']:>3} {row['shapes']:>7} {row['proved']:>7} {row['refuted']:>8} "
                      f"{row['unknown']:>8} {row['error']:>6} {row['seconds']:>9.2f}"
                      + ("  > budget" if row["over"] else "")
                      + (f" ({not_run} shape(s) not run)" if not_run else ""), flush=True)
                if not row["over"]:
                    best, best_seconds = row["n"], row["seconds"]
                    complete = row["proved"] == row["shapes"]
                    note = "" if complete else (f"{row['refuted']} refuted, {row['unknown']} unknown, "
                                                f"{row['error']} error")
            print(f"  largest N within {args.budget:g} s: {best if best is not None else 'none'}"
                  + (f" ({note})" if note else ""), flush=True)
            summary.append((claim.id, engine, best, best_seconds, note))
    print(f"\n{'claim':<24} {'engine':<11} {'largest N':>9} {'seconds':>8}  note")
    for claim_id, engine, best, best_seconds, note in summary:
        print(f"{claim_id:<24} {engine:<11} {best if best is not None else '-':>9} "
              f"{f'{best_seconds:.2f}' if best_seconds is not None else '-':>8}  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
