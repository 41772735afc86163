"""The three blocks against numpy, in every interpretation, and their broken variants.

* Transpose (Lemma 3) and product (Lemma 5) equal numpy's results exactly under
  the exact interpretation for every shape with dimensions 1..6 (numpy computes
  on arrays of Fractions, so its reference is exact too); the product where its
  layout can hold the result (r*c <= k*(r + c)), and a ShapeError elsewhere.
* Softmax (Lemma 4) is within 1e-12 of numpy's row softmax under the numeric
  interpretation; the paper's 2.718 ** S variant is exact at integer S.
* Symbolic and smt agree with exact at the same rationals on every block; for
  softmax the exp atoms are replaced by the same positive rationals everywhere.
* Variants with a wrong index, an off-by-one shape or a wrong mean count, made
  with ``substitute`` on the named nodes, differ from numpy.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product as cartesian

import numpy as np
import pytest
import sympy
import z3

from cases import ALL_CASES, as_fraction, exact_values, smt_values, symbolic_values
from usim.constructions.base import Construction
from usim.constructions.matmul import matmul_block, matmul_construction, matmul_fits
from usim.constructions.softmax import PAPER_BASE, softmax_block, softmax_construction
from usim.constructions.transpose import transpose_block, transpose_construction
from usim.encodings.runners import run_exact, run_numeric, run_smt, run_symbolic
from usim.errors import ShapeError, UsimError
from usim.rasp import Map, Op, Program, indices, tokens
from usim.rasp.rewrite import substitute

DIMS = range(1, 7)
RNG = np.random.default_rng(20250618)


def _fractions(shape: tuple[int, ...]) -> np.ndarray:
    """A random matrix of small Fractions (an object array: numpy computes exactly)."""
    num = RNG.integers(-9, 10, size=shape)
    den = RNG.integers(1, 5, size=shape)
    return np.vectorize(Fraction, otypes=[object])(num, den)


def _exact_output(construction: Construction, matrices: dict) -> list[Fraction]:
    seq = construction.input_layout.encode(matrices)
    (out,) = run_exact(construction.program, seq).values()
    return [as_fraction(v) for v in out]


def _expected_sequence(construction: Construction, result: np.ndarray) -> list:
    """numpy's result laid out by the construction's output layout, padding 0."""
    name = construction.output_layout.blocks[0].name
    return construction.output_layout.encode({name: result}, fill=Fraction(0))


# --- exact against numpy, every shape ------------------------------------------------------


@pytest.mark.parametrize("r, c", list(cartesian(DIMS, DIMS)))
def test_transpose_equals_numpy_exactly(r: int, c: int) -> None:
    m = _fractions((r, c))
    construction = transpose_construction(r, c)
    assert _exact_output(construction, {"M": m}) == _expected_sequence(construction, m.T)


@pytest.mark.parametrize("r, k, c", list(cartesian(DIMS, DIMS, DIMS)))
def test_product_equals_numpy_exactly_where_it_fits(r: int, k: int, c: int) -> None:
    if not matmul_fits(r, k, c):
        assert r * c > k * (r + c)
        with pytest.raises(ShapeError, match="cannot hold it"):
            matmul_construction(r, k, c)
        return
    a, b = _fractions((r, k)), _fractions((k, c))
    construction = matmul_construction(r, k, c)
    assert _exact_output(construction, {"A": a, "B": b}) == _expected_sequence(construction, a @ b)


def test_the_fit_condition_is_exactly_the_room_in_the_sequence() -> None:
    assert not matmul_fits(3, 1, 3) and matmul_fits(3, 2, 3) and matmul_fits(1, 1, 1)
    assert sum(not matmul_fits(r, k, c) for r, k, c in cartesian(DIMS, DIMS, DIMS)) > 0


def _numpy_softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("r, c", list(cartesian(DIMS, DIMS)))
def test_softmax_is_within_1e12_of_numpy(r: int, c: int) -> None:
    construction = softmax_construction(r, c)
    s = RNG.normal(scale=3.0, size=(8, r, c))
    seq = construction.input_layout.encode_numeric({"S": s})
    (out,) = run_numeric(construction.program, seq).values()
    got = construction.output_layout.decode_numeric(out)
    np.testing.assert_allclose(got, _numpy_softmax(s), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("r, c", [(1, 1), (2, 3), (3, 2), (4, 4), (6, 5)])
def test_paper_base_softmax_is_exact_at_integer_entries(r: int, c: int) -> None:
    s = RNG.integers(-4, 5, size=(r, c))
    construction = softmax_construction(r, c, base=PAPER_BASE)
    powers = np.vectorize(lambda x: PAPER_BASE ** int(x), otypes=[object])(s)
    expected = powers / powers.sum(axis=1, keepdims=True)
    assert _exact_output(construction, {"S": s.tolist()}) == _expected_sequence(construction, expected)


# --- every interpretation on the shared cases -----------------------------------------------


@pytest.mark.parametrize("case", [c for c in ALL_CASES if c.exact], ids=lambda c: c.name)
def test_symbolic_and_smt_equal_exact_on_the_shared_cases(case) -> None:
    program = case.build()
    exact = exact_values(program, case.tokens)
    assert exact == {"out" if "out" in exact else next(iter(exact)): [as_fraction(v) for v in case.expected]}
    assert symbolic_values(program, case.tokens) == exact
    assert smt_values(program, case.tokens) == exact


@pytest.mark.parametrize("r, c", [(1, 1), (2, 3), (3, 2)])
def test_exp_softmax_agrees_in_every_interpretation_with_exp_atoms_fixed(r: int, c: int) -> None:
    """Replace each exp(S[i,j]) by the same positive rational e_ij in sympy and z3.

    Then both must equal e_ij / sum_j e_ij exactly: the construction computes the
    right function of the exp atoms, whatever exp is.
    """
    construction = softmax_construction(r, c)
    n = r * c
    atoms = [Fraction(int(x), 7) for x in RNG.integers(1, 30, size=n)]
    expected = [atoms[p] / sum(atoms[(p // c) * c : (p // c + 1) * c]) for p in range(n)]

    xs = [sympy.Symbol(f"x{p}") for p in range(n)]
    (sym,) = run_symbolic(construction.program, xs).values()
    at = {sympy.exp(x): sympy.Rational(a.numerator, a.denominator) for x, a in zip(xs, atoms)}
    assert [as_fraction(Fraction(str(sympy.nsimplify(e.xreplace(at))))) for e in sym] == expected

    zs = [z3.Real(f"x{p}") for p in range(n)]
    outputs, facts = run_smt(construction.program, zs)
    apps = {}
    for fact in facts:  # each fact is exp(t) > 0
        app = fact.arg(0)
        apps[app.arg(0).get_id()] = app
    pairs = [(apps[x.get_id()], z3.RealVal(a)) for x, a in zip(zs, atoms)]
    got = [z3.simplify(z3.substitute(t, *pairs)) for t in next(iter(outputs.values()))]
    assert [g.as_fraction() for g in got] == expected


# --- broken variants are caught ---------------------------------------------------------------


def _differs(construction: Construction, program: Program, matrices: dict, reference: np.ndarray) -> bool:
    broken = Construction(construction.name + " [broken]", program,
                          construction.input_layout, construction.output_layout)
    try:
        return _exact_output(broken, matrices) != _expected_sequence(construction, reference)
    except UsimError:  # a variant that cannot even run (e.g. a shape error) is caught too
        return True


TRANSPOSE_MUTANTS = {
    "wrong index (row and column swapped)": lambda r, c: {
        "transpose_src": lambda node: (indices // r) * c + indices % r},
    "off-by-one source": lambda r, c: {"transpose_src": lambda node: node + 1},
    "off-by-one shape (c read as c + 1)": lambda r, c: {"cols": lambda node: node + 1},
}

PRODUCT_MUTANTS = {
    # (m = p mod (k + 1), or any permutation of m on 0..k-1, is an equivalent variant:
    # layer 2 reads positions 0..k-1 only, and a and b share m.)
    "wrong index (B column 0 read one to the right)": lambda r, k, c: {"b_src0": lambda node: node + 1},
    "wrong index (m = 0)": lambda r, k, c: {"m": lambda node: node * 0},
    "wrong index (A row 0 off by one)": lambda r, k, c: {"a_src0": lambda node: node + 1},
    "off-by-one shape (k read as k - 1)": lambda r, k, c: {"k": lambda node: node - 1},
    "wrong mean count (k + 1)": lambda r, k, c: {
        "product": lambda node: Map(Op.MUL, node.args[0] + 1, node.args[1])},
    "wrong mean count (missing k)": lambda r, k, c: {"product": lambda node: node.args[1]},
}

SOFTMAX_MUTANTS = {
    "wrong index (row of p+1)": lambda r, c: {"row": lambda node: (indices + 1) // node.args[1]},
    "off-by-one shape (c read as c + 1)": lambda r, c: {"cols": lambda node: node + 1},
    "wrong mean count (c - 1)": lambda r, c: {
        "row_sum": lambda node: Map(Op.MUL, node.args[0] - 1, node.args[1])},
}

SHAPES_2D = [(2, 2), (2, 3), (3, 2), (3, 4)]


@pytest.mark.parametrize("mutant", list(TRANSPOSE_MUTANTS))
@pytest.mark.parametrize("r, c", SHAPES_2D)
def test_broken_transposes_differ_from_numpy(mutant: str, r: int, c: int) -> None:
    construction, m = transpose_construction(r, c), _fractions((r, c))
    program = substitute(construction.program, TRANSPOSE_MUTANTS[mutant](r, c))
    assert _differs(construction, program, {"M": m}, m.T)
    assert not _differs(construction, construction.program, {"M": m}, m.T)  # the check itself


@pytest.mark.parametrize("mutant", list(PRODUCT_MUTANTS))
@pytest.mark.parametrize("r, k, c", [(2, 2, 2), (2, 3, 1), (1, 2, 3), (3, 2, 2)])
def test_broken_products_differ_from_numpy(mutant: str, r: int, k: int, c: int) -> None:
    construction = matmul_construction(r, k, c)
    a, b = _fractions((r, k)), _fractions((k, c))
    while not np.all(a @ b):  # a zero entry could hide a wrong count
        a, b = _fractions((r, k)), _fractions((k, c))
    program = substitute(construction.program, PRODUCT_MUTANTS[mutant](r, k, c))
    assert _differs(construction, program, {"A": a, "B": b}, a @ b)
    assert not _differs(construction, construction.program, {"A": a, "B": b}, a @ b)


@pytest.mark.parametrize("r, k, c", [(2, 2, 2), (2, 3, 1), (3, 4, 2)])
def test_a_permuted_inner_index_is_an_equivalent_variant(r: int, k: int, c: int) -> None:
    """m = p mod (k + 1) equals p mod k on 0..k-1, the only positions layer 2 reads.

    Not a missed bug: the variant computes AB too. (Any permutation of m on
    0..k-1 is equivalent as well: A and B are read with the same m.)
    """
    construction = matmul_construction(r, k, c)
    a, b = _fractions((r, k)), _fractions((k, c))
    program = substitute(construction.program, {"m": lambda node: indices % (node.args[1] + 1)})
    assert not _differs(construction, program, {"A": a, "B": b}, a @ b)


@pytest.mark.parametrize("mutant", list(SOFTMAX_MUTANTS))
@pytest.mark.parametrize("r, c", SHAPES_2D)
def test_broken_softmaxes_differ_from_numpy(mutant: str, r: int, c: int) -> None:
    construction = softmax_construction(r, c, base=PAPER_BASE)
    s = RNG.integers(-3, 4, size=(r, c))
    powers = np.vectorize(lambda x: PAPER_BASE ** int(x), otypes=[object])(s)
    reference = powers / powers.sum(axis=1, keepdims=True)
    program = substitute(construction.program, SOFTMAX_MUTANTS[mutant](r, c))
    assert _differs(construction, program, {"S": s.tolist()}, reference)
    assert not _differs(construction, construction.program, {"S": s.tolist()}, reference)


def test_numeric_softmax_mutant_is_caught_at_the_1e12_tolerance() -> None:
    construction = softmax_construction(3, 4)
    program = substitute(construction.program, SOFTMAX_MUTANTS["wrong mean count (c - 1)"](3, 4))
    s = RNG.normal(size=(4, 3, 4))
    (out,) = run_numeric(program, construction.input_layout.encode_numeric({"S": s})).values()
    assert not np.allclose(construction.output_layout.decode_numeric(out), _numpy_softmax(s),
                           rtol=1e-12, atol=1e-15)


# --- the blocks inside bigger sequences ---------------------------------------------------------


@pytest.mark.parametrize("r, c, offset, extra", [(2, 3, 1, 2), (3, 1, 4, 0), (1, 4, 0, 3)])
def test_guarded_transpose_block_reads_at_an_offset_and_pads_with_zero(r, c, offset, extra) -> None:
    n = offset + r * c + extra
    program = Program.of("t", {"out": transpose_block(tokens, r, c, offset=offset, out_size_guard=True)})
    assert sum(node.has_name and node.name == "transpose_src" for node in program.nodes()) == 1
    seq = [Fraction(7 * p + 1, 3) for p in range(n)]
    m = np.array(seq[offset : offset + r * c], dtype=object).reshape(r, c)
    assert run_exact(program, seq)["out"] == list(m.T.reshape(-1)) + [0] * (n - r * c)


@pytest.mark.parametrize("r, c, offset, extra", [(2, 3, 1, 2), (3, 2, 0, 1)])
def test_guarded_softmax_block_in_place_and_zero_elsewhere(r, c, offset, extra) -> None:
    n = offset + r * c + extra
    program = Program.of("s", {"out": softmax_block(tokens, r, c, offset=offset, guard=True)})
    seq = RNG.normal(size=(3, n))
    (out,) = run_numeric(program, seq).values()
    block = seq[:, offset : offset + r * c].reshape(3, r, c)
    np.testing.assert_allclose(out[:, offset : offset + r * c].reshape(3, r, c), _numpy_softmax(block),
                               rtol=1e-12)
    assert np.all(out[:, :offset] == 0) and np.all(out[:, offset + r * c :] == 0)


def test_product_block_with_both_offsets() -> None:
    r, k, c, a_off, b_off, n = 2, 3, 2, 2, 9, 16
    program = Program.of("p", {"out": matmul_block(tokens, r, k, c, a_offset=a_off, b_offset=b_off)})
    seq = [Fraction(3 * p - 20, 7) for p in range(n)]
    a = np.array(seq[a_off : a_off + r * k], dtype=object).reshape(r, k)
    b = np.array(seq[b_off : b_off + k * c], dtype=object).reshape(k, c)
    assert run_exact(program, seq)["out"] == list((a @ b).reshape(-1)) + [0] * (n - r * c)
