"""The README's two commands are what CI and a new user run."""

from __future__ import annotations

import re
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


def test_the_standard_library_encodings_is_not_shadowed():
    for cwd in (ROOT, ROOT / "tests"):
        done = subprocess.run([sys.executable, "-P", "-c", "import encodings.idna, usim, usim.encodings"],
                              cwd=cwd, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
