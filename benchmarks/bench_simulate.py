"""How far ``usim simulate`` is from the arithmetic limit: U's numeric run on a
multi-head attention layer, against the layer's own forward pass.

    python benchmarks/bench_simulate.py [--sizes 16,32,64,128,256] [--heads 2] [--bert] [--repeat 3]

For each n = d, the layer is torch's ``MultiheadAttention`` form (H heads of
width d / H with projections, biases and W_O; seeded random weights, as
``usim simulate --torch mha`` makes), given as arrays. ``--bert`` adds two rows
at BERT-base's sizes (n = 128, d = 768, 12 heads): PyTorch's
``MultiheadAttention`` and its ``TransformerEncoderLayer`` (feed-forward width
3072, post-norm, ReLU), made by ``usim simulate --torch`` (seed 0). Each case
runs in a fresh process (so the peak memory is that run's alone) and prints:

* U's length (positions), the nodes of the program it runs (its product and
  row heads kept as families: :attr:`Universal.family_program`) and U's heads
  (counted over the families, as ``usim simulate`` prints them);
* the time of one checked run (``run_simulation``: U built, the layer placed,
  the static and numeric passes, the range check) and the peak resident memory
  of the process (read before PyTorch is imported for the n = d rows);
* the layer's forward pass on the same arrays: PyTorch's when the ``torch``
  extra is installed (one thread for the n = d rows, its default for the BERT
  ones), else numpy's from the formula (float64), and the ratio of U's time to it;
* the layer's multiply-adds and U's time per multiply-add, which is how far U
  is from the arithmetic the layer needs; and the largest difference from the
  forward pass.

A size beyond ``usim simulate``'s limits is reported as refused, with the limit.
Figures, not tests: a shared 2-core machine is noisy. The dated record is in
``docs/scale.md``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np


def layer_arrays(n: int, heads: int, seed: int = 0) -> dict[str, np.ndarray]:
    """A torch-MultiheadAttention-shaped layer, d = n, as usim simulate's arrays."""
    d, width = n, n // heads
    rng = np.random.default_rng(seed)
    arrays = {"X": rng.normal(size=(n, d)) * 0.5}
    for h in range(heads):
        for name in ("WQ", "WK", "WV"):
            arrays[f"{name}_{h}"] = rng.normal(size=(d, width)) / np.sqrt(d)
        for name in ("bQ", "bK", "bV"):
            arrays[f"{name}_{h}"] = rng.normal(size=(1, width)) * 0.1
    arrays["WO"] = rng.normal(size=(d, d)) / np.sqrt(d)
    arrays["bO"] = rng.normal(size=(1, d)) * 0.1
    return arrays


def numpy_forward(a: dict[str, np.ndarray], heads: int) -> np.ndarray:
    x = a["X"]
    outs = []
    for h in range(heads):
        q, k, v = (x @ a[f"W{p}_{h}"] + a[f"b{p}_{h}"] for p in "QKV")
        s = q @ k.T / np.sqrt(q.shape[1])
        w = np.exp(s - s.max(axis=1, keepdims=True))
        outs.append(w / w.sum(axis=1, keepdims=True) @ v)
    return np.hstack(outs) @ a["WO"] + a["bO"]


