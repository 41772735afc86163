"""``usim run transpose|softmax|matmul|det3|inverse3 --shape S [--values V | --random --seed N]``,
or ``usim run FILE.rasp --function F --input "[1, 2, 3]" [--exact]``,
or ``usim run --tracr FILE.py:NAME --vocab '["a", "b"]' --max-len 5 --input '["a", "b"]'``.

Runs one of the paper's blocks (transpose, softmax, matmul, det3, inverse3) on
one input and shows the input matrices, the cost (attention layers and heads
per layer, without and with the layer that computes length), the output block,
an independent reference (numpy's, sympy's, or mpmath's for softmax), what the
positions past the result hold, and the largest difference. Or runs a
function of a RASP listing on one input and prints its output, as the REPL
shows it (a value that is not a sequence, such as the REPL's a = 9, is
printed as it is). Or reads a tracr program (a tracr.rasp.rasp.SOp, or a
function of no arguments making one, named in a file or a module; the
tracr extra) for a vocabulary and a longest input, and prints its output
exactly with the meaning of tracr's evaluator, None where tracr's is None.

Shapes: transpose ``RxC`` (Lemma 3), softmax ``RxC`` (Lemma 4), matmul ``RxKxC``
(Lemma 5: A is R x K, B is K x C; the result must fit in the K*(R + C)
positions of the input), det3 and inverse3 ``3x3`` (the published cyclic-cofactor
construction; a singular matrix is refused). ``--values`` lists every entry row-major, A before B,
separated by commas or spaces; an entry may be an integer, a decimal or a
fraction such as ``1/3``. ``--base 2.718`` runs the paper's softmax variant
b ** S instead of exp(S).

Interpretations: transpose and matmul run exactly (rationals; numpy's reference
is computed on the same Fractions, so any difference is a real one); softmax
runs in float64, checked: a value that leaves float64's range (the paper's
softmax exp(S) / sum exp(S) subtracts no row maximum: scores above about 709)
makes it run again in long double, and beyond that it stops with an error, never
a wrong number (``--exact`` asks for the exact interpretation, which refuses
exp and accepts a rational base at integer entries). A value is printed from
the type it was computed in (a long double never passes through float64), and
softmax's reference is mpmath's, from the exact entries with the row maximum
subtracted; the largest difference is taken exactly from the output's values
and that reference, right to the 3 digits shown. An exact value longer than
40 characters is shown rounded to 12 digits, marked ``~``. The exit status is 0 when
the output equals the reference (exactly, or for softmax within 1e-9,
or, with ``--base``, always: the base only approximates e and the difference
shown is that approximation), 1 when it does not, 2 for a mistake in the
command (a bad shape, a count of values that does not fit, a non-finite value,
exp in exact mode, a value or size beyond the limits below).

Limits, checked before anything is built: the input sequence has at most 1024
positions (R*C, or K*(R + C) for matmul: matmul 22x22x22 takes a few seconds,
and its time and memory grow with the square of the length); an entry has at
most 100 digits and a magnitude from 1e-300 to 1e300 (or is 0); the base is a number
above 1 and at most 100 (b ** S = exp(S ln b): base 1 would make every entry
1/C, a base below 1 would reverse the order); in exact mode BASE ** S has at
most 2000 digits (|S| times the base's digits); the seed is from 0 to 2**64 - 1.
"""

from __future__ import annotations

import argparse
import math
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from typing import TYPE_CHECKING

from usim.constructions.options import BLOCK_NAMES
from usim.encodings.digits import exact, significant
from usim.encodings.notation import MAX_BASE, parse_base, parse_dims, parse_values, split_values
from usim.errors import InputError, ShapeError

if TYPE_CHECKING:  # pragma: no cover
    from usim.constructions.base import Construction

