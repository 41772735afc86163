"""CONTRIBUTING.md's worked example, run as written: the new block is PROVED,
its broken variants are refuted, and the claim factory needs nothing else; and
what README.md and CONTRIBUTING.md name in the repository exists (a path, and a
name the guide places in a module), so that a move leaves no guide behind."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

from usim.engine.claim import Status
from usim.engine.runner import prove_claim

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "CONTRIBUTING.md"
README = ROOT / "README.md"
MADE_BY_THE_GUIDE = {"constructions/row_flip.py", "proofs/row_flip.py", "tests/test_constructions_row_flip.py",
                     "engine/solvers/yices_engine.py"}
"""The files CONTRIBUTING.md tells a contributor to write (its worked example, a new solver)."""


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", GUIDE.read_text(), flags=re.S)


@pytest.fixture
def example(monkeypatch):
    """The construction module and the claim module of the example, as the guide writes them."""
    construction_code, claim_code = _python_blocks()
    construction = types.ModuleType("usim.constructions.row_flip")
    exec(compile(construction_code, f"{GUIDE}:construction", "exec"), construction.__dict__)
    monkeypatch.setitem(sys.modules, "usim.constructions.row_flip", construction)
    proof = types.ModuleType("usim.proofs.row_flip")
    exec(compile(claim_code, f"{GUIDE}:claim", "exec"), proof.__dict__)
    return proof.CLAIM


def test_the_guide_has_the_two_modules_of_its_example():
    assert len(_python_blocks()) == 2


def test_the_worked_example_is_proved_and_its_broken_variants_refuted(example):
    report = prove_claim(example, 3, ("sympy", "z3"), timeout=60, jobs=1, mutants=True)
    assert report.status is Status.PROVED
    assert all(r.definedness_status is Status.PROVED and r.witness_status is Status.PROVED
               for r in report.results)
    assert report.mutants_refuted
    identity = [r for r in report.mutant_results if r.mutant == "no-flip"]
    assert {r.label for r in identity if r.status is Status.PROVED} == {"1x1", "1x2", "1x3"}


def _inline_code(guide: Path) -> list[str]:
    """The guide's `inline code` spans, outside its fenced blocks, each on one line."""
    prose = re.sub(r"```.*?```", "", guide.read_text(), flags=re.S)
    return re.findall(r"`([^`]+)`", " ".join(prose.split()))


def _paths(guide: Path) -> set[str]:
    """The repository paths a guide names: `folder/`, `folder/file.py`, `file.py:name` (the part before the colon)."""
    found = set()
    for span in _inline_code(guide):
        if "<" in span:  # a pattern (`tests/test_<module>.py`), not a path
            continue
        for path in re.findall(r"(?<![\w/.~:$-])((?:[\w.-]+/)+[\w.-]*)", span):
            found.add(path.split(":")[0].rstrip("."))
    return found


@pytest.mark.parametrize("guide", [README, GUIDE], ids=lambda p: p.name)
def test_every_repository_path_a_guide_names_exists(guide):
    paths = _paths(guide)
    assert "listings/" in paths and "usim/render_check.py" in paths  # the reading finds paths at all
    missing = sorted(p for p in paths - MADE_BY_THE_GUIDE if not (ROOT / p).exists())
    assert not missing, f"{guide.name} names paths that do not exist (moved or renamed?): {missing}"


def test_every_name_the_guide_places_in_a_module_is_defined_there():
    placed = re.findall(r"`([A-Za-z_]\w*)(?:\([^`]*\))?` (?:in|of) (?:the table )?`([\w/]+\.py)`",
                        " ".join(GUIDE.read_text().split()))
    assert ("ENGINES", "engine/engines.py") in placed  # the reading finds placements at all
    wrong = [f"{name} in {path}" for name, path in placed
             if not (ROOT / path).is_file()
             or not re.search(rf"^\s*(?:def|class) {name}\b|^{name}\b[^=\n]*=", (ROOT / path).read_text(), re.M)]
    assert not wrong, f"CONTRIBUTING.md places names where they are not defined: {wrong}"
