"""usim's compiler over finite value sets: every program of tracr's library compiled exactly, proved by
exhaustion against the program, and broken compilations refuted."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("tracr", reason="tracr is not installed (the tracr extra: pip install 'usim[tracr]')")
from tracr.rasp import rasp  # noqa: E402

from usim.claim_code import load_object  # noqa: E402
from usim.tracr_reader.value_sets import CannotRead  # noqa: E402
from usim.transformer import broken  # noqa: E402
from usim.transformer.finite_to_network import check_finite, compile_finite  # noqa: E402

PROGRAMS = Path(__file__).resolve().parent.parent / "examples" / "tracr" / "programs.py"
ABC = "abc"
VOCABULARIES = {name: vocab for name, vocab in load_object(f"{PROGRAMS}:VOCABULARIES", "vocabularies").items()
                if name != "nary_sequencemap"}  # tracr's library, the vocabulary each program is meant for


def program(name: str):
    return load_object(f"{PROGRAMS}:{name}", "tracr program")


@pytest.mark.parametrize("name", sorted(VOCABULARIES))
def test_every_program_of_tracrs_library_compiles_and_equals_the_program_on_every_input_up_to_length_3(name):
    check = check_finite(program(name), list(VOCABULARIES[name]), 3)
    assert check.proved, check.first
    assert check.inputs == sum(len(VOCABULARIES[name]) ** n for n in range(1, 4))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(VOCABULARIES))
def test_every_program_of_tracrs_library_equals_the_program_on_every_input_up_to_length_5(name):
    assert check_finite(program(name), list(VOCABULARIES[name]), 5).proved


@pytest.mark.parametrize("name,mistake", [("hist", broken.wrong_relation), ("sort_unique", broken.without_sink),
                                          ("reverse", broken.wrong_mlp_weight), ("sort_freq", broken.wrong_relation)])
def test_a_broken_compilation_is_refuted_with_the_input_where_it_differs(name, mistake):
    check = check_finite(program(name), list(VOCABULARIES[name]), 3, broken=mistake)
    assert not check.proved and check.differs > 0
    tokens, position, expected, got = check.first
    assert expected is not None and got != expected and 0 <= position < len(tokens)


def test_where_the_program_is_undefined_nothing_is_asked_and_that_is_counted():
    check = check_finite(program("shift_by"), list(ABC), 3)
    assert check.proved and check.undefined == 3 + 9 + 27  # position 0 of every input


def test_the_compiled_network_is_a_network_of_hard_heads_and_relu_units():
    compiled = compile_finite(program("hist"), list(ABC), 4, 4)
    network = compiled.network
    assert [len(layer.heads) for layer in network.layers] == [0, 1]  # the tokens' codes, then the selector width
    assert all(h.kind == "hard" for layer in network.layers for h in layer.heads)
    assert compiled.values == (0, 1, 2, 3, 4)


@pytest.mark.parametrize("make,message", [
    (lambda: rasp.numerical(rasp.Aggregate(rasp.Select(rasp.indices, rasp.indices, rasp.Comparison.EQ) &
                                           rasp.Select(rasp.tokens, rasp.tokens, rasp.Comparison.EQ),
                                           rasp.numerical(rasp.indices), default=0)), "only a Select"),
    (lambda: rasp.numerical(rasp.Aggregate(rasp.Select(rasp.indices, rasp.indices, rasp.Comparison.LT),
                                           rasp.numerical(rasp.indices), default=2)), "0 or None only"),
])
def test_what_the_compiler_does_not_compile_is_refused_naming_it(make, message):
    with pytest.raises(CannotRead, match=message):
        compile_finite(make(), list(ABC), 3, 2)


# -- z3 in place of running every input (engine="z3") ------------------------------------------------

@pytest.mark.parametrize("name,alone", [("frac_prevs", True), ("pair_balance", True),
                                        ("shift_by", False)])
def test_z3_proves_what_exhaustion_proves_with_the_same_counts(name, alone):
    """z3 asks whether the network differs from the reading's terms anywhere, where the reading is
    undefined too: shift_by's first position (tracr's None) holds another value in the network
    than in the terms, so z3's candidate sends each length to exhaustion, which proves it."""
    exhaustive = check_finite(program(name), list(VOCABULARIES[name]), 3)
    by_z3 = check_finite(program(name), list(VOCABULARIES[name]), 3, engine="z3")
    assert by_z3.proved and exhaustive.proved
    assert (by_z3.inputs, by_z3.positions, by_z3.undefined) == (exhaustive.inputs, exhaustive.positions,
                                                                 exhaustive.undefined)
    assert exhaustive.engines == ("exhaustive",) * 3
    assert by_z3.engines == (("z3",) * 3 if alone else ("exhaustive (z3: a candidate)",) * 3)


@pytest.mark.parametrize("name,mistake", [("frac_prevs", broken.wrong_mlp_weight), ("hist", broken.wrong_relation),
                                          ("count", broken.without_sink)])
def test_under_z3_a_broken_compilation_is_refuted_by_exhaustion_with_the_same_first_difference(name, mistake):
    exhaustive = check_finite(program(name), list(VOCABULARIES[name]), 3, broken=mistake)
    by_z3 = check_finite(program(name), list(VOCABULARIES[name]), 3, broken=mistake, engine="z3")
    assert not by_z3.proved and (by_z3.differs, by_z3.first) == (exhaustive.differs, exhaustive.first)
    assert any(engine.startswith("exhaustive (z3: a candidate") for engine in by_z3.engines)


def test_an_engine_usim_does_not_have_is_refused():
    from usim.errors import InputError

    with pytest.raises(InputError, match="no engine 'cvc5'"):
        check_finite(program("hist"), list(ABC), 2, engine="cvc5")
