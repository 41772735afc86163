"""How fast usim's commands start: whole commands, beside the RASP REPL's where it is given.

Each figure is the median wall time of ``--repeat`` runs of one whole command in
a fresh process (start-up included, which is the point):

* ``usim run examples/rasp/transpose.rasp --function transpose --input [...]``
  at lengths 6, 255 and 1023 (a 3 x c transpose, as issue 29 measured it);
* the same transpose in the RASP REPL (tech-srl/RASP): ``load`` of the same
  file and one application, piped into ``python -m RASP_support`` (given with
  ``--repl DIR``, a checkout of the REPL, and ``--repl-python``, an interpreter
  with its requirements: antlr4-python3-runtime 4.9.1, termcolor, graphviz);
* ``usim repl`` on a two-line script;
* ``usim --help`` and every subcommand's ``--help``.

Issue 29's target: ``usim run`` at length 6 in at most 0.5 s on 2 cores.

    python -P benchmarks/bench_startup.py [--repeat 5] [--repl DIR --repl-python PY]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LISTING = ROOT / "examples" / "rasp" / "transpose.rasp"
LENGTHS = (6, 255, 1023)
TARGET = 0.5


def timed(argv: list[str], stdin: str | None = None, cwd: Path | None = None, repeat: int = 5) -> tuple[float, str]:
    """The median seconds of ``repeat`` runs of one command, and its last output line."""
    seconds, last = [], ""
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(argv, input=stdin, capture_output=True, text=True, cwd=cwd)
        seconds.append(time.perf_counter() - start)
        if done.returncode not in (0, 1):
            return float("nan"), (done.stderr.strip().splitlines() or ["failed"])[-1]
        said = [line.strip() for line in done.stdout.splitlines() if line.strip().strip(">").strip()]
        last = (said or [""])[-1].removeprefix(">>").strip()
    return statistics.median(seconds), last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--repl", type=Path, help="a checkout of tech-srl/RASP")
    parser.add_argument("--repl-python", default=sys.executable, help="the interpreter the REPL runs on")
    args = parser.parse_args()
    usim = [sys.executable, "-P", "-m", "usim"]

    print("| command | length | seconds (median) | last line of output |")
    print("|---|---|---|---|")
    for n in LENGTHS:
        values = "[" + ", ".join(str(v) for v in range(1, n + 1)) + "]"
        seconds, last = timed([*usim, "run", str(LISTING), "--function", "transpose", "--input", values],
                              repeat=args.repeat)
        mark = f" (target {TARGET} s: {'met' if seconds <= TARGET else 'not met'})" if n == 6 else ""
        print(f"| usim run | {n} | {seconds:.2f}{mark} | {last[:40]}{'...' if len(last) > 40 else ''} |")
        if args.repl is not None:
            script = f'load "{LISTING.with_suffix("")}";\ntransposed = transpose();\ntransposed({values});\n'
            seconds, last = timed([args.repl_python, "-m", "RASP_support"], stdin=script, cwd=args.repl,
                                  repeat=args.repeat)
            print(f"| the RASP REPL | {n} | {seconds:.2f} | {last[:40]}{'...' if len(last) > 40 else ''} |")
    with tempfile.TemporaryDirectory() as folder:
        seconds, last = timed([*usim, "repl"], stdin="x = tokens == \"l\";\nx;\n", cwd=Path(folder),
                              repeat=args.repeat)
    print(f"| usim repl (two statements) | 5 | {seconds:.2f} | {last} |")
    from usim.cli import COMMANDS

    for command in ("", *COMMANDS):
        seconds, _ = timed([*usim, *([command] if command else []), "--help"], repeat=args.repeat)
        print(f"| usim {command + ' ' if command else ''}--help | | {seconds:.2f} | |")


if __name__ == "__main__":
    main()
