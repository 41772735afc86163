"""Head families evaluated as arrays (encodings/families.py, encodings/family_arrays.py) against the same
programs evaluated head by head, and against the exact interpretation."""

from fractions import Fraction

import numpy as np
import pytest

from usim.constructions.matmul import matmul_block
from usim.constructions.softmax import softmax_block
from usim.constructions.universal.embed import embed_arrays
from usim.constructions.universal.schedule import build
from usim.constructions.universal.simulate import prepare, spec_from_arrays
from usim.constructions.universal.spec import LayerSpec
from usim.encodings import run_exact
from usim.encodings.evaluate import evaluate
from usim.encodings.families import UnsupportedFamily, plan_head_sum, unsupported_families
from usim.encodings.numeric import NumericInterpretation
from usim.encodings.runners import run_numeric
from usim.errors import EvaluationError, RangeError
from usim.rasp.cost import cost, family_heads_per_layer
from usim.rasp.expr import Predicate, aggregate, indices, select, tokens
from usim.rasp.family import HeadSum, head_sum, instantiate, keeping_families
from usim.rasp.fingerprint import canonical_text
from usim.rasp.program import Program

SPECS = [
    LayerSpec(n=3, d=2),
    LayerSpec(n=4, d=4, heads=2, form="projected", bias=True),
    LayerSpec(n=3, d=4, heads=2, form="projected", bias=True, encoder=True, d_ff=5),
]


def _arrays(spec: LayerSpec, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    arrays = {name: rng.normal(size=shape) * 0.5 for name, shape in spec.parameter_shapes()}
    if spec.encoder:
        arrays.update(activation="relu", norm="post" if spec.norm else "none")
        for eps in ("eps1", "eps2"):
            if eps in arrays:
                arrays[eps] = np.array([[1e-5]])
    return arrays


def _both(program_pair, sequence, strict=True, dtype=np.float64):
    family, expanded = program_pair
    return (run_numeric(family, sequence, strict=strict, dtype=dtype)["Y"],
            run_numeric(expanded, sequence, strict=strict, dtype=dtype)["Y"])


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.tag)
def test_u_with_its_heads_kept_as_families_is_u_node_for_node(spec):
    u = build(spec)
    assert canonical_text(instantiate(u.family_program, {}), names=True) == canonical_text(u.program, names=True)
    assert any(isinstance(node, HeadSum) for node in u.family_program.nodes())
    assert unsupported_families(u.family_program) is None
    assert u.runnable_program is u.family_program
    # the heads counted over the families are the heads of the program they stand for
    expanded = cost(u.program)
    assert u.heads_per_layer == expanded.heads_per_layer
    assert family_heads_per_layer(u.family_program, True) == expanded.heads_per_layer_with_length


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.tag)
@pytest.mark.parametrize("seed", [0, 1])
def test_u_run_family_by_family_equals_u_run_head_by_head(spec, seed):
    u = build(spec)
    arrays = _arrays(spec, seed)
    spec_read, matrices, scale = spec_from_arrays(arrays)
    sequence = embed_arrays(u, spec_read, matrices, scale)
    by_family, by_head = _both((u.family_program, u.program), sequence)
    assert np.allclose(by_family, by_head, rtol=1e-12, atol=1e-13)
    # and usim simulate's run (the family program, once, each value dropped after its last reader)
    simulated = prepare(arrays).checked_run()
    assert simulated.dtype is np.float64
    assert np.allclose(simulated.y, u.output_layout.decode_numeric(by_head)[0][: spec.n, : simulated.y.shape[1]],
                       rtol=1e-12, atol=1e-13)


def _blocks(rows: int, inner: int, cols: int, offset: int, softmax_rows: int, softmax_cols: int) -> Program:
    """A product of an r x k and a k x c block read at ``offset``, then the row
    softmax of its first rows (exp of a product: kept small by the inputs)."""
    b_offset = offset + rows * inner
    product = matmul_block(tokens, rows, inner, cols, a_offset=offset, b_offset=b_offset)
    soft = softmax_block(product, softmax_rows, softmax_cols, offset=0, guard=True)
    return Program.of("blocks", {"Y": soft + product}, "a product, then a softmax of it")


@pytest.mark.parametrize("shape", [(1, 1, 1, 0, 1, 1), (2, 3, 2, 1, 2, 2), (3, 2, 4, 5, 2, 6), (4, 4, 1, 2, 4, 1)])
def test_random_product_and_softmax_families_equal_their_heads_on_a_batch(shape):
    rows, inner, cols, offset, sr, sc = shape
    expanded = _blocks(*shape)
    with keeping_families():
        family = _blocks(*shape)
    length = max(offset + inner * (rows + cols), rows * cols, sr * sc) + 3
    rng = np.random.default_rng(sum(shape))
    batch = rng.normal(size=(3, length))
    by_family, by_head = _both((family, expanded), batch)
    assert by_family.shape == (3, length)
    assert np.allclose(by_family, by_head, rtol=1e-13, atol=1e-14)


