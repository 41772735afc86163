"""Which commit of usim a run used: read from git, or recorded when usim was built.

A certificate names the commit of the code that proved it. In a checkout of
usim's repository (an editable install, or the tests run from the tree) git
says which: the commit, with ``+modified`` when tracked files differ from it.
An installed copy (``pip install .``) is a folder of files with no git of its
own, and asking git there would name the commit of whatever repository the
environment happens to sit in. So the installer records the commit of the
tree it was built from, once, in the package's :data:`BUILD_INFO` file
(``setup.py``'s ``build_py`` step calls :func:`build_info`), and an installed
usim reads it back. A copy built from a tree without git records that it could
not tell, and the certificate says ``unknown``.

This module imports only the standard library: ``setup.py`` loads it by its
path before usim is installed.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

BUILD_INFO = "build_info.json"
"""The file, in the installed package ``usim``, that records the commit it was built from."""

UNKNOWN = "unknown"
"""The commit of a copy that was built from a tree without git."""


def git_commit(tree: Path) -> str | None:
    """The commit checked out at ``tree``, when ``tree`` is the top of a git checkout.

    Args:
        tree: a folder, e.g. the root of usim's repository.

    Returns:
        The commit's sha, with ``+modified`` when tracked files differ from it;
        None when ``tree`` is not the top of a git checkout (a folder inside
        another repository is not) or git cannot be run.
    """
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=tree, capture_output=True, text=True, timeout=5).stdout.strip()

    try:
        top = git("rev-parse", "--show-toplevel")
        if not top or Path(top).resolve() != tree.resolve():
            return None
        sha = git("rev-parse", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return None
    return (sha + ("+modified" if dirty else "")) if sha else None


def build_info(tree: Path) -> str:
    """The text of :data:`BUILD_INFO` for a copy of usim built from ``tree``.

    Args:
        tree: the root of the source tree being built.

    Returns:
        JSON recording the tree's commit (:data:`UNKNOWN` without git).
    """
    return json.dumps({"commit": git_commit(tree) or UNKNOWN}) + "\n"


def running_commit(package: Path) -> str:
    """The commit of the usim that runs, its package folder being ``package``.

    Args:
        package: the folder of the package ``usim`` (``usim/__init__.py``'s folder).

    Returns:
        In the source tree (``package`` is ``ROOT/usim`` and ``ROOT`` is a git
        checkout of usim): git's answer now. Installed: the commit recorded when
        it was built. Otherwise :data:`UNKNOWN`.
    """
    root = package.resolve().parent
    if (root / "usim" / "packages.py").is_file() and (root / "setup.py").is_file():  # the source tree
        return git_commit(root) or UNKNOWN
    try:
        recorded = json.loads((package / BUILD_INFO).read_text()).get("commit")
    except (OSError, ValueError, AttributeError):
        return UNKNOWN
    return recorded if isinstance(recorded, str) and recorded else UNKNOWN
