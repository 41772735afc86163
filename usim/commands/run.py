"""``usim run transpose|softmax|matmul|det3|inverse3 --shape S [--values V | --random --seed N]``.

Runs one of the paper's three blocks on one input and shows the input matrices,
the cost (attention layers and heads per layer, without and with the layer that
computes ``length``), the output block, numpy's reference, what the positions
past the result hold, and the largest difference.

Shapes: transpose ``RxC`` (Lemma 3), softmax ``RxC`` (Lemma 4), matmul ``RxKxC``
(Lemma 5: A is R x K, B is K x C; the result must fit in the K*(R + C)
positions of the input), det3 and inverse3 ``3x3`` (the published cyclic-cofactor
construction; a singular matrix is refused). ``--values`` lists every entry row-major, A before B,
separated by commas or spaces; an entry may be an integer, a decimal or a
fraction such as ``1/3``. ``--base 2.718`` runs the paper's softmax variant
b ** S instead of exp(S).

Interpretations: transpose and matmul run exactly (rationals; numpy's reference
is computed on the same Fractions, so any difference is a real one); softmax
runs in float64 (``--exact`` asks for the exact interpretation, which refuses
exp and accepts a rational base at integer entries). The exit status is 0 when
the output equals the reference (exactly, or within 1e-9 relative in float64,
or, with ``--base``, always: the base only approximates e and the difference
shown is that approximation), 1 when it does not, 2 for a mistake in the
command (a bad shape, a count of values that does not fit, a non-finite value,
exp in exact mode).
"""

from __future__ import annotations

import argparse
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np
import sympy

from usim.constructions.base import Construction
from usim.constructions.determinant import det3_construction, inverse3_construction
from usim.constructions.matmul import matmul_construction
from usim.constructions.softmax import softmax_construction
from usim.constructions.transpose import transpose_construction
from usim.encodings.layout import parse_dims
from usim.encodings.runners import run_exact, run_numeric
from usim.errors import InputError, ShapeError

TOLERANCE = 1e-9


@dataclass(frozen=True)
class Block:
    """One runnable block: its shape syntax, its construction and numpy's reference."""

    lemma: str
    dims: str  # e.g. "RxC"
    build: Callable[..., Construction]
    reference: Callable[[dict[str, np.ndarray]], np.ndarray]
    exact_by_default: bool
    validate: Callable[[dict[str, np.ndarray]], None] | None = None
    output: str | None = None  # which output of the program (default: its first)
    reference_by: str = "numpy"


def _only_3x3(build: Callable[[], Construction]) -> Callable[..., Construction]:
    def construction(rows: int, cols: int) -> Construction:
        if (rows, cols) != (3, 3):
            raise ShapeError(f"the published construction is for 3x3 matrices only, not {rows}x{cols}")
        return build()
    return construction


def _exact_det(m: dict[str, np.ndarray]) -> Fraction:
    return Fraction(str(sympy.Matrix(m["A"].tolist()).det()))


def _nonsingular(m: dict[str, np.ndarray]) -> None:
    if _exact_det(m) == 0:
        raise InputError("the matrix is singular (determinant 0): it has no inverse, and the "
                         "construction would divide by 0")


def _exact_inverse(m: dict[str, np.ndarray]) -> np.ndarray:
    inverse = sympy.Matrix(m["A"].tolist()).inv()
    return np.array([[Fraction(str(x)) for x in row] for row in inverse.tolist()], dtype=object)


def _softmax_reference(m: dict[str, np.ndarray]) -> np.ndarray:
    s = m["S"].astype(np.float64)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


BLOCKS: dict[str, Block] = {
    "transpose": Block("Lemma 3", "RxC", transpose_construction, lambda m: m["M"].T, True),
    "softmax": Block("Lemma 4", "RxC", softmax_construction, _softmax_reference, False),
    "matmul": Block("Lemma 5", "RxKxC", matmul_construction, lambda m: m["A"] @ m["B"], True),
    "det3": Block("3x3 determinant", "RxC", _only_3x3(det3_construction),
                  lambda m: np.array([[_exact_det(m)]], dtype=object), True, output="det",
                  reference_by="sympy"),
    "inverse3": Block("3x3 inverse", "RxC", _only_3x3(inverse3_construction), _exact_inverse, True,
                      validate=_nonsingular, output="inverse",
                      reference_by="sympy"),
}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run a block of the paper (transpose, softmax, matmul, det3, inverse3) on one input "
        "and compare with numpy (sympy for det3 and inverse3)",
        description=__doc__.split("\n\n")[1],
        epilog="Exit status: 0 when the output equals numpy's (exactly, or within 1e-9 relative "
        "in float64; always with --base), 1 when it does not, 2 for a mistake in the command.",
    )
    parser.add_argument("block", choices=sorted(BLOCKS), help="which block of the paper")
    parser.add_argument("--shape", required=True,
                        help="RxC for transpose and softmax, RxKxC for matmul (e.g. 2x3x4), "
                        "3x3 for det3 and inverse3")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--values", help="every entry, row-major, A before B (e.g. --values=1,2,3,4 or "
                        "--values='1/3 0.5 -2'; write --values=... when the first entry is negative)")
    source.add_argument("--random", action="store_true", help="random integer entries in -9..9 (the default)")
    parser.add_argument("--seed", type=int, default=0, help="seed for --random (default 0)")
    parser.add_argument("--base", help="softmax only: use BASE ** S instead of exp(S), e.g. the paper's 2.718")
    parser.add_argument("--exact", action="store_true",
                        help="use the exact interpretation (softmax: only with --base and integer entries)")
    parser.set_defaults(func=run)


