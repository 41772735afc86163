"""Expected verdicts: written forms read, and a report's verdicts compared shape by shape."""

from __future__ import annotations

import pytest

from usim.engine.claim import Status
from usim.errors import InputError
from usim.listings.expect import Expectations, parse_expectations, read_expectations


def test_one_verdict_is_expected_at_every_shape() -> None:
    e = parse_expectations(["refuted"])
    assert e.at("2x2") is Status.REFUTED and e.at("9") is Status.REFUTED


def test_pairs_name_shapes_and_a_star_the_others_else_proved() -> None:
    e = parse_expectations(["2x2x2=refuted", " 4x4x4 = proved "])
    assert (e.at("2x2x2"), e.at("4x4x4"), e.at("3x3x3")) == (Status.REFUTED, Status.PROVED, Status.PROVED)
    assert parse_expectations(["1=proved", "*=refuted"]).at("3") is Status.REFUTED


def test_a_file_takes_pairs_with_or_without_equals_and_comments() -> None:
    e = read_expectations("# Matmul4x4, E12\n2x2x2 refuted\n3x3x3=refuted  # 16 heads for n = 4\n\n*=proved\n", "m.txt")
    assert e == Expectations({"2x2x2": Status.REFUTED, "3x3x3": Status.REFUTED}, Status.PROVED)


@pytest.mark.parametrize("pairs, said", [
    (["bogus"], "'bogus' is not a verdict"),
    (["2x2=maybe"], "'maybe' is not a verdict"),
    (["refuted", "2x2=proved"], "without a shape"),
    (["2x2=proved", "2x2=refuted"], "2x2 is given twice"),
    (["=proved"], "a shape is missing"),
    ([" "], "no expected verdict"),
])
def test_a_written_expectation_that_is_not_one_is_refused(pairs, said) -> None:
    with pytest.raises(InputError, match=said):
        parse_expectations(pairs)
