"""The values a tracr sequence can hold: usim's inference is sound where tracr's is not."""

from __future__ import annotations

from fractions import Fraction

import pytest

pytest.importorskip("tracr", reason="tracr is not installed (the tracr extra: pip install 'usim[tracr]')")
from tracr.compiler import basis_inference, lib, nodes, rasp_to_graph  # noqa: E402
from tracr.rasp import rasp  # noqa: E402

from usim.tracr_reader.value_sets import ATOM, BOOLEAN, NUMBER, CannotRead, ValueSets, kind_of  # noqa: E402


def tracrs_value_set(program, vocab, max_len):
    graph = rasp_to_graph.extract_rasp_graph(program)
    basis_inference.infer_bases(graph.graph, graph.sink, set(vocab), max_len)
    return graph.graph.nodes[program.label][nodes.VALUE_SET]


def test_a_mean_of_booleans_can_hold_every_fraction_of_selected_keys_which_tracrs_inference_misses():
    frac_prevs = lib.make_frac_prevs(rasp.tokens == "a")
    ours = set(ValueSets(frozenset("ab"), 3).of(frac_prevs))
    assert ours == {0, 1, Fraction(1, 2), Fraction(1, 3), Fraction(2, 3)}
    # tracr's basis inference gives x / w for x in {0, 1}: "aab" makes 2/3 at its last position
    assert rasp.evaluate(frac_prevs, list("aab"))[2] == pytest.approx(2 / 3)
    assert not any(abs(v - 2 / 3) < 1e-9 for v in tracrs_value_set(frac_prevs, "ab", 3))


def test_a_map_holds_what_its_function_gives_on_its_inputs_values_and_none_is_left_out():
    shifted = rasp.Map(lambda x: None if x == 0 else x - 1, rasp.indices)
    assert set(ValueSets(frozenset("a"), 4).of(shifted)) == {0, 1, 2}


def test_a_value_set_past_the_limit_is_refused_naming_the_sequence():
    wide = rasp.numerical(rasp.Aggregate(rasp.Select(rasp.indices, rasp.indices, rasp.Comparison.LEQ),
                                         rasp.numerical(rasp.Map(lambda x: x * 7919 % 10007, rasp.indices)),
                                         default=0)).named("wide_mean")
    with pytest.raises(CannotRead, match="wide_mean"):
        ValueSets(frozenset("a"), 40).of(wide)


@pytest.mark.parametrize("values,kind", [([True, False], BOOLEAN), ([1, 2.5, True], NUMBER), (["a", ("a", "b")], ATOM),
                                         ([], NUMBER)])
def test_a_sequence_has_one_kind(values, kind):
    assert kind_of(values, "x") == kind


def test_numbers_mixed_with_other_values_are_refused():
    with pytest.raises(CannotRead, match="holds numbers and values that are not"):
        kind_of([1, "a"], "mixed")
