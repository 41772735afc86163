"""U's stages composed by an equation: U over stacked heads proved for every N, H and
n, d, d_v <= N from its seven stages and the equation (the stages' meanings composed on T
placed into U's input = Theorem 9's formula, zero-padded); and chains that must fail:
parts out of order, a formula the stages do not compute, a placement that is not
usim simulate's, a header not carried to the stage that sets n."""

from __future__ import annotations

import dataclasses
import json

import sympy

from usim.constructions.universal import HEADER
from usim.encodings.sized import matrix_of
from usim.engine.claim import Status
from usim.engine.parametric.prove import prove_equation
from usim.proofs import composed, family
from usim.proofs._stage_equation import composed_targets, equation_composition, header_dims, wiring_equation
from usim.proofs._stages import UniversalFamily
from usim.proofs._universal import attention_formula
from usim.proofs.theorem9_stacked import FAMILIES, FAMILY, THEOREM9_STACKED, spec_of


def _not_proved(chain) -> bool:
    """The chain does not hold: its equation not proved (refuted somewhere) or not decided."""
    return chain.ok is not True and any("is not proved" in p or "is not decided" in p
                                        for p in chain.problems + chain.undecided)


def test_theorem9_over_stacked_heads_is_registered_as_its_seven_stages_over_n_and_h():
    assert composed()["theorem9_stacked"] is THEOREM9_STACKED
    assert [p.id for p in THEOREM9_STACKED.parts] == [f"theorem9_stacked_stage{k}" for k in range(1, 8)]
    assert header_dims(FAMILY) == ("n",)  # only the softmax stage reads the header's n; none reads d
    assert THEOREM9_STACKED.dims == ("N", "h", "n", "d", "d_v")  # T's widths, placed head by head, read by no stage
    assert THEOREM9_STACKED.describe_conditions() == \
        "N >= 1, h >= 1, n >= 1, d >= 1, d_v >= 1, ((n <= N) and (d <= N)) and (d_v <= N)"


def test_the_stages_compose_to_theorem_9_for_every_n_h_and_tokens():
    chain = equation_composition(FAMILY, list(FAMILIES), attention_formula)
    assert chain.ok, chain.problems
    assert any("proved by the parametric engine" in c for c in chain.checks)


def test_the_equation_alone_is_proved_with_its_divisors_and_reads_checked():
    verdict = prove_equation(wiring_equation(FAMILY, attention_formula))
    assert verdict.status is Status.PROVED, verdict.reason
    steps = {s.step: s for s in verdict.steps}
    assert steps["every real divisor is non-zero"].proved >= 1  # the softmax's denominators
    assert steps["the target reads inside its inputs"].proved >= 1


def test_the_equation_reads_t_placed_head_by_head_at_every_width():
    equation = wiring_equation(FAMILY, attention_formula)
    N, h, n, d, d_v = equation.symbols()
    assert [str(x) for x in dict(equation.inputs(N, h, n, d, d_v))["V"]] == ["d", "h * d_v"]  # T's blocks, not U's
    assert dict(equation.inputs(2, 3, 1, 2, 1)) == {HEADER: (1, 3), "X": (1, 2), "A": (2, 6), "V": (2, 3),
                                                    "WO": (3, 2)}


def test_a_placement_that_is_not_usim_simulate_s_is_found(monkeypatch):
    """W_O placed as if T were of U's width (its rows g d .. read at g N ..): the shapes are
    U's, but at fixed sizes it is not where usim simulate places W_O; and the equation
    over it, asked alone, is not proved."""
    import usim.proofs._stage_equation as module
    from usim.constructions.universal import placed_blocks
    from usim.encodings.sized import both, when

    def at_u_width(big, small, blocks):
        found = placed_blocks(big, small, blocks)
        WO, N = blocks["WO"], big.d_v
        found["WO"] = matrix_of(big.heads * N, N, lambda k, j: when(
            both(k < WO.rows, j < WO.cols), lambda: WO[k, j], lambda: 0))
        return found

    monkeypatch.setattr(module, "placed_blocks", at_u_width)
    chain = equation_composition(FAMILY, list(FAMILIES), attention_formula)
    assert any("T's WO is placed where usim simulate does not place it" in p for p in chain.problems), chain
    assert prove_equation(wiring_equation(FAMILY, attention_formula)).status is not Status.PROVED


def test_the_composed_meanings_at_integers_are_the_layer_on_the_first_n_rows_and_0_below():
    m = {"X": sympy.Matrix([[1, -2], [3, 1]]), "A": sympy.Matrix([[1, 0, 2, -1], [0, 1, 1, 3]]),
         "V": sympy.Matrix([[2, 1, 0, -1], [1, 1, 4, 2]]), "WO": sympy.Matrix([[1, 0], [0, 1], [2, 1], [1, -1]]),
         HEADER: sympy.Matrix([[1, 2, sympy.Rational(1, 3)]])}
    got = composed_targets(FAMILY, 2, 2, 1)(m)["Att"]  # N = 2, H = 2, n = 1: X's second row is not T's
    want = attention_formula(spec_of(1, 2, 2), m, m[HEADER][0, 2])
    assert sympy.simplify(got[:1, :] - want) == sympy.zeros(1, 2)
    assert got[1, :] == sympy.zeros(1, 2)


