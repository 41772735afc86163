"""Programs with symbolic dimensions: the builder called with symbolic sizes is a family,
and the family instantiated at a size is the builder's program there, node for node."""

from __future__ import annotations

import itertools

import pytest

from usim.constructions.matmul import matmul_block, matmul_program
from usim.constructions.softmax import softmax_block, softmax_program
from usim.constructions.transpose import transpose_block, transpose_program
from usim.engine.parametric.allsizes import tie
from usim.proofs import families
from usim.rasp.expr import indices, length, tokens
from usim.rasp.family import (
    FamilyError,
    HeadSum,
    Parameter,
    SymbolicInt,
    dimension,
    head_sum,
    instantiate,
    readable,
    render,
    symbolic_text,
)
from usim.rasp.fingerprint import canonical_text, fingerprint
from usim.rasp.program import Program

r, c, k = dimension("r"), dimension("c"), dimension("k")


def _same(a: Program, b: Program) -> bool:
    return canonical_text(a, names=True) == canonical_text(b, names=True)


@pytest.mark.parametrize("claim_id", ["lemma3", "lemma4", "lemma5"])
def test_the_family_is_the_claims_program_at_every_shape_up_to_the_ci_bound(claim_id):
    fc = families()[claim_id]
    checked = tie(fc, fc.claim.ci_max_n)
    assert checked.ok, checked.problems
    assert checked.shapes == len(list(fc.claim.shapes(fc.claim.ci_max_n)))


@pytest.mark.parametrize("rows, cols", [(11, 2), (2, 11), (12, 12), (1, 13)])
def test_the_family_is_the_builder_past_ten_heads_where_the_names_change(rows, cols):
    # pair() names head (i, j) "01" up to 10 rows and columns, "0_11" after
    assert _same(instantiate(matmul_program(r, c), {"r": rows, "c": cols}), matmul_program(rows, cols))
    assert _same(instantiate(softmax_program(r), {"r": rows}), softmax_program(rows))
    assert _same(instantiate(transpose_program(r), {"r": rows}), transpose_program(rows))


def test_the_blocks_u_uses_are_families_too_with_offsets_guards_and_masks():
    """U calls the blocks with offsets, guards and masks: the family of each
    call is the builder's program at every size up to 4."""
    for rows, cols, offset in itertools.product(range(1, 5), range(1, 5), (0, 3)):
        env = {"r": rows, "c": cols}
        cases = [
            (transpose_block(tokens, r, c, offset=offset, out_size_guard=True),
             transpose_block(tokens, rows, cols, offset=offset, out_size_guard=True)),
            (softmax_block(tokens, r, c, offset=offset, guard=True, mask=indices < length - 1),
             softmax_block(tokens, rows, cols, offset=offset, guard=True, mask=indices < length - 1)),
            (matmul_block(tokens, r, k, c, a_offset=offset),
             matmul_block(tokens, rows, 2, cols, a_offset=offset)),
        ]
        for family, built in cases:
            env["k"] = 2
            assert _same(instantiate(Program.of("f", {"y": family}), env), Program.of("f", {"y": built}))


def test_a_symbolic_dimension_has_no_truth_value_and_no_range():
    with pytest.raises(TypeError, match="no truth value"):
        bool(r)
    with pytest.raises(TypeError):
        range(r)
    with pytest.raises(TypeError, match="no truth value"):
        bool(r * c <= k * (r + c))


def test_symbolic_integers_divide_as_python_does():
    a, b = dimension("a"), dimension("b")
    for x, y in itertools.product(range(-7, 8), [-3, -2, -1, 1, 2, 3]):
        env = {"a": x, "b": y}
        assert (a // b).value(env) == x // y and (a % b).value(env) == x % y
    with pytest.raises(FamilyError, match="divides by zero"):
        (a // b).value({"a": 1, "b": 0})


def test_a_head_sum_is_the_left_fold_of_its_heads_and_a_symbolic_one_a_node():
    fold = head_sum(3, lambda b: tokens * b)
    assert canonical_text(Program.of("p", {"y": fold})).count("map:ADD") == 2
    family = head_sum(r, lambda b: tokens * b)
    assert isinstance(family, HeadSum) and isinstance(family.body.args[1], Parameter)
    assert _same(instantiate(Program.of("p", {"y": family}), {"r": 3}), Program.of("p", {"y": fold}))


def test_a_node_made_inside_a_head_is_made_once_per_head_even_when_it_does_not_depend_on_it():
    family = softmax_program(r)
    three = instantiate(family, {"r": 3})
    # each head makes its own selector: three select_and nodes, not one shared
    assert canonical_text(three).count("select_and") == 3


def test_instantiation_simplifies_as_the_builder_does():
    # m + 0*k at head 0, m + k at head 1: the builder's own x + 0 and 1 * x rules
    for rows in (1, 2, 3):
        assert _same(instantiate(matmul_program(r, c), {"r": rows, "c": 2}), matmul_program(rows, 2))


def test_head_names_read_with_their_index_and_render_with_its_value():
    names = [readable(n.name) for n in matmul_program(r, c).nodes() if n.has_name]
    assert "mean{i}{j}" in names and "a_src{i}" in names
    names = [n.name for n in instantiate(matmul_program(r, c), {"r": 2, "c": 2}).nodes() if n.has_name]
    assert {"mean00", "mean11", "a_src1", "b_src0"} <= set(names)


def test_a_name_template_is_its_own_text_and_no_table_grows_with_the_families_built():
    from usim.rasp import symbolic_int

    matmul_program(r, c)
    renderers = dict(symbolic_int._RENDERERS)
    text = f"row_mean{r * 2 - 1:>3}"
    for _ in range(3):
        matmul_program(r, c)
    assert symbolic_int._RENDERERS == renderers  # one renderer per function of the code, none per name
    assert readable(text) == "row_mean{r * 2 - 1}"
    assert render(text, {"r": 4}) == "row_mean  7"
    with pytest.raises(TypeError, match="module-level"):
        symbolic_text(lambda v: str(v), r)


def test_the_fingerprint_of_a_family_says_its_parameters():
    assert fingerprint(softmax_program(r)) == fingerprint(softmax_program(r))
    assert fingerprint(softmax_program(r)) != fingerprint(softmax_program(c))
    assert "parameter:r" in canonical_text(softmax_program(r))


def test_a_family_at_a_size_the_builder_refuses_fails_as_the_builder_does():
    with pytest.raises(FamilyError):
        instantiate(Program.of("p", {"y": tokens + Parameter(SymbolicInt.of(1) // (r - 2))}), {"r": 2})


def test_a_family_kept_whole_is_printed_as_its_sum_over_the_heads():
    """Errors name a node by its expression (encodings.evaluate.describe): a head sum,
    a head family's entry and a parameter print as what they are, not as '?'."""
    from usim.encodings.evaluate import describe
    from usim.rasp.family import HeadAt, HeadSum, Parameter, keeping_families
    from usim.rasp.program import topological_order

    with keeping_families():
        program = matmul_program(3, 2)
    printed = {type(node): describe(node) for node in topological_order([s for _, s in program.outputs])
               if isinstance(node, (HeadSum, HeadAt, Parameter))}
    assert HeadSum in printed and Parameter in printed
    assert printed[HeadSum].split(" = ", 1)[1].startswith("sum over {i} < 3, {j} < 2 of ")
    assert all("?" not in text and "⟨" not in text for text in printed.values())
