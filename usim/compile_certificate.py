"""Certificates of ``usim compile`` over finite value sets: a compiled network's proof, run again.

``usim compile --tracr REF ... --json FILE`` and ``usim compile FILE.rasp
--function F ... --json FILE`` write what the proof by exhaustion (or by z3,
``--engine z3``) of the compiled networks found
(:class:`usim.transformer.finite_to_network.FiniteCheck`): the verdict, the
inputs and positions checked, the positions where nothing is asked, the
differences and the first of them, each length's network size and engine,
and where the program came from (its file and the file's sha256, the
vocabulary or alphabet, the longest length, the engine).

What each part guarantees (the same trust model as a claim's certificate,
:mod:`usim.engine.certificate`):

* **the seal** (``digest``, the sha256 of the rest in canonical JSON) says the
  file is as it was written, unless whoever changed it also sealed it again;
  it is not a signature;
* **reading** checks the seal, every field's type, and that the recorded
  status is what the recorded counts say (PROVED exactly where inputs were
  run and no position differs);
* **usim verify --run-claim-code** loads the program again only if its file
  still has the recorded sha256 (the code runs), compiles it again, proves it
  again with the recorded engine, and compares the verdict and every figure:
  a certificate edited and sealed again, or of a program edited since, is
  NOT reproduced.
"""

from __future__ import annotations

import datetime
from dataclasses import asdict
from typing import Any, Mapping

from usim.engine.certificate import COMPILATION, CertificateError, git_commit, digest, versions
from usim.engine.verify import Verification
from usim.errors import InputError
from usim.transformer.finite_to_network import ENGINES, MAX_INPUTS, FiniteCheck

VERSION = 1
TRACR, LISTING = "tracr", "listing"
_COUNTS = ("inputs", "positions", "undefined", "differs")


def _shown(value: Any) -> Any:
    """A value of the program (a token, a number, None) as JSON holds it: strings and integers as
    they are, anything else by its repr (what is compared when it is run again)."""
    if value is None or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return repr(value)


def result_record(check: FiniteCheck) -> dict[str, Any]:
    """What a check found, as a certificate records it (and as it is compared when run again).

    Args:
        check: the check.

    Returns:
        ``status``, the counts, ``first`` (input, position, the program's value, the network's),
        ``sizes`` and ``engines`` per length.
    """
    first = None
    if check.first is not None:
        tokens, position, expected, got = check.first
        first = {"input": [_shown(t) for t in tokens], "position": position, "program": _shown(expected),
                 "network": _shown(got)}
    record = {k: v for k, v in asdict(check).items() if k in _COUNTS}
    return {"status": "PROVED" if check.proved else "REFUTED", **record, "first": first,
            "sizes": [list(s) for s in check.sizes], "engines": list(check.engines)}


