"""How far ``usim simulate`` is from the arithmetic limit: U's numeric run on a
multi-head attention layer, against the layer's own forward pass.

    python benchmarks/bench_simulate.py [--sizes 16,32,64] [--heads 2] [--repeat 3]

For each n = d, the layer is torch's ``MultiheadAttention`` form (H heads of
width d / H with projections, biases and W_O; seeded random weights, as
``usim simulate --torch mha`` makes), given as arrays. Each size runs in a
fresh process (so the peak memory is that run's alone) and prints:

* U's length (positions) and its program's size (nodes, heads);
* the time of one checked run (``run_simulation``: U built, the layer placed,
  the static plan, the numeric pass, the range check), split into building U
  and running it, and the peak resident memory of the process;
* the layer's forward pass on the same arrays: PyTorch's when the ``torch``
  extra is installed, else numpy's from the formula (float64), and the ratio of
  U's time to it;
* the layer's multiply-adds (Q, K, V projections, Q K^T, the weights times V,
  W_O) and U's time per multiply-add, which is how far U is from the
  arithmetic the layer needs; and the largest difference from the forward pass.

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
    from usim.rasp.cost import cost

    a = layer_arrays(n, heads)
    start = time.perf_counter()
    try:
        sim = run_simulation(a)
    except UsimError as error:
        return {"n": n, "refused": str(error)}
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # U's run alone, before torch loads
    program_cost = cost(sim.u.program)
    reference, label = torch_forward(a, heads), "PyTorch"
    if reference is None:
        reference, label = (lambda: numpy_forward(a, heads)), "numpy"
    forward, expected = best_of(reference, max(repeat, 20))
    return {
        "n": n, "length": sim.u.length, "layers": program_cost.layers, "heads": sum(program_cost.heads_per_layer),
        "nodes": len(sim.u.program.nodes()), "seconds": seconds,
        "peak_mb": peak_mb, "forward": forward,
        "forward_by": label, "multiply_adds": multiply_adds(n, heads),
        "max_difference": float(np.max(np.abs(sim.y - expected))), "dtype": sim.dtype.__name__,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="16,32,64", help="n = d values, comma-separated")
    parser.add_argument("--heads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1, help="runs of the forward pass to take the best of")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(one_size(args.child, args.heads, args.repeat)))
        return
    print(f"usim simulate on torch's MultiheadAttention form, H = {args.heads}, n = d; one run per size "
          "in a fresh process")
    print(f"{'n=d':>4} {'length':>7} {'nodes':>7} {'heads':>6} {'U run':>8} {'peak':>8} {'forward':>10} "
          f"{'ratio':>8} {'mult-adds':>10} {'U ns/madd':>10} {'max diff':>9}")
    for n in (int(s) for s in args.sizes.split(",")):
        child = subprocess.run([sys.executable, __file__, "--child", str(n), "--heads", str(args.heads),
                                "--repeat", str(args.repeat)], capture_output=True, text=True)
        if child.returncode != 0:
            print(f"{n:>4} failed: {(child.stderr.strip().splitlines() or ['?'])[-1]}")
            continue
        r = json.loads(child.stdout.strip().splitlines()[-1])
        if "refused" in r:
            print(f"{n:>4} refused by usim simulate: {r['refused']}")
            continue
        print(f"{n:>4} {r['length']:>7} {r['nodes']:>7} {r['heads']:>6} {r['seconds']:>7.2f}s "
              f"{r['peak_mb']:>6.0f}MB {r['forward'] * 1e6:>8.0f}us {r['seconds'] / r['forward']:>8.0f} "
              f"{r['multiply_adds']:>10} {r['seconds'] / r['multiply_adds'] * 1e9:>10.0f} "
              f"{r['max_difference']:>9.1e}  (forward: {r['forward_by']}; U in {r['dtype']})", flush=True)


if __name__ == "__main__":
    main()
