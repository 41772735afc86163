"""The two proofs of usim's compiled tracr programs side by side: every input run, or z3 once per length.

For every program of tracr's library (``examples/tracr/programs.py``) this
script proves usim's compiled networks (:mod:`usim.transformer.finite_to_network`)
at every length up to ``--max-len`` twice: ``exhaustive`` (each network run
exactly on every input) and ``z3`` (one query per length over every input;
a length z3 does not prove within ``--timeout`` seconds is run exhaustively),
and prints both verdicts, both times and the lengths z3 proved. It says where
``usim compile --engine z3`` is the faster choice. The record is in docs/tracr.md.

Usage::

    python -P benchmarks/bench_finite_engines.py [--max-len 5] [--timeout 30] [--programs hist,sort]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from usim.claim_code import load_object
from usim.text_layout import table
from usim.transformer.finite_to_network import check_finite

PROGRAMS = Path(__file__).resolve().parent.parent / "examples" / "tracr" / "programs.py"
VOCABULARIES = {name: vocab for name, vocab in load_object(f"{PROGRAMS}:VOCABULARIES", "vocabularies").items()
                if name != "nary_sequencemap"}  # tracr's library, the vocabulary each program is meant for


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-len", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds z3 may take per length")
    parser.add_argument("--programs", default=",".join(VOCABULARIES))
    args = parser.parse_args(argv)
    header = ("program", "inputs", "exhaustive", "s", "z3", "s", "lengths z3 proved", "faster")
    rows = []
    for name in args.programs.split(","):
        program = load_object(f"{PROGRAMS}:{name}", "tracr program")
        vocab = list(VOCABULARIES[name])
        times, checks = [], []
        for engine in ("exhaustive", "z3"):
            start = time.perf_counter()
            checks.append(check_finite(program, vocab, args.max_len, engine=engine, timeout=args.timeout))
            times.append(time.perf_counter() - start)
        exhaustive, by_z3 = checks
        proved = [str(n) for n, engine in enumerate(by_z3.engines, 1) if engine == "z3"]
        rows.append((name, str(exhaustive.inputs), "PROVED" if exhaustive.proved else "REFUTED", f"{times[0]:.1f}",
                     "PROVED" if by_z3.proved else "REFUTED", f"{times[1]:.1f}", ", ".join(proved) or "none",
                     "z3" if times[1] < times[0] else "exhaustive"))
        print(f"{name}: done", file=sys.stderr, flush=True)
    print(table(rows, header))
    return 0


if __name__ == "__main__":
    sys.exit(main())
