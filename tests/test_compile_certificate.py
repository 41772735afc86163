"""A compilation's certificate is read only as it was sealed, with a status its own counts give."""

from __future__ import annotations

import pytest

from usim.compile_certificate import check_compilation, compilation_certificate, result_record
from usim.engine.certificate import CertificateError, digest
from usim.transformer.finite_to_network import FiniteCheck

CHECK = FiniteCheck(inputs=6, positions=8, undefined=0, differs=0, first=None, sizes=((2, 1, 9, 40),) * 2,
                    engines=("exhaustive", "z3"))
SOURCE = {"kind": "tracr", "program": {"reference": "p.py:hist", "file": "/p.py", "sha256": "sha256:0"},
          "vocab": ["a", "b"], "max_len": 2, "engine": "z3"}


def test_a_certificate_as_written_is_read():
    cert = compilation_certificate(CHECK, SOURCE, 1.0)
    assert check_compilation(cert, "c.json")["result"] == result_record(CHECK)


def test_an_edit_without_a_new_seal_is_refused():
    cert = compilation_certificate(CHECK, SOURCE, 1.0)
    cert["result"]["differs"] = 1
    with pytest.raises(CertificateError, match="its digest does not match"):
        check_compilation(cert, "c.json")


@pytest.mark.parametrize("edit, says", [
    (lambda c: c["result"].update(differs=2), "the recorded status PROVED is not what its counts say"),
    (lambda c: c["result"].update(inputs=0), "the recorded status PROVED is not what its counts say"),
    (lambda c: c["source"].update(engine="cvc5"), "its source"),
    (lambda c: c["result"].update(inputs="6"), "counts are malformed"),
])
def test_a_resealed_certificate_that_contradicts_itself_is_refused(edit, says):
    cert = compilation_certificate(CHECK, SOURCE, 1.0)
    edit(cert)
    cert["digest"] = digest(cert)
    with pytest.raises(CertificateError, match=says):
        check_compilation(cert, "c.json")


def test_a_vocabulary_json_cannot_hold_is_refused():
    from usim.errors import InputError

    with pytest.raises(InputError, match="strings or integers only"):
        compilation_certificate(CHECK, {**SOURCE, "vocab": [1.5]}, 1.0)