TOLERANCE = 1e-9
MAX_POSITIONS = 1024  # input sequence length
MAX_POWER_DIGITS = 2000  # of BASE ** S in exact mode
MAX_SEED = 2**64 - 1
SHOWN_EXACTLY = 40  # characters of an exact value printed as it is


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run a block of the paper (transpose, softmax, matmul, det3, inverse3) on one input "
        "and compare with numpy (sympy for det3 and inverse3, mpmath for softmax), or a RASP "
        "listing's function on one input",
        description=__doc__.split("\n\n")[1],
        epilog="Exit status: 0 when the output equals the reference (exactly, or softmax within 1e-9; "
        "always with --base), 1 when it does not, 2 for a mistake in the command. "
        + __doc__.split("\n\n")[-1].strip(),
    )
    parser.add_argument("block", metavar="BLOCK|FILE.rasp", nargs="?",
                        help=f"which block of the paper ({', '.join(BLOCK_NAMES)}), or a RASP file")
    parser.add_argument("--tracr", metavar="FILE.py:NAME|MODULE:NAME",
                        help="a tracr program to run instead (needs --vocab, --max-len and --input)")
    parser.add_argument("--vocab", help='--tracr: the tokens\' values as a list, e.g. \'["a", "b", "c"]\'')
    parser.add_argument("--max-len", type=int, help="--tracr: the longest input (its tables are made for it)")
    parser.add_argument("--shape",
                        help="RxC for transpose and softmax, RxKxC for matmul (e.g. 2x3x4), "
                        "3x3 for det3 and inverse3")
    parser.add_argument("--function", "-f", help="FILE.rasp: the function (of no parameters) or "
                        "expression such as 'transpose_rows(3)' to run")
    parser.add_argument("--input", help='FILE.rasp: the input as the REPL writes it, e.g. "[1, 2, 3]"')
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--values", help="every entry, row-major, A before B (e.g. --values=1,2,3,4 or "
                        "--values='1/3 0.5 -2'; write --values=... when the first entry is negative)")
    source.add_argument("--random", action="store_true", help="random integer entries in -9..9 (the default)")
    parser.add_argument("--seed", type=int, default=None, help="seed for --random (default 0; 0 to 2**64 - 1)")
    parser.add_argument("--base", help="softmax only: use BASE ** S instead of exp(S), e.g. the paper's 2.718 "
                        f"(above 1, at most {MAX_BASE})")
    parser.add_argument("--exact", action="store_true",
                        help="use the exact interpretation (softmax: only with --base and integer entries; "
                        "FILE.rasp: rationals instead of checked float64)")
    parser.set_defaults(func=run)


# --- reading the command line ----------------------------------------------------------------


def parse_seed(seed: int | None, values: str | None) -> int:
    """The seed of --random: 0 (the default) to MAX_SEED; meaningless with --values."""
    if seed is None:
        return 0
    if values is not None:
        raise InputError("--seed applies to random values, not to --values")
    if not 0 <= seed <= MAX_SEED:
        raise InputError(f"--seed must be a whole number from 0 to 2**64 - 1, got {seed}")
    return seed


def input_positions(block: str, dims: Sequence[int]) -> int:
    """The length of the input sequence for a block at these dimensions."""
    if block == "matmul":
        rows, inner, cols = dims
        return inner * (rows + cols)
    return math.prod(dims)


def check_positions(block: str, dims: Sequence[int], shape: str) -> None:
    """Refuse an input sequence beyond MAX_POSITIONS, before anything is built."""
    positions = input_positions(block, dims)
    if positions > MAX_POSITIONS:
        raise ShapeError(f"the shape {shape} makes an input sequence of {positions} positions, above "
                         f"usim run's limit of {MAX_POSITIONS}")


def check_exact_power(base: Fraction, values: Sequence[Fraction]) -> None:
    """Exact BASE ** S needs integer S, and a result of at most MAX_POWER_DIGITS digits."""
    if any(v.denominator != 1 for v in values):
        raise InputError("exact softmax with --base needs integer entries (BASE ** S is irrational otherwise)")
    base_digits = len(str(base.numerator)) + len(str(base.denominator))
    largest = max(abs(v) for v in values)
    if largest * base_digits > MAX_POWER_DIGITS:
        raise InputError(f"exact BASE ** S would have about {int(largest * base_digits)} digits (|S| up to "
                         f"{largest}): usim computes at most {MAX_POWER_DIGITS} exactly; drop --exact")


def _construction(block: str, dims: tuple[int, ...], base: Fraction | None) -> Construction:
    from usim.constructions.blocks import BLOCKS
    from usim.constructions.softmax import softmax_construction

    if block == "softmax":
        return softmax_construction(*dims, base=base)
    if base is not None:
        raise InputError(f"--base applies to softmax only, not to {block}")
    return BLOCKS[block].build(*dims)


