"""How long ``usim check`` takes on the tracr-like programs of issue 30, whole commands.

The programs are usim's own (``examples/rasp/tracr_like.rasp``), of the kinds
tracr's library builds, with specs of indicators and their sums
(``examples/specs/tracr_like.py``). Each row runs one ``usim check`` command
(every length up to N, the spec's broken variant too) in a fresh process and
prints its wall time, the verdict line, and which engines decided. The issue's
targets: the shuffle-Dyck check over ``()x`` to length 6 within 60 s; the sort
by frequency over ``abc`` to 5; the sort of integer keys to 5; the count of
symbols that occur at most twice to 6, with z3 answering (``--engine z3``); and
(issue 27, part 5) the sort of distinct reals to 6 within 60 s.

    python -P benchmarks/bench_check_engines.py [--timeout 60]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LISTING = ROOT / "examples" / "rasp" / "tracr_like.rasp"
SPECS = ROOT / "examples" / "specs" / "tracr_like.py"

ROWS = [  # (what, function, spec, max N, options)
    ("shuffle-Dyck over ()x", "balanced", "balanced", 6, ["--alphabet", "()x"]),
    ("sort by frequency over abc", "sort_by_frequency", "by_frequency", 5, ["--alphabet", "abc"]),
    ("sort of integer keys", "sort_keys", "ascending", 5, []),
    ("sort of distinct reals (issue 27, part 5)", "sort_distinct", "ascending_reals", 6, []),
    ("count of symbols seen at most twice, z3", "count_rare", "rare_count", 6,
     ["--alphabet", "abc", "--engine", "z3"]),
    ("count of symbols seen at most twice", "count_rare", "rare_count", 6, ["--alphabet", "abc"]),
]


def run_row(function: str, spec: str, max_n: int, options: list[str], timeout: float) -> tuple[float, str, str]:
    """One ``usim check`` command: its seconds, its summary line, and the engines
    that decided each length (``z3 3, exhaustive 2``)."""
    argv = [sys.executable, "-P", "-m", "usim", "check", str(LISTING), "--function", function,
            "--spec-file", f"{SPECS}:{spec}", "--max-n", str(max_n), "--mutants", "--timeout", str(timeout),
            *options]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    summary = next((line for line in done.stdout.splitlines() if line.startswith("summary:")),
                   (done.stderr.strip().splitlines() or ["no output"])[-1])
    deciders: dict[str, int] = {}
    for line in done.stdout.splitlines():
        if not re.match(r"\s+shape \d+: (PROVED|REFUTED) \(", line):
            continue  # a length's line (not a broken variant's), then the engine that decided it
        found = re.search(r"\((?:[^()]*?, )?(\w+) (?:PROVED|REFUTED) [\d.]+s", line)
        if found:
            deciders[found.group(1)] = deciders.get(found.group(1), 0) + 1
    return seconds, summary, ", ".join(f"{k} {v}" for k, v in deciders.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timeout", type=float, default=60.0, help="usim check's --timeout (default 60)")
    args = parser.parse_args()
    print(f"| program | lengths | seconds | verdict | decided first by (lengths) |")
    print("|---|---|---|---|---|")
    for what, function, spec, max_n, options in ROWS:
        seconds, summary, deciders = run_row(function, spec, max_n, options, args.timeout)
        print(f"| {what} | 1..{max_n} | {seconds:.1f} | {summary.removeprefix('summary: ')} | {deciders} |",
              flush=True)


if __name__ == "__main__":
    main()
