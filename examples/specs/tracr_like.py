"""Specs for examples/rasp/tracr_like.rasp: sorts, a count and balanced brackets.

Each is written the plain way, with indicators (Piecewise) and their sums. On
symbols the spec receives each symbol's code, its place in the alphabet's
sorted order: over the alphabet "()x" (and the listing's own strings), "(" is
0 and ")" is 1. sympy folds such indicators into one another as the length
grows, so the target of a length takes long to build as one expression; usim
check then evaluates it at each input of the finite domain instead (the
exhaustive engine), and tries the cheapest engine first.
"""

import sympy

from usim.listings.user_spec import spec


def _is(condition):
    return sympy.Piecewise((1, condition), (0, True))


@spec(inputs={"x": (1, "n")}, outputs={"y": (1, "n")}, domain="integer", max_n=5,
      mutants={"unstable": {"place": "selector_width(select(tokens, tokens, <))"}})
def ascending(x, n):
    """the keys in ascending order (an odd-even transposition network of Min and Max)"""
    row = [x[0, j] for j in range(n)]
    for sweep in range(n):
        for j in range(sweep % 2, n - 1, 2):
            row[j], row[j + 1] = sympy.Min(row[j], row[j + 1]), sympy.Max(row[j], row[j + 1])
    return sympy.Matrix([row])


@spec(inputs={"x": (1, "n")}, outputs={"y": (1, "n")}, domain="real", max_n=6,
      preconditions=lambda x: [sympy.Ne(x[0, i], x[0, j]) for i in range(x.cols) for j in range(i)],
      mutants={"descending": {"place": "selector_width(select(tokens, tokens, >))"}})
def ascending_reals(x, n):
    """distinct reals in ascending order (an odd-even transposition network of Min and Max)"""
    return ascending(x, n)


def _counts(x, n):
    return [sympy.Add(*[_is(sympy.Eq(x[0, k], x[0, i])) for k in range(n)]) for i in range(n)]


@spec(inputs={"x": (1, "n")}, outputs={"y": (1, "n")}, reads="symbol", writes="symbol", max_n=5,
      mutants={"rarest-first": {"count": "0 - count"}})
def by_frequency(x, n):
    """the symbols, those held by more positions first, ties in the order of the input"""
    count = _counts(x, n)
    place = [sympy.Add(*[_is(sympy.Or(count[k] > count[i], sympy.And(sympy.Eq(count[k], count[i]), k < i)))
                         for k in range(n)]) for i in range(n)]
    return sympy.Matrix([[sympy.Add(*[x[0, i] * _is(sympy.Eq(place[i], j)) for i in range(n)])
                          for j in range(n)]])


@spec(inputs={"x": (1, "n")}, outputs={"y": (1, "n")}, reads="symbol", max_n=6,
      mutants={"counts-one-too-many": {"count": "count + 1"}})
def rare_count(x, n):
    """at every position, how many positions hold a symbol that occurs at most twice"""
    count = _counts(x, n)
    return sympy.Matrix([[sympy.Add(*[_is(c <= 2) for c in count])] * n])


@spec(inputs={"x": (1, "n")}, outputs={"y": (1, "n")}, reads="symbol", max_n=6,
      mutants={"prefixes-only": {"right": 'selector_width(select(tokens, "(", ==))'}})
def balanced(x, n):
    """1 at every position when the brackets ( ) of x (codes 0 and 1) are balanced, else 0"""
    opened = [sympy.Add(*[_is(sympy.Eq(x[0, k], 0)) for k in range(i + 1)]) for i in range(n)]
    closed = [sympy.Add(*[_is(sympy.Eq(x[0, k], 1)) for k in range(i + 1)]) for i in range(n)]
    ok = sympy.And(*[c <= o for o, c in zip(opened, closed)], sympy.Eq(opened[-1], closed[-1]))
    return sympy.Matrix([[_is(ok)] * n])
