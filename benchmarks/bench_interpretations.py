"""How fast the interpretations run the blocks, and what the static plan saves.

Prints three tables:

1. numeric (float64, a batch of inputs) on the product block (A 4 x k, B k x 4)
   and on the row softmax (s x s) at sequence lengths 64..4096: the first call
   (the static plan is built: every index-only node evaluated and every
   index-only selector decided, once for this length) and later calls (the plan
   is cached; only the token-dependent nodes run), per batch and per input;
2. what the plan holds: the distinct selectors decided, how many (query, key)
   pairs they select in all and how many integers they store (a select with a
   constant side is kept as two masks), whether every gather head selects one
   key per query, how many times a
   selector was decided over all calls, and whether any n x n matrix was built
   (StaticSelection.dense is counted: it must stay at 0);
3. exact on the product block with Python's Fraction against python-flint's
   fmpq (when flint is importable), the same traversal with only the scalar
   type changed: the figures behind the choice stated in encodings/exact.py.

Timings are wall-clock on a shared machine: read them as orders of magnitude.
Run: ``python benchmarks/bench_interpretations.py [--quick] [--batch 16]``.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import time
from fractions import Fraction
from typing import Any, Callable, ClassVar

import numpy as np

from usim.constructions.matmul import matmul_construction
from usim.constructions.softmax import softmax_construction
from usim.encodings.evaluate import _PLANS, evaluate, plan_for
from usim.encodings.interpretation import ElementwiseInterpretation
from usim.encodings.runners import run_exact, run_numeric
from usim.encodings.selection import OuterSelection, StaticSelection
from usim.rasp.expr import Op

evaluate_module = importlib.import_module("usim.encodings.evaluate")


class Counters:
    """Counts calls of decide() and StaticSelection.dense() while installed."""

    def __init__(self) -> None:
        self.decided = 0
        self.dense = 0
        self._decide = evaluate_module.decide
        self._dense = StaticSelection.dense

    def __enter__(self) -> "Counters":
        def decide(*args):
            self.decided += 1
            return self._decide(*args)

        def dense(selection):
            self.dense += 1
            return self._dense(selection)

        evaluate_module.decide = decide
        StaticSelection.dense = dense
        return self

    def __exit__(self, *exc) -> None:
        evaluate_module.decide = self._decide
        StaticSelection.dense = self._dense


def _time(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _stored(selection: StaticSelection) -> int:
    """Integers the selection holds: two masks for an unexpanded OuterSelection, else its pairs."""
    if isinstance(selection, OuterSelection) and selection._pairs is None:
        return 2 * selection.n
    return int(selection.keys.size + selection.indptr.size)


def product_case(n: int):
    """A (4 x k) times B (k x 4) with k*(4 + 4) = n."""
    k = n // 8
    c = matmul_construction(4, k, 4)
    return f"product 4x{k}.{k}x4", c


def softmax_case(n: int):
    s = int(round(n ** 0.5))
    c = softmax_construction(s, s)
    return f"softmax {s}x{s}", c


def numeric_table(lengths: list[int], batch: int, repeat: int) -> list[dict]:
    rng = np.random.default_rng(0)
    rows = []
    for make in (product_case, softmax_case):
        for n in lengths:
            label, construction = make(n)
            n = construction.input_layout.length
            inputs = rng.normal(size=(batch, n))
            _PLANS.clear()
            with Counters() as counted:
                start = time.perf_counter()
                run_numeric(construction.program, inputs)
                first = time.perf_counter() - start
                decided_first = counted.decided
                later = _time(lambda: run_numeric(construction.program, rng.normal(size=(batch, n))), repeat)
                decided_later = counted.decided - decided_first
                dense = counted.dense
            plan = plan_for(tuple(s for _, s in construction.program.outputs), n)
            # distinct selections (identical index-only selects share one)
            selections = list({id(v): v for v in plan.static.values() if isinstance(v, StaticSelection)}.values())
            heads = [node for node in plan.order if type(node).__name__ == "Aggregate"]
            gathers = [h for h in heads if plan.selection(h.selector) is not None
                       and plan.selection(h.selector).is_gather]
            rows.append(dict(
                block=label, n=n, first=first, later=later, per_input=later / batch,
                decided_first=decided_first, decided_later=decided_later, dense=dense,
                selections=len(selections), selected=sum(int(s.counts.sum()) for s in selections),
                stored=sum(_stored(s) for s in selections),
                heads=len(heads), gathers=len(gathers),
                gather_keys=sum(int(plan.selection(h.selector).keys.size) for h in gathers),
            ))
    return rows


# --- exact: Fraction against flint's fmpq ------------------------------------------------------


def flint_interpretation():
    try:
        import flint
    except ImportError:
        return None
    from usim.encodings.exact import ExactInterpretation

    fmpq = flint.fmpq

    class FlintExact(ElementwiseInterpretation):
        """The exact interpretation's arithmetic on fmpq (only what the product uses)."""

        name: ClassVar[str] = "exact-flint"
        ops: ClassVar[dict] = {
            Op.ADD: lambda _, a, b: a + b,
            Op.SUB: lambda _, a, b: a - b,
            Op.MUL: lambda _, a, b: a * b,
            Op.TRUEDIV: lambda _, a, b: a / b,
            Op.NEG: lambda _, a: -a,
        }
        truth = ExactInterpretation.truth
        ite = ExactInterpretation.ite

        def constant(self, value):
            if isinstance(value, bool):
                return value
            value = Fraction(value)
            return fmpq(value.numerator, value.denominator)

        def total(self, terms):
            out = fmpq(0)
            for t in terms:
                out += t
            return out

        def divide(self, numerator, denominator):
            return numerator / denominator

    return FlintExact()


