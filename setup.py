"""The installer's packages, from the one list in ``usim/packages.py``.

Everything else is in ``pyproject.toml``. The list is read as text (the
literal dictionaries of ``usim/packages.py``), not imported: usim is not
installed yet when this runs. Each folder installs as its package, and its
subpackages (folders with an ``__init__.py``) as that package's subpackages.
"""

from __future__ import annotations

import ast
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def _literals(path: Path) -> dict[str, object]:
    """The module-level assignments of literal values in ``path``, by name."""
    found = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found[node.targets[0].id] = ast.literal_eval(node.value)
    return found


_PACKAGES = _literals(HERE / "usim" / "packages.py")
FOLDERS: dict[str, str] = _PACKAGES["FOLDERS"]


def _provenance():
    """usim.engine.provenance, loaded by its path (it imports only the standard library)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("usim_provenance", HERE / "engine" / "provenance.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildWithProvenance(build_py):
    """The packages, and the commit they were built from (read back in certificates)."""

    def run(self) -> None:
        super().run()
        provenance = _provenance()
        target = Path(self.build_lib) / "usim" / provenance.BUILD_INFO
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(provenance.build_info(HERE))


setup(
    cmdclass={"build_py": BuildWithProvenance},
    package_dir={package: folder for folder, package in FOLDERS.items()},
    packages=[name for folder, package in FOLDERS.items()
              for name in (package, *(f"{package}.{sub}" for sub in find_packages(str(HERE / folder))))],
    package_data=_PACKAGES["PACKAGE_DATA"],
    py_modules=["usim_pytest"],  # the pytest plugin (pyproject.toml's pytest11 entry point)
)
