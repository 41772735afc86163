"""tracr's own compiled models, run in usim, against tracr's evaluator: what each gets wrong.

For every program of tracr's library (``examples/tracr/programs.py``) this
script compiles tracr's model (``compile_rasp_to_model``, the vocabulary the
program is meant for, ``--max-len``), reads it into usim's network model
(:mod:`usim.transformer.tracr_to_network`), runs it in float64 on every input
up to that length, and prints, per program: tracr's model's size, the
positions where its decoded output differs from tracr's evaluator (of them,
those where the evaluator gives None), the largest error of a numerical
output, the first difference, whether usim's run decodes as tracr's own
``apply`` (float32), and the seconds taken. The record is in docs/tracr.md.

Usage::

    python -P benchmarks/bench_tracr_models.py [--max-len 4] [--programs hist,sort]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from usim.claim_code import load_object
from usim.text_layout import table
from usim.transformer.tracr_to_network import check_tracr_model

PROGRAMS = Path(__file__).resolve().parent.parent / "examples" / "tracr" / "programs.py"
VOCABULARIES = {name: vocab for name, vocab in load_object(f"{PROGRAMS}:VOCABULARIES", "vocabularies").items()
                if name != "nary_sequencemap"}  # tracr's library, the vocabulary each program is meant for


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-len", type=int, default=4)
    parser.add_argument("--programs", default=",".join(VOCABULARIES))
    args = parser.parse_args(argv)
    header = ("program", "layers x heads, width, parameters", "inputs", "positions off (at None)",
              "largest error", "first difference", "as tracr's apply", "s")
    rows = []
    for name in args.programs.split(","):
        start = time.perf_counter()
        c = check_tracr_model(load_object(f"{PROGRAMS}:{name}", "tracr program"), list(VOCABULARIES[name]),
                              args.max_len)
        first = "-" if c.first is None else f"{''.join(map(str, c.first[0]))} at {c.first[1]}: {c.first[2]!r} -> {c.first[3]!r}"
        rows.append((name, f"{c.layers} x {c.heads}, {c.width}, {c.parameters}", str(c.inputs),
                     f"{c.differs} of {c.positions} ({c.at_none})",
                     "-" if c.largest_error is None else f"{c.largest_error:.2e}", first,
                     f"{c.agrees_with_tracr} of {c.inputs}", f"{time.perf_counter() - start:.1f}"))
        print(f"{name}: done", file=sys.stderr, flush=True)
    print(table(rows, header))
    return 0


if __name__ == "__main__":
    sys.exit(main())
