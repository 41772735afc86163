"""MaxMin (GroupSort with groups of 2): each pair (2t, 2t+1) becomes (max, min).

Input: x_0 .. x_{n-1} (a 1 x n matrix ``x``). Output (a 1 x n matrix ``y``):

    y_{2t}   = max(x_{2t}, x_{2t+1})
    y_{2t+1} = min(x_{2t}, x_{2t+1})
    y_{n-1}  = x_{n-1}            when n is odd (the trailing element has no partner)

Corrected construction (:func:`maxmin_program`), 1 attention layer, 1 head:

1. Element-wise: ``odd = p mod 2`` and the partner's position
   ``partner(p) = p + 1 - 2*odd`` (that is p xor 1: p+1 for even p, p-1 for odd p).
   It is guarded: when n is odd the last position n-1 (even) would have partner n,
   which does not exist, so ``has_partner = partner(p) < n`` and the source is -1
   there (a query that selects nothing).
2. Head ``partner``: select(indices, source, ==) selects at query p exactly the
   key partner(p) (or nothing), so the mean is x_{partner(p)} (default 0 where
   nothing is selected; that value is never used).
3. Element-wise: ``where(has_partner, where(odd, min(x, partner), max(x, partner)), x)``.
   At an even p the pair is (x_p, x_{p+1}) and the output is their max; at an odd p
   it is their min; the trailing element passes through. No comparison flag is
   turned into arithmetic, so nothing can overshoot.

The published construction (:func:`published_maxmin_program`), rebuilt from
the authors' listing: ``MaxMin.rasp``, function ``MaxMinSort``, in their
repository DDuttaGit/TMA (the same function is in ``U/Ulib.rasp`` with
``tokens_float``). Its steps, one by one (usim's own code, the listing's
meaning; the names are the listing's):

1. ``MaxSel``: every query selects its own position (an identity head);
   ``MinSel``: a query q with q mod 2 = 0 selects the key q + 1, an odd query
   selects nothing (default 0). ``MaxminusMin = x_p - (x_{p+1} if p is even and
   p + 1 < n, else 0)``: at an odd p this is x_p itself, not a difference.
2. ``reqFlip = 1 if MaxminusMin < 0 else 0``, then ``reqFlip = reqFlip +
   reqFlip[p - 1]`` (a head selecting the key p - 1; 0 at p = 0). The flag is
   meant to be 1 where the pair is out of order, at both of its positions.
3. ``revby2`` is 1 at an even position and -1 at an odd one (two heads, each
   averaging a constant over every key on the queries of one parity); the head
   ``flip`` selects the key p + revby2 (the partner p xor 1; nothing past the end).
4. ``sort = reqFlip * partner + (1 - reqFlip) * x_p`` (the identity head again
   for x_p).

What goes wrong: at an odd p, ``MaxminusMin`` is x_p, so the flag of step 2 is
(x_p < 0), and it is added both to position p and to position p + 1. Hence

* an odd p with x_p < 0 gets flag (x_p < 0) + (x_{p-1} < x_p) in {1, 2}: it
  takes its partner's value (flag 1, even where the pair was in order) or
  overshoots to 2 x_{p-1} - x_p (flag 2);
* an even p >= 2 after a negative odd element gets one more: its flag is
  (x_p < x_{p+1}) + (x_{p-1} < 0), so it takes its partner (or overshoots) when
  the pair was in order;
* a trailing even element (odd n) compares with 0: a negative one is replaced by
  its missing partner, 0.

On non-negative inputs every such term is 0 and the listing is right (proved by
``tests/test_constructions_maxmin.py`` under the precondition x >= 0). Smallest
counterexamples: x = (-1) gives (0); x = (0, -1) gives (0, 0) instead of
(0, -1); x = (-2, -1) gives (-1, -3) instead of (-1, -2); x = (1, -1, 5, 3)
gives (1, 1, 3, 3) instead of (1, -1, 5, 3).

(An earlier usim modelled this listing from a description, as a flag that adds
the parity to the comparison; on the inputs in {-2, .., 2}^6 that model and
the listing differ on 13385 of 15625, so the erratum now rests on the listing
itself. This construction and the listing, run by usim's reader of the
listing, agree on all 20030 inputs tried: every input in {-2, .., 2}^n for
n <= 6 and 500 random rational ones.)
"""

from __future__ import annotations

from usim.constructions.base import Construction, gather
from usim.constructions.relu import sequence_layouts
from usim.rasp.expr import (
    Predicate,
    SOp,
    aggregate,
    indices,
    length,
    maximum,
    minimum,
    select,
    tokens,
    where,
)
from usim.rasp.program import Program


