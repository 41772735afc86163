"""How far U compiles and proves as weights: time per size.

    python benchmarks/bench_compile.py [--max-n 6] [--timeout 60]

For n = d = 1..N: the time to build U and compile it (without and with the
exact re-decision of every hard head's maximisers), the network's size, and
the time sympy takes to prove part 0 (network = formula) of
``theorem6_weights`` at that size (PROVED, or UNKNOWN at the timeout). Each
proof runs in a forked process with a deadline. Figures, not tests: read them
as orders of magnitude on a shared machine.
"""

from __future__ import annotations

import argparse
import time

from usim.constructions.universal import LayerSpec, build
from usim.engine.children import run_tasks
from usim.engine.runner import _run_engine
from usim.proofs import get
from usim.transformer.compiler import compile_universal
from usim.transformer.size import size_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-n", type=int, default=6)
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    claim = get("theorem6_weights")
    print("n=d  compile  +check  layers  heads  width  parameters  prove(sympy, part 0)")
    for n in range(1, args.max_n + 1):
        u = build(LayerSpec(n, n))
        start = time.perf_counter()
        network = compile_universal(u, check=False)
        plain = time.perf_counter() - start
        start = time.perf_counter()
        compile_universal(u, check=True)
        checked = time.perf_counter() - start
        size = size_of(network)
        ob = claim.obligation((n, n, 0))
        results = run_tasks([("p", "sympy", lambda ob=ob: _run_engine("sympy", ob, args.timeout))],
                            args.timeout, jobs=1)
        (result,) = results["p"]
        print(f"{n:3d}  {plain:6.2f}s  {checked:5.2f}s  {size.layers:6d}  {size.heads:5d}  {size.width:5d}  "
              f"{size.parameters:10,d}  {result.status.value} {result.seconds:.2f}s", flush=True)


if __name__ == "__main__":
    main()
