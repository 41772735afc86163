"""Test settings shared by every test module.

Under CI (the environment variable CI is set) hypothesis draws the same
examples every run (``derandomize``), so a run is reproducible; locally it
explores new ones each time and keeps failures in its database.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
