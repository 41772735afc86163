"""Bad options of ``usim prove`` and ``usim report``: one line, exit 2, nothing run or written."""

from __future__ import annotations

import pytest
from soundness_statements import refused

from usim.cli import main


def _fails(argv, capsys, message):
    assert message in refused(capsys, argv)  # one line, exit 2, nothing ran


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1"])
def test_prove_refuses_a_timeout_that_is_not_a_positive_number(value, capsys):
    _fails(["prove", "lemma3", "--max-n", "1", f"--timeout={value}"], capsys, "--timeout must be a positive")


@pytest.mark.parametrize("value", ["0", "-3"])
def test_prove_refuses_a_job_count_below_one(value, capsys):
    _fails(["prove", "lemma3", "--max-n", "1", f"--jobs={value}"], capsys, "--jobs must be at least 1")


@pytest.mark.parametrize("value", ["0", "1000000000"])
def test_prove_refuses_a_bound_out_of_range_before_building_anything(value, capsys):
    _fails(["prove", "lemma3", f"--max-n={value}"], capsys, "--max-n must be between 1 and")


def test_prove_refuses_a_certificate_in_a_missing_folder_before_running(tmp_path, capsys):
    _fails(["prove", "lemma3", "--max-n", "1", "--json", str(tmp_path / "no" / "c.json")], capsys,
           "does not exist")


def test_prove_refuses_a_certificate_onto_a_directory(tmp_path, capsys):
    _fails(["prove", "lemma3", "--max-n", "1", "--json", str(tmp_path)], capsys, "is a folder")


def test_prove_refuses_an_unknown_claim_or_engine(capsys):
    _fails(["prove", "lemma33"], capsys, "no claim 'lemma33'")
    _fails(["prove", "lemma3", "--engine", "z4"], capsys, "no engine 'z4'")


def test_report_refuses_an_output_into_a_missing_folder(tmp_path, capsys):
    cert = tmp_path / "c.json"
    assert main(["prove", "lemma3", "--max-n", "1", "-q", "--json", str(cert)]) == 0
    capsys.readouterr()
    _fails(["report", str(cert), "--out", str(tmp_path / "no" / "r.md")], capsys, "does not exist")
