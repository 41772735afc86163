"""The specs a listing can be checked against (``usim check --spec NAME``).

A spec states, for every shape, what a listing's function must compute: the
layouts (the paper's: matrices row-major, blocks one after another, the result
from position 0 and 0 after it), the target in sympy, the preconditions and
the inputs' domain. The targets are the claims' own (imported from their proof
modules); ``tests/test_listings_specs.py`` checks that each spec states exactly
what its claim states at the claim's shapes.

======================  ===================  =============================================
spec                    dimensions           what the listing's function must output
======================  ===================  =============================================
transpose               r x c                M^T (c x r), Lemma 3
softmax [--base B]      r x c                row-wise softmax to base e (or B), Lemma 4
matmul                  r x k x c            AB for A (r x k), B (k x c), Lemma 5
relu                    n                    max(x, 0)
maxmin                  n                    (max, min) of each pair (2t, 2t+1)
cofactor3               r x c (square)       the signed cofactors (-1)^(i+j) M_ij
det3                    r x c (square)       det(A) at position 0
inverse3                r x c (square)       A^-1, where det(A) != 0
match2                  p x n                1 where some j (j = i allowed) has x_i + x_j = 0 mod p
match2_distinct         p x n                the same with j != i
parity                  n x k                the parity of the first k bits, everywhere
transpose_heads         h x r x c            <M_0^T, ..., M_h-1^T> for <M_0, ..., M_h-1>
softmax_heads [--base]  h x r x c            the row softmax of each of h blocks
matmul_heads            h x r x k x c        <A_0 B_0, ..., A_h-1 B_h-1> for <A_0.., B_0..>
reverse                 n                    the symbols in reverse order
histogram               n                    how many positions hold the symbol at each one
sort                    n                    the symbols in ascending order
most_frequent           n                    the most frequent symbol, at every position
======================  ===================  =============================================

The last four read the input as symbols over an alphabet (``--alphabet``, or
the symbols of the file's examples): proved for every input over it, by z3 over
the symbols' codes and exhaustively where the inputs are few.

The 3x3 claims (cofactor3, det3, inverse3) hold for the paper's 3x3
construction; their specs are the mathematics, stated for every square size,
so a listing that reads its size from ``length`` is checked at every size it
accepts. A user's spec is a Python file (:mod:`usim.listings.user_spec`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping

import sympy

from usim.constructions.softmax import PAPER_BASE
from usim.encodings.layout import SequenceLayout
from usim.engine.claim import Shape
from usim.listings.spec import ListingSpec, Statement
from usim.errors import ShapeError, UsimError

BASE_E = "e"


def parse_base(text: str | None) -> Fraction | None:
    """``e`` (None: the exact exp) or a decimal above 1 such as 2.718, exactly.

    Args:
        text: the base as written (``--base``), or None.

    Returns:
        None for ``e`` (or no base), else the base as an exact Fraction.

    Raises:
        UsimError: the text is no number, or the base is not above 1, or it is
            above 100.

    >>> parse_base("2.718"), parse_base("e")
    (Fraction(1359, 500), None)
    """
    if text is None or text.strip().lower() == BASE_E:
        return None
    try:
        base = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise UsimError(f"cannot read the base {text!r}: write e or a number such as 2.718") from None
    if base <= 1:
        raise UsimError(f"the base of a softmax must be above 1, not {text}")
    if base > 100:
        raise UsimError(f"the base {text} is above 100: a softmax base approximates e")
    return base


def _every(count: int, least: int = 1) -> Callable[[int], list[Shape]]:
    return lambda n: list(itertools.product(range(least, n + 1), repeat=count))


def _square(n: int) -> list[Shape]:
    return [(s, s) for s in range(1, n + 1)]


def _sequence(n: int) -> tuple[SequenceLayout, SequenceLayout]:
    from usim.constructions.relu import sequence_layouts

    return sequence_layouts(n)


def _output(blocks: list[tuple[str, tuple[int, int]]], length: int, what: str) -> SequenceLayout:
    """The output layout; a clear error when the result does not fit the sequence."""
    needed = sum(r * c for _, (r, c) in blocks)
    if needed > length:
        raise ShapeError(f"{what}: {needed} entries, but the sequence has {length} positions "
                         "(the result is written from position 0): it does not fit")
    return SequenceLayout.of(*blocks, length=length)


# -- the claims' specs ---------------------------------------------------------------

def _transpose(shape: Shape) -> Statement:
    r, c = shape
    return Statement(SequenceLayout.of(("M", (r, c))), SequenceLayout.of(("MT", (c, r))),
                     lambda m: {"MT": m["M"].T})


def _softmax(base: Fraction | None) -> Callable[[Shape], Statement]:
    from usim.proofs.lemma4_softmax import softmax_target

    def statement(shape: Shape) -> Statement:
        r, c = shape
        return Statement(SequenceLayout.of(("S", (r, c))), SequenceLayout.of(("softmax(S)", (r, c))),
                         softmax_target(base))
    return statement


def _matmul(shape: Shape) -> Statement:
    r, k, c = shape
    return Statement(SequenceLayout.of(("A", (r, k)), ("B", (k, c))),
                     _output([("AB", (r, c))], k * (r + c), f"the product AB ({r}x{c})"),
                     lambda m: {"AB": m["A"] * m["B"]})


def _relu(shape: Shape) -> Statement:
    from usim.proofs.relu import relu_target

    return Statement(*_sequence(shape[0]), relu_target)


def _maxmin(shape: Shape) -> Statement:
    from usim.proofs.maxmin import maxmin_target

    return Statement(*_sequence(shape[0]), maxmin_target)


def _cofactor(shape: Shape) -> Statement:
    r, c = shape
    return Statement(SequenceLayout.of(("A", (r, c))), SequenceLayout.of(("C", (r, c))),
                     lambda m: {"C": m["A"].adjugate().T})


def _det(shape: Shape) -> Statement:
    r, c = shape
    return Statement(SequenceLayout.of(("A", (r, c))), SequenceLayout.of(("det", (1, 1)), length=r * c),
                     lambda m: {"det": [[m["A"].det(method="bareiss")]]})


def _inverse(shape: Shape) -> Statement:
    from usim.proofs.inverse3 import inverse_target, nonsingular

    r, c = shape
    return Statement(SequenceLayout.of(("A", (r, c))), SequenceLayout.of(("Ainv", (r, c))),
                     inverse_target, nonsingular)


def _match2(distinct: bool) -> Callable[[Shape], Statement]:
    from usim.proofs.match2 import match2_target

    def statement(shape: Shape) -> Statement:
        p, n = shape
        return Statement(*_sequence(n), match2_target(p, distinct), domain="integer")
    return statement


def _match2_shapes(n: int) -> list[Shape]:
    return [(p, m) for p in range(2, n + 1) for m in range(1, n + 1)]


def _parity(shape: Shape) -> Statement:
    from usim.proofs.parity import parity_target

    n, k = shape
    if k > n:
        raise ShapeError(f"the first {k} bits of a sequence of {n}")
    return Statement(*_sequence(n), parity_target(tuple(range(k))), domain="integer", values=(0, 1))


def _parity_shapes(n: int) -> list[Shape]:
    return [(m, k) for m in range(1, n + 1) for k in range(1, m + 1)]


# -- programs over symbols (the RASP paper's own examples) ----------------------------
#
# The input is read as symbols: each entry is a symbol's code in the alphabet's
# sorted order (usim.repl.symbols), so the targets compare and order codes.

def _symbols(shape: Shape, target) -> Statement:
    return Statement(*_sequence(shape[0]), target, domain="integer")


def reverse_target(m) -> dict:
    """y_j = x_{n-1-j}: the symbols in reverse order.

    Args:
        m: the input block ``x`` (1 x n, the symbols' codes) by name.

    Returns:
        The output block ``y`` by name.

    >>> reverse_target({"x": sympy.Matrix([[3, 1, 2]])})
    {'y': Matrix([[2, 1, 3]])}
    """
    x = m["x"]
    return {"y": sympy.Matrix([[x[0, x.cols - 1 - j] for j in range(x.cols)]])}


def histogram_target(m) -> dict:
    """y_j = how many positions hold the symbol at j.

    Args:
        m: the input block ``x`` (1 x n, the symbols' codes) by name.

    Returns:
        The output block ``y`` by name.

    >>> histogram_target({"x": sympy.Matrix([[1, 0, 1]])})
    {'y': Matrix([[2, 1, 2]])}
    """
    x = m["x"]
    return {"y": sympy.Matrix([[sympy.Add(*[sympy.Piecewise((1, sympy.Eq(x[0, k], x[0, j])), (0, True))
                                            for k in range(x.cols)]) for j in range(x.cols)]])}


def sort_target(m) -> dict:
    """The symbols in ascending order: a sorting network of min/max (odd-even transposition).

    Args:
        m: the input block ``x`` (1 x n, the symbols' codes) by name.

    Returns:
        The output block ``y`` by name.

    >>> sort_target({"x": sympy.Matrix([[3, 1, 2]])})
    {'y': Matrix([[1, 2, 3]])}
    """
    x = m["x"]
    row = [x[0, j] for j in range(x.cols)]
    for sweep in range(len(row)):
        for j in range(sweep % 2, len(row) - 1, 2):
            row[j], row[j + 1] = sympy.Min(row[j], row[j + 1]), sympy.Max(row[j], row[j + 1])
    return {"y": sympy.Matrix([row])}


def most_frequent_target(m) -> dict:
    """At every position, the symbol held by the most positions; among ties, the
    one whose first position comes first (the first position with the largest count).

    Args:
        m: the input block ``x`` (1 x n, the symbols' codes) by name.

    Returns:
        The output block ``y`` by name.

    >>> most_frequent_target({"x": sympy.Matrix([[2, 1, 1]])})
    {'y': Matrix([[1, 1, 1]])}
    """
    x = m["x"]
    n = x.cols
    counts = [sympy.Add(*[sympy.Piecewise((1, sympy.Eq(x[0, k], x[0, j])), (0, True)) for k in range(n)])
              for j in range(n)]
    branches = []
    for j in range(n):
        best = sympy.And(*[counts[j] > counts[k] for k in range(j)],
                         *[counts[j] >= counts[k] for k in range(j + 1, n)])
        branches.append((x[0, j], best))
    value = sympy.Piecewise(*branches[:-1], (branches[-1][0], True)) if n > 1 else x[0, 0]
    return {"y": sympy.Matrix([[value] * n])}


# -- the multi-head blocks of the authors' MultiHead/ listings ------------------------

def _transpose_heads(shape: Shape) -> Statement:
    h, r, c = shape
    return Statement(SequenceLayout.of(*[(f"M{i}", (r, c)) for i in range(h)]),
                     SequenceLayout.of(*[(f"MT{i}", (c, r)) for i in range(h)]),
                     lambda m: {f"MT{i}": m[f"M{i}"].T for i in range(h)})


def _softmax_heads(base: Fraction | None) -> Callable[[Shape], Statement]:
    from usim.proofs.lemma4_softmax import softmax_target

    one = softmax_target(base)

    def statement(shape: Shape) -> Statement:
        h, r, c = shape
        return Statement(
            SequenceLayout.of(*[(f"S{i}", (r, c)) for i in range(h)]),
            SequenceLayout.of(*[(f"softmax(S{i})", (r, c)) for i in range(h)]),
            lambda m: {f"softmax(S{i})": one({"S": m[f"S{i}"]})["softmax(S)"] for i in range(h)})
    return statement


def _matmul_heads(shape: Shape) -> Statement:
    h, r, k, c = shape
    return Statement(
        SequenceLayout.of(*[(f"A{i}", (r, k)) for i in range(h)], *[(f"B{i}", (k, c)) for i in range(h)]),
        _output([(f"A{i}B{i}", (r, c)) for i in range(h)], h * k * (r + c), f"the {h} products ({r}x{c} each)"),
        lambda m: {f"A{i}B{i}": m[f"A{i}"] * m[f"B{i}"] for i in range(h)})


@dataclass(frozen=True)
class Row:
    """One built-in spec: its statement per shape (``statement(base)`` for the
    softmax specs, which take a base), and how its shapes are laid out."""

    title: str
    dims: tuple[str, ...]
    shapes: Callable[[int], list[Shape]]
    length: Callable[[Shape], int]
    statement: Callable[..., Callable[[Shape], Statement]]
    claim: str | None = None
    square: tuple[str, ...] = ()
    sums: tuple[str, str] | None = None
    takes_base: bool = False
    max_n: int = 4
    engines: tuple[str, ...] | None = None
    reads: str = "number"
    writes: str = "number"


def _always(statement: Callable[[Shape], Statement]) -> Callable[..., Callable[[Shape], Statement]]:
    return lambda base=None: statement


def _area(s: Shape) -> int:
    return s[0] * s[1]


TABLE: dict[str, Row] = {
    "transpose": Row("M^T for M (r x c) (Lemma 3)", ("r", "c"), _every(2), _area, _always(_transpose),
                     claim="lemma3", square=("r", "c")),
    "softmax": Row("the row-wise softmax of S (r x c), to base e or --base (Lemma 4)", ("r", "c"), _every(2),
                   _area, _softmax, claim="lemma4", square=("r", "c"), takes_base=True, max_n=3),
    "matmul": Row("AB for A (r x k), B (k x c), read as <A, B> (Lemma 5)", ("r", "k", "c"), _every(3),
                  lambda s: s[1] * (s[0] + s[2]), _always(_matmul), claim="lemma5", square=("r", "k", "c"),
                  sums=("r", "c"), max_n=3),
    "relu": Row("max(x, 0) at every position", ("n",), _every(1), lambda s: s[0], _always(_relu),
                claim="relu", max_n=8),
    "maxmin": Row("(max, min) of each pair (2t, 2t+1); an odd last element unchanged", ("n",), _every(1),
                  lambda s: s[0], _always(_maxmin), claim="maxmin", max_n=6),
    "cofactor3": Row("the signed cofactors (-1)^(i+j) M_ij of a square A (the claim: 3x3)", ("r", "c"),
                     _square, _area, _always(_cofactor), claim="cofactor3", square=("r", "c"), max_n=3),
    "det3": Row("det(A) at position 0 of a square A, 0 after it (the claim: 3x3)", ("r", "c"), _square, _area,
                _always(_det), claim="det3", square=("r", "c"), max_n=3),
    "inverse3": Row("A^-1 of a square A with det(A) != 0 (the claim: 3x3)", ("r", "c"), _square, _area,
                    _always(_inverse), claim="inverse3", square=("r", "c"), max_n=3),
    "match2": Row("1 where some j (j = i allowed) has x_i + x_j = 0 mod p, else 0; integer inputs",
                  ("p", "n"), _match2_shapes, lambda s: s[1], _always(_match2(False)), claim="match2",
                  max_n=3, engines=("z3",)),
    "match2_distinct": Row("1 where some j != i has x_i + x_j = 0 mod p, else 0; integer inputs", ("p", "n"),
                           _match2_shapes, lambda s: s[1], _always(_match2(True)), claim="match2", max_n=3,
                           engines=("z3",)),
    "parity": Row("the parity of the first k bits of a 0/1 input, at every position", ("n", "k"),
                  _parity_shapes, lambda s: s[0], _always(_parity), claim="parity", max_n=4),
    "reverse": Row("the symbols in reverse order (input and output: symbols over an alphabet)", ("n",),
                   _every(1), lambda s: s[0], _always(lambda s: _symbols(s, reverse_target)), max_n=4,
                   engines=("z3",), reads="symbol", writes="symbol"),
    "histogram": Row("at each position, how many positions hold its symbol (input: symbols)", ("n",),
                     _every(1), lambda s: s[0], _always(lambda s: _symbols(s, histogram_target)), max_n=4,
                     engines=("z3",), reads="symbol"),
    "sort": Row("the symbols in ascending order (the alphabet's order; input and output: symbols)", ("n",),
                _every(1), lambda s: s[0], _always(lambda s: _symbols(s, sort_target)), max_n=4,
                engines=("z3",), reads="symbol", writes="symbol"),
    "most_frequent": Row("at every position, the most frequent symbol, ties to the one seen first (symbols)",
                         ("n",), _every(1), lambda s: s[0], _always(lambda s: _symbols(s, most_frequent_target)),
                         max_n=4, engines=("z3",), reads="symbol", writes="symbol"),
    "transpose_heads": Row("each of h blocks M_i (r x c) transposed in place", ("h", "r", "c"), _every(3),
                           lambda s: s[0] * s[1] * s[2], _always(_transpose_heads), square=("r", "c"), max_n=3),
    "softmax_heads": Row("the row-wise softmax of each of h blocks S_i (r x c), to base e or --base",
                         ("h", "r", "c"), _every(3), lambda s: s[0] * s[1] * s[2], _softmax_heads,
                         square=("r", "c"), takes_base=True, max_n=3),
    "matmul_heads": Row("A_i B_i for <A_0, .., A_h-1, B_0, .., B_h-1> (A_i r x k, B_i k x c)",
                        ("h", "r", "k", "c"), _every(4), lambda s: s[0] * s[2] * (s[1] + s[3]),
                        _always(_matmul_heads), square=("r", "k", "c"), sums=("r", "c"), max_n=2),
}


def spec(name: str, base: Fraction | None = None) -> ListingSpec:
    """The built-in spec ``name``; ``base`` (the softmax specs) replaces e.

    Args:
        name: a spec of :data:`TABLE` (the module docstring's table).
        base: the softmax specs' base in place of e (:func:`parse_base`), or None.

    Returns:
        The spec: its statement at every shape, its engines (the table's,
        else its claim's, else sympy and z3) and the claim it restates (none
        for a softmax to a base other than e and the paper's).

    Raises:
        UsimError: there is no spec ``name``, or a base is given to a spec
            that is not a softmax.

    >>> transpose = spec("transpose")
    >>> transpose.dims, transpose.title
    (('r', 'c'), 'M^T for M (r x c) (Lemma 3)')
    """
    if name not in TABLE:
        raise UsimError(f"no spec {name!r}; specs: {', '.join(TABLE)}")
    row = TABLE[name]
    if base is not None and not row.takes_base:
        raise UsimError(f"--base applies to the softmax specs, not to {name}")
    claim_id = row.claim
    if claim_id == "lemma4" and base is not None:
        claim_id = "lemma4_paper" if base == PAPER_BASE else None
    engines = row.engines
    if engines is None and claim_id is not None:
        from usim.proofs import get

        engines = get(claim_id).engines
    title = row.title + (f"; base {base} ({float(base)}) in place of e" if base is not None else "")
    source: dict[str, Any] = {"kind": "builtin", "name": name}
    if base is not None:
        source["base"] = str(base)
    return ListingSpec(name, title, row.dims, row.shapes, row.length, row.statement(base),
                       engines=tuple(engines or ("sympy", "z3")), default_max_n=row.max_n,
                       wants_exp=row.takes_base and base is None, claim_id=claim_id, square=row.square,
                       sums=row.sums, source=source, reads=row.reads, writes=row.writes)


def specs() -> dict[str, ListingSpec]:
    """Every built-in spec.

    Returns:
        Name -> the spec (:func:`spec` with no base), in the table's order.
    """
    return {name: spec(name) for name in TABLE}


def spec_from_source(source: Mapping[str, Any], run_code: bool = False) -> ListingSpec:
    """The spec a certificate names: built in (with its options), or a user's
    spec file embedded in it (run only with ``run_code``: it is Python).

    Args:
        source: the certificate's spec source (kind ``builtin`` with its name
            and base, or kind ``file`` with the spec file's text).
        run_code: whether an embedded spec file may be run.

    Returns:
        The spec.

    Raises:
        UsimError: the source embeds a spec file and ``run_code`` is false, or
            it is incomplete or of an unknown kind.

    >>> spec_from_source({"kind": "builtin", "name": "softmax", "base": "2"}).title
    'the row-wise softmax of S (r x c), to base e or --base (Lemma 4); base 2 (2.0) in place of e'
    """
    kind = source.get("kind")
    if kind == "builtin":
        base = source.get("base")
        return spec(str(source.get("name")), Fraction(base) if base is not None else None)
    if kind == "file":
        from usim.listings.user_spec import load_spec_text

        if not run_code:
            raise UsimError(f"the certificate embeds the spec file {source.get('file')} (Python code), which "
                            "states what it proves; run it only if you trust the certificate: --run-spec-code")
        text = source.get("text")
        if not isinstance(text, str):
            raise UsimError("the certificate's spec source has no text")
        return load_spec_text(text, str(source.get("name")), str(source.get("file", "<certificate>")))
    raise UsimError(f"the certificate's spec source is of an unknown kind {kind!r}")
