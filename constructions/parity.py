"""k-PARITY: is the number of ones among k chosen positions of a 0/1 input odd?

Input: bits b_0 .. b_{n-1} in {0, 1} (a 1 x n matrix ``x``). For a set S of k
positions (the first k by default, S = {0, .., k-1}), the output (a 1 x n matrix
``y``) carries the answer at every position:

    y_p = (sum_{s in S} b_s) mod 2     for every p.

Construction (:func:`parity_program`), 1 attention layer, 1 head:

1. Element-wise: ``member = 1`` at the positions of S, else 0 (for the first k,
   ``indices < k``; for a general S an OR of ``indices == s``). It depends on
   positions only, so the selector below is decided once per length.
2. Head ``mean_S``: select(member, 1, ==) selects, at every query, exactly the
   keys in S (a constant query: the same k keys everywhere), and aggregates the
   bits: the mean is c / k where c = sum_{s in S} b_s.
3. Element-wise: ``count = k * mean_S`` is c exactly (a rational times k; the
   exact interpretations keep it exact, no float is involved), and the answer is
   ``count mod 2``, which is 0 or 1 because c is a whole number.

The paper claims k-PARITY solved by construction but publishes no listing, so
this is our own precise version. Constant depth: 1 layer, 1 head, whatever k and n.
A mean over k keys has only k+1 possible values, so the final map c mod 2 is a
finite lookup an MLP realises exactly on {0, 1/k, .., 1}.

Non-binary input: :func:`run_parity` refuses it with a clear error (the program
itself would return c mod 2 for any integers, and a fraction for fractional
input; that is not the task).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from usim.constructions.base import Construction
from usim.constructions.relu import sequence_layouts
from usim.encodings.exact import as_exact
from usim.encodings.runners import run_exact
from usim.errors import InputError, ShapeError
from usim.rasp.expr import Map, Op, Predicate, SOp, aggregate, indices, select, tokens, where
from usim.rasp.program import Program


def check_positions(positions: Iterable[int], n: int | None = None) -> tuple[int, ...]:
    """The chosen positions, sorted, distinct and non-negative (and < n if given).

    Args:
        positions: the set S of positions whose ones are counted.
        n: the input's length, or None not to check against it.

    Returns:
        S as a sorted tuple.

    Raises:
        ShapeError: S is empty, repeats a position, holds a position that is
            not a whole number >= 0, or one past the input.

    >>> check_positions([3, 1])
    (1, 3)
    """
    chosen = tuple(positions)
    for s in chosen:
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise ShapeError(f"a k-PARITY position must be a whole number >= 0, got {s!r}")
    if not chosen:
        raise ShapeError("k-PARITY needs at least one position (k >= 1)")
    if len(set(chosen)) != len(chosen):
        raise ShapeError(f"the k-PARITY positions repeat a position: {list(chosen)}")
    if n is not None and max(chosen) >= n:
        raise ShapeError(
            f"the k-PARITY position {max(chosen)} is outside an input of length {n}"
        )
    return tuple(sorted(chosen))


def first_k(k: int) -> tuple[int, ...]:
    """The first k positions, the S of k-PARITY given by its k.

    Args:
        k: how many positions, a whole number >= 1.

    Returns:
        (0, 1, ..., k - 1).

    Raises:
        ShapeError: k is not a whole number >= 1.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ShapeError(f"k-PARITY needs a whole number k >= 1, got {k!r}")
    return tuple(range(k))


def parity_block(bits: SOp, positions: Sequence[int]) -> SOp:
    """(number of ones at ``positions``) mod 2, at every position.

    Args:
        bits: the 0/1 sequence.
        positions: the set S (:func:`check_positions`).

    Returns:
        The sequence ``parity``: k times the mean of the bits at S (one head
        selecting the keys in S), mod 2.
    """
    chosen = check_positions(positions)
    k = len(chosen)
    if chosen == tuple(range(k)):
        member = (indices < k).named("member")
    else:
        member = indices == chosen[0]
        for s in chosen[1:]:
            member = member | (indices == s)
        member = member.named("member")
    in_set = where(member, 1, 0).named("in_set")
    mean = aggregate(select(in_set, 1, Predicate.EQ), bits).named("mean_S")
    count = Map(Op.MUL, k, mean).named("count")  # a node even for k = 1
    return (count % 2).named("parity")


def parity_program(positions: Sequence[int]) -> Program:
    """k-PARITY over S: 1 attention layer, 1 head.

    Args:
        positions: the set S (:func:`check_positions`).

    Returns:
        The program with one output, ``parity``.
    """
    chosen = check_positions(positions)
    k = len(chosen)
    label = f"first {k}" if chosen == tuple(range(k)) else "positions " + ",".join(map(str, chosen))
    return Program.of(
        f"parity_{'k' + str(k) if chosen == tuple(range(k)) else '_'.join(map(str, chosen))}",
        {"parity": parity_block(tokens, chosen)},
        f"k-PARITY over the {label}: (number of ones) mod 2 at every position",
    )


def parity_construction(n: int, positions: Sequence[int]) -> Construction:
    """k-PARITY over S on a sequence of length n, as a construction.

    Args:
        n: the sequence length.
        positions: the set S, inside the sequence.

    Returns:
        The construction reading x (1 x n) and writing y (1 x n).
    """
    chosen = check_positions(positions, n)
    layout_in, layout_out = sequence_layouts(n)
    return Construction(
        name=f"parity n={n} S={list(chosen)}",
        program=parity_program(chosen),
        input_layout=layout_in,
        output_layout=layout_out,
        notes="0/1 input; 1 head averaging the chosen positions",
    )


def check_bits(bits: Sequence[object]) -> list[int]:
    """The input as 0/1 ints, or an error naming the first non-binary entry.

    Args:
        bits: the values given (ints, exact numbers, decimal strings).

    Returns:
        The values as ints 0 and 1.

    Raises:
        InputError: a value is not 0 or 1.
    """
    out = []
    for p, b in enumerate(bits):
        try:
            v = as_exact(b)
        except (TypeError, ValueError):
            raise InputError(f"k-PARITY needs a 0/1 input; position {p} holds {b!r}") from None
        if v not in (0, 1):
            raise InputError(f"k-PARITY needs a 0/1 input; position {p} holds {b!r}")
        out.append(int(v))
    return out


def run_parity(bits: Sequence[object], positions: Sequence[int] | int) -> list[int]:
    """Run the construction exactly on a validated 0/1 input.

    ``positions`` is k (the first k positions) or an explicit set of positions.

    Args:
        bits: the 0/1 input (:func:`check_bits`).
        positions: k, or the set S.

    Returns:
        The parity of the ones at S, at every position.

    >>> run_parity([1, 1, 0, 1], 3), run_parity([1, 0, 0, 1], [0, 2])
    ([0, 0, 0, 0], [1, 1, 1, 1])
    """
    values = check_bits(bits)
    if not values:
        raise InputError("the input sequence is empty")
    chosen = first_k(positions) if isinstance(positions, int) else tuple(positions)
    chosen = check_positions(chosen, len(values))
    return [int(v) for v in run_exact(parity_program(chosen), values)["parity"]]
