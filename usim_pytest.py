"""usim's pytest plugin: the ``usim_max_n`` and ``usim_cache`` fixtures, ``--usim-max-n`` and ``--usim-cache``.

Registered by usim's ``pytest11`` entry point (``pyproject.toml``), so it is
active in every pytest run where usim is installed; the helpers themselves
are :mod:`usim.testing` (``assert_proved``, ``assert_refuted``). This module
is top-level and imports usim only inside a hook or a fixture that needs it:
pytest loads plugins before a project's conftest, and in usim's own
repository an early ``import usim`` would take the folder ``usim/`` for the
installed package (whose layers install from other folders), which the
tests' conftest takes off ``sys.path`` first.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest


def pytest_addoption(parser: Any) -> None:
    """The plugin's options.

    Args:
        parser: pytest's option parser.
    """
    group = parser.getgroup("usim")
    group.addoption("--usim-max-n", type=int, default=None, metavar="N",
                    help="usim: the bound every usim_max_n(...) gives (e.g. higher in a nightly run)")
    group.addoption("--usim-cache", action="store_true", default=False,
                    help="usim: reuse verdicts from the user's verdict cache (default: prove from scratch)")


def pytest_configure(config: Any) -> None:
    """With ``--usim-cache``, the user's verdict cache for the helpers of :mod:`usim.testing`.

    Args:
        config: pytest's configuration (after the initial conftests are loaded).
    """
    if config.getoption("--usim-cache", default=False):
        from usim.engine.cache import VerdictCache, default_folder
        from usim.testing import use_cache

        use_cache(VerdictCache(default_folder()))


def pytest_unconfigure(config: Any) -> None:
    """Forget the session's cache.

    Args:
        config: pytest's configuration.
    """
    if config.getoption("--usim-cache", default=False):
        from usim.testing import use_cache

        use_cache(None)


@pytest.fixture
def usim_max_n(request: Any) -> Callable[[int], int]:
    """The bound a test asks for, or the one ``--usim-max-n N`` sets: ``usim_max_n(3)``."""
    chosen = request.config.getoption("--usim-max-n", default=None)

    def bound(default: int) -> int:
        return chosen if chosen is not None else default

    return bound


@pytest.fixture
def usim_cache(tmp_path: Any) -> Any:
    """A verdict cache of the test's own, in its temporary folder."""
    from usim.engine.cache import VerdictCache

    return VerdictCache(tmp_path / "usim-cache")
