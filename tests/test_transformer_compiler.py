"""The compiler from RASP to weights: what it builds, what it refuses, and that the weights compute the program."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from usim.constructions.matmul import matmul_construction
from usim.constructions.softmax import softmax_construction
from usim.constructions.transpose import transpose_construction
from usim.constructions.universal import LayerSpec, build
from usim.encodings.evaluate import evaluate
from usim.encodings.exact import EXACT
from usim.encodings.numeric import NumericInterpretation
from usim.encodings.runners import run_numeric
from usim.rasp.expr import Predicate, Semantics, aggregate, exp, indices, select, selector_width, tokens, where
from usim.rasp.program import Program
from usim.transformer.circuit import CompileError
from usim.transformer.compiler import compile_program, compile_universal
from usim.transformer.forward import head_selection, run
from usim.transformer.hard_to_masked import hard_to_masked
from usim.transformer.model import HARD, SOFT
from usim.transformer.size import size_of

NUMERIC = NumericInterpretation()


def _exact_agreement(program: Program, n: int, trials: int = 5, seed: int = 0) -> None:
    network = compile_program(program, n)
    rng = random.Random(seed)
    for _ in range(trials):
        x = [Fraction(rng.randint(-20, 20), rng.randint(1, 5)) for _ in range(n)]
        want = evaluate(program, EXACT, x)
        got = run(network, EXACT, x)
        assert got == want, (program.name, x)


@pytest.mark.parametrize("r, c", [(1, 1), (2, 3), (3, 2), (3, 3)])
def test_the_compiled_transpose_is_the_program_exactly(r, c):
    _exact_agreement(transpose_construction(r, c).program, r * c)


@pytest.mark.parametrize("r, k, c", [(1, 1, 1), (2, 3, 2), (3, 2, 1), (2, 1, 2)])
def test_the_compiled_product_is_the_program_exactly(r, k, c):
    _exact_agreement(matmul_construction(r, k, c).program, k * (r + c))


def test_the_transpose_is_one_layer_with_one_head_scored_by_three_numbers():
    network = compile_program(transpose_construction(3, 4).program, 12)
    size = size_of(network)
    assert (size.layers, size.heads_per_layer, size.largest_d_k, size.units) == (1, (1,), 3, 0)


def test_the_product_is_two_layers_of_gathers_products_and_sums():
    network = compile_program(matmul_construction(2, 3, 2).program, 12)
    size = size_of(network)
    assert size.layers == 2 and size.heads_per_layer == (2 + 2, 2 * 2)
    assert size.gate_units == (4, 0) and size.relu_units == (0, 0)


def test_the_softmax_block_is_one_softmax_head_whose_mask_is_the_row():
    r, c = 2, 3
    network = compile_program(softmax_construction(r, c).program, r * c)
    (layer,) = network.layers
    (head,) = layer.heads
    assert head.kind == SOFT and layer.mlp.gate_units == r * c and layer.mlp.relu_units == 0
    for t in range(r * c):  # real query t (network t + 1) allows exactly the keys of its row
        allowed = [k - 1 for k in np.flatnonzero(head.mask[t + 1])]
        assert allowed == [t // c * c + j for j in range(c)]
    x = np.random.default_rng(0).normal(size=(4, r * c))
    np.testing.assert_allclose(run(network, NUMERIC, x)["softmax"], run_numeric(softmax_construction(r, c).program, x)
                               ["softmax"], rtol=1e-13)


def test_an_empty_selection_gives_the_default_through_the_sink():
    # only position 0 selects (key 0); the others select nothing: RASP's default 7
    program = Program.of("sink", {"y": aggregate(select(indices, 0, Predicate.EQ) & select(0, indices, Predicate.EQ),
                                                 tokens, default=7)})
    network = compile_program(program, 4)
    assert run(network, EXACT, [Fraction(5), Fraction(1), Fraction(2), Fraction(3)])["y"] == [5, 7, 7, 7]
    (head,) = network.layers[0].heads
    assert head_selection(head, 5).rows()[2] == [0]  # query 1 attends to BOS alone


def test_an_ahat_aggregate_averages_every_position_on_an_empty_row():
    program = Program.of("ahat", {"y": aggregate(select(indices, 0, Predicate.EQ) & select(0, indices, Predicate.EQ),
                                                 tokens, semantics=Semantics.AHAT)})
    _exact_agreement(program, 3)
    network = compile_program(program, 3)
    assert run(network, EXACT, [Fraction(6), Fraction(0), Fraction(3)])["y"] == [6, 3, 3]


def test_a_branch_read_nowhere_is_not_built():
    # where(p < 2, x * x, x): the product is read at positions 0 and 1 only
    program = Program.of("half", {"y": where(indices < 2, tokens * tokens, tokens)})
    _exact_agreement(program, 4)
    everywhere = Program.of("all", {"y": where(indices < 9, tokens * tokens, tokens)})
    assert size_of(compile_program(everywhere, 4)).gate_units == (1,)  # the product only; no gate for the where


@pytest.mark.parametrize("program, says", [
    (Program.of("cmp", {"y": where(tokens > 0, tokens, 0)}), "comparison or connective > of values that read"),
    (Program.of("exp", {"y": exp(tokens)}), "exp is realised only inside a softmax head"),
    (Program.of("div", {"y": tokens / (tokens + 1)}), "compiled only as a softmax"),
    (Program.of("width", {"y": selector_width(select(tokens, tokens, Predicate.EQ))}), "selector_width"),
    (Program.of("data", {"y": aggregate(select(tokens, tokens, Predicate.LT), tokens)}), "selector reads the input"),
    (Program.of("mod", {"y": tokens % 2}), "% of a value that reads the input"),
])
def test_what_has_no_exact_realisation_is_refused_naming_the_expression(program, says):
    with pytest.raises(CompileError, match=says) as error:
        compile_program(program, 3)
    assert program.name in str(error.value)


def test_u_compiles_to_as_many_layers_as_its_program_has_attention_layers():
    for spec in (LayerSpec(2, 2), LayerSpec(3, 3), LayerSpec(2, 2, form="projected", bias=True),
                 LayerSpec(2, 2, heads=2, form="projected", d_k=1, d_v=1, bias=True, out_proj=True)):
        u = build(spec)
        network = compile_universal(u)
        assert len(network.layers) == u.cost.layers, spec.tag
        assert sum(h.kind == SOFT for layer in network.layers for h in layer.heads) == spec.heads


def test_u_as_a_network_computes_attention_in_float64():
    spec = LayerSpec(3, 2)
    u = build(spec)
    network = compile_universal(u)
    rng = np.random.default_rng(5)
    x, a, v = rng.normal(size=(3, 2)), rng.normal(size=(2, 2)), rng.normal(size=(2, 2))
    sequence = u.input_layout.encode_numeric({"hdr": np.array([[3, 2, 0.5]]), "X": x, "A": a, "V": v})
    y = u.output_layout.decode_numeric(np.asarray(run(network, NUMERIC, sequence)["Y"]))[0]
    s = 0.5 * x @ a @ x.T
    e = np.exp(s - s.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, (e / e.sum(axis=1, keepdims=True)) @ x @ v, atol=1e-12)


def test_the_masked_network_has_no_hard_head_and_computes_the_same():
    network = compile_universal(build(LayerSpec(2, 3)))
    masked = hard_to_masked(network)
    assert {h.kind for layer in masked.layers for h in layer.heads} == {SOFT}
    assert {h.kind for layer in network.layers for h in layer.heads} == {HARD, SOFT}
    x = np.random.default_rng(2).normal(size=(3, network.n))
    np.testing.assert_allclose(run(masked, NUMERIC, x)["Y"], run(network, NUMERIC, x)["Y"], atol=1e-12)