def partner_position(p: SOp = indices) -> SOp:
    """p xor 1: p + 1 for even p, p - 1 for odd p (an element-wise map of ``p``).

    Args:
        p: the positions (``indices`` by default).

    Returns:
        The sequence ``partner_pos``.
    """
    odd = (p % 2).named("odd")
    return (p + 1 - 2 * odd).named("partner_pos")


def fetch_partner(values: SOp) -> tuple[SOp, SOp]:
    """One head: (x_{p xor 1}, has_partner). Where p xor 1 >= n, nothing is selected.

    Args:
        values: the sequence x.

    Returns:
        (``partner``: x_{p xor 1}, 0 where there is none; ``has_partner``:
        whether p xor 1 < n).
    """
    pos = partner_position()
    has_partner = (pos < length).named("has_partner")
    source = where(has_partner, pos, -1).named("partner_src")
    return gather(values, source).named("partner"), has_partner


def maxmin_block(values: SOp) -> SOp:
    """(max, min) of each pair (2t, 2t+1); an odd trailing element unchanged.

    Args:
        values: the sequence x.

    Returns:
        The sequence ``maxmin``: one head (:func:`fetch_partner`), then
        element-wise max at even and min at odd positions.
    """
    partner, has_partner = fetch_partner(values)
    odd = (indices % 2 == 1).named("is_odd")
    ordered = where(odd, minimum(values, partner), maximum(values, partner)).named("ordered")
    return where(has_partner, ordered, values).named("maxmin")


def maxmin_program() -> Program:
    """GroupSort-2 of the tokens: 1 attention layer, 1 head (and ``length``).

    Returns:
        The program with one output, ``maxmin``.

    >>> from usim.encodings import run_exact
    >>> run_exact(maxmin_program(), [1, 3, 2])
    {'maxmin': [3, 1, 2]}
    """
    return Program.of(
        "maxmin", {"maxmin": maxmin_block(tokens)},
        "GroupSort-2: (x_2t, x_2t+1) -> (max, min); an odd trailing element unchanged",
    )


def published_maxmin_block(values: SOp) -> SOp:
    """The authors' ``MaxMinSort`` (``MaxMin.rasp``), step by step (see the module
    docstring): wrong on inputs with negative values.

    Args:
        values: the sequence x.

    Returns:
        The sequence ``maxmin``: reqFlip * partner + (1 - reqFlip) * x_p.
    """
    same = select(indices, indices, Predicate.EQ).named("MaxSel")
    own = aggregate(same, values).named("own")
    next_of_even = (select(indices, indices + 1, Predicate.EQ)
                    & select(1, indices % 2 + 1, Predicate.EQ)).named("MinSel")
    difference = (own - aggregate(next_of_even, values)).named("MaxminusMin")
    flag = where(difference < 0, 1, 0).named("reqFlip0")
    previous = aggregate(select(indices + 1, indices, Predicate.EQ), flag).named("reqFlip_previous")
    flip_flag = (flag + previous).named("reqFlip")
    step = (aggregate(select(0, indices % 2, Predicate.EQ), 1)
            + aggregate(select(1, indices % 2, Predicate.EQ), -1)).named("revby2")
    partner = aggregate(select(indices, indices + step, Predicate.EQ), values).named("partner")
    return (flip_flag * partner + (1 - flip_flag) * own).named("maxmin")


def published_maxmin_program() -> Program:
    """The authors' ``MaxMinSort`` on the tokens.

    Returns:
        The program with one output, ``maxmin``. One of the smallest
        counterexamples: x = (0, -1) gives (0, 0), not (0, -1).

    >>> from usim.encodings import run_exact
    >>> run_exact(published_maxmin_program(), [0, -1])
    {'maxmin': [0, 0]}
    """
    return Program.of(
        "maxmin_published", {"maxmin": published_maxmin_block(tokens)},
        "MaxMin as published (MaxMin.rasp, MaxMinSort): reqFlip * partner + (1 - reqFlip) * x, "
        "reqFlip = (x_p - x_{p+1 if p even} < 0) plus the same at p - 1",
    )


def maxmin_construction(n: int, published: bool = False) -> Construction:
    """GroupSort-2 on a sequence of length n, as a construction.

    Args:
        n: the sequence length.
        published: the authors' program rather than the corrected one.

    Returns:
        The construction reading x (1 x n) and writing y (1 x n).
    """
    layout_in, layout_out = sequence_layouts(n)
    program = published_maxmin_program() if published else maxmin_program()
    return Construction(
        name=f"maxmin{' (published)' if published else ''} n={n}",
        program=program,
        input_layout=layout_in,
        output_layout=layout_out,
        notes="1 head fetching the partner p xor 1, guarded at an odd trailing position",
    )
