"""``usim check FILE.rasp --function F (--spec NAME | --spec-file SPEC.py:NAME) [--shape S | --max-n N]``.

Reads a program written in the original RASP REPL's language and proves or
refutes it against a spec, shape by shape (:mod:`usim.listings.plan` says how
shapes are chosen and what is checked; :mod:`usim.listings.specs` lists the
built-in specs, :mod:`usim.listings.user_spec` says how to write one). It also
runs the program on the file's examples, reports the cost as usim and as the
REPL count it, and flags non-integral powers. Every answer is computed in the
run: it never reads or writes the verdict cache. The exit status is 0 only if
every shape is PROVED (and, with --mutants, every broken variant is refuted);
1 otherwise; 2 for bad input. With ``--expect`` (or ``--expect-file``), 0
exactly when every shape gets its expected verdict: a documented refutation is
then not a failure, and a regression is (:mod:`usim.listings.expect`).
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

from usim.commands.options import add_engine, add_max_n, add_timeout
from usim.engine.options import ENGINE_NAMES
from usim.errors import UsimError
from usim.listings.options import SPEC_NAMES

if TYPE_CHECKING:  # pragma: no cover
    from usim.listings.plan import ShapePlan
    from usim.listings.report import ShapeReport
    from usim.listings.spec import ListingSpec


def _spec(args: argparse.Namespace):
    from usim.listings.specs import parse_base, spec as spec_named

    if (args.spec is None) == (args.spec_file is None):
        raise UsimError("give one of --spec NAME or --spec-file SPEC.py:NAME")
    if args.spec_file is not None:
        from usim.listings.user_spec import load_spec_file

        if args.base is not None:
            raise UsimError("--base applies to the built-in softmax specs; a spec file states its own")
        return load_spec_file(args.spec_file)
    return spec_named(args.spec, parse_base(args.base))


class _Printer:
    """Prints the plan, the alphabet and each shape as :func:`usim.listings.check.check`
    goes (a :class:`~usim.listings.check.CheckObserver`)."""

    def __init__(self, spec: "ListingSpec", brief: bool = False) -> None:
        self.spec, self.alphabet, self.shapes_begun, self.brief = spec, None, False, brief

    def planned(self, plan: "ShapePlan") -> None:
        from usim.render_check import plan_lines

        if not self.brief:
            _print(plan_lines(plan, self.spec))

    def ready(self, alphabet: Any) -> None:
        from usim.render_check import alphabet_lines

        self.alphabet = alphabet
        _print(alphabet_lines(alphabet))

    def checked(self, shape: "ShapeReport") -> None:
        from usim.render_check import shape_lines

        if not self.shapes_begun:
            self.shapes_begun = True
            print("shapes:")
        lines = shape_lines(shape, self.spec, self.alphabet)
        if self.brief:
            lines = lines[:1] + [line for line in lines[1:] if not _routine(line)]
        _print(lines)


def _routine(line: str) -> bool:
    """A line of a shape that a brief check leaves out: it says nothing that
    qualifies the verdict (how the target was built, interpretations that all
    agree, an engine not run because another decided)."""
    text = line.strip()
    return (text.startswith("target:") or (text.startswith("interpretations:") and "DIFFERS" not in text)
            or ": not run:" in text)


def _print(lines: list[str]) -> None:
    for line in lines:
        print(line)


def run(args: argparse.Namespace, text: str | None = None, brief: bool = False,
        files: dict[str, str] | None = None) -> int:
    """``usim check``.

    Args:
        args: the parsed options.
        text: the listing's source, where it is not read from ``args.file``
            (``check`` inside ``usim repl``: the session's statements).
        brief: print each shape's verdict and what qualifies it
            (counterexamples, interpretations that differ, powers, an UNKNOWN's
            reason, examples that disagree with the spec), then the summary.
        files: the text of the files the listing loads, by path (the session's).

    Returns:
        The exit status: 0 only if every shape is PROVED.
    """
    from usim.commands.options import CHECK_LARGEST_N, check_max_n, check_timeout, check_writable, engines_option
    from usim.encodings.notation import parse_dims
    from usim.listings.certificate import listing_certificate
    from usim.listings.check import CheckRequest, check
    from usim.render_check import header_lines, report_lines
    from usim.repl.symbols import parse_alphabet

    if args.tracr is not None:
        return run_tracr(args)
    for option in ("vocab", "max_len", "broken"):
        if getattr(args, option) is not None:
            raise UsimError(f"--{option.replace('_', '-')} applies to --tracr")
    if args.file is None or args.function is None:
        raise UsimError("usim check needs a .rasp file and --function F (or --tracr)")
    started = time.perf_counter()
    spec = _spec(args)
    shapes = [parse_dims(text, len(spec.dims)) for text in args.shape] if args.shape else None
    check_max_n(args.max_n, CHECK_LARGEST_N)
    check_timeout(args.timeout)
    if args.json:
        check_writable(args.json, "--json")
    expectations = _expectations(args)
    engines = engines_option(args.engine)
    if not brief:
        _print(header_lines(args.file, args.function, spec, shapes is not None or args.max_n is not None))
    alphabet = parse_alphabet(args.alphabet) if args.alphabet is not None else None
    request = CheckRequest(args.file, args.function, spec, shapes, args.max_n, engines, args.timeout,
                           args.seed, args.samples, padding=args.padding, mutants=args.mutants,
                           alphabet=alphabet, every_engine=args.every_engine, text=text,
                           files=files)
    report = check(request, _Printer(spec, brief))
    lines = report_lines(report, args.samples, args.mutants)
    if brief:  # the summary, and any example that disagrees with the spec
        differing = [line for line in lines if "DIFFERS" in line]
        lines = (["examples that disagree with the spec:"] if differing else []) + differing + [
            line for line in lines if line.startswith(("warning:", "summary", "broken variants"))]
    _print(lines)
    if args.json:
        import json
        from pathlib import Path

        Path(args.json).write_text(json.dumps(
            listing_certificate(report, args.timeout, time.perf_counter() - started), indent=2) + "\n")
        print(f"certificate written to {args.json} (check it again with usim verify {args.json})")
    if expectations is not None:
        from usim.listings.expect import unmet
        from usim.render_check import expectation_lines

        missed = unmet(report, expectations)
        _print(expectation_lines(missed, len(report.shapes)))
        return 0 if not missed and (report.mutants_refuted or not args.mutants) else 1
    return 0 if report.ok else 1


TRACR_REFUSES = {"file": "a .rasp file", "function": "--function", "shape": "--shape", "alphabet": "--alphabet",
                 "expect": "--expect", "expect_file": "--expect-file", "base": "--base"}


def run_tracr(args: argparse.Namespace) -> int:
    """``usim check --tracr REF --vocab "[...]" --spec-file SPEC.py:NAME [--max-n N] [--broken REF]``.

    Returns:
        0 only if every length is PROVED and every broken variant REFUTED.
    """
    from usim.api import check_tracr
    from usim.commands.options import CHECK_LARGEST_N, check_max_n, check_timeout, check_writable, engines_option
    from usim.render_check import shape_lines
    from usim.repl import read_input

    for option, what in TRACR_REFUSES.items():
        if getattr(args, option) is not None:
            raise UsimError(f"--tracr checks a tracr program: {what} does not apply")
    if args.mutants or args.padding != "zero":
        raise UsimError("--tracr checks a tracr program: give its broken variants with --broken")
    if args.vocab is None:
        raise UsimError('--tracr needs --vocab "[...]"')
    spec = _spec(args)
    check_max_n(args.max_n, CHECK_LARGEST_N)
    check_timeout(args.timeout)
    from usim.tracr_reader.convert import python_tokens

    vocab = python_tokens(read_input(args.vocab))
    if args.json:
        check_writable(args.json, "--json")
        if not all(isinstance(t, str) or (isinstance(t, int) and not isinstance(t, bool)) for t in vocab):
            raise UsimError("--json: a certificate records a vocabulary of strings or integers only")
    if args.max_n is not None and args.max_len is not None and args.max_n > args.max_len:
        raise UsimError(f"--max-n {args.max_n} is past --max-len {args.max_len}, the longest input the program "
                        "is read for")
    started = time.perf_counter()
    longest = args.max_len if args.max_len is not None else (args.max_n or spec.default_max_n)
    if longest < 1:
        raise UsimError(f"--max-len must be at least 1, got {longest}")
    report = check_tracr(args.tracr, vocab, longest, spec, args.max_n,
                         engines_option(args.engine), args.timeout, args.every_engine, args.broken or ())
    print(f"usim check --tracr {args.tracr} against {spec.name}: {spec.title}")
    print(f"  vocabulary: {', '.join(map(repr, report.reading.vocab))}; lengths 1 to {len(report.shapes)}, "
          "every input")
    alphabet = report.reading if spec.reads == "symbol" or spec.writes == "symbol" else None
    print("lengths:")
    for shape in report.shapes:
        _print(shape_lines(shape, spec, alphabet, noun="length"))
    if report.broken:
        print("broken variants:")
        for shape in report.broken:
            _print(shape_lines(shape, spec, alphabet, noun="length"))
    proved = sum(s.status.name == "PROVED" for s in report.shapes)
    print(f"summary: {proved} of {len(report.shapes)} lengths PROVED"
          + (f"; {len({s.mutant for s in report.broken if s.status.name == 'REFUTED'})} broken variant(s) "
             f"refuted of {len({s.mutant for s in report.broken})}" if report.broken else ""))
    if args.json:
        import json
        from pathlib import Path

        from usim.claim_code import code_record
        from usim.listings.tracr_check import tracr_certificate

        broken = [{"name": ref.rpartition(":")[2], **code_record(ref)} for ref in args.broken or ()]
        written = tracr_certificate(report, args.timeout, time.perf_counter() - started, code_record(args.tracr),
                                    broken)
        Path(args.json).write_text(json.dumps(written, indent=2) + "\n")
        print(f"certificate written to {args.json} (check it again with usim verify {args.json} --run-claim-code)")
    return 0 if report.ok else 1


def _expectations(args: argparse.Namespace):
    """--expect or --expect-file read (None: neither given, every shape must be PROVED)."""
    from usim.listings.expect import parse_expectations, read_expectations

    if args.expect is not None and args.expect_file is not None:
        raise UsimError("give --expect or --expect-file, not both")
    if args.expect is not None:
        return parse_expectations(args.expect.split(","))
    if args.expect_file is not None:
        from pathlib import Path

        try:
            text = Path(args.expect_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise UsimError(f"cannot read {args.expect_file}: {getattr(error, 'strerror', None) or error}") from None
        return read_expectations(text, args.expect_file)
    return None


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "check",
        help="read a program in the RASP REPL's language and prove it against a spec",
        description=(
            "Read FILE.rasp (the original RASP REPL's language), take the sequence the function "
            "F returns (or the expression F, e.g. 'Det(Cofactor())'), interpret it under every "
            "interpretation, run it on the file's examples, and prove or refute it against the "
            "spec for each shape. How shapes are chosen: a parameter of F named after a dimension "
            "(r/rows, c/cols, k/inner, h/heads, p/modulus, n) is set to it; a dimension F (or the "
            "file) assigns a whole number to (r = 3;) is fixed to that value (even above N); "
            "k = length / (3 + 4) fixes r = 3 and c = 4 of a product; a dimension read from length "
            "(c = length / 3, n = length ^ 0.5 for a square) keeps the shapes where it is that "
            "dimension; the other dimensions range over 1..N. Every answer is computed in this run: "
            "usim check never reads or writes the verdict cache. Exit status 0 only if every shape is "
            "PROVED."
        ),
    )
    parser.add_argument("file", nargs="?", help="a .rasp file")
    parser.add_argument("--function", "-f",
                        help="the function (or sequence) to check, or an expression such as 'Det(Cofactor())'")
    parser.add_argument("--tracr", metavar="FILE.py:NAME|MODULE:NAME",
                        help="check a tracr program instead of a .rasp file (the tracr extra), at every length "
                        "up to --max-n, over every input of --vocab, against a spec of one dimension")
    parser.add_argument("--vocab", help='--tracr: the tokens\' values as a list, e.g. \'["a", "b", "c"]\'')
    parser.add_argument("--max-len", type=int, help="--tracr: the longest input the program is read for "
                        "(default: the largest length checked)")
    parser.add_argument("--broken", metavar="FILE.py:NAME", action="append",
                        help="--tracr: a broken variant (another tracr program), which must be refuted at some "
                        "length; repeatable")
    parser.add_argument("--spec", choices=SPEC_NAMES, metavar="NAME",
                        help="a built-in spec: " + ", ".join(SPEC_NAMES) + " (usim.listings.specs lists "
                        "what each states)")
    parser.add_argument("--spec-file", metavar="SPEC.py:NAME",
                        help="a spec of your own: the function NAME of a Python file, declared with "
                        "@spec(inputs=..., outputs=...) from usim.listings.user_spec (see the README)")
    parser.add_argument("--base", help="softmax specs: the base the listing should use in place of e "
                        "(e, the default, or a number such as 2.718 or 2.73)")
    parser.add_argument("--shape", action="append",
                        help="a shape such as 3x4 (matmul: 2x3x2); repeatable")
    add_max_n(parser, "check every shape the function is meant for: free dimensions up to N, "
              "hard-coded ones at their value (default: the spec's N)")
    parser.add_argument("--alphabet", metavar="SYMBOLS",
                        help="specs of symbols (reverse, histogram, sort, most_frequent, or a spec file's): "
                        "the symbols an input entry ranges over, e.g. abc or 'x,y,z' (default: the symbols "
                        "of the file's examples)")
    parser.add_argument("--padding", choices=("zero", "any"), default="zero",
                        help="zero (default): positions past the result must hold 0, as the paper's "
                        "layouts say; any: they are not compared")
    parser.add_argument("--mutants", action="store_true",
                        help="also check the broken variants a spec file declares (each must be refuted)")
    add_engine(parser, f"{', '.join(ENGINE_NAMES)}, or all (default)")
    parser.add_argument("--every-engine", action="store_true",
                        help="run every engine at each shape (they must all agree); by default they are "
                        "tried cheapest first (by their times on the previous shape) and the first that "
                        "proves or refutes a shape decides it")
    add_timeout(parser, "shape")
    parser.add_argument("--samples", type=int, default=500,
                        help="random inputs per scale for measured deviations (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    parser.add_argument("--expect", metavar="VERDICTS",
                        help="the verdicts the listing is documented to get: one for every shape (refuted), or "
                        "SHAPE=VERDICT pairs such as 2x2x2=refuted,4x4x4=proved,*=refuted (a shape not named: "
                        "*, else proved); the exit status is then 0 exactly when every verdict is the expected one")
    parser.add_argument("--expect-file", metavar="FILE",
                        help="--expect's pairs from a file, one SHAPE=VERDICT (or SHAPE VERDICT) per line, # comments")
    parser.add_argument("--json", metavar="FILE",
                        help="write a certificate (JSON) with the listing embedded; usim verify re-runs it")
    parser.set_defaults(func=run)
