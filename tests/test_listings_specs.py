"""``usim check`` against every built-in spec: usim's own listings (examples/rasp/,
written in the REPL's language) PROVED, a broken variant of each REFUTED; the
specs state what their claims state; the authors' ways of fixing dimensions."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from usim.cli import main
from usim.engine.claim import Status
from usim.listings.check import CheckRequest, check
from usim.listings.plan import example_shapes, plan_shapes
from usim.listings.obligation import obligation_for
from usim.engine.statement import fingerprint
from usim.errors import UsimError
from usim.proofs import get
from usim.listings.specs import TABLE, parse_base, spec
from usim.repl import load_file, load_text

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "rasp"

# (listing, function, spec, options, broken function, the broken variant's shape)
CASES = [
    ("relu.rasp", "relu", "relu", {"max_n": 4}, "relu_shifted", (2,)),
    ("maxmin.rasp", "maxmin", "maxmin", {"max_n": 5}, "maxmin_unguarded", (3,)),
    ("det3.rasp", "cofactor", "cofactor3", {}, "cofactor_plus", (3, 3)),
    ("det3.rasp", "det", "det3", {}, "det_mean", (3, 3)),
    ("det3.rasp", "inverse", "inverse3", {}, "inverse_untransposed", (3, 3)),
    ("match2.rasp", "match2", "match2", {"max_n": 3}, "match2_no_wrap", (2, 1)),
    ("match2.rasp", "match2_distinct", "match2_distinct", {"max_n": 3}, "match2", (2, 1)),
    ("parity.rasp", "parity", "parity", {"max_n": 4}, "parity_quotient", (2, 1)),
    ("heads.rasp", "transpose_heads", "transpose_heads", {"max_n": 2}, "transpose_heads_unshifted", (2, 2, 1)),
    ("heads.rasp", "softmax_heads", "softmax_heads", {"max_n": 2}, "softmax_heads_one_row", (2, 2, 2)),
    ("heads.rasp", "matmul_heads", "matmul_heads", {"max_n": 2}, "matmul_heads_swapped", (2, 2, 1, 2)),
]


@pytest.mark.parametrize("listing, function, name, options, broken, shape", CASES,
                         ids=[f"{c[2]}:{c[1]}" for c in CASES])
def test_a_listing_per_spec_is_proved_and_a_broken_variant_refuted(listing, function, name, options,
                                                                    broken, shape):
    report = check(CheckRequest(str(EXAMPLES / listing), function, spec(name), timeout=60, samples=20, **options))
    assert report.shapes and report.ok, [(s.label, s.status, s.error) for s in report.shapes]
    wrong = check(CheckRequest(str(EXAMPLES / listing), broken, spec(name), shapes=[shape], timeout=60, samples=20))
    (result,) = wrong.shapes
    assert result.status is Status.REFUTED
    counter = result.result.counterexample
    assert counter is not None and counter.expected != counter.got


def test_a_softmax_to_another_base_is_proved_with_that_base_and_refuted_against_e():
    paper = str(EXAMPLES / "softmax_paper.rasp")
    assert check(CheckRequest(paper, "softmax", spec("softmax", parse_base("2.718")), max_n=2, timeout=60)).ok
    against_e = check(CheckRequest(paper, "softmax", spec("softmax"), shapes=[(3, 2)], timeout=60, samples=50))
    assert against_e.shapes[0].status is Status.REFUTED
    value, _, label = against_e.deviation
    assert label == "3x2" and 1e-5 < value < 1e-1
    heads = str(EXAMPLES / "heads.rasp")
    assert check(CheckRequest(heads, "softmax_heads_273", spec("softmax_heads", parse_base("2.73")), max_n=2,
                              timeout=60)).ok
    # the base is exact: 2.73 is not 2.718
    wrong_base = check(CheckRequest(heads, "softmax_heads_273", spec("softmax_heads", parse_base("2.718")),
                                    shapes=[(2, 2, 2)], timeout=60))
    assert wrong_base.shapes[0].status is Status.REFUTED


@pytest.mark.parametrize("text, message", [
    ("1", "above 1"), ("0.5", "above 1"), ("abc", "cannot read the base"), ("1000", "above 100"),
])
def test_a_meaningless_base_is_refused(text, message):
    with pytest.raises(UsimError, match=message):
        parse_base(text)


def test_base_applies_to_softmax_specs_only(capsys):
    assert main(["check", str(EXAMPLES / "relu.rasp"), "-f", "relu", "--spec", "relu", "--base", "2.718"]) == 2
    assert "--base applies to the softmax specs" in capsys.readouterr().err


@pytest.mark.parametrize("name, claim_shape, spec_shape", [
    ("transpose", (2, 3), (2, 3)), ("softmax", (2, 2), (2, 2)), ("matmul", (2, 3, 2), (2, 3, 2)),
    ("relu", (3,), (3,)), ("maxmin", (3,), (3,)), ("cofactor3", (3, 3), (3, 3)), ("det3", (3, 3), (3, 3)),
    ("inverse3", (3, 3), (3, 3)), ("match2", (3, 2, 0, 1), (3, 2)), ("match2_distinct", (3, 2, 1, 1), (3, 2)),
    ("parity", (3, 0, 1), (3, 2)),
])
def test_each_spec_states_what_its_claim_states(name, claim_shape, spec_shape):
    """The same construction against the claim's obligation and the spec's
    statement gives the same fingerprint: the same target, layouts,
    preconditions and domain."""
    the_spec = spec(name)
    claimed = get(the_spec.claim_id).obligation(claim_shape)
    program = claimed.construction.program
    statement = the_spec.statement(spec_shape)
    assert statement.input_layout == claimed.construction.input_layout
    assert statement.output_layout == claimed.construction.output_layout
    rasp = load_text("x = tokens;")  # any listing: only the statement is compared
    ob = obligation_for(rasp, "x", the_spec, spec_shape, {})
    import dataclasses

    ob = dataclasses.replace(ob, construction=dataclasses.replace(ob.construction, program=program),
                             output=claimed.output)
    claimed_parity = dataclasses.replace(claimed, values=claimed.values)
    assert fingerprint(ob) == fingerprint(claimed_parity)


def test_every_spec_of_the_table_builds():
    for name in TABLE:
        the_spec = spec(name)
        shape = next(iter(the_spec.shapes(3)))
        assert the_spec.length(shape) == the_spec.statement(shape).input_layout.length


# -- how shapes are chosen ----------------------------------------------------------

AUTHORS_STYLE = """
def product_3dot4() {
    k = length / (3 + 4);
    m = indices % k;
    total = 0;
    for i in range(3) {
        a = aggregate(select(indices, m + i * k, ==), tokens);
        for j in range(4) {
            b = aggregate(select(indices, m * 4 + 3 * k + j, ==), tokens);
            total = total + k * aggregate(select(indices, k, <) and select(i * 4 + j, indices, ==), a * b);
        }
    }
    return total;
}

