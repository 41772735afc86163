"""Running a listing's sequence on one input (repl/running.py)."""

from __future__ import annotations

import pytest

from usim.errors import UsimError
from usim.repl import load_text


def test_a_mean_of_booleans_on_numbers_says_why_it_is_undefined():
    """tracr's numerical(tokens == "a") in make_frac_prevs: refused by design (RASP averages numbers
    only), but on a numeric input the message was "NaN: an operation outside its domain" (issue 26)."""
    rasp = load_text("def frac() { return aggregate(select(indices, indices, <=), tokens == 1); }\n"
                     "def by_indicator() { return aggregate(select(indices, indices, <=), indicator(tokens == 1)); }",
                     "f.rasp")
    with pytest.raises(UsimError, match="an aggregate of non-numbers .* selects more than one key") as caught:
        rasp.run("frac", [1, 2, 1])
    assert "NaN" not in str(caught.value)
    assert [float(v) for v in rasp.run("by_indicator", [1, 2, 1])] == pytest.approx([1, 0.5, 2 / 3])


def test_an_undefined_value_is_named_by_the_exact_run_where_there_is_one():
    rasp = load_text("def f() { return 1 / (tokens - 1); }\ndef g() { return exp(tokens) / (tokens - 1); }", "g.rasp")
    with pytest.raises(UsimError, match=r"division by zero in .* at position 0"):
        rasp.run("f", [1, 2])
    with pytest.raises(UsimError, match=r"NaN: an operation outside its domain"):  # exp has no exact run
        rasp.run("g", [1, 2])
