"""usim's compiler over finite value sets on tracr's library: sizes beside tracr's, and the proof by exhaustion.

For every program of tracr's library (``examples/tracr/programs.py``) this
script compiles it with usim (:mod:`usim.transformer.finite_to_network`) at
every length up to ``--max-len``, runs each network exactly on every input of
the vocabulary against the program (``usim compile --tracr``), and prints usim's
network's size at the longest length beside the size of the model tracr compiles,
the inputs run, the verdict and the seconds. The record is in docs/tracr.md.

Usage::

    python -P benchmarks/bench_tracr_compile.py [--max-len 4] [--programs hist,sort]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from usim.api import compile_tracr
from usim.claim_code import load_object
from usim.text_layout import table

PROGRAMS = Path(__file__).resolve().parent.parent / "examples" / "tracr" / "programs.py"
VOCABULARIES = {name: vocab for name, vocab in load_object(f"{PROGRAMS}:VOCABULARIES", "vocabularies").items()
                if name != "nary_sequencemap"}  # tracr's library, the vocabulary each program is meant for


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-len", type=int, default=4)
    parser.add_argument("--programs", default=",".join(VOCABULARIES))
    args = parser.parse_args(argv)
    header = ("program", "usim: layers, heads, width, parameters", "tracr: layers x heads, width, parameters",
              "inputs", "verdict", "s")
    rows = []
    for name in args.programs.split(","):
        start = time.perf_counter()
        check, theirs = compile_tracr(f"{PROGRAMS}:{name}", list(VOCABULARIES[name]), args.max_len)
        layers, heads, width, parameters = check.sizes[-1]
        config = theirs.model_config
        tracr_parameters = sum(int(np.size(w)) for part in theirs.params.values() for w in part.values())
        rows.append((name, f"{layers}, {heads}, {width}, {parameters}",
                     f"{config.num_layers} x {config.num_heads}, {len(theirs.residual_labels)}, {tracr_parameters}",
                     str(check.inputs), "PROVED" if check.proved else f"REFUTED ({check.differs} positions)",
                     f"{time.perf_counter() - start:.1f}"))
        print(f"{name}: done", file=sys.stderr, flush=True)
    print(table(rows, header))
    return 0


if __name__ == "__main__":
    sys.exit(main())