def square_transpose() {
    n = length ^ 0.5;
    return aggregate(select(indices, (indices % n) * n + (indices - indices % n) / n, ==), tokens);
}

def rows_three() {
    r, c = 3, length / 3;
    return aggregate(select(indices, (indices % r) * c + (indices - indices % r) / r, ==), tokens);
}
"""


def test_the_authors_ways_of_fixing_dimensions_are_recognised(tmp_path):
    listing = tmp_path / "style.rasp"
    listing.write_text(AUTHORS_STYLE)
    rasp = load_file(listing)
    product = plan_shapes(rasp, "product_3dot4", spec("matmul"), None, 4)
    assert product.fixed == {"r": ("from k = length / (3 + 4)", 3), "c": ("from k = length / (3 + 4)", 4)}
    assert product.shapes == ((3, 1, 4), (3, 2, 4), (3, 3, 4), (3, 4, 4))
    square = plan_shapes(rasp, "square_transpose", spec("transpose"), None, 4)
    assert square.shapes == ((1, 1), (2, 2), (3, 3), (4, 4))
    assert "(= r = c)" in square.describe(spec("transpose"))
    rows = plan_shapes(rasp, "rows_three", spec("transpose"), None, 3)
    assert rows.shapes == ((3, 1), (3, 2), (3, 3))
    report = check(CheckRequest(str(listing), "product_3dot4", spec("matmul"), max_n=2, timeout=60))
    assert [(s.label, s.status) for s in report.shapes] == [("3x1x4", Status.ERROR), ("3x2x4", Status.PROVED)]
    assert report.shapes[0].error == ("the product AB (3x4): 12 entries, but the sequence has 7 positions "
                                      "(the result is written from position 0): it does not fit")


def test_a_shape_the_listing_is_not_meant_for_is_checked_with_a_warning(tmp_path):
    listing = tmp_path / "style.rasp"
    listing.write_text(AUTHORS_STYLE)
    plan = plan_shapes(load_file(listing), "square_transpose", spec("transpose"), [(2, 3)], None)
    assert plan.shapes == ((2, 3),)
    assert "n = length ** 1/2 has no exact value at length 6: checked anyway" in plan.warnings[0]


def test_dimensions_read_from_length_follow_the_parameters():
    rasp = load_file(EXAMPLES / "transpose.rasp")
    plan = plan_shapes(rasp, "transpose_rows", spec("transpose"), None, 2)
    assert plan.shapes == ((1, 1), (1, 2), (2, 1), (2, 2))  # cols = length / r, r a parameter


def test_examples_are_matched_by_the_length_formula_without_building_obligations():
    """Only the shapes an example matches are built (the authors' 32-entry
    example took minutes when every shape up to 32 was built)."""
    import dataclasses

    the_spec = spec("matmul")
    built = []

    def counting(shape):
        built.append(shape)
        return the_spec.statement(shape)

    counted = dataclasses.replace(the_spec, statement=counting)
    rasp = load_text((EXAMPLES / "matmul.rasp").read_text() + "\nset example [" + ", ".join(["1"] * 32) + "]\n")
    plan = plan_shapes(rasp, "matmul", counted, None, 2)
    assert example_shapes(counted, plan, 32) == [(2, 8, 2)]
    from usim.listings.examples import run_examples
    from usim.render_check import example_lines

    built.clear()
    lines = example_lines(run_examples(rasp, "matmul", counted, plan, "zero"), counted, "matmul")
    assert any("as 2x8x2" in line and "agrees with the spec" in line for line in lines)
    assert set(built) <= {(2, 2, 2), (2, 8, 2)}  # the two examples' shapes, nothing else


def test_an_error_shape_is_printed_with_its_reason(tmp_path, capsys):
    listing = tmp_path / "style.rasp"
    listing.write_text(AUTHORS_STYLE)
    assert main(["check", str(listing), "-f", "product_3dot4", "--spec", "matmul", "--max-n", "1"]) == 1
    out = capsys.readouterr().out
    assert "shape 3x1x4: ERROR: the product AB (3x4): 12 entries, but the sequence has 7 positions" in out
    assert "1 ERROR" in out


# -- expressions, padding ---------------------------------------------------------------

def test_an_expression_is_checked_as_the_function(capsys):
    status = main(["check", str(EXAMPLES / "transpose.rasp"), "-f", "transpose_rows(2)", "--spec", "transpose",
                   "--max-n", "3"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "hard-coded r = 2 (as r)" in out and "shape 2x3: PROVED" in out


def test_padding_any_compares_only_the_result(tmp_path):
    listing = tmp_path / "det_everywhere.rasp"
    listing.write_text((EXAMPLES / "det3.rasp").read_text() + "\ndef det_everywhere() { r = 3; c = 3; "
                       "return determinant(); }\n")
    strict = check(CheckRequest(str(listing), "det_everywhere", spec("det3"), timeout=60))
    assert strict.shapes[0].status is Status.REFUTED
    assert strict.shapes[0].result.counterexample.entry.startswith("padding")
    loose = check(CheckRequest(str(listing), "det_everywhere", spec("det3"), timeout=60, padding="any"))
    assert loose.ok


def test_the_symbolic_cross_check_compares_exactly():
    """Once a false 'symbolic DIFFERS from exact' next to PROVED (nsimplify made
    -7796/9 a product of fractional powers); now rationals are compared exactly."""
    report = check(CheckRequest(str(EXAMPLES / "matmul.rasp"), "matmul", spec("matmul"), shapes=[(2, 4, 2)], seed=9,
                                timeout=60))
    (shape,) = report.shapes
    assert shape.status is Status.PROVED
    assert shape.interpretations == {"exact": "ok", "symbolic": "ok", "numeric": "ok", "smt": "ok"}


def test_example_values_are_shown_as_numbers_never_as_fractions(capsys):
    main(["check", str(EXAMPLES / "relu.rasp"), "-f", "relu", "--spec", "relu", "--max-n", "1"])
    out = capsys.readouterr().out
    assert "[-2, 0, 3, 1.5]" in out and "Fraction" not in out


def test_fixed_length_examples_read_exactly():
    assert Fraction("1.5") in load_file(EXAMPLES / "relu.rasp").examples[0].values
