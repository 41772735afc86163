"""Match2 with modulus p: does some x_j complete x_i to 0 mod p?

Input: integers x_0 .. x_{n-1} (a 1 x n matrix ``x``). Output (a 1 x n matrix ``y``):

    y_i = 1  if some j has x_i + x_j = 0 (mod p),  else 0.

Two variants: ``distinct=False`` allows j = i (then x_i = 0 or, for even p,
x_i = p/2 mod p matches itself); ``distinct=True`` asks for j != i (the usual
"pair" reading).

Corrected construction (:func:`match2_program`), 1 attention layer, 1 head:

1. Element-wise: the residue ``r = x mod p`` (in 0..p-1, floor semantics) and the
   residue a partner needs, ``need = (p - r) mod p`` (so a residue 0 needs 0).
2. Head ``match_count``: select(r, need, ==) selects at query i the keys j with
   r_j = need_i, i.e. x_i + x_j = 0 mod p; with ``distinct`` it is combined
   (still one head) with select(indices, indices, !=). Its selector width (the
   number of selected keys) is positive exactly when a match exists.
3. Element-wise: ``where(width > 0, 1, 0)``. Only the count matters, so no
   value can average out to 0. (Aggregating the constant 1 instead gives the
   same output: the mean of 1 over a non-empty set is 1 and an empty row gives
   the default 0; :func:`match2_program` with ``via="mean"``. The width form is
   linear for z3, the mean form divides a count by itself and is far slower to
   prove. The mean form also relies on RASP's empty-row default: under
   average-hard attention an empty row averages 1 over every position and
   gives 1. The width form does not depend on the empty-row rule.)

The published construction (:func:`published_match2_program`), rebuilt from
the authors' listing (``match2.rasp``, function ``Match2(p)``, in their
repository DDuttaGit/TMA): at query i select keys j with x_j mod p = p - (x_i
mod p), aggregate the tokens x_j, and output 0 where the mean is 0, else 1.
(usim's reader of the listing and this construction agree on all 57224 inputs
tried: every x in {-p-1, .., p+1}^n for p <= 5 and n <= 4.) Differences from
the task:

* x_i mod p = 0 never fires: it asks for residue p, which no residue equals
  (x = (0, 0) with p = 2 has a match, the published output is (0, 0));
* j = i is included, so it answers the j = i variant, not the pair variant
  (x = (1,) with p = 2: the published output is 1, no pair exists);
* selected values can average to 0 and hide a match: with p = 2 and
  x = (1, -1), both keys are selected for either query and the mean is 0.
  Over residues 0..p-1 this cannot happen (every selected x_j is the same
  non-zero residue); over the integers it can.

Cost of both: 1 attention layer, 1 head (no ``length``).
"""

from __future__ import annotations

from typing import Sequence

from usim.constructions.base import Construction
from usim.constructions.relu import sequence_layouts
from usim.encodings.exact import as_exact
from usim.encodings.runners import run_exact
from usim.errors import InputError
from usim.rasp.expr import Predicate, SOp, aggregate, indices, select, selector_width, tokens, where
from usim.rasp.program import Program


def check_modulus(modulus: object) -> int:
    """The modulus as an int >= 2, or a clear error.

    Args:
        modulus: the value given as p.

    Returns:
        p, an int (not a bool) at least 2.

    Raises:
        InputError: it is not a whole number, or below 2.
    """
    if isinstance(modulus, bool) or not isinstance(modulus, int):
        raise InputError(f"the modulus of Match2 must be a whole number, got {modulus!r}")
    if modulus < 2:
        raise InputError(f"the modulus of Match2 must be at least 2, got {modulus}")
    return modulus


def match2_block(values: SOp, modulus: int, distinct: bool = False, via: str = "width") -> SOp:
    """1 at i if some j (j != i when ``distinct``) has x_i + x_j = 0 mod p, else 0.

    ``via="width"``: where(selector_width > 0, 1, 0); ``via="mean"``: the mean of
    the constant 1 over the selected keys (default 0). Both are one head.

    Args:
        values: the sequence x (integers).
        modulus: p (:func:`check_modulus`).
        distinct: whether the partner must be another position (j != i).
        via: ``"width"`` or ``"mean"``, the form of the head's output.

    Returns:
        The sequence ``match2``: 1 or 0 at every position.
    """
    p = check_modulus(modulus)
    if via not in ("width", "mean"):
        raise ValueError(f"via must be 'width' or 'mean', got {via!r}")
    residue = (values % p).named("residue")
    need = ((p - residue) % p).named("need")
    matches = select(residue, need, Predicate.EQ).named("matches")
    if distinct:
        matches = (matches & select(indices, indices, Predicate.NE)).named("matches_other")
    if via == "mean":
        return aggregate(matches, 1).named("match2")
    count = selector_width(matches).named("match_count")
    return where(count > 0, 1, 0).named("match2")