def _count(construction: Construction, got: int) -> None:
    """Refuse a number of values that does not fill the input matrices exactly."""
    blocks = construction.input_layout.blocks
    needed = sum(b.shape.size for b in blocks)
    if got != needed and got > 0:
        shapes = " and ".join(f"{b.name} ({b.shape})" for b in blocks)
        verb = "needs" if len(blocks) == 1 else "need"
        raise InputError(f"{shapes} {verb} {needed} values, got {got}")


def _inputs(construction: Construction, values: Sequence[Fraction]) -> dict[str, np.ndarray]:
    """Split the row-major values into the input layout's matrices (object arrays of Fractions)."""
    blocks = construction.input_layout.blocks
    _count(construction, len(values))
    out, start = {}, 0
    for b in blocks:
        flat = list(values[start : start + b.shape.size])
        out[b.name] = np.array(flat, dtype=object).reshape(b.shape.rows, b.shape.cols)
        start += b.shape.size
    return out


# --- printing ---------------------------------------------------------------------------------


def _text(x: Any) -> str:
    """An exact value as it is (rounded to 12 digits, marked ~, when too long); a
    float of any width (or an mpmath number) in 12 digits, from its own value."""
    if isinstance(x, Fraction):
        return _fraction_text(x)
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    return significant(x, 12)


def _fraction_text(x: Fraction) -> str:
    """p/q when short; else 12 digits from the exact value (no float: it may be 1e900)."""
    bits = x.numerator.bit_length() + x.denominator.bit_length()
    if bits * 0.302 <= SHOWN_EXACTLY:  # log10(2) digits per bit: no str() of a huge integer
        text = str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
        if len(text) <= SHOWN_EXACTLY:
            return text
    with localcontext() as context:
        context.prec = 12
        return "~" + format((Decimal(x.numerator) / Decimal(x.denominator)).normalize(), ".12g")


def format_matrix(m: np.ndarray, indent: str = "  ") -> str:
    cells = [[_text(x) for x in row] for row in m]
    width = max(len(c) for row in cells for c in row)
    return "\n".join(indent + " ".join(c.rjust(width) for c in row) for row in cells)


# --- running ---------------------------------------------------------------------------------


MAX_LISTING_POSITIONS = 4096  # the input of usim run FILE.rasp


def is_listing(block: str) -> bool:
    return block.endswith(".rasp") or (block not in BLOCK_NAMES and "/" in block)


def run_listing(args: argparse.Namespace) -> int:
    """``usim run FILE.rasp --function F --input "[...]"``: the output, as the REPL prints it."""
    from usim.rasp.expr import Selector, SOp
    from usim.repl import RaspFunction, load_file, read_input
    from usim.repl.values import value_literal

    for option in ("shape", "values", "base", "seed"):
        if getattr(args, option) is not None:
            raise InputError(f"--{option} applies to the blocks of the paper, not to a RASP file "
                             "(give --function and --input)")
    if args.random:
        raise InputError("--random applies to the blocks of the paper, not to a RASP file")
    if not args.function or args.input is None:
        raise InputError("running a RASP file needs --function F and --input \"[...]\"")
    tokens = read_input(args.input)
    symbols = sorted({t for t in tokens if isinstance(t, str)})
    if symbols and len(symbols) < len(set(map(repr, tokens))) and not all(isinstance(t, str) for t in tokens):
        raise InputError("the input mixes strings and numbers (the REPL refuses a sequence of mixed types)")
    listing = load_file(args.block, symbols=bool(symbols), inputs=symbols or None, with_examples=True)
    if len(tokens) > MAX_LISTING_POSITIONS:
        raise InputError(f"the input has {len(tokens)} positions, above usim run's limit of "
                         f"{MAX_LISTING_POSITIONS}")
    value = listing.value_of(args.function)
    if not isinstance(value, SOp) and not isinstance(value, (Selector, RaspFunction)):
        print(value_literal(value))  # a number, string, list or dict the file computes (the REPL's a = 9)
        return 0
    print(show_sequence(listing.run(args.function, tokens, exact=args.exact)))
    return 0


