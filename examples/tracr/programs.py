"""tracr's own library programs, made as its tests make them, for ``usim run --tracr``.

Each name is a tracr program (``tracr.rasp.rasp.SOp``) built by a function of
tracr's ``tracr/compiler/lib.py``; read with a vocabulary and a longest input:

    usim run --tracr examples/tracr/programs.py:reverse --vocab '["a", "b", "c"]' --max-len 5 --input '["a", "b", "c"]'

``broken_NAME`` is a broken variant of ``NAME``, which ``usim check --tracr ... --broken`` must refute
against NAME's spec (``examples/specs/tracr_lib.py``).
"""

from absl import logging
from tracr.compiler import lib
from tracr.rasp import rasp

logging.set_verbosity(logging.ERROR)  # tracr warns of a SequenceMap of one sequence with itself (nary_sequencemap)

length = lib.make_length()
reverse = lib.make_reverse(rasp.tokens)
hist = lib.make_hist()
sort_unique = lib.make_sort_unique(rasp.tokens, rasp.tokens)
sort = lib.make_sort(rasp.tokens, rasp.tokens, max_seq_len=5, min_key=1)
sort_freq = lib.make_sort_freq(max_seq_len=5)
frac_prevs = lib.make_frac_prevs(rasp.tokens == "a")
pair_balance = lib.make_pair_balance(rasp.tokens, "(", ")")
shuffle_dyck = lib.make_shuffle_dyck(["()", "{}"])
shuffle_dyck2 = lib.make_shuffle_dyck2()
shift_by = lib.shift_by(1, rasp.tokens)
detect_pattern = lib.detect_pattern(rasp.tokens, "ab")
count_less_freq = lib.make_count_less_freq(2)
count = lib.make_count(rasp.tokens, "a")
nary_sequencemap = lib.make_nary_sequencemap(lambda x, y, z: x + y + z, rasp.tokens, rasp.tokens, rasp.tokens)
nary_sum = lib.make_nary_sequencemap(lambda x, i, z: x * i + z, rasp.tokens, rasp.indices, rasp.tokens)

VOCABULARIES = {  # the tokens each program is meant for (what usim reads, checks and compiles it over)
    "length": "abc", "reverse": "abc", "hist": "abc", "sort_unique": (1, 2, 3, 4), "sort": (1, 2, 3, 4),
    "sort_freq": "abc", "frac_prevs": "abc", "pair_balance": "()x", "shuffle_dyck": "(){}",
    "shuffle_dyck2": "(){}", "shift_by": "abc", "detect_pattern": "abc", "count_less_freq": "abc", "count": "abc",
    "nary_sequencemap": "abc", "nary_sum": (1, 2, 3, 4),
}

# Broken variants, one of each program: each must be refuted against the program's spec.
_negated = rasp.numerical(rasp.Map(lambda x: -x, rasp.tokens))
broken_length = lib.make_hist()  # counts the position's own token, not every position
broken_reverse = rasp.Aggregate(rasp.Select(rasp.indices, rasp.length - rasp.indices, rasp.Comparison.EQ),
                                rasp.tokens)  # off by one: the mirror of i is n - i
broken_hist = rasp.SelectorWidth(rasp.Select(rasp.tokens, rasp.tokens, rasp.Comparison.LEQ))
broken_sort_unique = lib.make_sort_unique(rasp.tokens, _negated)  # descending
broken_sort = lib.make_sort(rasp.tokens, _negated, max_seq_len=5, min_key=1)  # descending
broken_sort_freq = lib.make_sort(rasp.tokens, lib.make_hist(), max_seq_len=5, min_key=1)  # rarest first
broken_frac_prevs = lib.make_frac_prevs(rasp.tokens == "b")
broken_pair_balance = lib.make_pair_balance(rasp.tokens, ")", "(")
broken_shuffle_dyck = lib.make_shuffle_dyck(["()"])  # the braces left unchecked
broken_shuffle_dyck2 = lib.make_shuffle_dyck(["(}", "{)"])  # the pairs crossed
broken_count_less_freq = lib.make_count_less_freq(1)
broken_count = lib.make_count(rasp.tokens, "b")
broken_shift_by = lib.shift_by(2, rasp.tokens)  # two back, not one
broken_detect_pattern = lib.detect_pattern(rasp.tokens, "ba")
broken_nary_sum = lib.make_nary_sequencemap(lambda x, i, z: x * i - z, rasp.tokens, rasp.indices, rasp.tokens)
