"""usim as a library: state a construction and a claim, prove it, check a listing, verify a certificate.

Everything here is importable from ``usim`` itself (``usim.prove``,
``usim.claim``, ...); the command line is a shell around these functions. A
claim is a :class:`~usim.engine.claim.Claim`, written with :func:`claim` (or
:func:`erratum` for a construction as published that is wrong) from a
construction (:class:`~usim.constructions.base.Construction`: a RASP
:class:`~usim.rasp.program.Program` and the :class:`~usim.encodings.layout.SequenceLayout`
of its input and output) and a target. :func:`prove` gives a
:class:`~usim.engine.runner.ClaimReport`: ``report.status`` is PROVED, REFUTED
(with ``report.counterexample``, replayed), UNKNOWN, VACUOUS or ERROR.

Example: a block of one's own (the rows of a matrix in reverse order), proved
up to 2 x 2, and a variant with a wrong target refuted:

>>> import sympy, usim
>>> from usim.constructions.base import Construction, fresh, gather
>>> from usim.rasp.expr import indices, length, tokens
>>> def flip(rows, cols):
...     row, col = indices // cols, indices % cols
...     source = fresh((rows - 1 - row) * cols + col, "flip_src")
...     program = usim.Program.of(f"flip{rows}", {"F": gather(tokens, source).named("F")})
...     return Construction(f"flip {rows}x{cols}", program, usim.SequenceLayout.of(("M", (rows, cols))),
...                         usim.SequenceLayout.of(("F", (rows, cols))))
>>> def reversed_rows(m):
...     M = m["M"]
...     return {"F": sympy.Matrix(M.rows, M.cols, lambda i, j: M[M.rows - 1 - i, j])}
>>> flip_claim = usim.claim("flip", paper="(example)", title="rows reversed",
...                         statement="the rows of M in reverse order", construction=flip,
...                         target=reversed_rows, shapes=usim.every_shape(2))
>>> usim.prove(flip_claim, max_n=2).status
<Status.PROVED: 'PROVED'>
>>> wrong = usim.redeclare(flip_claim, target=lambda m: {"F": m["M"]})
>>> usim.prove(wrong, max_n=2).status
<Status.REFUTED: 'REFUTED'>
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from usim.engine.options import DEFAULT_TIMEOUT
from usim.errors import UsimError

if TYPE_CHECKING:  # pragma: no cover
    from usim.engine.cache import VerdictCache
    from usim.engine.claim import Claim
    from usim.engine.runner import ClaimReport
    from usim.engine.verify import Verification
    from usim.listings.check import CheckReport
    from usim.listings.spec import ListingSpec
    from usim.listings.tracr_check import TracrCheckReport
    from usim.tracr_reader.convert import TracrReading
    from usim.transformer.finite_to_network import FiniteCheck


def claims(reference: str) -> list["Claim"]:
    """The claims a name stands for, as ``usim prove`` reads it.

    Args:
        reference: a registered claim's id (``lemma3``), ``all`` (every
            registered claim), or code outside the registry:
            ``path/to/claims.py[:NAME]``, ``package.module[:NAME]``
            (:mod:`usim.claim_code`; the code runs).

    Returns:
        The claims.

    Raises:
        UsimError: no such claim, file or module (one line naming it).
    """
    return [c for c, _ in claims_with_code(reference)]


def claims_with_code(reference: str) -> list[tuple["Claim", Any]]:
    """:func:`claims`, each with where it came from.

    Args:
        reference: as :func:`claims` reads it.

    Returns:
        (claim, :class:`usim.claim_code.ClaimCode`) pairs; the code is None for
        a registered claim.
    """
    from usim.claim_code import is_code_reference, load_claims
    from usim.proofs import all_claims, get

    if reference == "all":
        return [(c, None) for c in all_claims()]
    if is_code_reference(reference):
        return load_claims(reference)
    return [(get(reference), None)]


def one_claim(claim_or_name: "Claim | str") -> "Claim":
    """The one claim a name stands for (as :func:`claims` reads it), or the claim given.

    Args:
        claim_or_name: a claim, or a name of exactly one claim.

    Returns:
        The claim.

    Raises:
        UsimError: the name stands for no claim, or for several.
    """
    if isinstance(claim_or_name, str):
        found = claims(claim_or_name)
        if len(found) != 1:
            raise UsimError(f"{claim_or_name} names {len(found)} claims ({', '.join(c.id for c in found)}): "
                            "name one (FILE.py:NAME)")
        return found[0]
    return claim_or_name


def prove(claim: "Claim | str", max_n: int | None = None, engines: Sequence[str] | None = None,
          mutants: bool = False, timeout: float = DEFAULT_TIMEOUT, jobs: int = 1,
          cache: "VerdictCache | None" = None, progress: Callable[[Any], None] | None = None,
          dispatch: Any = None) -> "ClaimReport":
    """Prove ``claim`` at every shape up to ``max_n``, by each of its engines.

    Each obligation is discharged by every engine named (all that answer must
    agree), its divisions, roots and powers are checked defined where its
    preconditions hold, and an input meeting them is exhibited (else VACUOUS).

    Args:
        claim: a claim, or a name :func:`claims` reads (one claim).
        max_n: the bound N: every dimension up to N (None: the claim's own
            ``default_max_n``).
        engines: engine names (``sympy``, ``z3``, ``cvc5``, ...; None: the claim's).
        mutants: also run the claim's broken variants (each must be REFUTED:
            ``report.mutants_refuted``).
        timeout: seconds per obligation and engine (a timeout is UNKNOWN).
        jobs: engine processes in parallel.
        cache: a verdict cache to reuse definitive answers from and store them
            in (:class:`usim.engine.cache.VerdictCache`); None: none.
        progress: told of each obligation built and task done.
        dispatch: where the tasks run (:class:`usim.engine.cluster.ClusterDispatch`);
            None: this machine's processes.

    Returns:
        The report: ``status``, ``results`` (one per shape), ``counterexample``,
        ``mutant_results``, costs.

    Raises:
        UsimError: a bad bound, timeout, job count, engine or claim.
    """
    from usim.engine.runner import prove_claim

    found = one_claim(claim)
    bound = found.default_max_n if max_n is None else max_n
    return prove_claim(found, _bound(bound), _engines(engines), _timeout(timeout), _jobs(jobs), mutants=mutants,
                       progress=progress, dispatch=dispatch, cache=cache)


def _bound(max_n: Any) -> int:
    from usim.engine.options import MAX_BOUND, is_bound

    if not is_bound(max_n, MAX_BOUND):
        raise UsimError(f"max_n must be a whole number between 1 and {MAX_BOUND}, not {max_n!r}")
    return max_n


def _timeout(seconds: Any) -> float:
    from usim.engine.options import timeout_wanted

    wanted = timeout_wanted(seconds)
    if wanted is not None:
        raise UsimError(f"timeout must be {wanted}, not {seconds!r}")
    return float(seconds)


def _jobs(jobs: Any) -> int:
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise UsimError(f"jobs must be a whole number of at least 1, not {jobs!r}")
    return jobs


def _engines(engines: Sequence[str] | None) -> list[str] | None:
    from usim.engine.options import ENGINE_NAMES

    if engines is None:
        return None
    if isinstance(engines, str):
        raise UsimError(f"engines is a list of names (['z3']), not the text {engines!r}")
    unknown = [e for e in engines if e not in ENGINE_NAMES]
    if unknown or not engines:
        raise UsimError(f"no engine {', '.join(map(repr, unknown)) or '(none given)'}; engines: "
                        f"{', '.join(ENGINE_NAMES)}")
    return list(engines)


def certificate(report: "ClaimReport", timeout: float = DEFAULT_TIMEOUT, code: Any = None) -> dict[str, Any]:
    """The certificate of a report (JSON data; :func:`write_certificate` writes it).

    Its ``source`` says where the claim came from: the registry (the
    registered claim object itself), or the code that made it (``code``, or
    the code :func:`claims` loaded it from), which ``usim verify
    --run-claim-code`` imports again. A claim that is neither (made in one's
    own script) has no certificate: it could not be checked again.

    Args:
        report: what :func:`prove` returned.
        timeout: the timeout the proof ran with (recorded).
        code: the :class:`usim.claim_code.ClaimCode` the claim came from
            (None: the one :func:`claims` recorded, or the registry).

    Returns:
        The certificate, sealed with its digest.

    Raises:
        UsimError: the claim is not the registry's and comes from no code usim loaded.
    """
    from usim.claim_code import code_of
    from usim.engine.certificate import certificate as sealed
    from usim.proofs import all_claims

    code = code or code_of(report.claim)
    if code is None and not any(c is report.claim for c in all_claims()):
        raise UsimError(f"the claim {report.claim.id} is not the registry's and was not loaded from a file "
                        "(usim.claims('claims.py:NAME')): its certificate could not be checked again, so none "
                        "is written")
    return sealed(report, timeout, source=code.as_source() if code is not None else None)


def write_certificate(path: str | Path, data: dict[str, Any]) -> None:
    """Write a certificate (or a bundle of them) as JSON.

    Args:
        path: the file (``.gz``: compressed); a folder or a missing parent is an error.
        data: what :func:`certificate` returned.
    """
    from usim.engine.certificate import write_certificate as write

    write(Path(path), data)


def spec(name: str) -> "ListingSpec":
    """A built-in spec for :func:`check`.

    Args:
        name: ``transpose``, ``softmax``, ``matmul``, ... (``usim check --help`` lists them).

    Returns:
        The spec.
    """
    from usim.listings.specs import spec as builtin

    return builtin(name)


_builtin_spec = spec  # check's parameter named spec hides the function inside check


def check(path: str | Path, function: str, spec: "ListingSpec | str", max_n: int | None = None,
          engines: Sequence[str] | None = None, mutants: bool = False,
          timeout: float = DEFAULT_TIMEOUT) -> "CheckReport":
    """Check a RASP listing's function against a spec, shape by shape.

    Args:
        path: the listing (the RASP REPL's language, or the authors').
        function: the function (or expression, ``Det(Cofactor())``) to check.
        spec: a spec, or a built-in spec's name (:func:`spec`).
        max_n: the largest free dimension (None: the spec's default).
        engines: None: the spec's.
        mutants: also the spec's broken variants.
        timeout: per shape and engine.

    Returns:
        The report: ``status``, one result per shape (``shapes``).
    """
    from usim.listings.check import CheckRequest
    from usim.listings.check import check as run_check

    chosen = _builtin_spec(spec) if isinstance(spec, str) else spec
    return run_check(CheckRequest(str(path), function, chosen, max_n=max_n, engines=engines, mutants=mutants,
                                  timeout=timeout))


def run(path: str | Path, function: str, tokens: Sequence[Any], exact: bool = False) -> list[Any]:
    """Run a listing's sequence on one input, as ``usim run`` does.

    Args:
        path: the listing.
        function: a function of no parameters, a sequence, or an expression (``f(3)``).
        tokens: the input: integers and :class:`fractions.Fraction` (a float is
            refused: it is not the number it is written as), or strings.
        exact: exact rationals instead of the checked float64 run.

    Returns:
        The values, position by position.
    """
    from usim.repl import load_file

    return load_file(str(path)).run(function, list(tokens), exact=exact)


def read_tracr(program: Any, vocab: Sequence[Any], max_len: int) -> "TracrReading":
    """A tracr program read into usim's RASP, with tracr's evaluator's meaning (needs the ``tracr`` extra).

    Args:
        program: a tracr sequence (``tracr.rasp.rasp.SOp``), a function of no
            arguments making one, or where to find either:
            ``path/to/file.py:NAME`` or ``package.module:NAME``.
        vocab: the values a token can take.
        max_len: the longest input; every function of the program is tabulated
            over the values it can meet on inputs up to this length.

    Returns:
        The :class:`usim.tracr_reader.convert.TracrReading`: ``sop`` (usim's
        expression), ``run(tokens)`` (the output exactly, None where tracr's is None).

    Example:
        >>> import usim
        >>> from tracr.compiler import lib
        >>> usim.read_tracr(lib.make_hist, ["a", "b"], 4).run(["a", "b", "a"])
        [2, 1, 2]
    """
    from usim.claim_code import load_object
    from usim.tracr_reader.convert import program_of
    from usim.tracr_reader.convert import read_tracr as read
    from usim.tracr_reader.value_sets import tracr_rasp

    tracr_rasp()  # without tracr, say so before running the user's file
    where = "the program"
    if isinstance(program, str):
        where, program = program, load_object(program, "tracr program")
    return read(program_of(program, where), vocab, max_len)


def check_tracr(program: Any, vocab: Sequence[Any], max_len: int, spec: "ListingSpec | str",
                max_n: int | None = None, engines: Sequence[str] | None = None, timeout: float = DEFAULT_TIMEOUT,
                every_engine: bool = False, broken: Sequence[Any] = ()) -> "TracrCheckReport":
    """Prove or refute a tracr program against a spec at every length up to ``max_n``, as ``usim check --tracr`` does.

    Args:
        program: as :func:`read_tracr` takes it.
        vocab: the values a token can take (every input of them is covered).
        max_len: the longest input the program is read for.
        spec: a spec of one dimension, the length (or a spec file's ``SPEC.py:NAME``).
        max_n: the longest length checked (None: the spec's default, at most ``max_len``).
        engines: None: the spec's.
        timeout: per length and engine.
        every_engine: run every engine at each length (they must agree).
        broken: broken variants (each as ``program`` is given): each must be
            REFUTED at some length.

    Returns:
        The :class:`usim.listings.tracr_check.TracrCheckReport`: ``ok``, one
        result per length (``shapes``), the broken variants' (``broken``).
    """
    from usim.listings.tracr_check import check_tracr as run_check

    chosen = spec
    if isinstance(spec, str):
        from usim.listings.user_spec import load_spec_file

        chosen = load_spec_file(spec)
    reference = program if isinstance(program, str) else "the program"
    reading = read_tracr(program, vocab, max_len)
    variants = {(b.rpartition(":")[2] if isinstance(b, str) else f"broken {i + 1}"): read_tracr(b, vocab, max_len)
                for i, b in enumerate(broken)}
    return run_check(reading, chosen, reference, max_n, engines, timeout, every_engine, variants)


def compile_tracr(program: Any, vocab: Sequence[Any], max_len: int,
                  engine: str = "exhaustive") -> "tuple[FiniteCheck, Any]":
    """Compile a tracr program with usim's compiler over finite value sets (exact), at every length
    up to ``max_len``, and prove the networks equal the program on every input of the vocabulary
    (each network run exactly on every input, or z3 asked once per length); also compile it with
    tracr, for its size.

    Args:
        program: as :func:`read_tracr` takes it.
        vocab: the tokens.
        max_len: the longest input.
        engine: ``exhaustive`` or ``z3`` (:func:`usim.transformer.finite_to_network.check_finite`).

    Returns:
        The :class:`usim.transformer.finite_to_network.FiniteCheck` (``proved``,
        ``sizes`` per length), and tracr's own compiled model (its ``model_config``, ``params``).
    """
    from tracr.compiler import compiling

    from usim.claim_code import load_object
    from usim.tracr_reader.convert import program_of
    from usim.tracr_reader.value_sets import tracr_rasp
    from usim.transformer.finite_to_network import check_finite

    tracr_rasp()
    where = "the program"
    if isinstance(program, str):
        where, program = program, load_object(program, "tracr program")
    program = program_of(program, where)
    check = check_finite(program, vocab, max_len, engine=engine)
    try:
        theirs = compiling.compile_rasp_to_model(program, vocab=set(vocab), max_seq_len=max_len,
                                                 compiler_bos="compiler_bos")
    except Exception as error:  # tracr's compiler refuses some programs usim compiles
        theirs = error
    return check, theirs


def compile_listing(path: str | Path, function: str, max_len: int, alphabet: Sequence[str] | None = None,
                    vocab: Sequence[Any] | None = None, engine: str = "exhaustive") -> "FiniteCheck":
    """Compile a listing's function with usim's compiler over finite value sets, at every length up to
    ``max_len``, and prove each network equal to the listing (usim's own exact evaluation) on every
    input: of the ``alphabet``'s symbols, or of the numbers in ``vocab`` (the ``tracr`` extra: the
    listing is written as a tracr program first, :mod:`usim.tracr_reader.usim_to_tracr`).

    Args:
        path: the listing (the RASP REPL's language).
        function: a function of no parameters, or an expression.
        max_len: the longest input.
        alphabet: the symbols a token ranges over (a listing of symbols).
        vocab: the numbers a token ranges over (a listing of numbers).
        engine: ``exhaustive`` or ``z3``, as for :func:`compile_tracr`.

    Returns:
        The :class:`usim.transformer.finite_to_network.FiniteCheck`.
    """
    from usim.tracr_reader.usim_to_tracr import listing_as_tracr
    from usim.transformer.finite_to_network import check_finite

    program, tokens, reference = listing_as_tracr(str(path), function, alphabet, vocab)
    return check_finite(program, tokens, max_len, reference=reference, engine=engine)


def verify(path: str | Path, run_spec_code: bool = False, run_claim_code: bool = False,
           progress: Callable[[str], None] | None = None, jobs: int = 1) -> list["Verification"]:
    """Run every certificate in ``path`` again: the check a reviewer runs on a certificate sent to them.

    Each certificate is read and checked (its digest, its statuses derived
    from its own rows), compared with what this usim states for its claim,
    and every obligation is built and run again; its recorded fingerprint and
    verdict must be reproduced.

    Args:
        path: a certificate file (or a bundle).
        run_spec_code: run a spec file a certificate of ``usim check`` embeds (Python).
        run_claim_code: import the code a certificate of a claim outside the
            registry names (only if its file is unchanged).
        progress: told a line per obligation run.
        jobs: how many families of a certificate's proof for every size are proved
            again at once (each in an interpreter of its own).

    Returns:
        One :class:`usim.engine.verify.Verification` per certificate:
        ``reproduced``, ``differences`` (with ``mismatch`` naming what the
        certificate does not state as: then it was not run again), ``notes``.
    """
    from usim.engine.certificate import read_certificates
    from usim.engine.statement_check import differences
    from usim.engine.verify import Verification, verify as again, verify_all_sizes
    from usim.proofs import family
    from usim.registry import obligations, reference, refusing_malformed

    from usim.compile_certificate import check_compilation, verify_compilation
    from usim.engine.certificate import COMPILATION, read_json

    out = []
    with refusing_malformed(str(path)):
        data = read_json(str(path))
        if isinstance(data, dict) and COMPILATION in data:  # a certificate of usim compile
            return [verify_compilation(check_compilation(data, str(path)), str(path), run_claim_code)]
        for cert in read_certificates(str(path)):
            stated = reference(cert, run_spec_code, run_claim_code=run_claim_code)
            different = differences(cert, stated)
            if different:
                out.append(Verification(cert.claim_id, differences=[d.describe() for d in different],
                                        mismatch=stated.whence, status=cert.status.value))
                continue
            source, engines = obligations(cert, run_spec_code, run_claim_code, claim=stated.claim)
            result = again(cert, source, engines, progress=progress, mutants=stated.mutants)
            if cert.data.get("all_sizes") is not None:
                more = verify_all_sizes(cert, stated.family, progress=progress, locate=family,
                                        jobs=_jobs(jobs))
                result.checked += more.checked
                result.differences += more.differences
                result.notes += more.notes
            result.status = cert.status.value
            result.every_size = cert.all_sizes_status.value if cert.all_sizes_status else None
            out.append(result)
    return out
