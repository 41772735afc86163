"""Specs for the programs of tracr's library (examples/tracr/programs.py), written here.

Each spec states, the plain way, what one program of tracr's
``tracr/compiler/lib.py`` computes on an input of length n, for
``usim check --tracr``. A spec of symbols receives each token's code: the
vocabulary's tokens in sorted order are 0, 1, 2, ... (over "abc", "a" is 0;
over "()x", "(" is 0 and ")" is 1; over "(){}", "(" ")" "{" "}" are 0 to 3).
"""

import sympy

from usim.listings.user_spec import spec

ONE_ROW = {"inputs": {"x": (1, "n")}, "outputs": {"y": (1, "n")}}


def _is(condition):
    return sympy.Piecewise((1, condition), (0, True))


def _count(x, n, i):
    """How many positions hold what position i holds."""
    return sympy.Add(*[_is(sympy.Eq(x[0, k], x[0, i])) for k in range(n)])


def _ascending(row):
    """``row`` sorted, by an odd-even transposition network of Min and Max."""
    row = list(row)
    for sweep in range(len(row)):
        for j in range(sweep % 2, len(row) - 1, 2):
            row[j], row[j + 1] = sympy.Min(row[j], row[j + 1]), sympy.Max(row[j], row[j + 1])
    return row


def _prefix_count(x, i, code):
    return sympy.Add(*[_is(sympy.Eq(x[0, k], code)) for k in range(i + 1)])


@spec(**ONE_ROW, reads="symbol", domain="integer", max_n=5)
def length(x, n):
    """the input's length at every position (make_length)"""
    return sympy.Matrix([[n] * n])


@spec(**ONE_ROW, reads="symbol", writes="symbol", max_n=5)
def reverse(x, n):
    """the tokens in reverse order (make_reverse)"""
    return sympy.Matrix([[x[0, n - 1 - j] for j in range(n)]])


@spec(**ONE_ROW, reads="symbol", max_n=5)
def hist(x, n):
    """at each position, how many positions hold its token (make_hist)"""
    return sympy.Matrix([[_count(x, n, i) for i in range(n)]])


@spec(**ONE_ROW, domain="integer", max_n=4,
      preconditions=lambda x: [sympy.Ne(x[0, i], x[0, j]) for i in range(x.cols) for j in range(i)])
def ascending_distinct(x, n):
    """distinct numbers in ascending order (make_sort_unique: with a repeated key tracr gives None)"""
    return sympy.Matrix([_ascending(x[0, j] for j in range(n))])


@spec(**ONE_ROW, domain="integer", max_n=5)
def ascending(x, n):
    """the numbers in ascending order, repeats kept (make_sort, min_key 1)"""
    return sympy.Matrix([_ascending(x[0, j] for j in range(n))])


@spec(**ONE_ROW, reads="symbol", writes="symbol", max_n=5)
def by_frequency(x, n):
    """the tokens, those held by more positions first, ties in the order of the input (make_sort_freq)"""
    count = [_count(x, n, i) for i in range(n)]
    place = [sympy.Add(*[_is(sympy.Or(count[k] > count[i], sympy.And(sympy.Eq(count[k], count[i]), k < i)))
                         for k in range(n)]) for i in range(n)]
    return sympy.Matrix([[sympy.Add(*[x[0, i] * _is(sympy.Eq(place[i], j)) for i in range(n)])
                          for j in range(n)]])


@spec(**ONE_ROW, reads="symbol", max_n=5)
def fraction_of_a(x, n):
    """at position i, the fraction of positions 0..i holding "a", code 0 (make_frac_prevs)"""
    return sympy.Matrix([[_prefix_count(x, i, 0) / sympy.Integer(i + 1) for i in range(n)]])


@spec(**ONE_ROW, reads="symbol", max_n=5)
def bracket_balance(x, n):
    """at position i, (the "(" in 0..i less the ")") / (i + 1), over "()x" (make_pair_balance)"""
    return sympy.Matrix([[(_prefix_count(x, i, 0) - _prefix_count(x, i, 1)) / sympy.Integer(i + 1)
                          for i in range(n)]])


@spec(**ONE_ROW, reads="symbol", max_n=5)
def shuffle_balanced(x, n):
    """1 everywhere when "(" ")" (codes 0, 1) and "{" "}" (codes 2, 3) are each balanced, else 0
    (make_shuffle_dyck(["()", "{}"]), make_shuffle_dyck2)"""
    ok = []
    for opening, closing in ((0, 1), (2, 3)):
        depth = [_prefix_count(x, i, opening) - _prefix_count(x, i, closing) for i in range(n)]
        ok += [d >= 0 for d in depth] + [sympy.Eq(depth[-1], 0)]
    return sympy.Matrix([[_is(sympy.And(*ok))] * n])


@spec(**ONE_ROW, reads="symbol", max_n=5)
def at_most_twice(x, n):
    """at every position, how many positions hold a token held at most twice (make_count_less_freq(2))"""
    return sympy.Matrix([[sympy.Add(*[_is(_count(x, n, i) <= 2) for i in range(n)])] * n])


@spec(**ONE_ROW, reads="symbol", max_n=5)
def count_of_a(x, n):
    """at every position, how many positions hold "a", code 0 (make_count(tokens, "a"))"""
    return sympy.Matrix([[_prefix_count(x, n - 1, 0)] * n])


@spec(**ONE_ROW, domain="integer", max_n=5)
def token_times_index_plus_token(x, n):
    """x_i * i + x_i (make_nary_sequencemap of x * i + z over tokens, indices, tokens)"""
    return sympy.Matrix([[x[0, i] * i + x[0, i] for i in range(n)]])


@spec(**ONE_ROW, reads="symbol", writes="symbol", max_n=5, undefined=lambda n: [0])
def previous_token(x, n):
    """the token before each position; None at position 0 (shift_by(1))"""
    return sympy.Matrix([[x[0, max(i - 1, 0)] for i in range(n)]])


@spec(**ONE_ROW, reads="symbol", max_n=5, undefined=lambda n: [0])
def ends_ab(x, n):
    """1 where the position and the one before hold "a" (code 0) then "b" (code 1), else 0; None at
    position 0 (detect_pattern(tokens, "ab"))"""
    return sympy.Matrix([[0] + [_is(sympy.And(sympy.Eq(x[0, i - 1], 0), sympy.Eq(x[0, i], 1)))
                                 for i in range(1, n)]])
