"""A certificate of a claim proved for every size in parts (Theorem 6 from its padded
stages) cannot be edited into saying more than was proved.

Its verdict is derived from its parts' records (each as one family's) and its
chain's, never taken as written; which parts, under which conditions, tied at
which shapes, and which chain, are derived again from the registry; a broken
variant's record must be the registered part's. Each edit below is re-sealed
(the digest recomputed, as anyone can) and must be refused with one line
naming what is wrong.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from usim.cli import main
from usim.engine.certificate import digest

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "docs" / "certificates" / "theorem6.all-sizes.json.gz"


def _data() -> dict:
    return json.loads(gzip.decompress(COMMITTED.read_bytes()))


def _refused(tmp_path: Path, capsys, data: dict, says: str) -> None:
    data["digest"] = digest(data)
    path = tmp_path / "theorem6.all-sizes.json"
    path.write_text(json.dumps(data))
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    assert says in err[0], err[0]


def test_the_committed_certificate_reads_as_proved_for_every_n_and_every_n_d_up_to_n(capsys):
    assert main(["report", str(COMMITTED)]) == 0
    out = capsys.readouterr().out
    assert "**PROVED** for every size with N >= 1, n >= 1, d >= 1, (n <= N) and (d <= N) (4 parts" in out


def test_a_part_left_out_is_not_the_registered_claim(tmp_path, capsys):
    data = _data()
    data["all_sizes"]["result"]["parts"].pop()
    _refused(tmp_path, capsys, data, "all_sizes.result.parts")


def test_a_chain_with_a_problem_recorded_proved_is_refused(tmp_path, capsys):
    data = _data()
    data["all_sizes"]["result"]["chain"]["problems"] = ["stage 2 reads where stage 1 did not write"]
    _refused(tmp_path, capsys, data, "is not what its parts say (ERROR)")


def test_a_check_of_the_chain_left_out_is_not_the_chain_derived_again(tmp_path, capsys):
    data = _data()
    data["all_sizes"]["result"]["chain"]["checks"].pop()
    _refused(tmp_path, capsys, data, "all_sizes.result.chain")


def test_a_part_not_proved_by_its_engine_recorded_proved_is_refused(tmp_path, capsys):
    data = _data()
    data["all_sizes"]["result"]["parts"][0]["engine"]["status"] = "UNKNOWN"
    _refused(tmp_path, capsys, data, "part 1 (theorem6_padded_stage1)")


def test_a_part_tied_at_fewer_shapes_is_refused(tmp_path, capsys):
    data = _data()
    data["all_sizes"]["result"]["parts"][2]["tie"]["shapes"] = 1
    _refused(tmp_path, capsys, data, "all_sizes.result.parts")


def test_a_broken_variant_refuted_by_another_stage_is_refused(tmp_path, capsys):
    data = _data()
    mutants = {m["mutant"]: m for m in data["all_sizes"]["mutants"]}
    first, softmax = mutants["stage1:misplaced-block"], mutants["stage3:no-key-mask"]
    first["parts"], first["shape"] = softmax["parts"], softmax["shape"]
    _refused(tmp_path, capsys, data, "all_sizes.mutants (their parts)")


def test_a_part_that_borrows_another_parts_proof_as_its_own_parts_is_refused(tmp_path, capsys):
    """Found in review: a part's record was derived like the whole claim's when it
    held parts of its own, so stage 1 with its engine's UNKNOWN, and stage 2's
    record nested under it as a part, read PROVED and passed the statement check."""
    import copy

    from usim.engine.parametric.allsizes import rests_on_record

    data = _data()
    section = data["all_sizes"]
    first, second = section["result"]["parts"][:2]
    first["engine"]["status"] = "UNKNOWN"
    first["parts"], first["chain"] = [copy.deepcopy(second)], {"checks": ["x"], "problems": []}
    section["rests_on"] = rests_on_record(section["result"], section["about"], data["bound"], data["status"],
                                          data["engines"])
    _refused(tmp_path, capsys, data, "part 1 (theorem6_padded_stage1)")


def test_a_record_without_its_parts_is_malformed(tmp_path, capsys):
    data = _data()
    del data["all_sizes"]["result"]["parts"]
    _refused(tmp_path, capsys, data, "malformed")


@pytest.mark.slow
def test_the_committed_certificate_is_reproduced_part_by_part(capsys):
    assert main(["verify", str(COMMITTED), "-q"]) == 0
    assert "reproduced" in capsys.readouterr().out
