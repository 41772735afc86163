"""Found in review: usim compile --tracr's proof by exhaustion skipped every position where the
program's reading is undefined, taking it for tracr's None. Had the reading been undefined where
tracr's evaluator gives a value (a table short of an entry), the network would have been PROVED
there unchecked. Now such a position counts as a difference."""

from __future__ import annotations

import pytest

pytest.importorskip("tracr", reason="tracr is not installed (the tracr extra: pip install 'usim[tracr]')")
from tracr.rasp import rasp  # noqa: E402

import usim.tracr_reader.convert as convert  # noqa: E402
from usim.tracr_reader.value_sets import Failed  # noqa: E402
from usim.transformer.finite_to_network import check_finite  # noqa: E402


def test_a_reading_undefined_where_tracrs_evaluator_is_not_is_a_difference_never_skipped(monkeypatch):
    program = rasp.Map(lambda x: x + "!", rasp.tokens)
    assert check_finite(program, ["a", "b"], 2).proved
    real = convert.applied
    monkeypatch.setattr(convert, "applied",  # the reading's table loses its entry for "a"
                        lambda f, args: Failed(ValueError("lost")) if args == ("a",) else real(f, args))
    check = check_finite(program, ["a", "b"], 2)
    assert not check.proved and check.first[2] == "a!"