# --- reading the command line ----------------------------------------------------------------


def parse_value(text: str) -> Fraction:
    """'3', '-0.25', '1/3', '2e-3' as an exact rational; anything else is an InputError."""
    cleaned = text.strip()
    if re.fullmatch(r"[+-]?(nan|inf|infinity)", cleaned, flags=re.IGNORECASE):
        raise InputError(f"the value {text!r} is not finite: every entry must be a finite number")
    try:
        return Fraction(cleaned)
    except (ValueError, ZeroDivisionError):
        raise InputError(f"cannot read {text!r} as a number (write e.g. 3, -0.25 or 1/3)") from None


def parse_values(text: str) -> list[Fraction]:
    parts = [p for p in re.split(r"[\s,;]+", text.strip()) if p]
    if not parts:
        raise InputError("--values is empty: give every entry of the input, row-major")
    return [parse_value(p) for p in parts]


def parse_base(text: str | None) -> Fraction | None:
    if text is None:
        return None
    base = parse_value(text)
    if base <= 0:
        raise InputError(f"the base must be positive, got {text}")
    return base


def _construction(block: str, dims: tuple[int, ...], base: Fraction | None) -> Construction:
    if block == "softmax":
        return softmax_construction(*dims, base=base)
    if base is not None:
        raise InputError(f"--base applies to softmax only, not to {block}")
    return BLOCKS[block].build(*dims)


def _inputs(construction: Construction, values: Sequence[Fraction]) -> dict[str, np.ndarray]:
    """Split the row-major values into the input layout's matrices (object arrays of Fractions)."""
    blocks = construction.input_layout.blocks
    needed = sum(b.shape.size for b in blocks)
    if len(values) != needed:
        shapes = " and ".join(f"{b.name} ({b.shape})" for b in blocks)
        verb = "needs" if len(blocks) == 1 else "need"
        raise InputError(f"{shapes} {verb} {needed} values, got {len(values)}")
    out, start = {}, 0
    for b in blocks:
        flat = list(values[start : start + b.shape.size])
        out[b.name] = np.array(flat, dtype=object).reshape(b.shape.rows, b.shape.cols)
        start += b.shape.size
    return out


# --- printing ---------------------------------------------------------------------------------


def _text(x: Any) -> str:
    if isinstance(x, Fraction):
        return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    return f"{float(x):.12g}"


def format_matrix(m: np.ndarray, indent: str = "  ") -> str:
    cells = [[_text(x) for x in row] for row in m]
    width = max(len(c) for row in cells for c in row)
    return "\n".join(indent + " ".join(c.rjust(width) for c in row) for row in cells)


# --- running ---------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    block = BLOCKS[args.block]
    dims = parse_dims(args.shape, len(block.dims.split("x")))
    base = parse_base(args.base)
    construction = _construction(args.block, dims, base)
    if args.values is not None:
        values = parse_values(args.values)
    else:
        rng = np.random.default_rng(args.seed)
        size = sum(b.shape.size for b in construction.input_layout.blocks)
        values = [Fraction(int(v)) for v in rng.integers(-9, 10, size=size)]
    matrices = _inputs(construction, values)
    if block.validate is not None:
        block.validate(matrices)
    exact = args.exact or block.exact_by_default
    if exact and args.block == "softmax" and base is not None and any(v.denominator != 1 for v in values):
        raise InputError("exact softmax with --base needs integer entries (BASE ** S is irrational otherwise)")

    sequence = construction.input_layout.encode(matrices)
    first_output = block.output or construction.program.outputs[0][0]
    if exact:
        output = run_exact(construction.program, sequence)[first_output]
        output = [Fraction(int(v)) if isinstance(v, bool) else Fraction(v) for v in output]
    else:
        batch = run_numeric(construction.program, np.array(sequence, dtype=np.float64))[first_output]
        output = list(batch[0])
    out_layout = construction.output_layout
    result = np.array(out_layout.decode(output), dtype=object if exact else np.float64)
    padding = out_layout.padding(output)
    if exact and args.block != "softmax":
        reference = block.reference(matrices)  # numpy on Fractions: exact
    else:
        reference = block.reference({k: v.astype(np.float64) for k, v in matrices.items()})

    mode = "exact (rational)" if exact else "numeric (float64)"
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
    difference = max(abs(float(x) - float(y)) for x, y in zip(result.reshape(-1), reference.reshape(-1)))
    pad_off = max((abs(float(x)) for x in padding), default=0.0)
    if exact and args.block != "softmax":
        exact_diff = max(abs(x - y) for x, y in zip(result.reshape(-1), reference.reshape(-1)))
        print(f"largest difference: {_text(exact_diff)} (exact)")
        agrees = exact_diff == 0 and pad_off == 0
    else:
        print(f"largest difference: {difference:.3g}")
        scale = max(1.0, float(np.max(np.abs(reference.astype(np.float64)))))
        agrees = difference <= TOLERANCE * scale and pad_off == 0
    if base is not None:
        print(f"note: base {float(base):g} stands for e = {math.e:.12g}; the difference is that "
              "approximation, not a routing error")
        return 0
    return 0 if agrees else 1
