"""A numeric run is right or an error: never a wrong number with exit status 0.

U computes softmax as exp(S) / sum exp(S) with no row maximum subtracted (as the
paper does), so in float64 scores above ~709 overflow, and scores near -740 give
subnormal exps whose ratios are off by ~1e-3 while looking fine. The strict
numeric interpretation catches every such loss of range; ``usim simulate`` and
``usim run`` then retry in long double and, beyond that, stop with one line.
References are computed here with the row maximum subtracted.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from usim.cli import main
from usim.constructions.universal import simulate as simulate_command
from usim.constructions.universal.simulate import run_simulation
from usim.constructions.softmax import softmax_construction
from usim.encodings.runners import WIDER_THAN_FLOAT64, run_numeric, run_numeric_in_range
from usim.errors import RangeError, UndefinedError
from usim.rasp.expr import Predicate, aggregate, exp, indices, select, tokens, where
from usim.rasp.program import Program

REPO = Path(__file__).resolve().parents[2]
needs_long_double = pytest.mark.skipif(not WIDER_THAN_FLOAT64,
                                       reason="long double is float64 on this platform")


def softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def merged_layer(centre: float, n: int = 4, spread: float = 0.01, seed: int = 0) -> dict[str, np.ndarray]:
    """X (n x 2) near 1 and A = (centre / 2) I: scores X A X^T all close to ``centre``."""
    rng = np.random.default_rng(seed)
    x = 1 + spread * rng.normal(size=(n, 2))
    return dict(X=x, A=np.eye(2) * centre / 2, V=rng.normal(size=(2, 2)))


def attention(arrays: dict[str, np.ndarray]) -> np.ndarray:
    x = arrays["X"]
    return softmax(x @ arrays["A"] @ x.T) @ x @ arrays["V"]


def program(name: str, out) -> Program:
    return Program.of(name, {"out": out}, name)


# -- U through usim simulate ------------------------------------------------------------


@needs_long_double
@pytest.mark.parametrize("centre", [710.0, 750.0, -740.0, -741.0, -800.0, 5000.0])
def test_u_is_right_where_float64_leaves_its_range(centre: float) -> None:
    arrays = merged_layer(centre)
    scores = arrays["X"] @ arrays["A"] @ arrays["X"].T
    assert np.abs(scores).max() > 709  # beyond float64's exp, or its normal numbers
    result = run_simulation(arrays)
    np.testing.assert_allclose(result.y, attention(arrays), rtol=0, atol=1e-10)
    assert result.dtype is np.longdouble


@needs_long_double
def test_scores_all_near_709_average_the_values_instead_of_giving_0(tmp_path: Path, capsys) -> None:
    # three scores of 709: each exp fits float64, their sum does not (e / inf would be 0)
    x = np.ones((3, 1))
    arrays = dict(X=x, A=np.array([[709.0]]), V=np.array([[2.0]]))
    path, out = tmp_path / "p.npz", tmp_path / "y.npy"
    np.savez(path, **arrays)
    assert main(["simulate", str(path), "--out", str(out)]) == 0
    np.testing.assert_allclose(np.load(out), attention(arrays), rtol=0, atol=1e-12)
    assert "long double" in capsys.readouterr().out


def test_scores_beyond_long_double_are_one_line_naming_the_largest(tmp_path: Path) -> None:
    path, out = tmp_path / "p.npz", tmp_path / "y.npy"
    np.savez(path, X=np.ones((2, 1)), A=np.array([[20000.0]]), V=np.array([[1.0]]))
    done = subprocess.run([sys.executable, "-P", "-m", "usim", "simulate", str(path), "--out", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    lines = done.stderr.splitlines()  # no warning, no traceback: one line
    assert len(lines) == 1 and lines[0].startswith("usim simulate: error: "), done.stderr
    assert "scores reach 2e+04" in lines[0] and "exp" in lines[0]
    assert done.stdout == "" and not out.exists()


def test_the_simulate_output_checks_itself_for_non_finite_values(monkeypatch) -> None:
    arrays = merged_layer(1.0)
    real = simulate_command.run_evaluator_in_range

    def overflowing(evaluator, seq):  # a run that came back with an infinity in T(X)
        outputs, dtype = real(evaluator, seq)
        outputs["Y"][0, 0] = np.inf
        return outputs, dtype

    monkeypatch.setattr(simulate_command, "run_evaluator_in_range", overflowing)
    with pytest.raises(RangeError, match=r"T\(X\) has an entry beyond float64's range at \(0, 0\)"):
        run_simulation(arrays)


def test_a_default_pytorch_layer_on_large_inputs_agrees_or_stops() -> None:
    torch = pytest.importorskip("torch")
    from usim.transformer.torch_layers import torch_arrays

    for scale, seed in ((50.0, 0), (400.0, 4)):
        torch.manual_seed(seed)
        layer = torch.nn.MultiheadAttention(4, 2, dropout=0.0, batch_first=True, dtype=torch.float64).eval()
        x = scale * torch.randn(1, 5, 4, dtype=torch.float64)
        with torch.no_grad():
            expected = layer(x, x, x, need_weights=False)[0][0].numpy()
        arrays = torch_arrays(None, layer)
        arrays["X"] = x[0].numpy()
        if scale == 50.0:  # scores in the thousands: beyond float64, within long double
            assert np.max(np.abs(run_simulation(arrays).y - expected)) <= 1e-10
        else:
            with pytest.raises(RangeError, match="scores reach"):
                run_simulation(arrays)


# -- usim run softmax ----------------------------------------------------------------------


@needs_long_double
def test_run_softmax_is_right_beyond_float64(capsys) -> None:
    assert main(["run", "softmax", "--shape", "2x2", "--values=750,749,-800,-801"]) == 0
    out = capsys.readouterr().out
    assert "long double" in out
    assert float(out.split("largest difference: ")[1].split()[0]) < 1e-12


def test_run_softmax_beyond_long_double_is_one_line(capsys) -> None:
    assert main(["run", "softmax", "--shape", "1x2", "--values", "1e300,0"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and "leaves the range of float64" in lines[0] and "exp" in lines[0]
    assert captured.out == ""


# -- the strict interpretation, operation by operation --------------------------------------


def test_strict_float64_names_the_exp_that_overflows_and_the_default_stays_ieee() -> None:
    c = softmax_construction(1, 2)
    assert np.isnan(run_numeric(c.program, [710.0, 0.0])["softmax"]).any()  # the fast default: IEEE
    with pytest.raises(RangeError, match=r"in e = exp\(tokens\): exp overflows float64.*710"):
        run_numeric(c.program, [710.0, 0.0], strict=True)


@pytest.mark.parametrize("values, kind", [([-740.0, -741.0], "subnormal"), ([-800.0, -801.0], "underflows to 0")])
def test_strict_float64_refuses_subnormal_and_vanishing_exps(values: list[float], kind: str) -> None:
    c = softmax_construction(1, 2)
    with pytest.raises(RangeError, match=kind):
        run_numeric(c.program, values, strict=True)
    if WIDER_THAN_FLOAT64:
        outputs, dtype = run_numeric_in_range(c.program, values)
        np.testing.assert_allclose(outputs["softmax"].astype(float), softmax(np.array([values])), atol=1e-15)
        assert dtype is np.longdouble


def test_a_product_that_underflows_to_zero_is_refused() -> None:
    square = program("square", tokens * tokens)
    assert run_numeric(square, [1e-200])["out"][0, 0] == 0.0  # the default: silently 0
    with pytest.raises(RangeError, match="'\\*' underflows to 0 in float64"):
        run_numeric(square, [1e-200], strict=True)


@needs_long_double
def test_an_average_whose_sum_overflows_is_refused_in_float64_and_right_in_long_double() -> None:
    everything = select(indices, indices, Predicate.TRUE)
    mean = program("mean", aggregate(everything, tokens))
    with pytest.raises(RangeError, match="average of an aggregate overflows float64"):
        run_numeric(mean, [1e308, 1e308], strict=True)
    outputs, _ = run_numeric_in_range(mean, [1e308, 1e308])
    assert float(outputs["out"][0, 0]) == 1e308


def test_an_undefined_output_is_an_error_but_an_untaken_branch_is_not() -> None:
    inverse = program("inverse", 1 / tokens)
    with pytest.raises(UndefinedError, match="the output out is undefined .* at position 1"):
        run_numeric(inverse, [2.0, 0.0], strict=True)
    guarded = program("guarded", where(tokens != 0, 1 / tokens, 0))
    assert run_numeric(guarded, [2.0, 0.0], strict=True)["out"].tolist() == [[0.5, 0.0]]


def test_a_comparison_of_an_undefined_value_is_an_error_not_a_silent_false() -> None:
    positive = program("positive", where(1 / tokens > 0, 1, 2))
    assert run_numeric(positive, [0.0])["out"][0, 0] == 2.0  # the default: NaN > 0 is False
    with pytest.raises(UndefinedError, match="reads an undefined value"):
        run_numeric(positive, [0.0], strict=True)


def test_the_range_error_comes_from_the_widest_type_with_its_magnitude() -> None:
    c = softmax_construction(1, 2)
    with pytest.raises(RangeError) as caught:
        run_numeric_in_range(c.program, [20000.0, 0.0])
    assert caught.value.magnitude == 20000.0
    assert "long double" in str(caught.value) or not WIDER_THAN_FLOAT64


def test_the_default_interpretation_keeps_ieee_results() -> None:
    # the default interpretation keeps numpy's semantics and speed: no check, no error
    e = program("e", exp(tokens))
    assert run_numeric(e, [-800.0, 800.0])["out"].tolist() == [[0.0, np.inf]]


@pytest.mark.parametrize("selector", [
    select(2, indices, Predicate.LT),          # an outer selection: queries 0..2 select no key
    select(indices, indices + 3, Predicate.EQ),  # a gather: the last rows select none
], ids=["outer", "gather"])
def test_a_default_below_float64s_normal_range_is_an_error_not_a_rounded_number(selector) -> None:
    # found in review: the empty rows' default was not audited (the outer branch, after a
    # speed change; the other branches never), and long double read it through a float64
    # that had already lost its digits: 1e-20 came out as 9.99988867e-21 with exit 0
    from fractions import Fraction

    tiny = aggregate(selector, tokens, default=Fraction(1, 10**320))
    program = Program.of("p", {"out": (tiny * 10**300).named("out")})
    with pytest.raises(RangeError, match="the default 1/1000.* of an aggregate .* below float64's normal range"):
        run_numeric_in_range(program, np.asarray([1.0, 2, 3, 4, 5]))
    every_row_selects = aggregate(select(indices, indices, Predicate.EQ), tokens, default=Fraction(1, 10**320))
    out = run_numeric(Program.of("q", {"o": every_row_selects}), [1, 2, 3], strict=True)
    assert out["o"].tolist() == [[1.0, 2.0, 3.0]]  # a default no row holds is not refused
