"""Who a usim is: its source digest and the versions a certificate records.

Two machines (a Dask worker and its client, :mod:`usim.engine.cluster`) or two
runs (the verdict cache, :mod:`usim.engine.cache`) may share a verdict only if
they run the same usim: the same source files, byte for byte, with the same
solvers and Python. :func:`identity` is that, as data.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
from pathlib import Path
from typing import Any, Mapping

from usim.engine.certificate import versions
from usim.packages import FOLDERS

SOURCE_PACKAGES = tuple(FOLDERS.values())
"""The packages whose source files make up a usim: every package the installer
installs (:data:`usim.packages.FOLDERS`, mapped from the repository's top-level
folders; installed, they nest in ``usim/``)."""

Identity = tuple[tuple[str, str], ...]


def source_files(roots: Mapping[str, Path]) -> dict[str, bytes]:
    """The source files (``*.py`` and the grammar) under each package's folder.

    Args:
        roots: each package's name and its folder.

    Returns:
        Each file's contents, named by its module path (``usim.rasp.expr.py``),
        so that an installed layout (``rasp/`` inside ``usim/``) and an
        editable one (``rasp/`` beside ``usim/``) of the same source agree.
    """
    files: dict[str, bytes] = {}
    for package, root in roots.items():
        for path in root.rglob("*"):
            if path.suffix in (".py", ".lark") and "__pycache__" not in path.parts:
                files[".".join([package, *path.relative_to(root).parts])] = path.read_bytes()
    return files


def sources_digest(roots: Mapping[str, Path]) -> str:
    """sha256 over :func:`source_files` of ``roots``, each file with its name."""
    files = source_files(roots)
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(f"{name}\0{len(files[name])}\0".encode())
        digest.update(files[name])
    return digest.hexdigest()


def source_roots() -> dict[str, Path]:
    """Where each of :data:`SOURCE_PACKAGES` is installed: its folder, found
    as the import system finds it."""
    roots = {}
    for package in SOURCE_PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.submodule_search_locations:
            roots[package] = Path(next(iter(spec.submodule_search_locations)))
    return roots


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """The digest of this usim's source (:func:`sources_digest` of
    :func:`source_roots`, wherever they are installed)."""
    return sources_digest(source_roots())


@functools.lru_cache(maxsize=1)
def identity() -> Identity:
    """What must be the same on every machine of a run: the versions a
    certificate records (usim, Python, every solver) and usim's source digest."""
    return tuple(sorted({**versions(), "usim source": source_digest()[:16]}.items()))


def identity_difference(theirs: Any, ours: Identity) -> str:
    """What differs between two identities, in words ("" if nothing)."""
    try:
        theirs_map = dict(theirs)
    except (TypeError, ValueError):
        return "no identity"
    ours_map = dict(ours)
    return ", ".join(f"{name} {theirs_map.get(name, 'absent')} (here {ours_map.get(name, 'absent')})"
                     for name in sorted(set(theirs_map) | set(ours_map))
                     if theirs_map.get(name) != ours_map.get(name))
