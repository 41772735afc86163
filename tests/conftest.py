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