def torch_forward(a: dict[str, np.ndarray], heads: int):
    """A function running torch's MultiheadAttention with these weights, or None."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)  # a layer this small: threads only add their synchronisation
    d = a["X"].shape[1]
    mha = torch.nn.MultiheadAttention(d, heads, bias=True, batch_first=True, dtype=torch.float64).eval()
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.from_numpy(np.vstack([
            np.hstack([a[f"W{p}_{h}"] for h in range(heads)]).T for p in "QKV"])))
        mha.in_proj_bias.copy_(torch.from_numpy(np.concatenate([
            np.hstack([a[f"b{p}_{h}"] for h in range(heads)])[0] for p in "QKV"])))
        mha.out_proj.weight.copy_(torch.from_numpy(a["WO"].T))
        mha.out_proj.bias.copy_(torch.from_numpy(a["bO"][0]))
    x = torch.from_numpy(a["X"])[None]

    def run() -> np.ndarray:
        with torch.no_grad():
            return mha(x, x, x, need_weights=False)[0][0].numpy()
    return run


def multiply_adds(n: int, heads: int) -> int:
    d, w = n, n // heads
    return heads * (3 * n * d * w + n * n * w + n * n * w) + n * d * d


def best_of(run, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - start)
    return min(times), out


def one_size(n: int, heads: int, repeat: int) -> dict:
    """Run in a child process: U on the layer once, and the forward passes."""
    import resource

    from usim.constructions.universal.simulate import run_simulation
    from usim.errors import UsimError

    a = layer_arrays(n, heads)
    start = time.perf_counter()
    try:
        sim = run_simulation(a)
    except UsimError as error:
        return {"case": f"n=d={n}", "refused": str(error)}
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # U's run alone, before torch loads
    reference, label = torch_forward(a, heads), "PyTorch"
    if reference is None:
        reference, label = (lambda: numpy_forward(a, heads)), "numpy"
    forward, expected = best_of(reference, max(repeat, 20))
    return _row(f"n=d={n}", sim, seconds, peak_mb, forward, label, multiply_adds(n, heads), expected)


def one_layer(kind: str, n: int, d: int, heads: int, ff: int, repeat: int) -> dict:
    """Run in a child process: U on PyTorch's layer (``usim simulate --torch``, seed 0)."""
    import resource

    import torch

    from usim.constructions.universal.simulate import run_simulation
    from usim.transformer.torch_layers import forward as torch_forward_of, torch_layer, torch_module

    expected, arrays = torch_layer(kind, n=n, d=d, heads=heads, ff=ff, seed=0)
    start = time.perf_counter()
    sim = run_simulation(arrays)
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    layer, _, x = torch_module(kind, n, d, heads, ff, seed=0)

    def run():
        with torch.no_grad():
            return torch_forward_of(kind, layer, x)
    forward, _ = best_of(run, max(repeat, 5))
    madds = 4 * n * d * d + 2 * n * n * d + (2 * n * d * ff if kind == "encoder" else 0)
    return _row(f"BERT-base {kind}", sim, seconds, peak_mb, forward, "PyTorch", madds, expected)


def _row(case: str, sim, seconds: float, peak_mb: float, forward: float, label: str, madds: int,
         expected: np.ndarray) -> dict:
    per_layer = sim.u.heads_per_layer
    return {
        "case": case, "length": sim.u.length, "layers": len(per_layer), "heads": sum(per_layer),
        "nodes": len(sim.u.runnable_program.nodes()), "seconds": seconds,
        "peak_mb": peak_mb, "forward": forward, "forward_by": label, "multiply_adds": madds,
        "max_difference": float(np.max(np.abs(sim.y - expected))), "dtype": sim.dtype.__name__,
    }


BERT_BASE = {"n": 128, "d": 768, "heads": 12, "ff": 3072}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="16,32,64,128,256", help="n = d values, comma-separated")
    parser.add_argument("--heads", type=int, default=2)
    parser.add_argument("--bert", action="store_true", help="also BERT-base's attention and encoder layer")
    parser.add_argument("--repeat", type=int, default=1, help="runs of the forward pass to take the best of")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        from usim.commands.simulate import reuse_freed_memory

        reuse_freed_memory()  # as usim simulate does
        if args.child.isdigit():
            print(json.dumps(one_size(int(args.child), args.heads, args.repeat)))
        else:
            print(json.dumps(one_layer(args.child, **BERT_BASE, repeat=args.repeat)))
        return
    print(f"usim simulate on torch's MultiheadAttention form, H = {args.heads}, n = d; one run per case "
          "in a fresh process")
    print(f"{'case':>18} {'length':>8} {'nodes':>6} {'heads':>8} {'U run':>8} {'peak':>8} {'forward':>10} "
          f"{'ratio':>7} {'mult-adds':>11} {'U ns/madd':>9} {'max diff':>9}")
    cases = [s for s in args.sizes.split(",") if s] + (["mha", "encoder"] if args.bert else [])
    for case in cases:
        child = subprocess.run([sys.executable, __file__, "--child", case, "--heads", str(args.heads),
                                "--repeat", str(args.repeat)], capture_output=True, text=True)
        if child.returncode != 0:
            print(f"{case:>18} failed: {(child.stderr.strip().splitlines() or ['?'])[-1]}")
            continue
        r = json.loads(child.stdout.strip().splitlines()[-1])
        if "refused" in r:
            print(f"{r['case']:>18} refused by usim simulate: {r['refused']}")
            continue
        print(f"{r['case']:>18} {r['length']:>8} {r['nodes']:>6} {r['heads']:>8} {r['seconds']:>7.2f}s "
              f"{r['peak_mb']:>6.0f}MB {r['forward'] * 1e6:>8.0f}us {r['seconds'] / r['forward']:>7.0f} "
              f"{r['multiply_adds']:>11} {r['seconds'] / r['multiply_adds'] * 1e9:>9.1f} "
              f"{r['max_difference']:>9.1e}  (forward: {r['forward_by']}; U in {r['dtype']})", flush=True)


if __name__ == "__main__":
    main()
