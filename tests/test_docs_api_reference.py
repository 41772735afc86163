"""The API reference (docs/api_reference.py) builds, and documents the public API."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "docs" / "api_reference.py"

pytest.importorskip("pdoc", reason="pdoc is in the test extra")


def _script():
    spec = importlib.util.spec_from_file_location("api_reference", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_reference_builds_and_has_a_page_for_every_public_function(tmp_path):
    done = subprocess.run([sys.executable, "-P", str(SCRIPT), str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    page = (tmp_path / "usim" / "api.html").read_text()
    import usim.api

    public = [n for n in dir(usim.api) if not n.startswith("_") and callable(getattr(usim.api, n))
              and getattr(getattr(usim.api, n), "__module__", None) == "usim.api"]
    assert {"prove", "check", "verify", "claims", "run"} <= set(public)
    for name in public:
        assert f'id="{name}"' in page, f"{name} is missing from the reference"
    assert "Args:" not in page  # the Google sections are read as sections, not shown as text
    assert (tmp_path / "usim" / "testing.html").exists()


def test_a_module_that_does_not_import_fails_the_build(tmp_path, monkeypatch):
    script = _script()
    monkeypatch.setattr(script, "MODULES", ("usim.api", "usim.no_such_module"))
    with pytest.raises(UserWarning, match="Cannot find spec for usim.no_such_module"):
        script.build(str(tmp_path))
