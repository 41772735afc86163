"""Symbols are codes inside usim; nothing may let a code pass for a number, or an
aggregate of symbols pass for a mean, and make PROVED lie."""

from __future__ import annotations

from pathlib import Path

import pytest

from usim.engine.claim import Status
from usim.listings.check import CheckRequest, check
from usim.listings.user_spec import load_spec_text
from usim.errors import UsimError
from usim.listings.specs import spec

LISTING = Path(__file__).resolve().parents[2] / "examples" / "rasp" / "symbols.rasp"

IDENTITY = '''
from usim.listings.user_spec import spec

@spec(inputs={"x": (1, "n")}, outputs={"y": (1, "n")}, reads="symbol", writes="symbol")
def identity(x):
    return x
'''


def test_a_listing_writing_symbols_is_refused_against_a_spec_of_numbers():
    """reverse writes codes 0..m-1, which a histogram's counts could equal."""
    report = check(CheckRequest(str(LISTING), "reverse", spec("histogram"), shapes=[(1,)], alphabet=("a",), timeout=30))
    (shape,) = report.shapes
    assert shape.status is Status.ERROR and "outputs symbols, but the histogram spec expects numbers" in shape.error


def test_a_listing_writing_numbers_is_refused_against_a_spec_of_symbols():
    report = check(CheckRequest(str(LISTING), "histogram", spec("reverse"), shapes=[(1,)], alphabet=("a",), timeout=30))
    assert report.shapes[0].status is Status.ERROR


def test_the_mean_of_equal_codes_is_not_a_proof(tmp_path):
    """aggregate(select(tokens, tokens, ==), tokens) averages equal codes, which
    is the identity on numbers; the REPL refuses it wherever two positions hold
    the same symbol, and so does usim: never PROVED."""
    listing = tmp_path / "same.rasp"
    listing.write_text('set example "ab"\ndef same() { return aggregate(select(tokens, tokens, ==), tokens); }\n')
    the_spec = load_spec_text(IDENTITY, "identity", "identity.py")
    report = check(CheckRequest(str(listing), "same", the_spec, shapes=[(1,), (2,)], alphabet=("a", "b"), timeout=30))
    assert report.shapes[0].status is Status.PROVED  # one position: one key per row
    two = report.shapes[1]
    assert two.status is Status.REFUTED
    assert two.result.definedness_status is Status.REFUTED


def test_a_number_spec_refuses_an_alphabet():
    with pytest.raises(UsimError, match="--alphabet applies to a spec of symbols"):
        check(CheckRequest(str(LISTING), "reverse", spec("relu"), shapes=[(1,)], alphabet=("a",)))


def test_averaged_booleans_are_undefined_for_the_engines_too(tmp_path):
    listing = tmp_path / "avg.rasp"
    listing.write_text('def m() { return indicator(aggregate(full_s, tokens > 0)); }\n')
    the_spec = load_spec_text(
        "from usim.listings.user_spec import spec\n"
        "@spec(inputs={'x': (1, 'n')}, outputs={'y': (1, 'n')}, domain='integer', values=(0, 1))\n"
        "def s(x):\n    return x * 0\n", "s", "avg_spec.py")
    report = check(CheckRequest(str(listing), "m", the_spec, shapes=[(2,)], timeout=30))
    (shape,) = report.shapes
    assert shape.status is Status.REFUTED  # the mean of two booleans is never taken
    assert shape.result.definedness_status is Status.REFUTED