def match2_program(modulus: int, distinct: bool = False, via: str = "width") -> Program:
    """The corrected Match2 program: 1 attention layer, 1 head.

    Args:
        modulus: p.
        distinct: whether the partner must be another position (j != i).
        via: ``"width"`` or ``"mean"`` (:func:`match2_block`).

    Returns:
        The program with one output, ``match2``.
    """
    which = "j != i" if distinct else "j = i allowed"
    return Program.of(
        f"match2_p{modulus}{'_distinct' if distinct else ''}",
        {"match2": match2_block(tokens, modulus, distinct, via)},
        f"Match2 mod {modulus} ({which}): 1 where some x_j has x_i + x_j = 0 mod {modulus}",
    )


def published_match2_block(values: SOp, modulus: int) -> SOp:
    """The published construction (see the module docstring): wrong.

    Args:
        values: the sequence x (integers).
        modulus: p (:func:`check_modulus`).

    Returns:
        The sequence ``match2``: 1 where the mean of the selected x_j is not 0.
    """
    p = check_modulus(modulus)
    residue = (values % p).named("residue")
    need = (p - residue).named("need")  # p, not 0, when the residue is 0
    matches = select(residue, need, Predicate.EQ).named("matches")  # includes j = i
    mean = aggregate(matches, values).named("selected_mean")
    return where(mean != 0, 1, 0).named("match2")


def published_match2_program(modulus: int) -> Program:
    """The published Match2 program (rebuilt from the authors' listing).

    Args:
        modulus: p.

    Returns:
        The program with one output, ``match2``. With p = 2 and x = (1, -1)
        both selected values average to 0 and the match is hidden:

    >>> from usim.encodings import run_exact
    >>> run_exact(published_match2_program(2), [1, -1])
    {'match2': [0, 0]}
    """
    return Program.of(
        f"match2_p{modulus}_published", {"match2": published_match2_block(tokens, modulus)},
        f"Match2 mod {modulus} as published: 1 where the mean of the x_j with "
        f"x_j mod p = p - (x_i mod p) is non-zero",
    )


def match2_construction(modulus: int, n: int, distinct: bool = False,
                        published: bool = False) -> Construction:
    """Match2 on a sequence of length n, as a construction.

    Args:
        modulus: p.
        n: the sequence length.
        distinct: whether the partner must be another position (j != i);
            ignored when ``published``.
        published: the published program rather than the corrected one.

    Returns:
        The construction reading x (1 x n) and writing y (1 x n).
    """
    layout_in, layout_out = sequence_layouts(n)
    program = published_match2_program(modulus) if published else match2_program(modulus, distinct)
    variant = "published" if published else ("j != i" if distinct else "j = i allowed")
    return Construction(
        name=f"match2 p={modulus} n={n} ({variant})",
        program=program,
        input_layout=layout_in,
        output_layout=layout_out,
        notes="integer inputs; 1 head with a data-dependent selector (residues)",
    )


def run_match2(values: Sequence[object], modulus: int, distinct: bool = False) -> list[int]:
    """Run the corrected construction exactly on a validated integer input.

    Args:
        values: x, whole numbers (ints, or exact numbers equal to one).
        modulus: p.
        distinct: whether the partner must be another position (j != i).

    Returns:
        y, a list of 0 and 1.

    Raises:
        InputError: the modulus is not valid, the input is empty, or a value
            is not a whole number.

    >>> run_match2([1, -1], 2), run_match2([1], 2), run_match2([1], 2, distinct=True)
    ([1, 1], [1], [0])
    """
    p = check_modulus(modulus)
    if len(values) == 0:
        raise InputError("the input sequence is empty")
    xs = []
    for i, v in enumerate(values):
        try:
            x = as_exact(v)
        except (TypeError, ValueError):
            x = None
        if x is None or x != int(x):
            raise InputError(f"Match2 needs whole numbers; position {i} holds {v!r}")
        xs.append(int(x))
    return [int(y) for y in run_exact(match2_program(p, distinct), xs)["match2"]]
