"""A spec of one's own for `usim check --spec-file`: the rows of M in reverse order.

The function receives the input blocks as sympy matrices (parameters named
after the blocks) and returns the output block; the decorator declares the
layouts by dimension names (shapes are r x c, in order of appearance) and,
optionally, broken variants of the listing that must be refuted
(`usim check ... --mutants`): each replaces a named node of the listing by
RASP text in which the node's own name is the original node.

    usim check examples/rasp/row_flip.rasp --function flip \
        --spec-file examples/specs/row_flip.py:row_flip --max-n 4 --mutants
"""

from usim.listings.user_spec import spec


@spec(inputs={"M": ("r", "c")}, outputs={"F": ("r", "c")},
      mutants={"no-flip": {"flip_src": "indices"},
               "off-by-one": {"flip_src": "flip_src + 1"}})
def row_flip(M):
    """the rows of M (r x c) in reverse order"""
    return M[::-1, :]


@spec(inputs={"M": ("r", "c")}, outputs={"F": ("r", "c")},
      preconditions=lambda M: [M[0, 0] > 0])
def row_flip_positive_corner(M):
    """the same, stated only for matrices whose first entry is positive"""
    return M[::-1, :]
