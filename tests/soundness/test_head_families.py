"""Head families evaluated as arrays (encodings/families.py, family_arrays.py): the wrong numbers a
review of that evaluator found before it landed, each now the head-by-head
run's number or a refusal (UnsupportedFamily, FamilyError, RangeError), never
another number."""

from fractions import Fraction

import numpy as np
import pytest

from usim.constructions.base import gather
from usim.encodings.families import UnsupportedFamily
from usim.encodings.runners import run_numeric
from usim.errors import RangeError, UsimError
from usim.rasp.expr import Predicate, aggregate, indices, select, tokens
from usim.rasp.family import FamilyError, head_family, head_sum, keeping_families
from usim.rasp.program import Program

BIG = 2**53


def _kept_and_expanded(build):
    with keeping_families():
        kept = Program.of("family", {"Y": build()}, "")
    return kept, Program.of("heads", {"Y": build()}, "")


def _same_or_refused(build, sequence, refusal=UnsupportedFamily):
    """The family's strict run gives the head-by-head run's number, or refuses."""
    kept, expanded = _kept_and_expanded(build)
    want = run_numeric(expanded, sequence, strict=True)["Y"]
    try:
        got = run_numeric(kept, sequence, strict=True)["Y"]
    except refusal:
        return None
    np.testing.assert_allclose(got, want, rtol=1e-15)
    return got


def test_an_or_of_selects_is_not_read_as_their_and():
    def build():
        return head_sum(2, lambda i: aggregate(select(i, indices, Predicate.EQ) | select(indices, 1, Predicate.LT),
                                               tokens), names=("i",))
    assert _same_or_refused(build, [10.0, 20.0, 30.0, 40.0]) is None  # refused, not [10, 10, 0, 0]


@pytest.mark.parametrize("values", [lambda i: i + 1, lambda i: gather(tokens, i + 1)])
def test_a_value_the_same_at_every_key_is_averaged_over_all_of_them(values):
    def build():
        return head_sum(2, lambda i: aggregate(select(indices, 3, Predicate.LT) & select(i, indices, Predicate.EQ),
                                               values(i)), names=("i",))
    got = _same_or_refused(build, [1.0, 2.0, 3.0, 4.0, 5.0])
    assert got is not None and got[0, :2].tolist() in ([1.0, 2.0], [2.0, 3.0])  # not divided by |K| = 3


def test_keys_compared_exactly_head_by_head_are_compared_exactly_as_a_family():
    """2**53 and 2**53 + 1 are one float64: the static pass tells them apart."""
    shifted = lambda: (indices + BIG).named("shifted")  # noqa: E731

    def keys():
        f = shifted()
        return head_sum(2, lambda i: aggregate(select(f, BIG + 1, Predicate.LT) & select(i, indices, Predicate.EQ),
                                               tokens), names=("i",))

    def writes():
        g = shifted()
        return head_sum(2, lambda i: aggregate(select(i + BIG, g, Predicate.EQ) & select(indices, i, Predicate.EQ),
                                               tokens), names=("i",))
    assert _same_or_refused(keys, [10.0, 20.0, 30.0, 40.0])[0].tolist() == [10.0, 10.0, 0.0, 0.0]
    assert _same_or_refused(writes, [10.0, 20.0, 30.0, 40.0])[0].tolist() == [10.0, 20.0, 0.0, 0.0]


def test_a_rational_key_or_a_divided_gather_source_is_refused_not_rounded():
    def rational_keys():
        f = ((indices + (10**17 - 1)) / 10**17).named("f")  # 1 - 1e-17 < 1, but 1.0 in float64
        return head_sum(2, lambda i: aggregate(select(f, 1, Predicate.LT) & select(i, indices, Predicate.EQ),
                                               tokens), names=("i",))

    def divided_source():
        return head_sum(2, lambda i: aggregate(select(i, indices, Predicate.EQ),
                                               gather(tokens, ((indices + i) / 49) * 49 - i)), names=("i",))
    for build in (rational_keys, divided_source):
        kept, _ = _kept_and_expanded(build)
        with pytest.raises(UnsupportedFamily):
            run_numeric(kept, [1.0, 2.0, 4.0, 8.0], strict=True)


@pytest.mark.parametrize("constant", [Fraction(123456789, 10**332), Fraction(123456789, 10**324)])
def test_a_constant_made_inside_a_head_is_lifted_strictly(constant):
    """Below float64's normal range: 0.0 or a subnormal with few digits, refused."""
    def build():
        return head_sum(2, lambda i: aggregate(select(i, indices, Predicate.EQ), tokens * constant), names=("i",))
    kept, expanded = _kept_and_expanded(build)
    for program in (kept, expanded):
        with pytest.raises(RangeError, match="below float64's normal range"):
            run_numeric(program, [1.0, 1.0], strict=True)


def test_a_head_parameter_beyond_int64_is_refused_not_wrapped():
    def build():
        return head_sum(2, lambda i: aggregate(select(i, indices, Predicate.EQ), tokens * ((i + 2**62) * 4)),
                        names=("i",))
    assert _same_or_refused(build, [1.0, 1.0]) is None  # not [0, 4]


def test_an_entry_past_the_end_of_a_head_family_is_an_error():
    def build():
        a = head_family(2, lambda k: gather(tokens, indices + k), name="a")
        return head_sum(2, lambda i: aggregate(select(i, indices, Predicate.EQ), a[i + 1] * tokens), names=("i",))
    with keeping_families():
        kept = Program.of("family", {"Y": build()}, "")
    with pytest.raises(FamilyError):
        run_numeric(kept, [1.0, 2.0, 3.0], strict=True)
    with pytest.raises(UsimError):  # (a UsimError, so the command line says it in one line)
        run_numeric(kept, [1.0, 2.0, 3.0])
