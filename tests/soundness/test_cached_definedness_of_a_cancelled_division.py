"""A cached definedness answer reused for a target whose cancelled division it never saw.

Found in the fourteenth session's final read (2026-12-06). A statement's
fingerprint is made from the target's values, and M[j, i] * M[0, 0] / M[0, 0]
has the same values as M[j, i]: the plain transpose and the cancelled one are
one fingerprint. The verdict cache keys every check's answer by the
fingerprint, so once the transpose's definedness was PROVED and kept, the
cancelled target was answered from the cache: PROVED, although it is undefined
where M[0, 0] = 0. Now the definedness check's answer is kept under the
fingerprint and the divisions the target writes (engine/definedness.py).
"""

from __future__ import annotations

import dataclasses

from usim.encodings.sized import matrix_of
from usim.engine.cache import VerdictCache
from usim.engine.claim import Status
from usim.engine.runner import prove_claim
from usim.proofs import get


def _cancelled(m):
    M = m["M"]
    return {"MT": matrix_of(M.cols, M.rows, lambda i, j: M[j, i] * M[0, 0] / M[0, 0])}


def test_a_cancelled_division_is_not_answered_from_the_transposes_cached_definedness(tmp_path):
    lemma3 = get("lemma3")
    cache = VerdictCache(tmp_path)
    shapes = [(2, 2)]
    assert prove_claim(lemma3, 2, shapes=shapes, cache=cache).status is Status.PROVED
    cancelled = dataclasses.replace(lemma3, obligation=lambda shape: dataclasses.replace(
        lemma3.obligation(shape), target=_cancelled))
    report = prove_claim(cancelled, 2, shapes=shapes, cache=cache)
    assert report.status is not Status.PROVED
    assert prove_claim(lemma3, 2, shapes=shapes, cache=cache).cached > 0  # the cache is still used
