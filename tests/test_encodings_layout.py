"""Layouts: row-major flattening, concatenation <A, B>, padding, and clear shape errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from usim.encodings.layout import MatrixShape, SequenceLayout
from usim.encodings.notation import parse_dims
from usim.errors import InputError, ShapeError, UsimError

dims = st.integers(1, 6)


@settings(max_examples=60, deadline=None)
@given(r=dims, k=dims, c=dims, pad=st.integers(0, 4))
def test_two_blocks_are_row_major_one_after_another(r: int, k: int, c: int, pad: int) -> None:
    layout = SequenceLayout.of(("A", (r, k)), ("B", (k, c)), length=k * (r + c) + pad)
    a = [[f"a{i}{m}" for m in range(k)] for i in range(r)]
    b = [[f"b{m}{j}" for j in range(c)] for m in range(k)]
    seq = layout.encode({"A": a, "B": b}, fill="pad")
    assert len(seq) == layout.length
    for i in range(r):
        for m in range(k):
            assert seq[i * k + m] == a[i][m]  # A[i][m] at i*k + m
    for m in range(k):
        for j in range(c):
            assert seq[r * k + m * c + j] == b[m][j]  # B[m][j] at r*k + m*c + j
    assert layout.padding(seq) == ["pad"] * pad
    assert layout.decode(seq, "A") == a and layout.decode(seq, "B") == b
    assert layout.decode(seq) == a  # the first block by default


@settings(max_examples=40, deadline=None)
@given(r=dims, c=dims, batch=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_numeric_batches_round_trip(r: int, c: int, batch: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = rng.normal(size=(batch, r, c))
    v = rng.normal(size=(c, 2))  # one matrix broadcast over the batch
    layout = SequenceLayout.of(("M", (r, c)), ("V", (c, 2)), length=r * c + 2 * c + 1)
    seq = layout.encode_numeric({"M": m, "V": v})
    assert seq.shape == (batch, layout.length)
    np.testing.assert_array_equal(seq[:, : r * c], m.reshape(batch, -1))  # row-major
    np.testing.assert_array_equal(layout.decode_numeric(seq, "M"), m)
    np.testing.assert_array_equal(layout.decode_numeric(seq, "V"), np.broadcast_to(v, (batch, c, 2)))
    np.testing.assert_array_equal(seq[:, -1], 0.0)


def test_a_single_matrix_is_shared_by_the_batch_in_either_order() -> None:
    layout = SequenceLayout.of(("A", (1, 2)), ("B", (2, 1)))
    a, b = np.arange(2.0).reshape(1, 2), np.arange(6.0).reshape(3, 2, 1)
    seq = layout.encode_numeric({"A": a, "B": b})
    assert seq.shape == (3, 4)
    np.testing.assert_array_equal(seq[:, :2], np.broadcast_to(a.reshape(1, 2), (3, 2)))
    np.testing.assert_array_equal(seq[:, 2:], b.reshape(3, 2))
    with pytest.raises(ShapeError, match="different batch sizes .3 and 2."):
        layout.encode_numeric({"A": np.zeros((3, 1, 2)), "B": np.zeros((2, 2, 1))})


def test_symbols_are_named_after_their_entry() -> None:
    layout = SequenceLayout.of(("A", (2, 1)), ("B", (1, 2)))
    assert layout.symbols(str) == {"A": [["A[0,0]"], ["A[1,0]"]], "B": [["B[0,0]", "B[0,1]"]]}
    assert layout.describe() == "A (2x1) at [0, 2); B (1x2) at [2, 4)"


@pytest.mark.parametrize("text, dims_", [("3x4", (3, 4)), (" 2 X 5 ", (2, 5)), ("1,2,3", (1, 2, 3)), ("7", (7,))])
def test_parse_dims(text: str, dims_: tuple) -> None:
    assert parse_dims(text) == dims_


@pytest.mark.parametrize("text, message", [
    ("3by4", "cannot read the shape"), ("", "cannot read the shape"), ("3x", "cannot read the shape"),
    ("-1x2", "cannot read the shape"), ("0x3", "at least 1"), ("2.5x3", "cannot read the shape"),
])
def test_bad_shape_text_is_a_shape_error(text: str, message: str) -> None:
    with pytest.raises(ShapeError, match=message):
        parse_dims(text)


def test_wrong_number_of_dimensions() -> None:
    with pytest.raises(ShapeError, match="needs 2 dimensions, got 3"):
        MatrixShape.parse("2x3x4")
    assert MatrixShape.parse("2x3") == MatrixShape(2, 3)


@pytest.mark.parametrize("rows, cols", [(0, 2), (2, -1), (1.5, 2), (True, 2)])
def test_matrix_shape_needs_positive_whole_dimensions(rows, cols) -> None:
    with pytest.raises(ShapeError, match="positive whole number"):
        MatrixShape(rows, cols)


def test_a_length_that_does_not_fit_is_a_shape_error() -> None:
    with pytest.raises(ShapeError, match=r"need 12 positions, but the sequence has only 11"):
        SequenceLayout.of(("A", (2, 3)), ("B", (3, 2)), length=11)
    layout = SequenceLayout.of(("A", (2, 3)))
    with pytest.raises(ShapeError, match="length 5 does not fit"):
        layout.decode([0] * 5)
    with pytest.raises(ShapeError, match="does not fit"):
        layout.decode_numeric(np.zeros((1, 7)))
    with pytest.raises(ShapeError, match="does not fit"):
        layout.padding([0] * 7)


def test_block_names_must_differ() -> None:
    with pytest.raises(ShapeError, match="names two blocks 'A'"):
        SequenceLayout.of(("A", (1, 1)), ("A", (2, 2)))


def test_encoding_errors_name_the_matrix() -> None:
    layout = SequenceLayout.of(("A", (2, 3)), ("B", (3, 1)))
    with pytest.raises(ShapeError, match="the matrix A has shape 3x2, the layout expects 2x3"):
        layout.encode({"A": [[1, 2], [3, 4], [5, 6]], "B": [[1], [2], [3]]})
    with pytest.raises(ShapeError, match="B .3x1. is missing"):
        layout.encode({"A": [[1, 2, 3], [4, 5, 6]]})
    with pytest.raises(ShapeError, match="no block named 'C'"):
        layout.encode({"A": np.zeros((2, 3)), "B": np.zeros((3, 1)), "C": np.zeros((1, 1))})
    with pytest.raises(ShapeError, match="rows of equal length"):
        layout.encode({"A": [[1, 2, 3], [4, 5]], "B": [[1], [2], [3]]})
    with pytest.raises(ShapeError, match="the matrix B has shape 1x3"):
        layout.encode_numeric({"A": np.zeros((2, 3)), "B": np.zeros((1, 3))})
    with pytest.raises(ShapeError, match="no block named 'Z'"):
        layout.block("Z")


def test_non_finite_values_are_refused_with_their_entry() -> None:
    layout = SequenceLayout.of(("A", (2, 2)))
    bad = np.array([[1.0, 2.0], [np.nan, 4.0]])
    with pytest.raises(InputError, match=r"the matrix A has a non-finite value at entry \(1, 0\)"):
        layout.encode_numeric({"A": bad})


def test_layout_errors_are_usim_errors() -> None:
    assert issubclass(ShapeError, UsimError) and issubclass(InputError, UsimError)
