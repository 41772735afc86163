"""The README's two commands are what CI and a new user run."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```\n(.+?)\n```", quick)


def test_the_readme_quick_start_has_an_install_and_run_and_an_install_and_test_command():
    main_job, tests = _commands()
    assert re.match(r'pip install (\.|"\.\[[a-z0-9,]+\]") && usim ', main_job), main_job
    assert tests.startswith("pip install ") and "pytest" in tests


def test_ci_runs_exactly_the_readme_test_command():
    _, tests = _commands()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert tests in [line.strip() for line in ci]


def _python_lines() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return [line.split("#")[0].strip() for block in re.findall(r"```\n(.+?)\n```", text, re.S)
            for line in block.splitlines() if line.startswith("python -m ")]


def test_the_readmes_python_m_line_runs_from_the_repository_root_as_written():
    lines = _python_lines()
    assert lines == ["python -m usim prove lemma3 --max-n 4"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"}  # as typed: the root first on the path
    for line in lines:
        done = subprocess.run([sys.executable, *shlex.split(line)[1:]], cwd=ROOT, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert "1 PROVED" in done.stdout and "all as expected" in done.stdout, done.stdout


def test_python_m_usim_hands_over_to_the_installed_package_where_a_bare_folder_usim_shadows_it(tmp_path):
    # a regular install seen from the repository root: the folder usim/ is found first, and
    # beside it no layer (here: no site, so no installed package's finder either)
    shutil.copytree(ROOT / "usim", tmp_path / "usim", ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"}
    done = subprocess.run([sys.executable, "-S", "-m", "usim", "prove", "--list"], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("claim ") and "lemma3" in done.stdout
    bad = subprocess.run([sys.executable, "-S", "-m", "usim", "prove", "lemma3", "--max-n", "0"], cwd=tmp_path,
                         env=env, capture_output=True, text=True)
    assert (bad.returncode, bad.stderr.strip()) == (2, "usim prove: error: --max-n must be between 1 and 64, not 0")


def test_a_proof_script_runs_on_its_own_as_usim_prove_of_its_claims():
    done = subprocess.run([sys.executable, "-P", "-m", "usim.proofs.lemma4_softmax", "--max-n", "1", "--quiet"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "2 claim(s), 2 obligation(s)" in done.stdout and "2 PROVED" in done.stdout, done.stdout
    bad = subprocess.run([sys.executable, "-P", "-m", "usim.proofs.lemma4_softmax", "--timeout", "0"],
                         cwd=ROOT, capture_output=True, text=True)
    assert (bad.returncode, bad.stderr.strip()) == (
        2, "usim prove: error: --timeout must be a positive number of seconds, not 0")


def test_the_standard_library_encodings_is_not_shadowed():
    for cwd in (ROOT, ROOT / "tests"):
        done = subprocess.run([sys.executable, "-P", "-c", "import encodings.idna, usim, usim.encodings"],
                              cwd=cwd, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


def test_the_parameters_file_the_readme_simulates_is_made_by_a_command_before_it() -> None:
    """A newcomer runs the lines in order: ``usim simulate params.npz`` needs a
    line before it that writes params.npz (it named a file that did not exist)."""
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert "usim simulate params.npz" in text
    before = text[:text.index("usim simulate params.npz")]
    assert "--save params.npz" in before