def show_sequence(values: Sequence[Any]) -> str:
    """A sequence as the REPL shows one: [1, 2.5, True, 1/3]; a float of any
    width in 10 digits of its own value."""
    def one(v: Any) -> str:
        if isinstance(v, bool):
            return str(v)
        if isinstance(v, (float, np.floating)):
            whole = np.isfinite(v) and v == np.floor(v) and abs(v) < 2**53
            return str(int(v)) if whole else significant(v, 10)
        if isinstance(v, Fraction):
            return _fraction_text(v)
        return str(v)
    return "[" + ", ".join(one(v) for v in values) + "]"


def run_tracr(args: argparse.Namespace) -> int:
    """``usim run --tracr REF --vocab "[...]" --max-len N --input "[...]"``: tracr's program's output, exactly."""
    from usim.api import read_tracr
    from usim.repl import read_input

    for option in ("block", "shape", "values", "base", "seed", "function"):
        if getattr(args, option) is not None:
            raise InputError(f"--tracr runs a tracr program: {'a block or file' if option == 'block' else '--' + option}"
                             " does not apply")
    if args.random or args.exact:
        raise InputError(f"--tracr runs a tracr program exactly: --{'random' if args.random else 'exact'} "
                         "does not apply")
    if args.vocab is None or args.max_len is None or args.input is None:
        raise InputError('--tracr needs --vocab "[...]", --max-len N and --input "[...]"')
    if not 1 <= args.max_len <= MAX_LISTING_POSITIONS:
        raise InputError(f"--max-len must be from 1 to {MAX_LISTING_POSITIONS}, got {args.max_len}")
    from usim.tracr_reader.convert import python_tokens
    from usim.tracr_reader.value_sets import agrees, tracr_rasp

    reading = read_tracr(args.tracr, python_tokens(read_input(args.vocab)), args.max_len)
    tokens = python_tokens(read_input(args.input))
    values = reading.run(tokens)
    print(show_sequence(values))
    try:  # tracr's evaluator beside usim's exact run: a difference is said, never hidden
        theirs = list(tracr_rasp().evaluate(reading.program, tokens))
    except Exception as error:  # tracr's evaluator raises on this input
        print(f"tracr's evaluator raises on this input ({type(error).__name__}: {error}); usim's reading gives "
              "the values above (undefined where it cannot)")
        return 1
    for p, (e, g) in enumerate(zip(theirs, values)):
        if not agrees(e, g):
            print(f"tracr's evaluator gives {e!r} at position {p} (it computes in floats): usim's exact reading "
                  f"differs from it there")
            return 1
    return 0


