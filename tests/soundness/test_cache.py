"""The verdict cache never turns a changed program's question into an old answer.

The statement's fingerprint covers every node of the program, so changing one
node (here: one comparison of a selector, the off-by-one transpose; and one
constant of a user's program) makes a new statement: nothing of the old one's
answers is reused, and the bug is refuted.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import importlib.util
import sys
from pathlib import Path

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


def _installed_modules() -> dict[str, Path]:
    """Every source file the installation holds, named as the digest names it
    (``usim.rasp.expr.py``), found from the installation itself, not from
    usim.packages: a wheel's record lists its files; an editable install records
    a finder whose mapping says where each package is, and each package's folder
    (found from its import spec) is walked."""
    dist = importlib.metadata.distribution("usim")
    files = [f for f in dist.files or () if f.suffix in (".py", ".lark") and f.parts[0] == "usim"]
    if files:  # a regular install
        return {".".join(f.parts): Path(dist.locate_file(f)) for f in files}
    finders = [sys.modules[f.__module__] for f in sys.meta_path if f.__module__.startswith("__editable__")]
    mapping = [name for finder in finders for name in getattr(finder, "MAPPING", {}) if name == "usim" or name.startswith("usim.")]  # not usim_pytest, the plugin module beside it
    assert mapping, "usim is installed neither from a wheel's files nor by an editable finder"
    found = {}
    for package in mapping:
        folder = Path(next(iter(importlib.util.find_spec(package).submodule_search_locations)))
        for path in folder.rglob("*"):
            if path.suffix in (".py", ".lark") and "__pycache__" not in path.parts:
                found[".".join([package, *path.relative_to(folder).parts])] = path
    return found


def test_every_module_the_package_installs_is_part_of_the_source_digest():
    # found in review: the transformer package (how a network is evaluated) was left out,
    # so a cached verdict of a weights claim survived a change to its evaluator
    from usim.engine.identity import source_files, source_roots

    installed = _installed_modules()
    digested = source_files(source_roots())
    assert {"usim.transformer.forward.py", "usim.repl.rasp.lark"} <= set(installed)
    missing = sorted(name for name in installed if name not in digested)
    assert not missing, missing
    assert all(digested[name] == path.read_bytes() for name, path in installed.items())
