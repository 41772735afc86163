"""`usim simulate`: U on parameters from an .npz file and on PyTorch layers."""

from __future__ import annotations

import re

import numpy as np
import pytest

import importlib
from usim.cli import main
from usim.constructions.universal.simulate import simulate, spec_from_arrays

evaluate_module = importlib.import_module("usim.encodings.evaluate")


def _softmax(s):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_simulate_npz_matches_the_formula(tmp_path, capsys):
    rng = np.random.default_rng(3)
    x, a, v = rng.normal(size=(4, 3)), rng.normal(size=(3, 3)), rng.normal(size=(3, 2))
    path = tmp_path / "p.npz"
    np.savez(path, X=x, A=a, V=v, scale=0.5)
    out = tmp_path / "y.npy"
    assert main(["simulate", str(path), "--out", str(out)]) == 0
    np.testing.assert_allclose(np.load(out), _softmax(0.5 * x @ a @ x.T) @ x @ v, rtol=0, atol=1e-10)
    assert "T(X) =" in capsys.readouterr().out


def test_simulate_names_the_spec_u_was_built_for_as_before(tmp_path, capsys):
    path = tmp_path / "p.npz"
    np.savez(path, X=np.ones((2, 3)), A=np.eye(3), V=np.ones((3, 2)))
    assert main(["simulate", str(path)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("U for Spec(n=2, d=3, heads=1, form='merged', d_k=3, d_v=2, bias=False, out_proj=False, "
                            "d_out=3, encoder=False, d_ff=3, residual=True, norm=True, ffn_bias=True): sequence length ")


def test_simulate_with_a_larger_bound_pads_and_agrees(tmp_path):
    rng = np.random.default_rng(4)
    arrays = dict(X=rng.normal(size=(2, 2)), WQ=rng.normal(size=(2, 2)), WK=rng.normal(size=(2, 2)),
                  WV=rng.normal(size=(2, 2)))
    y, _ = simulate(arrays)
    y_big, u = simulate(arrays, bound=5)
    assert u.spec.n == 5
    q, k = arrays["X"] @ arrays["WQ"], arrays["X"] @ arrays["WK"]
    want = _softmax(q @ k.T / np.sqrt(2)) @ arrays["X"] @ arrays["WV"]
    np.testing.assert_allclose(y, want, atol=1e-10)
    np.testing.assert_allclose(y_big, want, atol=1e-10)


def test_with_a_bound_a_layer_of_a_proved_form_is_run_by_the_square_u_n_that_is_proved_for_every_size(
        tmp_path, capsys):
    from usim.proofs.theorem6_stages import PADDED

    rng = np.random.default_rng(5)
    x, a, v = rng.normal(size=(3, 2)), rng.normal(size=(2, 2)), rng.normal(size=(2, 2))
    path, own, padded = tmp_path / "p.npz", tmp_path / "own.npy", tmp_path / "padded.npy"
    np.savez(path, X=x, A=a, V=v)
    assert main(["simulate", str(path), "--out", str(own)]) == 0
    said = capsys.readouterr().out.splitlines()[1]
    assert said.startswith("for every size: this U (built for 3 x 2) is no statement's program; --bound 3 runs U_3"), \
        said
    assert main(["simulate", str(path), "--bound", "4", "--out", str(padded)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("U for Spec(n=4, d=4, ")  # U_4 of Theorem 6's family: d padded too
    assert lines[1].startswith("for every size: this U is U_4, built for 4 x 4, the program of the statement "
                               "`usim prove theorem6 --all-sizes` (every n, d <= 4; also hierarchy"), lines[1]
    want = _softmax(x @ a @ x.T) @ x @ v
    np.testing.assert_allclose(np.load(own), want, atol=1e-10)
    np.testing.assert_allclose(np.load(padded), want, atol=1e-10)
    _, u = simulate({"X": x, "A": a, "V": v}, bound=4, at_bound=PADDED.spec_of)
    assert u.spec == PADDED.spec_of(4, 4)


def test_a_bound_below_the_width_runs_u_for_sequences_up_to_it_and_names_the_bound_of_u_n(tmp_path, capsys):
    path = tmp_path / "p.npz"
    np.savez(path, X=np.ones((2, 3)), A=np.eye(3), V=np.eye(3))
    assert main(["simulate", str(path), "--bound", "2"]) == 0  # U_2 cannot hold d = 3
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("U for Spec(n=2, d=3, ")
    assert lines[1].startswith("for every size: this U (built for 2 x 3) is no statement's program; --bound 3 "
                               "runs U_3"), lines[1]


def test_u_n_of_a_family_cannot_hold_a_wider_layer_one_line():
    from usim.constructions.universal import LayerSpec
    from usim.constructions.universal.simulate import check_limits
    from usim.errors import UsimError
    from usim.proofs.theorem6_stages import PADDED

    with pytest.raises(UsimError, match="the bound 2 is below the width d = 3"):
        check_limits(LayerSpec(2, 3), 2, PADDED.spec_of)


def _encoder_file(layer, seed, tmp_path):
    """An encoder layer's arrays (small integer weights, eps 0.5, post-norm ReLU) written to
    a file and run by usim simulate --bound 3 (exit 0 checked); the arrays."""
    rng = np.random.default_rng(seed)
    arrays = {name: rng.integers(-2, 3, shape).astype(float) for name, shape in layer.parameter_shapes()}
    arrays.update(X=rng.normal(size=(layer.n, layer.d)), eps1=np.array([0.5]), eps2=np.array([0.5]),
                  activation="relu", norm="post")
    path = tmp_path / "p.npz"
    np.savez(path, **arrays)
    assert main(["simulate", str(path), "--bound", "3"]) == 0
    return arrays


def test_an_encoder_with_three_heads_is_run_by_u_n_of_corollary9_1s_family(tmp_path, capsys):
    from usim.constructions.universal import LayerSpec
    from usim.proofs.corollary9_1_stages import THREE_HEADS

    arrays = _encoder_file(LayerSpec(2, 2, heads=3, d_v=2, out_proj=True, encoder=True), 7, tmp_path)
    lines = capsys.readouterr().out.splitlines()
    assert "`usim prove corollary9_1_three_heads --all-sizes` (every n, d <= 3; also corollary9_1;" in lines[1]
    _, u = simulate({k: v for k, v in arrays.items()}, bound=3, at_bound=THREE_HEADS.spec_of)
    assert u.spec == THREE_HEADS.spec_of(3, 3)


def _stacked_heads(x, a, v, wo, heads):
    """[softmax(X A_h X^T) X V_h]_h W_O in numpy, the heads read as column blocks."""
    d, dv = a.shape[1] // heads, v.shape[1] // heads
    return np.hstack([_softmax(x @ a[:, h * d:(h + 1) * d] @ x.T) @ x @ v[:, h * dv:(h + 1) * dv]
                      for h in range(heads)]) @ wo


def test_heads_stacked_side_by_side_are_run_by_u_over_stacked_heads_which_theorem9_proves(tmp_path, capsys):
    """A = [A_0 | A_1 | A_2] (d x 3 d) with W_O is three heads stacked: with --bound N >= d
    U_N over stacked heads runs the layer placed head by head, the program
    `usim prove theorem9 --all-sizes` (and theorem9_stacked) proves for every n, d <= N and every H."""
    rng = np.random.default_rng(8)
    x, a, v, wo = rng.normal(size=(2, 2)), rng.normal(size=(2, 6)) / 2, rng.normal(size=(2, 6)), \
        rng.normal(size=(6, 2))
    path, out = tmp_path / "p.npz", tmp_path / "y.npy"
    np.savez(path, X=x, A=a, V=v, WO=wo)
    assert main(["simulate", str(path), "--bound", "3", "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("U for Spec(n=3, d=3, heads=3, ") and "stacked=True" in lines[0], lines[0]
    assert lines[1].startswith("for every size: this U is U_3, built for 3 x 3, the program of the statement "
                               "`usim prove theorem9 --all-sizes` (every n, d, d_v <= 3; also theorem9_stacked;"), \
        lines[1]
    np.testing.assert_allclose(np.load(out), _stacked_heads(x, a, v, wo, 3), atol=1e-10)
    narrow = tmp_path / "narrow.npz"  # each head's values 1 wide: d_v = 1, W_O 3 x 2
    np.savez(narrow, X=x, A=a, V=v[:, :3], WO=wo[:3])
    assert main(["simulate", str(narrow), "--bound", "3", "--out", str(out)]) == 0
    assert "`usim prove theorem9 --all-sizes` (every n, d, d_v <= 3; also theorem9_stacked;" in \
        capsys.readouterr().out
    np.testing.assert_allclose(np.load(out), _stacked_heads(x, a, v[:, :3], wo[:3], 3), atol=1e-10)


def test_an_encoder_over_stacked_heads_is_run_by_u_n_of_corollary9_1(tmp_path, capsys):
    from usim.proofs.corollary9_1_stacked import spec_of

    layer = spec_of(2, 2, 2)
    arrays = _encoder_file(layer, 9, tmp_path)
    lines = capsys.readouterr().out.splitlines()
    assert "`usim prove corollary9_1 --all-sizes` (every n, d, d_v <= 3; also corollary9_1_stacked;" in lines[1], \
        lines[1]
    assert spec_from_arrays(arrays)[0] == layer


def _users_heads(arrays, heads):
    """[softmax(Q_h K_h^T / sqrt(d_k)) V_h]_h W_O + b_O in numpy, the heads read as column blocks."""
    x, dk, dv = arrays["X"], arrays["WQ"].shape[1] // heads, arrays["WV"].shape[1] // heads
    part = lambda name, h, w: x @ arrays["W" + name][:, h * w:(h + 1) * w] + arrays["b" + name][:, h * w:(h + 1) * w]  # noqa: E731
    return np.hstack([_softmax(part("Q", h, dk) @ part("K", h, dk).T / np.sqrt(dk)) @ part("V", h, dv)
                      for h in range(heads)]) @ arrays["WO"] + arrays["bO"]


def test_the_users_heads_side_by_side_with_heads_given_are_run_by_u_over_stacked_heads(tmp_path, capsys):
    """W_Q = [W_Q0 | W_Q1] (torch's in_proj, transposed) with heads = 2: with --bound N >= d
    U_N over stacked heads runs it, the program `usim prove theorem9_users_stacked
    --all-sizes` proves for every n, d, d_k, d_v <= N and every H."""
    rng = np.random.default_rng(11)
    arrays = dict(X=rng.normal(size=(2, 3)), WQ=rng.normal(size=(3, 2)), WK=rng.normal(size=(3, 2)),
                  WV=rng.normal(size=(3, 4)), bQ=rng.normal(size=(1, 2)), bK=rng.normal(size=(1, 2)),
                  bV=rng.normal(size=(1, 4)), WO=rng.normal(size=(4, 3)), bO=rng.normal(size=(1, 3)))
    path, out = tmp_path / "p.npz", tmp_path / "y.npy"
    np.savez(path, heads=2, **arrays)
    assert main(["simulate", str(path), "--bound", "3", "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("U for Spec(n=3, d=3, heads=2, form='projected', d_k=3, d_v=3, ") and \
        "stacked=True" in lines[0], lines[0]
    assert "`usim prove theorem9_users_stacked --all-sizes` (every n, d, d_k, d_v <= 3" in lines[1], lines[1]
    np.testing.assert_allclose(np.load(out), _users_heads(arrays, 2), atol=1e-10)


def _users_head_by_head(rng, n, d, heads, d_k, d_v):
    """A users'-form layer with biases and W_O given head by head (WQ_0, ..., bV_{H-1}), as --torch reads one."""
    arrays = {"X": rng.normal(size=(n, d)), "WO": rng.normal(size=(heads * d_v, d)), "bO": rng.normal(size=(1, d))}
    for h in range(heads):
        for base, width in (("Q", d_k), ("K", d_k), ("V", d_v)):
            arrays.update({f"W{base}_{h}": rng.normal(size=(d, width)), f"b{base}_{h}": rng.normal(size=(1, width))})
    return arrays


def test_per_head_blocks_placed_side_by_side_are_the_same_layer():
    from usim.constructions.universal.simulate import heads_side_by_side

    arrays = _users_head_by_head(np.random.default_rng(12), n=3, d=2, heads=2, d_k=1, d_v=2)
    side = heads_side_by_side(arrays)
    assert sorted(side) == ["WK", "WO", "WQ", "WV", "X", "bK", "bO", "bQ", "bV", "heads"]
    np.testing.assert_array_equal(side["WV"], np.hstack([arrays["WV_0"], arrays["WV_1"]]))
    spec = spec_from_arrays(side)[0]
    assert (spec.heads, spec.d_k, spec.d_v, spec.stacked) == (2, 1, 2, True)
    np.testing.assert_allclose(simulate(side)[0], simulate(arrays)[0], atol=1e-12)
    assert heads_side_by_side(side) is None and heads_side_by_side({"X": arrays["X"], "A": np.ones((2, 4))}) is None


def test_five_merged_heads_given_one_by_one_are_run_with_a_bound_by_u_n_over_stacked_heads(tmp_path, capsys):
    """theorem9 is about U for H <= 4 heads one by one and about U over stacked heads for
    every H; five heads' A_0, ..., A_4 with --bound N are placed side by side and run by
    U_N over stacked heads, the program of theorem9 and of theorem9_stacked: the same layer."""
    rng = np.random.default_rng(13)
    arrays = {"X": rng.normal(size=(2, 2)), "WO": rng.normal(size=(10, 2))}
    for h in range(5):
        arrays.update({f"A_{h}": rng.normal(size=(2, 2)) / 2, f"V_{h}": rng.normal(size=(2, 2))})
    path, out = tmp_path / "p.npz", tmp_path / "y.npy"
    np.savez(path, **arrays)
    assert main(["simulate", str(path), "--bound", "3", "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "stacked=True" in lines[0] and "`usim prove theorem9 --all-sizes` (every n, d, d_v <= 3; also " \
        "theorem9_stacked;" in lines[1], lines[:2]
    np.testing.assert_allclose(np.load(out), simulate(arrays)[0], atol=1e-12)  # U for the heads one by one


def test_a_torch_layer_with_a_bound_is_run_by_u_n_over_stacked_heads_its_heads_placed_side_by_side(capsys):
    pytest.importorskip("torch")
    assert main(["simulate", "--torch", "mha", "--n", "3", "--d", "4", "--heads", "2", "--bound", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "stacked=True" in lines[0] and "`usim prove theorem9_users_stacked --all-sizes`" in lines[1], lines[:2]
    assert any("(agree, tolerance 1e-10)" in line for line in lines)
    assert main(["simulate", "--torch", "mha", "--n", "3", "--d", "4", "--heads", "2"]) == 0  # its own sizes
    lines = capsys.readouterr().out.splitlines()
    assert "stacked=True" not in lines[0] and lines[1].startswith(
        "for every size: this U (built for 3 x 4) is no statement's program; --bound 4 runs U_4, the program of "
        "`usim prove theorem9_users_stacked --all-sizes`"), lines[:2]
    assert main(["simulate", "--torch", "encoder", "--n", "3", "--d", "4", "--heads", "2", "--ff", "4",
                 "--bound", "4"]) == 0  # an encoder whose feed-forward width is d
    lines = capsys.readouterr().out.splitlines()
    assert "`usim prove corollary9_1_users_stacked --all-sizes` (every n, d, d_k, d_v <= 4" in lines[1], lines[:2]
    assert any("(agree, tolerance 1e-10)" in line for line in lines)


def test_a_bound_below_a_head_s_width_runs_u_for_the_layer_s_parts_and_names_the_bound_that_holds_it(
        tmp_path, capsys):
    """Per-head d_k = 3 > d = 2: U_2 over stacked heads cannot hold it; --bound 2 runs U for
    sequences up to 2, and the line names --bound 3, which runs U_3 of the statement."""
    arrays = _users_head_by_head(np.random.default_rng(14), n=2, d=2, heads=2, d_k=3, d_v=1)
    path = tmp_path / "p.npz"
    np.savez(path, **arrays)
    assert main(["simulate", str(path), "--bound", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "stacked=True" not in lines[0] and "--bound 3 runs U_3, the program of " \
        "`usim prove theorem9_users_stacked --all-sizes`" in lines[1], lines[:2]
    assert main(["simulate", str(path), "--bound", "3"]) == 0
    assert "`usim prove theorem9_users_stacked --all-sizes` (every n, d, d_k, d_v <= 3" in \
        capsys.readouterr().out.splitlines()[1]


def test_save_writes_the_torch_layer_s_arrays_as_given_also_when_u_n_runs_them_side_by_side(tmp_path, capsys):
    pytest.importorskip("torch")
    saved = tmp_path / "s.npz"
    assert main(["simulate", "--torch", "mha", "--n", "2", "--d", "2", "--heads", "2", "--bound", "2",
                 "--save", str(saved)]) == 0
    assert "stacked=True" in capsys.readouterr().out.splitlines()[0]
    assert {"WQ_0", "WQ_1"} <= set(np.load(saved).files) and "heads" not in np.load(saved).files


def test_a_layer_of_a_form_no_statement_for_every_size_is_about_says_so(tmp_path, capsys):
    rng = np.random.default_rng(6)
    path = tmp_path / "p.npz"
    np.savez(path, X=rng.normal(size=(2, 2)), WQ=rng.normal(size=(2, 1)), WK=rng.normal(size=(2, 1)),
             WV=rng.normal(size=(2, 2)))  # the projected form without biases, d_k = 1
    assert main(["simulate", str(path), "--bound", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("U for Spec(n=3, d=2, ")  # sequences up to 3, its own widths
    assert lines[1].startswith("for every size: no statement is about a layer of this form")


def test_simulate_makes_one_interpretation_call(monkeypatch):
    calls = []
    original = evaluate_module.evaluate_sops

    def counting(*args, **kwargs):
        calls.append(args[0])
        return original(*args, **kwargs)

    monkeypatch.setattr(evaluate_module, "evaluate_sops", counting)
    rng = np.random.default_rng(5)
    arrays = dict(X=rng.normal(size=(3, 2)), A_0=rng.normal(size=(2, 2)), V_0=rng.normal(size=(2, 2)),
                  A_1=rng.normal(size=(2, 2)), V_1=rng.normal(size=(2, 2)), WO=rng.normal(size=(4, 2)),
                  W1=rng.normal(size=(2, 3)), W2=rng.normal(size=(3, 2)), activation="relu", norm="none")
    simulate(arrays)
    assert len(calls) == 1 and len(calls[0]) == 1


@pytest.mark.parametrize("arrays,message", [
    (dict(A=np.eye(2), V=np.eye(2)), "no array X"),
    (dict(X=np.eye(2), A=np.eye(2)), "no array V"),
    (dict(X=np.eye(2), A=np.eye(3), V=np.eye(2)), "A has shape 3x3"),
    (dict(X=np.eye(2), A=np.eye(2), V=np.eye(2), Z=np.eye(2)), "unexpected array 'Z'"),
    (dict(X=np.eye(2), A=np.eye(2), V=np.eye(2), WQ=np.eye(2)), "either A and V"),
    (dict(X=np.eye(2), A=np.ones((2, 4)), V=np.ones((2, 3)), WO=np.ones((4, 2))), "V must hold 2 heads"),
    (dict(X=np.eye(2), A=np.ones((2, 4)), V=np.ones((2, 4))), "A has shape 2x4"),  # no W_O: one head
    (dict(X=np.eye(2), WQ=np.ones((2, 3)), WK=np.ones((2, 3)), WV=np.ones((2, 2)), heads=2),
     "the array WQ has 3 columns: heads = 2 side by side need a multiple of 2"),
    (dict(X=np.eye(2), WQ=np.ones((2, 2)), WK=np.ones((2, 2)), WV=np.ones((2, 2)), heads=1.5),
     "heads must be a whole number >= 1, got 1.5"),
    (dict(X=np.eye(2), WQ=np.ones((2, 2)), WK=np.ones((2, 2)), WV=np.ones((2, 2)), heads=[1, 2]),
     "heads must be one number"),
    (dict(X=np.eye(2), WQ=np.ones((2, 2)), WK=np.ones((2, 2)), WV=np.ones((2, 2)), heads=0),
     "heads must be a whole number >= 1, got 0"),
    (dict(X=np.eye(2), A=np.eye(2), V=np.eye(2), heads=2), "heads = 2, but the arrays hold 1 head(s)"),
    (dict(X=np.eye(2), WQ=np.ones((2, 2)), WK=np.ones((2, 2)), WV=np.ones((2, 2)), heads=True),
     "heads must be a whole number >= 1, not a truth value"),
    (dict(X=np.eye(2), WQ_0=np.ones((2, 1)), WK_0=np.ones((2, 1)), WV_0=np.ones((2, 1)), WQ_1=np.ones((2, 1)),
          WK_1=np.ones((2, 1)), WV_1=np.ones((2, 1)), WO=np.ones((2, 2)), heads=2),
     "the arrays are given head by head (WQ_0, ...): leave heads out"),
])
def test_simulate_names_the_mistake(tmp_path, capsys, arrays, message):
    path = tmp_path / "bad.npz"
    np.savez(path, **arrays)
    assert main(["simulate", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_spec_from_arrays_reads_heads_and_encoder():
    rng = np.random.default_rng(0)
    d = 4
    arrays = {"X": rng.normal(size=(3, d)), "WO": rng.normal(size=(d, d)), "bO": rng.normal(size=d)}
    for h in range(2):
        for base, width in (("WQ", 2), ("WK", 2), ("WV", 2)):
            arrays[f"{base}_{h}"] = rng.normal(size=(d, width))
        for base in ("bQ", "bK", "bV"):
            arrays[f"{base}_{h}"] = rng.normal(size=2)
    arrays.update(W1=rng.normal(size=(d, 5)), W2=rng.normal(size=(5, d)), activation=np.array("relu"),
                  norm=np.array("none"))  # an encoder says which variant it is
    spec, _, scale = spec_from_arrays(arrays)
    assert (spec.heads, spec.form, spec.d_k, spec.bias, spec.encoder, spec.norm, spec.d_ff) == \
        (2, "projected", 2, True, True, False, 5)
    assert scale == pytest.approx(1 / np.sqrt(2))


@pytest.mark.parametrize("kind,heads,d", [("mha", 1, 3), ("mha", 2, 4), ("encoder", 1, 2), ("encoder", 2, 4)])
def test_simulate_agrees_with_pytorch(kind, heads, d, capsys):
    pytest.importorskip("torch")
    ff = ["--ff", "6"] if kind == "encoder" else []  # --ff with mha is refused (it has no feed-forward part)
    code = main(["simulate", "--torch", kind, "--n", "3", "--d", str(d), "--heads", str(heads), *ff,
                 "--seed", "1"])
    out = capsys.readouterr().out
    assert "agree" in out
    assert code == 0


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["mha", "encoder"])
def test_u_on_a_bert_base_sized_layer_agrees_with_pytorch_to_1e_12(kind, capsys):
    """BERT-base's sizes (n = 128, d = 768, 12 heads, feed-forward width 3072): U's
    sequence is 2 460 675 positions long for the attention, 7 186 181 for the
    encoder layer; its run agrees with PyTorch's forward pass within 1e-12."""
    pytest.importorskip("torch")
    code = main(["simulate", "--torch", kind, "--n", "128", "--d", "768", "--heads", "12",
                 *(["--ff", "3072"] if kind == "encoder" else [])])
    out = capsys.readouterr().out
    assert code == 0, out[-500:]
    deviation = float(re.search(r"max \|U - torch\| = (\S+)", out).group(1))
    assert deviation <= 1e-12


def test_torch_layer_arrays_reproduce_the_layer():
    pytest.importorskip("torch")
    from usim.transformer.torch_layers import torch_layer

    expected, arrays = torch_layer("encoder", 4, 4, 2, 8, seed=2)
    y, _ = simulate(arrays)
    assert np.max(np.abs(y - expected)) <= 1e-10
    # a wrong conversion (out_proj.weight instead of its transpose) is caught
    arrays["WO"] = arrays["WO"].T.copy()
    y_bad, _ = simulate(arrays)
    assert np.max(np.abs(y_bad - expected)) > 1e-6


def test_the_command_states_the_limits_of_the_library():
    import ast
    import inspect

    from usim.commands import simulate as command
    from usim.constructions import options
    from usim.constructions.universal import simulate as library

    assert ((command.MAX_N, command.MAX_LENGTH) == (library.MAX_N, library.MAX_LENGTH)
            == (options.MAX_N, options.MAX_LENGTH))
    for module in (command, library):  # neither keeps a copy of its own: one definition, in constructions.options
        assigned = {t.id for n in ast.walk(ast.parse(inspect.getsource(module))) if isinstance(n, ast.Assign)
                    for t in n.targets if isinstance(t, ast.Name)}
        assert not {"MAX_N", "MAX_LENGTH"} & assigned, module.__name__
