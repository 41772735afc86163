"""The commit a certificate names (usim/engine/provenance.py): git's in the tree, the build's when installed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from usim.engine.provenance import BUILD_INFO, UNKNOWN, build_info, git_commit, running_commit

ROOT = Path(__file__).resolve().parent.parent
GIT = shutil.which("git")


def _repository(folder: Path) -> str:
    for args in (["init", "-q"], ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty",
                                  "-m", "x"]):
        subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True, text=True).stdout.strip()


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_only_the_top_of_a_checkout_names_its_commit(tmp_path) -> None:
    """A venv inside someone's own repository is not usim's checkout: its commit is not usim's."""
    sha = _repository(tmp_path)
    (tmp_path / "inner").mkdir()
    assert git_commit(tmp_path) == sha
    assert git_commit(tmp_path / "inner") is None


def test_a_tree_without_git_records_that_it_could_not_tell(tmp_path) -> None:
    assert json.loads(build_info(tmp_path)) == {"commit": UNKNOWN}


def test_an_installed_copy_reads_the_commit_it_was_built_from(tmp_path) -> None:
    package = tmp_path / "site-packages" / "usim"
    package.mkdir(parents=True)
    (package / "packages.py").write_text("")  # installed: usim's modules, but no setup.py beside them
    assert running_commit(package) == UNKNOWN
    (package / BUILD_INFO).write_text(json.dumps({"commit": "abc123+modified"}))
    assert running_commit(package) == "abc123+modified"
    (package / BUILD_INFO).write_text("not json")
    assert running_commit(package) == UNKNOWN


@pytest.mark.skipif(GIT is None or git_commit(ROOT) is None, reason="not run from a git checkout of usim")
def test_a_wheel_built_from_a_checkout_records_its_commit(tmp_path) -> None:
    """Certificates from a non-editable install said "commit unknown" (issue 28). Built from a
    clone of this checkout (a build writes into its tree: this one stays as it is)."""
    import importlib.util

    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, capture_output=True)
    isolation = [] if importlib.util.find_spec("setuptools") is None else ["--no-build-isolation"]
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", str(clone), "--no-deps", *isolation,
                           "-q", "-w", str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = tmp_path.glob("usim-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        recorded = json.loads(archive.read(f"usim/{BUILD_INFO}"))
    assert recorded["commit"] == git_commit(clone) == git_commit(ROOT).split("+")[0]


def test_a_certificate_names_the_commit_of_the_usim_that_runs() -> None:
    import usim
    from usim.engine.certificate import git_commit

    assert git_commit() == running_commit(Path(usim.__file__).parent)


@pytest.mark.skipif(GIT is None or git_commit(ROOT) is None, reason="not run from a git checkout of usim")
def test_the_installed_usim_names_the_commit_of_the_checkout_it_was_installed_from() -> None:
    import usim

    package = Path(usim.__file__).resolve().parent
    if package.parent == ROOT:
        pytest.skip("usim runs from this checkout (an editable install): git answers")
    assert running_commit(package).split("+")[0] == git_commit(ROOT).split("+")[0]
