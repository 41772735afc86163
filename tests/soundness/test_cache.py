"""The verdict cache never turns a changed program's question into an old answer.

The statement's fingerprint covers every node of the program, so changing one
node (here: one comparison of a selector, the off-by-one transpose; and one
constant of a user's program) makes a new statement: nothing of the old one's
answers is reused, and the bug is refuted.
"""

from __future__ import annotations

import dataclasses

from usim.engine.cache import VerdictCache
from usim.engine.claim import Status
from usim.engine.runner import prove_claim
from usim.proofs import get
from usim.rasp.expr import tokens

from soundness_statements import vector_obligation


def test_a_cached_transpose_changed_in_one_selector_is_proved_again_and_refuted(tmp_path):
    cache = VerdictCache(tmp_path)
    lemma3 = get("lemma3")
    assert prove_claim(lemma3, 2, cache=cache).status is Status.PROVED
    assert prove_claim(lemma3, 2, cache=cache).cached > 0  # the right one is cached
    broken = dataclasses.replace(lemma3, obligation=lemma3.mutants["off-by-one"])
    report = prove_claim(broken, 2, cache=cache)
    assert report.status is Status.REFUTED and report.cached == 0
    assert any(r.counterexample is not None for row in report.results for r in row.results)


def test_a_users_program_changed_in_one_constant_is_refuted_not_served_from_the_cache(tmp_path):
    cache = VerdictCache(tmp_path)

    def claim(program):
        ob = vector_obligation(program, lambda x: x.applyfunc(lambda v: v * v + 1), n=2)
        return dataclasses.replace(get("relu"), id="user", shapes=lambda n: [(2,)], obligation=lambda s: ob,
                                   mutants={}, measure=None)

    right = claim(tokens * tokens + 1)
    assert prove_claim(right, 2, cache=cache).status is Status.PROVED
    assert prove_claim(right, 2, cache=cache).cached == 4  # sympy, z3, definedness, witness
    wrong = prove_claim(claim(tokens * tokens + 2), 2, cache=cache)
    assert wrong.status is Status.REFUTED and wrong.cached == 0


def test_every_folder_the_package_installs_is_part_of_the_source_digest():
    # found in review: the transformer package (how a network is evaluated) was left out,
    # so a cached verdict of a weights claim survived a change to its evaluator
    import tomllib
    from pathlib import Path

    from usim.engine.identity import SOURCE_PACKAGES

    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    folders = pyproject["tool"]["setuptools"]["package-dir"]
    top = {name for name, folder in folders.items() if "/" not in folder}
    assert top <= set(SOURCE_PACKAGES), sorted(top - set(SOURCE_PACKAGES))
