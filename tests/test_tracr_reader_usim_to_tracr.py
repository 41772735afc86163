"""Listings in the RASP REPL's language compiled over finite value sets, through their tracr form,
proved equal to usim's own evaluation of the listing on every input."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("tracr", reason="tracr is not installed (the tracr extra: pip install 'usim[tracr]')")

import usim  # noqa: E402
from usim.rasp import expr as E  # noqa: E402
from usim.tracr_reader.usim_to_tracr import usim_to_tracr  # noqa: E402
from usim.tracr_reader.value_sets import CannotRead  # noqa: E402

LISTINGS = Path(__file__).resolve().parent.parent / "examples" / "rasp"


@pytest.mark.parametrize("path,function,alphabet,vocab", [
    ("symbols.rasp", "reverse", "abc", None), ("symbols.rasp", "histogram", "abc", None),
    ("symbols.rasp", "sort_symbols", "abc", None), ("symbols.rasp", "most_frequent", "abc", None),
    ("tracr_like.rasp", "sort_keys", None, [1, 2, 3, 4]), ("tracr_like.rasp", "balanced", "()x", None),
    ("tracr_like.rasp", "sort_by_frequency_tracr", "abc", None), ("transpose.rasp", "transpose", None, [0, 1]),
])
def test_a_listing_compiles_and_equals_its_own_evaluation_on_every_input_up_to_length_3(path, function, alphabet,
                                                                                          vocab):
    check = usim.compile_listing(LISTINGS / path, function, 3, alphabet=alphabet, vocab=vocab)
    assert check.proved, check.first
    assert check.inputs == sum(len(alphabet or vocab) ** n for n in range(1, 4))


def test_a_broken_compilation_of_a_listing_is_refuted():
    from usim.encodings.evaluate import evaluate_sops
    from usim.encodings.exact import EXACT
    from usim.repl import load_file
    from usim.transformer import broken
    from usim.transformer.finite_to_network import check_finite

    listing = load_file(str(LISTINGS / "symbols.rasp"), symbols=True, inputs=["a", "b", "c"])
    sop = listing.build("histogram", {}).sop
    check = check_finite(usim_to_tracr(sop), list(listing.alphabet.input_codes), 3, broken=broken.wrong_relation,
                         reference=lambda xs: list(evaluate_sops((sop,), EXACT, list(xs))[0]))
    assert not check.proved and check.first is not None


def test_and_or_not_of_selects_is_one_select_of_tuples():
    both = E.select(E.indices, E.indices, E.Predicate.LE) & ~E.select(E.tokens, E.tokens, E.Predicate.EQ)
    program = usim_to_tracr(E.selector_width(both))
    from tracr.rasp import rasp

    assert isinstance(program.selector, rasp.Select)
    assert rasp.evaluate(program, [1, 1, 2]) == [0, 0, 2]  # keys at or before the query holding another token


def test_an_ahat_aggregate_is_refused_naming_it():
    ahat = E.aggregate(E.select(E.indices, 0, E.Predicate.EQ), E.tokens, semantics=E.Semantics.AHAT).named("mean_all")
    with pytest.raises(CannotRead, match="mean_all"):
        usim_to_tracr(ahat)
