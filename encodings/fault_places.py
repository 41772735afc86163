"""Where a strict numeric run's fault is, in words.

A strict run (:mod:`usim.encodings.numeric`) audits arrays whose last axis is
not always the sequence: an aggregate computes one mean per selecting query,
or one per run of equal keys that some query reads; a head family evaluated as
arrays (:mod:`usim.encodings.family_arrays`) one mean per head. A message
names what failed as the user can find it: the sequence position of the query
(and the input, in a batch), or the head by its indices where a value belongs
to a head and no position.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Index = tuple[int, ...]


def where_text(mask: np.ndarray, name: Callable[[Index], str] | None = None, unit: str = "positions") -> str:
    """Where ``mask`` holds: 'at position 17', 'at 3 positions, the first at
    position 17 of input 2'.

    Args:
        mask: booleans, at least one True; the first axis is the batch when
            there are two or more axes ("of input b" when it has several inputs).
        name: names an entry from its index past the batch axis (by default
            "position k", k its index on the last axis: a sequence position).
        unit: what the count counts, in the plural.

    Returns:
        The text, starting with "at".
    """
    hits = np.argwhere(mask)
    first = tuple(int(i) for i in hits[0])
    batched = mask.ndim > 1 and mask.shape[0] > 1
    at = name(first[1:] if mask.ndim > 1 else first) if name else f"position {first[-1]}"
    if batched:
        at += f" of input {first[0]}"
    return f"at {at}" if len(hits) == 1 else f"at {len(hits)} {unit}, the first at {at}"


def at_queries(queries: np.ndarray, n: int, columns: np.ndarray | None = None) -> Callable[[np.ndarray], str]:
    """:func:`where_text` for a mask (B, m) over values that queries read: query
    ``queries[i]`` reads column ``columns[i]`` (column i by default), so a fault
    is named at the positions of the queries reading a failed value.

    Args:
        queries: the sequence positions of the reading queries.
        n: the length of the sequence.
        columns: the column each of those queries reads.

    Returns:
        A function from such a mask to its text.
    """
    def where(mask: np.ndarray) -> str:
        mask = np.asarray(mask)
        full = np.zeros((mask.shape[0], n), dtype=bool)
        full[:, queries] = mask if columns is None else mask[:, columns]
        return where_text(full)

    return where
