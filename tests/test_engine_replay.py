"""The symbolic target is computed once per obligation and shared by the
statement's validation, its fingerprint, the cross-check and the engines."""

from __future__ import annotations

import gc

import sympy
from usim.constructions.transpose import transpose_construction
from usim.engine import replay
from usim.engine.claim import Obligation
from usim.engine.measure import numeric_crosscheck
from usim.engine.statement import fingerprint


def _counted() -> tuple[Obligation, list[int]]:
    calls = [0]

    def target(m):
        calls[0] += 1
        return {"MT": m["M"].T}

    return Obligation("t", (2, 3), transpose_construction(2, 3), target), calls


def test_the_target_is_computed_once_for_every_reader_of_one_obligation():
    ob, calls = _counted()
    fingerprint(ob)
    numeric_crosscheck(ob)
    matrices, expected = replay.symbolic_target(ob)
    assert calls[0] == 1
    assert expected == list(sympy.Matrix(matrices["M"]).T) + [0] * (len(expected) - 6)


def test_another_obligation_object_computes_its_own_and_the_memo_goes_with_it():
    first, calls = _counted()
    replay.symbolic_target(first)
    second = Obligation(first.claim_id, first.shape, first.construction, first.target)
    replay.symbolic_target(second)
    assert calls[0] == 2  # keyed by the object, never by an equal-looking statement
    before = len(replay._SYMBOLIC_TARGETS)
    del first, second
    gc.collect()
    assert len(replay._SYMBOLIC_TARGETS) == before - 2


def test_a_search_past_its_time_tries_one_point_and_stops():
    import time

    ob, _ = _counted()
    tried = []

    def confirm(o, point):
        tried.append(point)

    assert replay.search_witness(ob, tries=50, confirm=confirm, until=time.perf_counter() - 1) is None
    assert len(tried) == 1
    assert replay.search_witness(ob, tries=50, confirm=confirm) is None and len(tried) == 51
