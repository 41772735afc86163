"""U's step kinds live in one table: a new kind is one entry, and U uses it."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from usim.constructions.routing import Part
from usim.constructions.universal import STEP_KINDS, LayerSpec, Route, Step, StepKind, build
from usim.constructions.universal.kinds import in_place
from usim.encodings.runners import run_numeric
from usim.engine.claim import Status
from usim.engine.runner import check_obligation
from usim.errors import UsimError
from usim.proofs._universal import stage_obligation


def _double(step, w, lay):
    """The toy block: 2 * the argument's block, in place (an element-wise map, no head)."""
    m = lay.block(step.args[0])
    return Part((w * 2).named("doubled"), in_place(step.out, m, lay.length))


DOUBLE = StepKind("double", meaning=lambda args, scale: 2 * args[0], block=_double)


def test_a_toy_step_kind_is_one_entry_and_u_computes_and_proves_it():
    kinds = {**STEP_KINDS, DOUBLE.name: DOUBLE}  # the one place the kind is added
    spec = LayerSpec(2, 3)
    u = build(spec, Route((Step("D", "double", ("X",)), Step("E", "transpose", ("D",))), "E"), kinds)
    x = np.arange(6.0).reshape(2, 3)
    sequence = u.input_layout.encode_numeric({"hdr": np.array([[2, 3, 1]]), "X": x, "A": np.zeros((3, 3)),
                                              "V": np.zeros((3, 3))})
    y = u.output_layout.decode_numeric(run_numeric(u.program, sequence)["Y"])[0]
    np.testing.assert_array_equal(y, 2 * x.T)
    for k in range(1, len(u.stages) + 1):
        assert check_obligation(stage_obligation("toy", (2, 3, k), u, k)).status is Status.PROVED


def test_a_wrong_meaning_in_the_table_is_refuted():
    wrong = StepKind("double", meaning=lambda args, scale: 3 * args[0], block=_double)
    u = build(LayerSpec(1, 2), Route((Step("D", "double", ("X",)),), "D"), {**STEP_KINDS, "double": wrong})
    result = check_obligation(stage_obligation("toy", (1, 2, 1), u, 1))
    assert result.status is Status.REFUTED
    cx = result.counterexample
    column = int(cx.entry.split(",")[1].rstrip("]"))  # D[0,j]
    x = sympy.Rational(cx.inputs["X"][0][column])
    assert (sympy.Rational(cx.expected), sympy.Rational(cx.got)) == (3 * x, 2 * x)


def test_a_kind_says_which_header_fields_it_reads_and_its_masked_meaning():
    softmax = STEP_KINDS["softmax"]
    assert softmax.reads == {"n", "scale"} and softmax.reads_sizes == {"n"}
    s = sympy.Matrix(2, 2, sympy.symbols("s:4"))
    # at n = the block's size the masked meaning is the meaning; below it, the corner only
    assert softmax.meaning_at([s], 1, n=2) == softmax.meaning([s], 1)
    one = softmax.meaning_at([s], 1, n=1)
    assert one == sympy.Matrix([[1, 0], [0, 0]])
    with pytest.raises(UsimError, match="reads n"):
        softmax.meaning_at([s], 1)


def test_a_kind_reading_an_unknown_field_or_a_size_without_masked_meaning_is_refused():
    with pytest.raises(ValueError, match="no field 'width'"):
        StepKind("toy", meaning=lambda a, c: a[0], block=_double, reads={"width"})
    with pytest.raises(ValueError, match="give its masked meaning"):
        StepKind("toy", meaning=lambda a, c: a[0], block=_double, reads={"n"})


def test_a_kind_says_how_its_step_is_written_and_what_it_composes_to():
    from usim.constructions.universal.terms import leaf, mm, tr
    from usim.proofs._universal import compose

    kinds = {**STEP_KINDS, DOUBLE.name: DOUBLE}
    steps = (Step("D", "double", ("X",)), Step("P", "matmul", ("D", "A")), Step("Q", "matmul", ("P", "V")),
             Step("T", "transpose", ("Q",)), Step("U", "transpose", ("T",)))
    assert [s.describe(kinds) for s in steps] == ["D = double(X)", "P = D A", "Q = P V", "T = transpose(Q)",
                                                  "U = transpose(T)"]
    env = compose(steps, ["X", "A", "V"], kinds)
    assert env["D"] == ("double", leaf("X"))  # the default: kind(args)
    assert env["Q"] == mm(env["D"], leaf("A"), leaf("V")) == ("mm", env["D"], leaf("A"), leaf("V"))
    assert env["T"] == tr(env["Q"]) and env["U"] == env["Q"]  # a transpose of a transpose is its argument
    written = StepKind("double", meaning=DOUBLE.meaning, block=_double, notation=lambda a: f"2 {a[0]}")
    assert Step("D", "double", ("X",)).describe({"double": written}) == "D = 2 X"


def test_the_concatenations_meaning_is_the_matrices_side_by_side():
    a, b, c = sympy.Matrix([[1, 2], [3, 4]]), sympy.Matrix([[5], [6]]), sympy.Matrix([[7, 8, 9], [0, 1, 2]])
    assert STEP_KINDS["concat"].meaning([a, b, c], 1) == sympy.Matrix.hstack(a, b, c)


def test_a_step_over_stacked_heads_keeps_its_sizes_in_its_term():
    from usim.constructions.universal.kinds import STEP_KINDS
    from usim.constructions.universal.terms import leaf
    from usim.rasp.family import dimension

    stack = STEP_KINDS["stack"]
    assert stack.composed([leaf("Y1")], (2, 3, 3)) != stack.composed([leaf("Y1")], (3, 3, 3))
    assert stack.composed([leaf("Y1")], (dimension("h"), 3, 3)) == ("stack", leaf("Y1"), ("sizes", "h", 3, 3))
    assert STEP_KINDS["softmax"].composed([leaf("S")]) == ("softmax", leaf("S"))  # a kind without sizes
