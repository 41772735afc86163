"""Strings made by + on symbols get codes when the function is built, and a
function built at several shapes may make new strings at each (found in
building usim check's concatenation): the file is read again with a wider
alphabet, which renumbers every symbol. Every obligation, the spec's statement
and the certificate must use one alphabet, the widest, or a proof would compare
codes of two numberings."""

from __future__ import annotations

from usim.cli import main
from usim.engine.claim import Status
from usim.engine.listing import check
from usim.proofs.specs import spec

GROWING = """
def by_grown_key(n) {
    key = tokens;
    for i in range(n) { key = key + "x"; }
    return sort(tokens, key);
}
def by_pair_key(n) {
    key = tokens;
    for i in range(n) { key = key + "x"; }
    previous = aggregate(select(indices, indices - 1, ==), tokens, "a");
    return sort(tokens, previous + key);
}
"""


def test_a_function_making_new_strings_at_every_shape_is_proved_with_one_alphabet():
    report = check("grow.rasp", "by_grown_key", spec("sort"), max_n=3, alphabet=("a", "b"), text=GROWING)
    assert [s.status for s in report.shapes] == [Status.PROVED] * 3
    # the strings of the largest shape have codes in the report's alphabet
    assert {"axxx", "bxxx", "ax", "bx"} <= set(report.alphabet.symbols)
    wrong = check("grow.rasp", "by_pair_key", spec("sort"), max_n=3, alphabet=("a", "b"), text=GROWING)
    assert Status.REFUTED in [s.status for s in wrong.shapes]


def test_its_certificate_is_reproduced(tmp_path, capsys):
    listing = tmp_path / "grow.rasp"
    listing.write_text(GROWING)
    cert = tmp_path / "grow.json"
    assert main(["check", str(listing), "-f", "by_grown_key", "--spec", "sort", "--alphabet", "ab",
                 "--max-n", "3", "--json", str(cert)]) == 0
    capsys.readouterr()
    assert main(["verify", str(cert), "-q"]) == 0
    assert "status PROVED" in capsys.readouterr().out