def test_a_product_family_on_integers_gives_the_exact_interpretations_values():
    with keeping_families():
        family = Program.of("mm", {"Y": matmul_block(tokens, 2, 3, 2, a_offset=1, b_offset=7)}, "A B")
    expanded = Program.of("mm", {"Y": matmul_block(tokens, 2, 3, 2, a_offset=1, b_offset=7)}, "A B")
    sequence = [0, 1, -2, 3, 4, 5, -6, 7, 8, 9, 10, -11, 12, 0, 0]
    exact = run_exact(expanded, sequence)["Y"]
    numeric = run_numeric(family, sequence, strict=True)["Y"][0]
    assert all(Fraction(x) == e for x, e in zip(numeric.tolist(), exact))
    a = np.array(sequence[1:7]).reshape(2, 3)
    b = np.array(sequence[7:13]).reshape(3, 2)
    assert numeric[:4].tolist() == (a @ b).reshape(-1).tolist()


@pytest.mark.parametrize("magnitude, kind", [(1e-170, "underflow"), (1e170, "overflow")])
def test_a_product_family_refuses_what_the_heads_refuse(magnitude, kind):
    """Products of 1e-170 * 1e-170 underflow (1e-340 is not a float64), of
    1e170 * 1e170 overflow: head by head the strict run refuses them, and so must
    the family, whose products a matrix product never forms."""
    with keeping_families():
        family = Program.of("mm", {"Y": matmul_block(tokens, 2, 2, 2)}, "A B")
    expanded = Program.of("mm", {"Y": matmul_block(tokens, 2, 2, 2)}, "A B")
    sequence = np.full(8, magnitude)
    for program in (family, expanded):
        with pytest.raises(RangeError) as error:
            run_numeric(program, sequence, strict=True)
        assert kind in str(error.value)
    # and both run in long double, where neither product leaves the range
    by_family, by_head = _both((family, expanded), sequence, dtype=np.longdouble)
    assert np.allclose(by_family, by_head, rtol=1e-15, atol=0)
    assert by_family[0, 0] == pytest.approx(2 * np.longdouble(magnitude) ** 2, rel=1e-15)


def test_bounds_that_cannot_vouch_for_the_products_form_them_and_audit_them():
    """Factors of 1e-200 and 1e150 multiply to 1e-50, in range, though the
    smallest times the smallest (1e-200 * 1e-200) would not be: the products are
    formed, audited and found fine."""
    with keeping_families():
        family = Program.of("mm", {"Y": matmul_block(tokens, 1, 2, 1)}, "A B")
    expanded = Program.of("mm", {"Y": matmul_block(tokens, 1, 2, 1)}, "A B")
    sequence = [1e-200, 1e-200, 1e150, 1e150]
    by_family, by_head = _both((family, expanded), sequence)
    assert np.allclose(by_family, by_head, rtol=1e-15)
    assert by_family[0, 0] == pytest.approx(2e-50)


def test_a_family_this_module_cannot_read_is_said_so_and_left_to_its_heads():
    with keeping_families():
        body_is_no_aggregate = head_sum(3, lambda i: tokens + i)
        both_sides_positions = head_sum(2, lambda i: aggregate(select(indices, tokens, Predicate.EQ), tokens))
    for node, reason in ((body_is_no_aggregate, "not an aggregate"), (both_sides_positions, "one value per head")):
        with pytest.raises(UnsupportedFamily, match=reason):
            plan_head_sum(node)
        assert reason in unsupported_families(Program.of("p", {"Y": node}, ""))


def test_only_the_numeric_interpretation_evaluates_a_family_kept_whole():
    from usim.encodings.exact import EXACT

    with keeping_families():
        family = Program.of("mm", {"Y": matmul_block(tokens, 1, 1, 1)}, "A B")
    with pytest.raises(EvaluationError, match="only by its instance"):
        evaluate(family, EXACT, EXACT.lift([1, 2]))
    assert evaluate(family, NumericInterpretation(), np.array([[1.0, 2.0]]))["Y"].tolist() == [[2.0, 0.0]]


@pytest.mark.parametrize("spec", SPECS[:2], ids=lambda s: s.tag)
def test_u_run_family_by_family_agrees_with_the_symbolic_interpretation(spec):
    """U's output computed exactly by sympy (exp kept symbolic, then evaluated to 30
    digits) against the family-by-family float64 run, on dyadic inputs."""
    import sympy

    from usim.encodings.runners import run_symbolic

    u = build(spec)
    rng = np.random.default_rng(4)
    arrays = {name: np.round(rng.normal(size=shape) * 4) / 4 for name, shape in spec.parameter_shapes()}
    spec_read, matrices, scale = spec_from_arrays(arrays)
    sequence = embed_arrays(u, spec_read, matrices, scale)[0]
    exact = [float(sympy.N(v, 30)) for v in run_symbolic(u.program, [Fraction(x) for x in sequence.tolist()])["Y"]]
    by_family = run_numeric(u.family_program, sequence, strict=True)["Y"][0]
    block = u.output_layout.decode_numeric(by_family[None, :])[0]
    assert np.any(block != 0) and np.allclose(by_family, exact, rtol=1e-13, atol=1e-15)