def exact_table(ks: list[int], repeat: int) -> list[dict]:
    flint = flint_interpretation()
    rng = np.random.default_rng(1)
    rows = []
    for k in ks:
        construction = matmul_construction(4, k, 4)
        n = construction.input_layout.length
        values = [Fraction(int(a), int(b)) for a, b in zip(rng.integers(-50, 50, n), rng.integers(1, 20, n))]
        run_exact(construction.program, values)  # the plan, built once for both
        frac = _time(lambda: run_exact(construction.program, values), repeat)
        row = dict(block=f"product 4x{k}.{k}x4", n=n, fraction=frac, flint=None)
        if flint is not None:
            tokens = [flint.constant(v) for v in values]
            got = evaluate(construction.program, flint, tokens)
            want = run_exact(construction.program, values)
            assert [Fraction(int(x.p), int(x.q)) for x in next(iter(got.values()))] == [
                Fraction(v) for v in next(iter(want.values()))], "flint and Fraction disagree"
            row["flint"] = _time(lambda: evaluate(construction.program, flint, tokens), repeat)
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="lengths 64..1024 and fewer repeats")
    parser.add_argument("--batch", type=int, default=16, help="inputs per numeric call (default 16)")
    args = parser.parse_args()
    lengths = [64, 256, 1024] if args.quick else [64, 256, 1024, 4096]
    repeat = 3 if args.quick else 5

    print(f"numeric interpretation, batch of {args.batch} inputs (median of {repeat} later calls)")
    print(f"{'block':<22}{'n':>6}{'first call':>12}{'later':>10}{'per input':>11}")
    rows = numeric_table(lengths, args.batch, repeat)
    for r in rows:
        print(f"{r['block']:<22}{r['n']:>6}{r['first'] * 1e3:>10.1f}ms{r['later'] * 1e3:>8.2f}ms"
              f"{r['per_input'] * 1e6:>9.0f}us")

    print("\nthe static plan (decided: selectors decided in the first call / in all later calls)")
    print(f"{'block':<22}{'n':>6}{'selectors':>10}{'selected':>10}{'stored':>9}{'heads':>7}{'gathers':>8}"
          f"{'gather keys':>12}{'decided':>10}{'n x n built':>12}")
    for r in rows:
        print(f"{r['block']:<22}{r['n']:>6}{r['selections']:>10}{r['selected']:>10}{r['stored']:>9}{r['heads']:>7}"
              f"{r['gathers']:>8}{r['gather_keys']:>12}{str(r['decided_first']) + ' / ' + str(r['decided_later']):>10}"
              f"{r['dense']:>12}")

    ks = [2, 4, 8, 16] if args.quick else [2, 4, 8, 16, 32, 64]
    print(f"\nexact interpretation on the product block (median of {repeat}; plan cached)")
    print(f"{'block':<22}{'n':>6}{'Fraction':>11}{'flint fmpq':>12}{'ratio':>7}")
    for r in exact_table(ks, repeat):
        flint = "n/a" if r["flint"] is None else f"{r['flint'] * 1e3:.2f}ms"
        ratio = "" if r["flint"] is None else f"{r['fraction'] / r['flint']:.1f}x"
        print(f"{r['block']:<22}{r['n']:>6}{r['fraction'] * 1e3:>9.2f}ms{flint:>12}{ratio:>7}")


if __name__ == "__main__":
    main()
