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


def test_z3_never_proves_a_network_that_differs_from_its_reading():
    """z3's query is the only thing the z3 engine trusts: for a broken network it must find a
    candidate or give up, never answer that no input differs."""
    from usim.transformer import broken
    from usim.transformer.finite_to_network import compile_finite, z3_difference
    import dataclasses

    program = rasp.numerical(rasp.Aggregate(rasp.Select(rasp.indices, rasp.indices, rasp.Comparison.LEQ),
                                            rasp.numerical(rasp.Map(lambda x: 1 if x == "a" else 0, rasp.tokens)),
                                            default=0))
    compiled = compile_finite(program, ["a", "b"], 3, 3)
    assert z3_difference(compiled, 30)[0] == "unsat"
    wrong = dataclasses.replace(compiled, network=broken.wrong_mlp_weight(compiled.network))
    answer, tokens = z3_difference(wrong, 30)
    assert answer == "sat" and len(tokens) == 3 and set(tokens) <= {"a", "b"}


def test_a_z3_that_gives_up_costs_time_never_a_verdict(monkeypatch):
    """Where z3 answers unknown, every input of that length is run: a broken network is REFUTED."""
    import usim.transformer.finite_to_network as finite
    from usim.transformer import broken

    program = rasp.Map(lambda x: x + "!", rasp.tokens)
    monkeypatch.setattr(finite, "z3_difference", lambda compiled, timeout: ("unknown", None))
    check = check_finite(program, ["a", "b"], 2, broken=broken.wrong_mlp_weight, engine="z3")
    assert not check.proved and check.engines == ("exhaustive (z3: unknown)",) * 2
