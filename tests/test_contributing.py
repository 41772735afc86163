"""CONTRIBUTING.md's worked example, run as written: the new block is PROVED,
its broken variants are refuted, and the claim factory needs nothing else."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

from usim.engine.claim import Status
from usim.engine.runner import prove_claim

GUIDE = Path(__file__).resolve().parent.parent / "CONTRIBUTING.md"


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
