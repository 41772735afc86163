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


def _sum_of_floats_two_ways():
    """(0.1 + 0.2) + 0.3 less 0.1 + (0.2 + 0.3), scaled: exactly 0 in rationals, not in tracr's floats."""
    t, L = rasp.tokens, rasp.LinearSequenceMap
    a, b, c = (rasp.numerical(rasp.Map(lambda x, v=v: v, t)) for v in (0.1, 0.2, 0.3))
    left, right = L(L(a, b, 1, 1), c, 1, 1), L(a, L(b, c, 1, 1), 1, 1)
    return L(L(left, right, 4e15, -4e15), rasp.numerical(rasp.Map(lambda x: 1e9, t)), 1, 1)


def test_found_in_review_a_float_difference_of_a_half_at_a_billion_was_taken_for_agreement():
    # the reading's exact 10**9 and tracr's 1000000000.5 agreed to the old 1e-9 relative tolerance: PROVED
    program = _sum_of_floats_two_ways()
    billion = load_spec_text("import sympy\nfrom usim.listings.user_spec import spec\n"
                             "@spec(inputs={'x': (1, 'n')}, outputs={'y': (1, 'n')}, domain='integer', max_n=2)\n"
                             "def billion(x, n):\n    return sympy.Matrix([[10**9] * n])\n", "billion", "b.py")
    report = check_tracr(convert.read_tracr(program, [1, 2], 2), billion, "it.py:program")
    assert [s.status for s in report.shapes] == [Status.ERROR, Status.ERROR]
    assert "1000000000.5" in report.shapes[0].error


def test_found_in_review_tokens_that_are_not_strings_were_coded_in_the_order_of_their_repr():
    reading = convert.read_tracr(rasp.tokens, [(10,), (9,)], 2)
    assert reading.vocab == ((9,), (10,)) and reading.encode([(9,)]) == [0]  # sorted as Python sorts them


def test_found_in_review_values_usim_holds_as_one_number_told_apart_by_a_function_are_refused():
    from usim.tracr_reader.value_sets import CannotRead

    # a linear map's values were given to the next function as floats (1.0), tracr's are its own (1)
    as_text = rasp.Map(lambda x: "v" + str(x), rasp.LinearSequenceMap(rasp.tokens, rasp.indices, 1, 1))
    assert convert.read_tracr(as_text, [1], 3).run([1, 1]) == rasp.evaluate(as_text, [1, 1]) == ["v1", "v2"]
    # True and 1 are one number to usim: a function that tells them apart is refused, never guessed
    true_or_one = rasp.Map(lambda t: True if t == "a" else 1, rasp.tokens)
    program = rasp.Map(lambda x: 10 if x is True else 20, true_or_one, simplify=False)
    with pytest.raises(CannotRead, match="tells apart values usim holds as one"):
        convert.read_tracr(program, ["a", "b"], 2)


def test_found_in_review_a_select_on_a_mean_with_a_predicate_function_lost_its_entries():
    frac = rasp.numerical(rasp.Aggregate(rasp.Select(rasp.indices, rasp.indices, rasp.Comparison.LEQ),
                                         rasp.numerical(rasp.Map(lambda x: x == "a", rasp.tokens)), default=0))
    for program in (rasp.SelectorWidth(rasp.Select(frac, rasp.tokens, lambda k, q: k > 0.3 and q == "b")),
                    rasp.SelectorWidth(rasp.Select(rasp.tokens, frac, lambda k, q: k == "a" and q > 0.3))):
        reading = convert.read_tracr(program, ["a", "b"], 3)
        assert reading.differs_from_tracr(3) is None and reading.differs_from_tracr(2) is None


def test_found_in_review_usim_run_printed_its_exact_value_where_tracrs_evaluator_differs(capsys, tmp_path):
    from usim.cli import main

    source = tmp_path / "floats.py"
    source.write_text("from tracr.rasp import rasp\n"
                      "huge = rasp.LinearSequenceMap(rasp.tokens, rasp.tokens, 1e308, 1e308)\n")
    assert main(["run", "--tracr", f"{source}:huge", "--vocab", "[1]", "--max-len", "2", "--input", "[1]"]) == 1
    assert "tracr's evaluator gives inf at position 0" in capsys.readouterr().out
