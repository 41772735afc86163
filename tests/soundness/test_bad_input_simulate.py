"""``usim simulate``: every bad input is one line on stderr and exit status 2.

A file U cannot read or does not simulate (a pre-norm or GELU encoder, an
encoder that does not say which it is, complex or text arrays, a vector scale,
eps <= 0), an option it cannot honour (a missing folder for --out, --heads 0,
a params file together with --torch) is refused before U is built or anything
is written. None of these needs PyTorch: the options are checked first.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from soundness_statements import refused as refused_command
from usim.cli import main
from usim.constructions.options import MAX_LENGTH, MAX_N

RNG = np.random.default_rng(7)
X, A, V = RNG.normal(size=(3, 2)), RNG.normal(size=(2, 2)), RNG.normal(size=(2, 2))
ENCODER = dict(X=X, WQ=A, WK=A, WV=A, WO=np.eye(2), W1=np.eye(2), W2=np.eye(2), g1=np.ones(2),
               be1=np.zeros(2), eps1=1e-5, g2=np.ones(2), be2=np.zeros(2), eps2=1e-5,
               activation="relu", norm="post")


def refused(capsys, argv: list[str]) -> str:
    """Run ``usim simulate ARGV``: one line, exit 2 (soundness_statements.refused)."""
    return refused_command(capsys, ["simulate", *argv])


def npz(tmp_path: Path, **arrays) -> str:
    path = tmp_path / "params.npz"
    np.savez(path, **arrays)
    return str(path)


def but(base: dict, **changes) -> dict:
    """``base`` with entries replaced (None: removed)."""
    out = {**base, **changes}
    return {k: v for k, v in out.items() if v is not None}


ATTENTION = dict(X=X, A=A, V=V)


@pytest.mark.parametrize("arrays, message", [
    # what U does not simulate, or a file that does not say
    (but(ENCODER, norm="pre"), r"post-norm encoders .* not norm='pre' \(pre-norm"),
    (but(ENCODER, activation="gelu"), r"ReLU feed-forward part, not activation='gelu'"),
    (but(ENCODER, activation="tanh"), r"not activation='tanh'"),
    (but(ENCODER, norm="sandwich"), r"not norm='sandwich'"),
    (but(ENCODER, activation=None), r"must say which variant it is: it has no entry activation"),
    (but(ENCODER, norm=None), r"it has no entry norm"),
    (but(ENCODER, norm=np.array(1.0)), r"the entry norm must be one string"),
    (but(ENCODER, norm=np.array(["post", "post"])), r"the entry norm must be one string"),
    (but(ATTENTION, norm="post"), r"the entry norm describes an encoder, but there is no W1"),
    (but(ENCODER, norm="none"), r"unexpected array 'be1'"),  # says no norm, has norm arrays
    # scalars
    (but(ENCODER, eps1=0.0), r"eps1 must be positive, got 0"),
    (but(ENCODER, eps2=-1e-5), r"eps2 must be positive"),
    (but(ENCODER, eps1=np.array([1e-5, 1e-5])), r"eps1 must be one number, got an array of shape \(2,\)"),
    (but(ATTENTION, scale=np.array([0.5, 2.0])), r"scale must be one number, got an array of shape \(2,\)"),
    (but(ATTENTION, scale=np.full((2, 2), 0.5)), r"scale must be one number, got an array of shape \(2, 2\)"),
    (but(ATTENTION, scale=-1.0), r"scale must be positive, got -1"),
    (but(ATTENTION, scale=0.0), r"scale must be positive, got 0"),
    (but(ATTENTION, scale=np.nan), r"the array scale has a non-finite value"),
    # what is not an array of real numbers
    (but(ATTENTION, X=X + 1j), r"the array X is complex \(complex128\)"),
    (but(ATTENTION, A=A.astype(np.complex64)), r"the array A is complex"),
    (but(ATTENTION, V=np.array([["1", "2"], ["3", "4"]])), r"the array V holds text"),
    (but(ATTENTION, X=np.array([b"ab"])), r"the array X holds text"),
    (but(ATTENTION, X=np.array([[np.datetime64("2020-01-01")]])), r"the array X has dtype datetime64"),
    (but(ATTENTION, X=np.full((3, 2), np.longdouble("1e400"))), r"the array X has a value beyond float64"),
    (but(ATTENTION, X=np.array([[1.0, np.inf], [0.0, 0.0]])), r"the array X has a non-finite value"),
    # shapes and names
    (but(ATTENTION, A=np.eye(3)), r"the array A has shape 3x3, this layer needs 2x2"),
    (but(ATTENTION, X=np.zeros((0, 2))), r"the array X is empty"),
    (but(ATTENTION, X=np.zeros((2, 2, 2))), r"the array X must be a matrix or a vector"),
    (but(ATTENTION, X=None), r"no array X"),
    (but(ATTENTION, V=None), r"no array V"),
    (but(ATTENTION, Z=np.eye(2)), r"unexpected array 'Z'"),
    ({}, r"no array X"),
    (but(ATTENTION, X=RNG.normal(size=(MAX_N + 1, 2))), rf"sequence length {MAX_N + 1} exceeds .* limit of {MAX_N}"),
    (but(ATTENTION, X=RNG.normal(size=(2, 2000)), A=np.eye(2000), V=np.eye(2000)),
     rf"positions, above usim simulate's limit of {MAX_LENGTH}"),
])
def test_a_bad_parameters_file_is_one_line(tmp_path: Path, capsys, arrays: dict, message: str) -> None:
    line = refused(capsys, [npz(tmp_path, **arrays), "--out", str(tmp_path / "y.npy")])
    assert re.search(message, line), line
    assert not (tmp_path / "y.npy").exists()


def test_object_arrays_are_refused_without_unpickling(tmp_path: Path, capsys) -> None:
    path = npz(tmp_path, X=np.array([1, None], dtype=object), A=A, V=V)
    assert re.search(r"the array X in .* holds Python objects", refused(capsys, [path]))


@pytest.mark.parametrize("make, message", [
    (lambda d: np.save(d / "p.npy", X) or d / "p.npy", r"holds a single array \(\.npy\), not named arrays"),
    (lambda d: d / "missing.npz", r"cannot read .*missing.npz: no such file"),
    (lambda d: d, r"it is a folder, not an .npz file"),
    (lambda d: (d / "p.npz").write_bytes(b"") and None or d / "p.npz", r"the file is empty"),
    (lambda d: (d / "p.npz").write_text("X = [1, 2]") and None or d / "p.npz", r"it is not an .npz file"),
    (lambda d: (d / "p.npz").write_bytes(b"PK\x03\x04broken") and None or d / "p.npz", r"it is not an .npz file"),
])
def test_a_file_that_is_not_an_npz_is_one_line(tmp_path: Path, capsys, make, message: str) -> None:
    path = make(tmp_path)
    assert re.search(message, refused(capsys, [str(path)]))


@pytest.mark.parametrize("argv, message", [
    (["--torch", "mha", "--heads", "0"], r"--heads must be a positive whole number, got 0"),
    (["--torch", "mha", "--d", "0"], r"--d must be a positive whole number, got 0"),
    (["--torch", "mha", "--n=-2"], r"--n must be a positive whole number, got -2"),
    (["--torch", "encoder", "--ff", "0"], r"--ff must be a positive whole number"),
    (["--torch", "mha", "--d", "3"], r"the width d = 3 is not divisible by heads = 2"),
    (["--torch", "mha", "--seed=-1"], r"--seed must be a whole number from 0 to 2\*\*64 - 1"),
    (["--torch", "mha", "--seed", str(2**64)], r"--seed must be a whole number"),
    (["--torch", "mha", "--ff", "8"], r"--ff applies to --torch encoder only"),
    (["--torch", "mha", "--n", str(MAX_N + 1)], rf"exceeds usim simulate's limit of {MAX_N}"),
    (["--torch", "encoder", "--d", "100000"], rf"above usim simulate's limit of {MAX_LENGTH}"),
    (["--torch", "mha", "--bound", "1000000000"], rf"the bound 1000000000 exceeds usim simulate's limit of {MAX_N}"),
    (["--torch", "mha", "--bound", "2"], r"the bound 2 is below the sequence length n = 4"),
    (["--torch", "gpt"], r"invalid choice: 'gpt'"),
    (["--torch", "mha", "--heads", "two"], r"invalid int value: 'two'"),
    ([], r"give an .npz file of parameters, or --torch mha\|encoder"),
])
def test_a_bad_option_is_one_line_before_pytorch_is_needed(capsys, argv: list[str], message: str) -> None:
    assert re.search(message, refused(capsys, argv))


def test_options_that_would_be_silently_ignored_are_refused(tmp_path: Path, capsys) -> None:
    path = npz(tmp_path, **ATTENTION)
    assert "either a parameters file" in refused(capsys, [path, "--torch", "mha"])
    assert "--n applies to --torch only" in refused(capsys, [path, "--n", "3"])
    assert "--seed applies to --torch only" in refused(capsys, [path, "--seed", "3"])
    assert "--save applies to --torch only" in refused(capsys, [path, "--save", str(tmp_path / "p.npz")])
    assert "bound 1000000 exceeds" in refused(capsys, [path, "--bound", "1000000"])


def test_an_output_that_cannot_be_written_is_refused_before_the_run(tmp_path: Path, capsys) -> None:
    path = npz(tmp_path, **ATTENTION)
    missing = tmp_path / "no" / "such" / "folder"
    assert re.search(r"cannot write .*y.npy: the folder .*folder does not exist",
                     refused(capsys, [path, "--out", str(missing / "y.npy")]))
    assert "it is a folder" in refused(capsys, [path, "--out", str(tmp_path)])
    assert "the file name is empty" in refused(capsys, [path, "--out="])
    assert re.search(r"cannot write .*p.npz: the folder",
                     refused(capsys, ["--torch", "mha", "--save", str(missing / "p.npz")]))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["params.npz"]  # nothing else written


def test_a_run_that_fails_writes_nothing(tmp_path: Path, capsys) -> None:
    path = npz(tmp_path, X=np.ones((2, 1)), A=np.array([[20000.0]]), V=np.ones((1, 1)))
    assert "scores reach" in refused(capsys, [path, "--out", str(tmp_path / "y")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["params.npz"]


def test_the_variants_u_simulates_run(tmp_path: Path, capsys) -> None:
    for arrays in (ENCODER, but(ENCODER, activation=" ReLU ", norm=np.array(b"post")),
                   but(ENCODER, norm="none", g1=None, be1=None, eps1=None, g2=None, be2=None, eps2=None)):
        out = tmp_path / "y"
        assert main(["simulate", npz(tmp_path, **arrays), "--out", str(out)]) == 0
        assert np.all(np.isfinite(np.load(tmp_path / "y.npy")))  # numpy's suffix, as documented
        assert capsys.readouterr().err == ""


def test_a_saved_pytorch_encoder_says_its_variant_and_runs_again(tmp_path: Path, capsys) -> None:
    pytest.importorskip("torch")
    saved = tmp_path / "layer.npz"
    assert main(["simulate", "--torch", "encoder", "--save", str(saved)]) == 0
    with np.load(saved) as data:
        assert (str(data["activation"]), str(data["norm"])) == ("relu", "post")
    assert main(["simulate", str(saved)]) == 0


@pytest.mark.parametrize("variant, message", [(dict(norm_first=True), "not norm='pre'"),
                                              (dict(activation="gelu"), "not activation='gelu'")])
def test_an_exported_pre_norm_or_gelu_encoder_is_refused(tmp_path: Path, capsys, variant, message) -> None:
    torch = pytest.importorskip("torch")
    from usim.transformer.torch_layers import torch_arrays

    layer = torch.nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0, batch_first=True,
                                             dtype=torch.float64, **variant)
    arrays = torch_arrays(layer, layer.self_attn)
    assert message in refused(capsys, [npz(tmp_path, X=np.ones((3, 4)), **arrays)])