def compilation_certificate(check: FiniteCheck, source: Mapping[str, Any], seconds: float) -> dict[str, Any]:
    """The certificate of one ``usim compile`` over finite value sets.

    Args:
        check: what the proof found.
        source: where the program came from: ``kind`` (``tracr`` or ``listing``), the code or file
            record (:func:`usim.claim_code.code_record`, :func:`usim.claim_code.file_record`), the
            function (a listing), ``vocab`` or ``alphabet``, ``max_len`` and ``engine``.
        seconds: how long it took.

    Returns:
        The certificate, sealed.

    Raises:
        InputError: a vocabulary a certificate cannot hold (tokens that are not strings or integers).
    """
    vocab = source.get("vocab")
    if vocab is not None and not all(isinstance(t, str) or (isinstance(t, int) and not isinstance(t, bool))
                                     for t in vocab):
        raise InputError("a certificate records a vocabulary of strings or integers only")
    cert = {COMPILATION: VERSION, "source": dict(source), "result": result_record(check),
            "seconds": round(seconds, 3), "versions": versions(), "commit": git_commit(),
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    cert["digest"] = digest(cert)
    return cert


def _label(source: Mapping[str, Any]) -> str:
    if source.get("kind") == TRACR:
        return f"compile --tracr {source.get('program', {}).get('reference')}"
    return f"compile {source.get('listing', {}).get('file')} --function {source.get('function')}"


def check_compilation(data: Any, where: str) -> Mapping[str, Any]:
    """``data`` as a compilation certificate, checked as it is read.

    Args:
        data: the JSON read.
        where: the file, for messages.

    Returns:
        ``data``.

    Raises:
        CertificateError: another version, a broken seal, a malformed field, or a recorded status
            that its own counts do not give.
    """
    if data.get(COMPILATION) != VERSION:
        raise CertificateError(f"{where} is a version {data.get(COMPILATION)!r} compilation certificate; this usim "
                               f"reads version {VERSION}")
    if data.get("digest") != digest(data):
        raise CertificateError(f"{where} was damaged or edited after it was written (its digest does not match)")
    source, result = data.get("source"), data.get("result")
    if not isinstance(source, dict) or source.get("kind") not in (TRACR, LISTING) \
            or not isinstance(source.get("max_len"), int) or source.get("engine") not in ENGINES:
        raise CertificateError(f"{where}: its source (the program, its kind, length or engine) is malformed")
    if not isinstance(result, dict) or not all(isinstance(result.get(k), int) and not isinstance(result.get(k), bool)
                                               for k in _COUNTS):
        raise CertificateError(f"{where}: its result's counts are malformed")
    derived = "PROVED" if result["inputs"] > 0 and result["differs"] == 0 else "REFUTED"
    if result.get("status") != derived:
        raise CertificateError(f"{where}: the recorded status {result.get('status')} is not what its counts say "
                               f"({derived})")
    return data


def verify_compilation(data: Mapping[str, Any], where: str, run_claim_code: bool) -> Verification:
    """A compilation certificate run again: the program loaded (only if its file is unchanged),
    compiled and proved again with the recorded engine, every figure compared.

    Args:
        data: the certificate (:func:`check_compilation`).
        where: the file, for messages.
        run_claim_code: the program's code may run (``--run-claim-code``).

    Returns:
        The verification: reproduced, or each figure that differs.

    Raises:
        CertificateError: the code may not run, or its file is gone or changed.
    """
    from usim.claim_code import reload_object, unchanged_file
    from usim.tracr_reader.convert import program_of
    from usim.tracr_reader.usim_to_tracr import listing_as_tracr
    from usim.transformer.finite_to_network import check_finite

    source = data["source"]
    label = _label(source)
    if not run_claim_code:
        raise CertificateError(f"{where} ({label}) is of a program in a file of code: run it again only if you "
                               "trust that code, with --run-claim-code")
    alphabet_or_vocab = source.get("alphabet") if source["kind"] == LISTING and source.get("alphabet") is not None \
        else source.get("vocab")
    if not isinstance(alphabet_or_vocab, list) or not 1 <= source["max_len"] <= 64 \
            or sum(len(set(map(repr, alphabet_or_vocab))) ** n for n in range(1, source["max_len"] + 1)) > MAX_INPUTS:
        raise CertificateError(f"{where}: its vocabulary and length ({source['max_len']}) are not ones usim compile "
                               f"proves (at most {MAX_INPUTS} inputs)")
    try:
        if source["kind"] == TRACR:
            record = source.get("program") or {}
            program = program_of(reload_object(record, "tracr program"), str(record.get("reference")))
            vocab = source.get("vocab")
            if not isinstance(vocab, list) or not vocab:
                raise CertificateError(f"{where}: its vocabulary is malformed")
            check = check_finite(program, vocab, source["max_len"], engine=source["engine"])
        else:
            file = unchanged_file(source.get("listing") or {}, "the listing")
            function, alphabet, vocab = source.get("function"), source.get("alphabet"), source.get("vocab")
            if not isinstance(function, str) or (alphabet is None) == (vocab is None):
                raise CertificateError(f"{where}: its function, alphabet or vocabulary is malformed")
            program, tokens, reference = listing_as_tracr(str(file), function, alphabet, vocab)
            check = check_finite(program, tokens, source["max_len"], reference=reference, engine=source["engine"])
    except InputError as error:
        raise CertificateError(f"{where} ({label}): {error}") from None
    out = Verification(label, checked=len(check.sizes), status=data["result"]["status"])
    again, recorded = result_record(check), data["result"]
    for key in ("status", *_COUNTS, "first", "sizes"):
        if again[key] != recorded.get(key):
            out.differences.append(f"{key}: the certificate says {recorded.get(key)!r}, run again {again[key]!r}")
    if again["engines"] != recorded.get("engines"):  # z3 may give up where it proved before: the verdict is the same
        out.notes.append(f"engines per length: the certificate says {recorded.get('engines')!r}, run again "
                         f"{again['engines']!r}")
    return out
