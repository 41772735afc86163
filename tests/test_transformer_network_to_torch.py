"""The compiled networks as PyTorch modules of standard parts (skipped without the torch extra).

The module runs the masked network with ``nn.MultiheadAttention``,
``nn.Linear`` and ``nn.Embedding``: an implementation independent of
:mod:`usim.transformer.forward`. Fed a layer's parameters as U's input, it
reproduces ``torch.nn.MultiheadAttention`` itself.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from usim.cli import main  # noqa: E402
from usim.constructions.universal import LayerSpec, build  # noqa: E402
from usim.constructions.universal.simulate import prepare  # noqa: E402
from usim.encodings.numeric import NumericInterpretation  # noqa: E402
from usim.proofs import get  # noqa: E402
from usim.proofs.theorem9_weights import torch_spec  # noqa: E402
from usim.transformer.compiler import compile_universal  # noqa: E402
from usim.transformer.forward import run  # noqa: E402
from usim.transformer.network_to_torch import network_to_torch, run_torch  # noqa: E402
from usim.transformer.torch_layers import torch_arrays  # noqa: E402

NUMERIC = NumericInterpretation()


def _mha(n: int, d: int, heads: int, seed: int):
    """A random torch.nn.MultiheadAttention's parameters placed as U's input, and its output."""
    torch.manual_seed(seed)
    layer = torch.nn.MultiheadAttention(d, heads, bias=True, batch_first=True, dtype=torch.float64).eval()
    x = torch.randn(1, n, d, dtype=torch.float64)
    with torch.no_grad():
        want = layer(x, x, x, need_weights=False)[0][0].numpy()
    arrays = torch_arrays(None, layer)
    arrays["X"] = x[0].numpy()
    return prepare(arrays), want


@pytest.mark.parametrize("claim_id, size", [("lemma3_weights", (2, 3)), ("lemma4_weights", (3, 2)),
                                            ("lemma5_weights", (2, 2, 3)), ("theorem6_weights", (3, 3))])
def test_the_module_computes_what_the_network_does(claim_id, size):
    network = get(claim_id).obligation(size + (0,)).construction.program
    x = np.random.default_rng(0).normal(size=(6, network.n))
    want = np.asarray(run(network, NUMERIC, x)[network.outputs[0][0]])
    np.testing.assert_allclose(run_torch(network_to_torch(network), x)[:, :, 0], want, rtol=0, atol=1e-12)


def test_the_module_is_made_of_multihead_attention_with_masks():
    network = get("theorem6_weights").obligation((2, 2, 0)).construction.program
    module = network_to_torch(network)
    attentions = [m for m in module.modules() if isinstance(m, torch.nn.MultiheadAttention)]
    assert len(attentions) == len(network.layers)
    masks = [m.mask for m in module.modules() if isinstance(getattr(m, "mask", None), torch.Tensor)]
    assert len(masks) == len(network.layers) and all(torch.isinf(mask).any() for mask in masks)


@pytest.mark.parametrize("n, d, heads, seed", [(2, 2, 1, 0), (3, 2, 2, 1), (2, 4, 2, 2)])
def test_u_compiled_reproduces_torch_multihead_attention(n, d, heads, seed):
    p, want = _mha(n, d, heads, seed)
    assert p.spec == torch_spec((n, d, heads)) and math.isclose(p.scale, 1 / math.sqrt(d // heads))
    network = compile_universal(build(p.spec))
    got = p.result(run_torch(network_to_torch(network), p.sequence)[0, :, 0])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-10)


def test_usim_simulate_compiled_agrees_with_pytorch(capsys):
    assert main(["simulate", "--torch", "mha", "--compiled", "--n", "2", "--d", "2", "--heads", "2"]) == 0
    out = capsys.readouterr().out
    assert "compiled to a network" in out and "(agree, tolerance 1e-10)" in out


def test_usim_simulate_compiled_refuses_what_does_not_compile(capsys):
    assert main(["simulate", "--torch", "encoder", "--compiled", "--n", "2", "--d", "2", "--heads", "1",
                 "--ff", "2"]) == 2
    assert "cannot compile" in capsys.readouterr().err


def test_the_written_module_loads_and_runs_any_batch(tmp_path):
    assert main(["compile", "theorem6", "--shape", "2x2", "--out", str(tmp_path)]) == 0
    module = torch.export.load(str(tmp_path / "model.pt2")).module()
    u = build(LayerSpec(2, 2))
    rng = np.random.default_rng(4)
    xs, a, v = rng.normal(size=(3, 2, 2)), rng.normal(size=(2, 2)), rng.normal(size=(2, 2))
    seq = u.input_layout.encode_numeric({"hdr": np.array([[2, 2, 1.0]]), "X": xs, "A": a, "V": v})
    y = u.output_layout.decode_numeric(module(torch.tensor(seq)).detach().numpy()[:, :, 0])
    for b in range(3):
        s = xs[b] @ a @ xs[b].T
        e = np.exp(s - s.max(axis=1, keepdims=True))
        np.testing.assert_allclose(y[b], (e / e.sum(axis=1, keepdims=True)) @ xs[b] @ v, atol=1e-10)


def test_the_module_usim_compile_writes_reproduces_torch_multihead_attention(tmp_path):
    n, d, heads = 2, 2, 2
    assert main(["compile", "theorem9", "--shape", f"{n}x{d}x{heads}", "--out", str(tmp_path)]) == 0
    module = torch.export.load(str(tmp_path / "model.pt2")).module()
    p, want = _mha(n, d, heads, 7)
    got = p.result(module(torch.tensor(p.sequence)).detach().numpy()[0, :, 0])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-10)


def test_simulate_compiled_refuses_a_layer_whose_u_is_longer_than_compile_builds(capsys):
    assert main(["simulate", "--torch", "mha", "--n", "16", "--d", "16", "--compiled"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "above the 1024" in err[0]
