"""tracr's programs read into usim's RASP: tracr's evaluator is the reference.

Every program of tracr's own library (``tracr/compiler/lib.py``, made in
``examples/tracr/programs.py``) is read for a vocabulary and a longest input,
and usim's exact run equals tracr's evaluator on 25 seeded inputs and on every
input up to length 4; None where tracr gives None.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from pathlib import Path

import pytest

tracr = pytest.importorskip("tracr", reason="tracr is not installed (the tracr extra: pip install 'usim[tracr]')")
from tracr.rasp import rasp  # noqa: E402

from usim.claim_code import load_object  # noqa: E402
from usim.encodings.domain import Undefined  # noqa: E402
from usim.encodings.evaluate import evaluate_sops  # noqa: E402
from usim.encodings.exact import EXACT  # noqa: E402
from usim.errors import InputError  # noqa: E402
from usim.tracr_reader.convert import read_tracr  # noqa: E402
from usim.tracr_reader.value_sets import CannotRead  # noqa: E402

PROGRAMS = Path(__file__).resolve().parent.parent / "examples" / "tracr" / "programs.py"
ABC = ("a", "b", "c")
VOCABULARIES = load_object(f"{PROGRAMS}:VOCABULARIES", "vocabularies")  # the tokens each program is meant for
MAX_LEN = 5


def program(name: str):
    return load_object(f"{PROGRAMS}:{name}", "tracr program")


def same(tracr_value, usim_value) -> bool:
    """tracr's value and usim's: None for None, strings and booleans equal, numbers to 1e-12
    (tracr averages in floats, usim exactly)."""
    if tracr_value is None or usim_value is None:
        return tracr_value is None and usim_value is None
    if isinstance(tracr_value, str) or isinstance(usim_value, str):
        return tracr_value == usim_value
    return abs(Fraction(tracr_value) - Fraction(usim_value)) <= Fraction(1, 10**12) * max(1, abs(tracr_value))


def agrees(tracr_program, reading, tokens) -> bool:
    expected = rasp.evaluate(tracr_program, tokens)
    got = reading.run(tokens)
    return len(expected) == len(got) and all(same(e, g) for e, g in zip(expected, got))


@pytest.mark.parametrize("name", sorted(VOCABULARIES))
def test_every_program_of_tracrs_library_runs_as_tracrs_evaluator_on_25_seeded_inputs(name):
    vocab = VOCABULARIES[name]
    p = program(name)
    reading = read_tracr(p, vocab, MAX_LEN)
    rng = random.Random(name)
    for _ in range(25):
        tokens = [rng.choice(vocab) for _ in range(rng.randint(1, MAX_LEN))]
        assert agrees(p, reading, tokens), tokens


@pytest.mark.parametrize("name", sorted(VOCABULARIES))
def test_every_program_of_tracrs_library_runs_as_tracrs_evaluator_on_every_input_up_to_length_4(name):
    vocab = VOCABULARIES[name]
    p = program(name)
    reading = read_tracr(p, vocab, MAX_LEN)
    for length in range(1, 5):
        for tokens in itertools.product(vocab, repeat=length):
            assert agrees(p, reading, list(tokens)), tokens


def test_the_comparison_with_tracrs_evaluator_fails_where_the_reading_differs():
    hist = program("hist")
    wrong = read_tracr(program("length"), ABC, MAX_LEN)  # a reading of another program
    assert not agrees(hist, wrong, ["a", "b", "a"])
    assert not same(None, 0) and not same("a", "b") and not same(0.5, Fraction(1, 2) + Fraction(1, 10**9))
    assert same(1 / 3, Fraction(1, 3)) and same(True, 1)


def test_tracrs_none_is_usims_undefined_and_shown_as_none():
    reading = read_tracr(program("shift_by"), ABC, MAX_LEN)
    assert reading.run(["a", "b", "c"]) == [None, "a", "b"]
    assert read_tracr(program("sort_unique"), (1, 2, 3), 4).run([3, 1, 1]) == [1, None, 3]


def test_a_mean_is_exact_where_tracrs_evaluator_rounds():
    assert read_tracr(program("frac_prevs"), ABC, MAX_LEN).run(["a", "b", "b"]) == [1, Fraction(1, 2), Fraction(1, 3)]


def test_a_predicate_given_as_a_function_is_one_select_when_its_key_sets_are_equal_or_disjoint():
    from usim.rasp.expr import Select

    reading = read_tracr(program("shift_by"), ABC, MAX_LEN)  # q == k + 1
    selects = [n for n in _nodes(reading.sop) if isinstance(n, Select)]
    assert len([s for s in selects if s.predicate.name == "EQ"]) == 1


def test_a_predicate_whose_key_sets_overlap_is_a_union_and_still_exact():
    keys_below_query_plus_one = rasp.Select(rasp.indices, rasp.indices, lambda k, q: k <= q + 1 and k != q)
    p = rasp.numerical(rasp.Aggregate(keys_below_query_plus_one, rasp.numerical(rasp.indices), default=0))
    reading = read_tracr(p, ("a",), 4)
    for length in range(1, 5):
        assert agrees(p, reading, ["a"] * length)


def test_a_value_outside_a_table_is_undefined_never_a_guess():
    p = rasp.Map(lambda x: x + 1, rasp.tokens)
    reading = read_tracr(p, (1, 2), 3)
    assert reading.run([1, 2]) == [2, 3]
    out = evaluate_sops((reading.sop,), EXACT, [1, 3])[0]  # 3: past the vocabulary the table is for
    assert out[0] == 2 and isinstance(out[1], Undefined)


def test_a_function_that_raises_is_undefined_there_as_tracrs_evaluator_fails():
    p = rasp.Map(lambda x: 6 // x, rasp.tokens)
    reading = read_tracr(p, (0, 2, 3), 3)
    assert reading.run([2, 3, 0]) == [3, 2, None]


@pytest.mark.parametrize("make,vocab,message", [
    (lambda: rasp.ConstantSOp([1, 2]), ("a",), "ConstantSOp"),
    (lambda: rasp.Map(lambda x: 1 if x == "a" else "b", rasp.tokens), ("a", "b"), "holds numbers and values that are not"),
    (lambda: rasp.Aggregate(rasp.Select(rasp.indices, rasp.indices, rasp.Comparison.EQ), rasp.tokens, default=0),
     ("a",), "of another kind"),
    (lambda: rasp.Select(rasp.tokens, rasp.tokens, rasp.Comparison.LT), ("a",), "not a tracr sequence"),
    (lambda: rasp.Map(lambda x: x * 10**6, rasp.Map(lambda x: 1.5 * x, rasp.indices)), ("a",), None),
])
def test_what_usim_cannot_read_is_one_line_naming_the_expression(make, vocab, message):
    from usim.tracr_reader.convert import program_of

    if message is None:  # readable: a control that the cases above fail for their own reason
        assert read_tracr(program_of(make(), "it"), vocab, 3).run(["a", "a"]) == [0, 1500000]
        return
    with pytest.raises(CannotRead, match=message) as caught:
        read_tracr(program_of(make(), "it"), vocab, 3)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("vocab,max_len,tokens,message", [
    (ABC, 0, None, "positive integer"), ((), 3, None, "at least one token"), ((None, "a"), 3, None, "None"),
    (ABC, 3, ["a"] * 4, "1 to 3"), (ABC, 3, ["d"], "not in the vocabulary"), (ABC, 3, [], "1 to 3"),
])
def test_a_bad_vocabulary_length_or_input_is_refused(vocab, max_len, tokens, message):
    with pytest.raises(InputError, match=message):
        read_tracr(program("reverse"), vocab, max_len).run(tokens)


def _nodes(root):
    seen, stack = {}, [root]
    while stack:
        node = stack.pop()
        if node.id not in seen:
            seen[node.id] = node
            stack.extend(node.children())
    return list(seen.values())