def run(args: argparse.Namespace) -> int:
    if args.tracr is not None:
        return run_tracr(args)
    for option in ("vocab", "max_len"):
        if getattr(args, option) is not None:
            raise InputError(f"--{option.replace('_', '-')} applies to --tracr")
    if args.block is None:
        raise InputError("usim run needs a block of the paper, a RASP file, or --tracr")
    if is_listing(args.block):
        return run_listing(args)  # imports only what the listing needs (no sympy, no z3)
    from usim.constructions.blocks import BLOCKS
    from usim.encodings.numeric import type_name
    from usim.encodings.runners import run_exact, run_numeric_in_range

    if args.block not in BLOCK_NAMES:
        raise InputError(f"no block {args.block!r}: give one of {', '.join(BLOCK_NAMES)}, or a .rasp file")
    if args.shape is None:
        raise InputError(f"usim run {args.block} needs --shape")
    if args.function is not None or args.input is not None:
        raise InputError("--function and --input apply to a RASP file, not to a block of the paper")
    block = BLOCKS[args.block]
    dims = parse_dims(args.shape, len(block.dims.split("x")))
    check_positions(args.block, dims, args.shape)
    base = parse_base(args.base)
    seed = parse_seed(args.seed, args.values)
    construction = _construction(args.block, dims, base)
    if args.values is not None:
        _count(construction, len(split_values(args.values)))  # before reading each entry
        values = parse_values(args.values)
    else:
        rng = np.random.default_rng(seed)
        size = sum(b.shape.size for b in construction.input_layout.blocks)
        values = [Fraction(int(v)) for v in rng.integers(-9, 10, size=size)]
    matrices = _inputs(construction, values)
    if block.validate is not None:
        block.validate(matrices)
    exact = args.exact or block.exact_by_default
    if exact and args.block == "softmax" and base is not None:
        check_exact_power(base, values)

    sequence = construction.input_layout.encode(matrices)
    first_output = block.output or construction.program.outputs[0][0]
    if exact:
        output = run_exact(construction.program, sequence)[first_output]
        output = [Fraction(int(v)) if isinstance(v, bool) else Fraction(v) for v in output]
        mode = "exact (rational)"
    else:  # the values stay in the type they were computed in (long double: never through float64)
        outputs, dtype = run_numeric_in_range(construction.program, np.array(sequence, dtype=np.float64))
        output = list(outputs[first_output][0])
        mode = f"numeric ({type_name(dtype)}" + ("" if dtype is np.float64 else
                                                  ": float64's range was not enough") + ")"
    out_layout = construction.output_layout
    result = np.array(out_layout.decode(output), dtype=object)
    padding = out_layout.padding(output)
    exact_reference = args.block != "softmax"  # softmax: mpmath, from the exact entries
    reference = block.reference(matrices)

    print(f"{construction.name} ({block.lemma}), {mode} interpretation")
    for b in construction.input_layout.blocks:
        print(f"input {b.name} ({b.shape}):")
        print(format_matrix(matrices[b.name]))
    figures = construction.cost
    print("cost:", figures.summary())
    name = out_layout.blocks[0].name
    print(f"output {name} ({out_layout.blocks[0].shape}):")
    print(format_matrix(result))
    print(f"{block.reference_by} reference:")
    print(format_matrix(reference))
    if padding:
        nonzero = [x for x in padding if x != 0]
        print(f"positions past the result ({len(padding)}): "
              + ("all 0" if not nonzero else "not all 0: " + ", ".join(_text(x) for x in padding)))
    pads_are_zero = all(x == 0 for x in padding)
    if exact_reference:
        exact_diff = max(abs(x - y) for x, y in zip(result.reshape(-1), reference.reshape(-1)))
        print(f"largest difference: {_text(exact_diff)} (exact)")
        agrees = exact_diff == 0 and pads_are_zero
    else:
        difference = softmax_difference(result, matrices)
        print(f"largest difference: {significant(difference, 3)}")
        agrees = difference <= TOLERANCE and pads_are_zero  # every softmax entry is at most 1
    if base is not None:
        print(f"note: base {float(base):g} stands for e = {math.e:.12g}; the difference is that "
              "approximation, not a routing error")
        return 0
    return 0 if agrees else 1


MAX_REFERENCE_BITS = 2**16


def softmax_difference(result: np.ndarray, matrices: dict[str, np.ndarray]) -> Any:
    """The largest |output - softmax(S)|, right to the 3 digits printed.

    Each output value (a float of any width, or a Fraction) is taken exactly and
    compared with mpmath's softmax of the exact entries
    (:meth:`~usim.constructions.blocks.SoftmaxRow.deviation`); the reference is
    refined (4 times the bits, up to MAX_REFERENCE_BITS) until the error bound
    on every entry's difference is below 2**-14 of the largest, so that the
    printed digits are the difference's own, not the reference's rounding.
    Where every row is constant the reference is exact and so is the difference
    (0 when the output is 1/C).

    Args:
        result: the output block (r x c), an object array of numpy floats or Fractions.
        matrices: the input matrices (Fractions).

    Returns:
        The difference: a Fraction when exact, else an mpmath number.

    Raises:
        RangeError: when the difference cannot be resolved from the reference's error.
    """
    import mpmath

    from usim.constructions.blocks import REFERENCE_BITS, softmax_rows
    from usim.errors import RangeError

    outputs = [[exact(x) for x in row] for row in result]
    bits = REFERENCE_BITS
    while bits <= MAX_REFERENCE_BITS:
        found = [row.deviation(j, x) for row, xs in zip(softmax_rows(matrices, bits), outputs)
                 for j, x in enumerate(xs)]
        if all(isinstance(d, Fraction) for d, _ in found):  # every row constant: exact
            return max(d for d, _ in found)
        with mpmath.workprec(bits):
            as_real = [(mpmath.mpf(d.numerator) / d.denominator, mpmath.ldexp(d, -bits)) if isinstance(d, Fraction)
                       else (d, e) for d, e in found]
            worst, error = max(d for d, _ in as_real), max(e for _, e in as_real)
            if worst >= 2**14 * error:
                return worst
        bits *= 4
    raise RangeError(f"the largest difference from the softmax is below the reference's resolution "
                     f"at {MAX_REFERENCE_BITS} bits ({significant(worst, 3)}): it cannot be printed right")
