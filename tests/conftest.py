"""Test settings shared by every test module.

Under CI (the environment variable CI is set) hypothesis draws the same
examples every run (``derandomize``), so a run is reproducible; locally it
explores new ones each time and keeps failures in its database.
"""

from __future__ import annotations

import os
import sys

# Tests run against the installed (or editable) package: `python -m pytest`
# puts the repository root first on sys.path, where the folder usim/ would
# shadow the package whose layers the installer maps from rasp/, encodings/, ...
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _ROOT]

from hypothesis import settings  # noqa: E402

settings.register_profile("ci", derandomize=True, database=None, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _own_verdict_cache(tmp_path_factory, monkeypatch):
    """Each test gets an empty verdict cache and its own cache key (``usim prove``
    reads and writes one by default): no test sees the user's cache, the user's
    key, or another test's answers."""
    monkeypatch.setenv("USIM_CACHE", str(tmp_path_factory.mktemp("usim-cache")))
    monkeypatch.setenv("USIM_CACHE_KEY", str(tmp_path_factory.mktemp("usim-config") / "cache.key"))


OWN_PROCESS = "USIM_TEST_IN_OWN_PROCESS"
"""Set in the child a test marked ``own_process`` runs in."""


def pytest_pyfunc_call(pyfuncitem):
    """A test marked ``own_process`` runs in a fresh Python process of its own (``python -m pytest
    NODEID``), its verdict the child's: tracr's compiler starts JAX's threads, and the engine forks
    children later in the same run, which JAX warns may deadlock. (pytest-forked, the library for
    this, does not run under pytest 9.)"""
    if pyfuncitem.get_closest_marker("own_process") is None or os.environ.get(OWN_PROCESS):
        return None
    import subprocess

    root = str(pyfuncitem.config.rootpath)
    child = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", pyfuncitem.nodeid],
        cwd=root, env={**os.environ, OWN_PROCESS: "1"}, capture_output=True, text=True, timeout=1800)
    if child.returncode != 0:
        raise AssertionError(f"{pyfuncitem.nodeid} failed in its own process:\n{child.stdout[-4000:]}{child.stderr[-2000:]}")
    return True
