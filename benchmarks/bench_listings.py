"""How fast ``usim check`` matches a listing's examples, and ``usim run`` runs one.

Prints two tables:

1. matching a file's examples to shapes: ``plan_shapes`` and the example lines
   of ``usim check`` on a product listing whose example has 32 entries (as the
   authors' ``matmultiplication.rasp``), with the spec's length formula (what
   usim does now), against building an obligation for every shape up to the
   example's length (what it did before), measured on a sample spread over
   every size and extrapolated to all of them;
2. ``usim run FILE.rasp``: one input of length 64..1024 through the numeric
   interpretation (checked float64) and the exact one, after the first call
   (the static plan is cached per length) and including it.

By default the listing is usim's own ``examples/rasp/matmul.rasp`` (r = c = 2
hard-coded, k read from length) with a 32-entry example appended; pass the
authors' file to measure it instead (copy it to a scratch folder first):
``python benchmarks/bench_listings.py --listing /tmp/tma/matmultiplication.rasp
--function Matmul4x4``. Timings are wall-clock on a shared machine.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from usim.encodings.notation import shape_label
from usim.errors import UsimError
from usim.listings.examples import run_examples
from usim.listings.plan import example_shapes, plan_shapes
from usim.listings.specs import spec as spec_named
from usim.proofs import get
from usim.render_check import example_lines
from usim.repl import load_file

ROOT = Path(__file__).resolve().parent.parent


def _own_listing(folder: Path) -> Path:
    text = (ROOT / "examples" / "rasp" / "matmul.rasp").read_text()
    listing = folder / "matmul32.rasp"
    listing.write_text(text + "\nset example [" + ", ".join(str(v % 7) for v in range(32)) + "]\n")
    return listing


def matching(path: Path, function: str, spec_name: str) -> None:
    spec = spec_named(spec_name)
    rasp = load_file(path)
    start = time.perf_counter()
    plan = plan_shapes(rasp, function, spec, None, 3)
    planned = time.perf_counter() - start
    start = time.perf_counter()
    lines = example_lines(run_examples(rasp, function, spec, plan, "zero"), spec, function)
    matched = time.perf_counter() - start
    longest = max((len(e.values) for e in rasp.examples), default=0)
    print(f"1. examples of {path.name}:{function} against {spec_name} (longest example {longest} entries)")
    print(f"   plan {planned:.3f} s, matching every example {matched:.3f} s "
          f"({len(lines)} line(s); shapes of length {longest}: "
          f"{', '.join(shape_label(s) for s in example_shapes(spec, plan, longest)) or 'none'})")
    if spec.claim_id is None or not longest:
        return
    claim = get(spec.claim_id)
    shapes = list(claim.shapes(longest))
    sample = shapes[:: max(1, len(shapes) // 200)]  # spread over every size
    start = time.perf_counter()
    for s in sample:
        try:
            claim.obligation(s).construction.input_layout.length
        except Exception:  # noqa: BLE001 - a shape that does not fit costs its attempt too
            pass
    each = (time.perf_counter() - start) / max(1, len(sample))
    print(f"   before (an obligation built for every shape up to {longest}): {len(shapes)} shapes x "
          f"{each * 1000:.1f} ms = about {len(shapes) * each:.0f} s (measured on {len(sample)} of them, "
          "spread over every size)")


def running(path: Path, function: str, lengths: list[int], repeats: int) -> None:
    rasp = load_file(path)
    print(f"2. usim run {path.name} --function {function}: seconds per input")
    print(f"   {'length':>6} {'numeric first':>14} {'numeric':>10} {'exact first':>12} {'exact':>10}")
    for n in lengths:
        tokens = [(3 * p) % 11 - 5 for p in range(n)]
        row = []
        for exact in (False, True):
            try:
                start = time.perf_counter()
                rasp.run(function, tokens, exact=exact)
                first = time.perf_counter() - start
                times = []
                for _ in range(repeats):
                    start = time.perf_counter()
                    rasp.run(function, tokens, exact=exact)
                    times.append(time.perf_counter() - start)
                row += [f"{first:.4f}", f"{statistics.median(times):.4f}"]
            except UsimError as error:  # e.g. no exact value at this length
                row += ["n/a", "n/a"]
                note = str(error)
        print(f"   {n:>6} {row[0]:>14} {row[1]:>10} {row[2]:>12} {row[3]:>10}")
    if "note" in locals():
        print(f"   n/a: {note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listing", help="a RASP file (default: usim's matmul.rasp with a 32-entry example)")
    parser.add_argument("--function", default="matmul")
    parser.add_argument("--spec", default="matmul")
    parser.add_argument("--lengths", default="64,256,1024")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(args.listing) if args.listing else _own_listing(Path(folder))
        matching(path, args.function, args.spec)
        running(path, args.function, [int(n) for n in args.lengths.split(",")], args.repeats)


if __name__ == "__main__":
    main()
