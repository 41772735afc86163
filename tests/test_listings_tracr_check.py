"""tracr's programs proved against specs written here, at every length, over every input of a vocabulary.

The programs are tracr's own library's (``examples/tracr/programs.py``), the
specs usim's (``examples/specs/tracr_lib.py``); each program's broken variant
(``broken_NAME``) is refuted. Quick tests go to length 4, the slow ones to 5
(4 for the sort of distinct keys: 4 values fill at most 4 positions).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("tracr", reason="tracr is not installed (the tracr extra: pip install 'usim[tracr]')")

from usim.api import check_tracr  # noqa: E402
from usim.engine.claim import Status  # noqa: E402
from usim.errors import InputError  # noqa: E402
from usim.listings.tracr_check import tracr_obligation  # noqa: E402
from usim.listings.user_spec import load_spec_file, load_spec_text  # noqa: E402
from usim.tracr_reader.convert import read_tracr  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PROGRAMS = EXAMPLES / "tracr" / "programs.py"
SPECS = EXAMPLES / "specs" / "tracr_lib.py"
ABC = ("a", "b", "c")
CASES = {  # program: (vocabulary, spec, the longest length proved: 5, or 4 where it must be)
    "length": (ABC, "length", 5), "reverse": (ABC, "reverse", 5), "hist": (ABC, "hist", 5),
    "sort_unique": ((1, 2, 3, 4), "ascending_distinct", 4),  # distinct keys: 4 values, 4 positions
    "sort": ((1, 2, 3, 4), "ascending", 5), "sort_freq": (ABC, "by_frequency", 5),
    "frac_prevs": (ABC, "fraction_of_a", 5), "pair_balance": (tuple("()x"), "bracket_balance", 5),
    "shuffle_dyck": (tuple("(){}"), "shuffle_balanced", 5), "shuffle_dyck2": (tuple("(){}"), "shuffle_balanced", 5),
    "count_less_freq": (ABC, "at_most_twice", 5), "count": (ABC, "count_of_a", 5),
    "nary_sum": ((1, 2, 3, 4), "token_times_index_plus_token", 5),
    "shift_by": (ABC, "previous_token", 5), "detect_pattern": (ABC, "ends_ab", 5),  # None at position 0, stated
}
QUICK: dict[str, int] = {}  # every program to length 4 in the quick run


def checked(name: str, longest: int):
    vocab, spec, _ = CASES[name]
    return check_tracr(f"{PROGRAMS}:{name}", vocab, longest, f"{SPECS}:{spec}", timeout=300,
                       broken=[f"{PROGRAMS}:broken_{name}"])


def assert_proved_and_broken_refuted(report, longest: int) -> None:
    assert [s.status for s in report.shapes] == [Status.PROVED] * longest, [
        (s.label, s.status, s.error) for s in report.shapes]
    refuted = [s for s in report.broken if s.status is Status.REFUTED]  # at some length (every length is run)
    assert refuted and all(s.result.counterexample is not None for s in refuted)
    assert report.ok


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_program_of_tracrs_library_is_proved_to_length_4_and_its_broken_variant_refuted(name):
    longest = min(QUICK.get(name, 4), CASES[name][2])
    assert_proved_and_broken_refuted(checked(name, longest), longest)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_program_of_tracrs_library_is_proved_to_the_longest_length(name):
    longest = CASES[name][2]
    assert_proved_and_broken_refuted(checked(name, longest), longest)


def test_a_program_that_gives_none_where_its_spec_says_nothing_of_it_is_refuted_there_replayed():
    report = check_tracr(f"{PROGRAMS}:shift_by", ABC, 3, load_spec_text(
        "import sympy\nfrom usim.listings.user_spec import spec\n"
        "@spec(inputs={'x': (1, 'n')}, outputs={'y': (1, 'n')}, reads='symbol', writes='symbol')\n"
        "def previous(x, n):\n    return sympy.Matrix([[x[0, max(i - 1, 0)] for i in range(n)]])\n",
        "previous", "previous.py"))
    first = report.shapes[0]
    assert first.status is Status.REFUTED and "undefined" in first.result.counterexample.got
    assert "tracr's gives None" in first.result.counterexample.got
    assert not report.ok


def test_a_program_that_gives_a_value_where_its_spec_says_none_proves_nothing():
    report = check_tracr(f"{PROGRAMS}:reverse", ABC, 2, f"{SPECS}:previous_token")
    assert [s.status for s in report.shapes] == [Status.ERROR, Status.ERROR] and not report.ok
    assert "gives 'a' at position 0, where the spec says None" in report.shapes[0].error


def test_a_spec_that_says_none_is_refused_for_a_listing():
    from usim.listings.check import CheckRequest, check
    from usim.errors import UsimError

    with pytest.raises(UsimError, match="only a tracr program"):
        report = check(CheckRequest("r.rasp", "f", load_spec_file(f"{SPECS}:previous_token"), shapes=[(2,)],
                                    text="def f() { return tokens; }", alphabet=["a", "b"]))
        raise UsimError(report.shapes[0].error or "")


def test_a_spec_that_does_not_fit_the_program_is_one_line():
    reading = read_tracr(__import__("usim.claim_code", fromlist=["x"]).load_object(
        f"{PROGRAMS}:reverse", "tracr program"), ABC, 3)
    with pytest.raises(InputError, match="reads symbols, but the ascending spec reads numbers"):
        tracr_obligation(reading, load_spec_file(f"{SPECS}:ascending"), 2, "reverse")
    two_dims = load_spec_text("from usim.listings.user_spec import spec\n"
                              "@spec(inputs={'M': ('r', 'c')}, outputs={'F': ('r', 'c')})\n"
                              "def same(M):\n    return M\n", "same", "same.py")
    with pytest.raises(InputError, match="one dimension"):
        tracr_obligation(reading, two_dims, 2, "reverse")
    with pytest.raises(InputError, match="past the reading's longest input"):
        tracr_obligation(reading, load_spec_file(f"{SPECS}:reverse"), 4, "reverse")
