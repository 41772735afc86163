"""Found in review: usim check --tracr proved its spec about usim's reading of a tracr program, and
nothing tied the reading to tracr's program at the lengths proved but the library's tests. A reading
that differed from tracr's evaluator (a wrong table entry) would have been PROVED against a spec the
tracr program does not meet. Now each length is first run on every input beside tracr's evaluator;
where they differ, nothing is proved."""

from __future__ import annotations

import pytest

pytest.importorskip("tracr", reason="tracr is not installed (the tracr extra: pip install 'usim[tracr]')")
from tracr.rasp import rasp  # noqa: E402

import usim.tracr_reader.convert as convert  # noqa: E402
from usim.engine.claim import Status  # noqa: E402
from usim.listings.tracr_check import check_tracr  # noqa: E402
from usim.listings.user_spec import load_spec_text  # noqa: E402

EVERYWHERE_ONE = load_spec_text(
    "import sympy\nfrom usim.listings.user_spec import spec\n"
    "@spec(inputs={'x': (1, 'n')}, outputs={'y': (1, 'n')}, reads='symbol', max_n=2)\n"
    "def ones(x, n):\n    return sympy.Matrix([[1] * n])\n", "ones", "ones.py")


def test_a_reading_that_differs_from_tracrs_evaluator_proves_nothing(monkeypatch):
    program = rasp.numerical(rasp.Map(lambda x: 1 if x == "a" else 0, rasp.tokens))
    real = convert.applied
    monkeypatch.setattr(convert, "applied",  # the reading's table is wrong at "b": 1, as the false spec says
                        lambda f, args: 1 if args == ("b",) else real(f, args))
    reading = convert.read_tracr(program, ["a", "b"], 2)
    assert reading.run(["b"]) == [1] and rasp.evaluate(program, ["b"]) == [0]
    report = check_tracr(reading, EVERYWHERE_ONE, "it.py:program")
    assert [s.status for s in report.shapes] == [Status.ERROR, Status.ERROR]
    assert "differs from tracr's evaluator" in report.shapes[0].error and not report.ok