def test_stages_out_of_order_do_not_compose():
    chain = equation_composition(FAMILY, [FAMILIES[1], FAMILIES[0], *FAMILIES[2:]], attention_formula)
    assert any("is not stage 1" in p for p in chain.problems)


def test_a_formula_reading_head_0_for_every_head_is_not_what_the_stages_compose_to():
    def head_0_only(spec, m, c):
        A = m["A"]
        return attention_formula(spec, {**m, "A": matrix_of(A.rows, A.cols, lambda i, j: A[i, j % spec.d])}, c)

    chain = equation_composition(FAMILY, list(FAMILIES), head_0_only)
    assert _not_proved(chain), chain


def test_a_formula_reading_each_head_s_values_at_the_models_width_is_not_what_the_stages_compose_to():
    def values_at_d(spec, m, c):  # V_h read at columns h d .. as if d_v were d
        V, dv, d = m["V"], spec.d_v, spec.d
        wide = matrix_of(V.rows, V.cols, lambda i, j: V[i, ((j // dv) * d + j % dv) % V.cols])
        return attention_formula(spec, {**m, "V": wide}, c)

    chain = equation_composition(FAMILY, list(FAMILIES), values_at_d)
    assert _not_proved(chain), chain


def test_a_formula_with_a_zero_token_more_is_not_what_the_stages_compose_to():
    from usim.encodings.sized import when

    def one_more(spec, m, c):  # X with a zero row more: U masks the padded keys, this formula does not
        X = m["X"]
        padded = matrix_of(X.rows + 1, X.cols, lambda i, j: when(i < X.rows, lambda: X[i, j], lambda: 0))
        return attention_formula(dataclasses.replace(spec, n=spec.n + 1), {**m, "X": padded}, c)

    chain = equation_composition(FAMILY, list(FAMILIES), one_more)
    assert _not_proved(chain), chain


class _DroppedHeader(UniversalFamily):
    """U whose stage 1 drops the header from its output (stage 4 still sets its n)."""

    def at(self, bound, *extra):
        u = super().at(bound, *extra)
        first = u.stages[0]
        out = dataclasses.replace(first.output, blocks=tuple(b for b in first.output.blocks if b.name != HEADER))
        return dataclasses.replace(u, stages=(dataclasses.replace(first, output=out),) + u.stages[1:])


def test_a_header_not_carried_to_the_stage_that_sets_n_is_found():
    dropped = _DroppedHeader(spec_of, extra=("h",), label="U_{N,h}")
    chain = equation_composition(dropped, list(FAMILIES), attention_formula)
    assert any("not carried" in p for p in chain.problems)
    assert not chain.ok


def test_usim_proves_theorem9_for_every_h_and_n_from_its_stages(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "theorem9_stacked.json"
    run = subprocess.run([sys.executable, "-P", "-m", "usim", "prove", "theorem9_stacked", "--all-sizes",
                          "--max-n", "1", "--json", str(path), "-q", "-j", "2"],
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "theorem9_stacked: PROVED for every size (N >= 1, h >= 1, n >= 1, d >= 1, d_v >= 1, " in run.stdout
    section = json.loads(path.read_text())["all_sizes"]
    assert [p["status"] for p in section["result"]["parts"]] == ["PROVED"] * 7
    assert section["result"]["chain"]["problems"] == []
    assert family("theorem9_stacked") is THEOREM9_STACKED


def test_the_stacked_formula_is_each_head_s_softmax_concatenated_times_w_o():
    """The formula both proofs use, against a separate per-head computation (A_h, V_h column slices)."""
    import numpy as np

    rng = np.random.default_rng(3)
    for n, d, heads in [(2, 2, 3), (2, 3, 2), (3, 1, 1)]:
        X, A, V, WO = (rng.integers(-3, 4, size=shape) for shape in [(n, d), (d, heads * d), (d, heads * d),
                                                                      (heads * d, d)])
        c = sympy.Rational(1, 2)
        m = {"X": sympy.Matrix(X), "A": sympy.Matrix(A), "V": sympy.Matrix(V), "WO": sympy.Matrix(WO)}
        got = attention_formula(spec_of(n, d, heads), m, c)
        outputs = []
        for h in range(heads):
            scores = (m["X"] * m["A"][:, h * d:(h + 1) * d] * m["X"].T) * c
            weights = sympy.Matrix(n, n, lambda i, j: sympy.exp(scores[i, j]) / sum(
                sympy.exp(scores[i, l]) for l in range(n)))
            outputs.append(weights * m["X"] * m["V"][:, h * d:(h + 1) * d])
        want = sympy.Matrix.hstack(*outputs) * m["WO"]
        assert all(abs(float(x)) < 1e-9 for x in (got - want).evalf(30)), (n, d, heads)
