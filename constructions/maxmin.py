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

The published construction (:func:`published_maxmin_program`), reconstructed.
``paper.md`` describes the listing only in words: heads that fetch the partner
element, a flip flag that "for negative values at odd positions can reach 2", and
an odd trailing element passed through unchanged. The listing itself is not in
this repository, so we had to ASSUME the following, which is the simplest
program with exactly those three features:

* one head fetches the partner x_{p xor 1}, guarded at the trailing position as
  above (this gives the pass-through of a trailing element);
* the "flip" flag is meant to be 1 where position p must take its partner's
  value (even p with x_p < partner, odd p with x_p > partner). The listing is
  assumed to build it as a sum, ``flip = (d < 0) + odd`` with ``d = x_p - partner``,
  i.e. the parity is added instead of being combined by exclusive or: at an
  odd position with a negative difference d = x_{2t+1} - x_{2t} < 0 the flag is 2;
* the output blends with the flag as a weight, ``x + flip * (partner - x)``, as an
  MLP would; with flip = 2 it overshoots to 2*x_{2t} - x_{2t+1}.

So the published output is wrong exactly at odd positions whose (difference)
value is negative, i.e. where the pair is already ordered with x_{2t+1} < x_{2t};
the smallest counterexample is x = (0, -1): expected (0, -1), got (0, 1). Even
positions and pairs with x_{2t+1} >= x_{2t} come out right, so tests on
non-decreasing pairs (for example non-negative values at the odd position and a
zero partner) do not show it.
"""

from __future__ import annotations

from usim.constructions.base import Construction, gather
from usim.constructions.relu import sequence_layouts
from usim.rasp.expr import SOp, indices, length, maximum, minimum, tokens, where
from usim.rasp.program import Program


def partner_position(p: SOp = indices) -> SOp:
    """p xor 1: p + 1 for even p, p - 1 for odd p (an element-wise map of ``p``)."""
    odd = (p % 2).named("odd")
    return (p + 1 - 2 * odd).named("partner_pos")


def fetch_partner(values: SOp) -> tuple[SOp, SOp]:
    """One head: (x_{p xor 1}, has_partner). Where p xor 1 >= n, nothing is selected."""
    pos = partner_position()
    has_partner = (pos < length).named("has_partner")
    source = where(has_partner, pos, -1).named("partner_src")
    return gather(values, source).named("partner"), has_partner


def maxmin_block(values: SOp) -> SOp:
    """(max, min) of each pair (2t, 2t+1); an odd trailing element unchanged."""
    partner, has_partner = fetch_partner(values)
    odd = (indices % 2 == 1).named("is_odd")
    ordered = where(odd, minimum(values, partner), maximum(values, partner)).named("ordered")
    return where(has_partner, ordered, values).named("maxmin")


def maxmin_program() -> Program:
    return Program.of(
        "maxmin", {"maxmin": maxmin_block(tokens)},
        "GroupSort-2: (x_2t, x_2t+1) -> (max, min); an odd trailing element unchanged",
    )


def published_maxmin_block(values: SOp) -> SOp:
    """The published construction as reconstructed (see the module docstring): wrong."""
    partner, has_partner = fetch_partner(values)
    odd = (indices % 2).named("odd_flag")
    diff = (values - partner).named("diff")
    flip = ((diff < 0) + odd).named("flip")  # in {0, 1, 2}: 2 at odd p with x_p < partner
    blended = (values + flip * (partner - values)).named("blend")
    return where(has_partner, blended, values).named("maxmin")


def published_maxmin_program() -> Program:
    return Program.of(
        "maxmin_published", {"maxmin": published_maxmin_block(tokens)},
        "MaxMin as published (reconstructed): flip = (x < partner) + parity, output x + flip*(partner - x)",
    )


def maxmin_construction(n: int, published: bool = False) -> Construction:
    layout_in, layout_out = sequence_layouts(n)
    program = published_maxmin_program() if published else maxmin_program()
    return Construction(
        name=f"maxmin{' (published)' if published else ''} n={n}",
        program=program,
        input_layout=layout_in,
        output_layout=layout_out,
        notes="1 head fetching the partner p xor 1, guarded at an odd trailing position",
    )
