"""One list of packages (usim/packages.py), read by the installer, the source digest and the layers' test."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

from usim.engine.identity import SOURCE_PACKAGES
from usim.packages import FOLDERS

ROOT = Path(__file__).resolve().parent.parent
NOT_PACKAGES = {"tests", "benchmarks", "examples", "docs"}


def test_every_package_folder_on_disk_is_in_the_list_and_nothing_else():
    on_disk = {d.name for d in ROOT.iterdir() if (d / "__init__.py").is_file()} - NOT_PACKAGES
    assert on_disk == set(FOLDERS), f"on disk, not listed: {sorted(on_disk - set(FOLDERS))}; " \
                                    f"listed, not on disk: {sorted(set(FOLDERS) - on_disk)}"


def test_the_installer_and_the_digest_read_the_one_list():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"].get("setuptools", {})
    assert not {"package-dir", "packages", "package-data"} & set(setuptools), "a second list in pyproject.toml"
    assert "usim/packages.py" in (ROOT / "setup.py").read_text()
    assert set(SOURCE_PACKAGES) == set(FOLDERS.values())


def test_every_listed_package_is_installed_from_its_folder():
    for folder, package in FOLDERS.items():
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations, package
        location = Path(next(iter(spec.submodule_search_locations)))
        assert location.name == folder and (location / "__init__.py").is_file(), (package, location)
