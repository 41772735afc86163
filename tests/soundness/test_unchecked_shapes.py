"""A shape of a listing check that nothing decided (its obligation could not be
built, or building it ran past the deadline) is ERROR or UNKNOWN, never PROVED
or REFUTED: the deadline's change made Unchecked's status a field that any
status could be given."""

import pytest

from usim.engine.claim import Status
from usim.listings.report import Unchecked


def test_an_unchecked_shape_is_an_error_unless_said_unknown():
    assert Unchecked((2, 3), "no statement").status is Status.ERROR
    assert Unchecked((2, 3), "past the deadline", status=Status.UNKNOWN).status is Status.UNKNOWN
    assert Unchecked((2, 3), "no statement").counterexample is None


@pytest.mark.parametrize("status", [Status.PROVED, Status.REFUTED])
def test_an_unchecked_shape_cannot_be_recorded_decided(status):
    with pytest.raises(ValueError, match="nothing decided it"):
        Unchecked((2, 3), "no statement", status=status)
