"""Soundness (found in review): the cached sorted order of a select's keys must
not outlive the keys' values. A view's values change through its base, so a
view is never kept with a cached order; a wrong order would decide a wrong
selection, and every interpretation would then compute a wrong value."""

from __future__ import annotations

import numpy as np

from usim.encodings.selection import decide
from usim.rasp import Predicate


def test_a_key_view_is_not_kept_with_a_cached_order_that_its_base_could_change() -> None:
    base = np.arange(6, dtype=np.int64)
    keys = base[::-1]  # a view
    queries = np.array([0, 5, 2, 9, 1, 3], dtype=np.int64)
    first = decide(Predicate.EQ, keys, queries)
    base[:] = [3, 3, 0, 0, 1, 1]  # the view changes through its base (not to one value: that path sorts nothing)
    again = decide(Predicate.EQ, keys, queries)
    want = np.array([[keys[k] == queries[q] for k in range(6)] for q in range(6)])
    assert np.array_equal(again.dense(), want) and not np.array_equal(first.dense(), want)
