"""The public surface is documented, and its examples are true.

Two checks:

* Every module of the package whose source contains ``>>>`` has its examples
  run by :mod:`doctest` (one test per module, so a failure names the module;
  the report names the example and what it printed). The modules are found by
  reading the source files of the installed packages
  (:data:`usim.engine.identity.SOURCE_PACKAGES`), so only those with examples
  are imported. pytest's ``--doctest-modules`` is not used: it imports a file
  by its folder, and the folders are installed under other names
  (``encodings/`` is ``usim.encodings``, and a top-level ``encodings`` is the
  standard library's), so it would import the layers a second time under the
  wrong names.
* Every public function of the modules in :data:`PUBLIC_SURFACE` (no leading
  underscore, defined in the module, listed in ``__all__`` where the module has
  one) has a docstring with an ``Args:`` section naming each of its parameters
  when it takes any, and a ``Returns:`` section unless it is annotated to
  return None (Google style: the sections an API reference is built from).
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import inspect
import io
import pkgutil
import re
import types
from pathlib import Path
from typing import Callable

import pytest

from usim.engine.identity import SOURCE_PACKAGES

PUBLIC_SURFACE = (
    # the constructions' builders
    "usim.constructions.ahat",
    "usim.constructions.base",
    "usim.constructions.blocks",
    "usim.constructions.determinant",
    "usim.constructions.linear_attention",
    "usim.constructions.match2",
    "usim.constructions.matmul",
    "usim.constructions.maxmin",
    "usim.constructions.parity",
    "usim.constructions.relu",
    "usim.constructions.routing",
    "usim.constructions.softmax",
    "usim.constructions.transpose",
    # the universal simulator's builder: its routes, its schedule, its embedding
    "usim.constructions.universal",
    "usim.constructions.universal.route",
    "usim.constructions.universal.schedule",
    "usim.constructions.universal.embed",
    # claims as declarations, the library's API, claims from any file, the pytest helper
    "usim.engine.declare",
    "usim.api",
    "usim.claim_code",
    "usim.testing",
    # the compiler: its entry point and its passes
    "usim.transformer.compiler",
    "usim.transformer.rasp_to_circuit",
    "usim.transformer.circuit_to_network",
    "usim.transformer.hard_to_masked",
    "usim.transformer.rasp_analysis",
    "usim.transformer.circuit",
    # checking a listing: the check, the specs (built in and a user's), the certificate
    "usim.listings.check",
    "usim.listings.specs",
    "usim.listings.user_spec",
    "usim.listings.certificate",
)
"""The modules a user imports to build, declare, compile and check a listing."""

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


# -- the examples ---------------------------------------------------------------

def _modules_with_examples() -> list[str]:
    found = set()
    for package in SOURCE_PACKAGES:
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations, package
        if ">>>" in Path(spec.origin).read_text():
            found.add(package)
        for info in pkgutil.walk_packages(list(spec.submodule_search_locations), package + "."):
            sub = importlib.util.find_spec(info.name)
            if sub is not None and sub.origin and sub.origin.endswith(".py") and ">>>" in Path(sub.origin).read_text():
                found.add(info.name)
    return sorted(found)


def _failures(module: types.ModuleType) -> tuple[int, int, str]:
    """(examples run, examples failed, doctest's report) for ``module``."""
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    out = io.StringIO()
    for test in doctest.DocTestFinder().find(module, module.__name__):
        runner.run(test, out=out.write)
    results = runner.summarize(verbose=False)
    return results.attempted, results.failed, out.getvalue()


EXAMPLES = _modules_with_examples()


def test_the_examples_of_the_public_surface_are_found():
    assert {"usim.constructions.transpose", "usim.engine.declare", "usim.transformer.compiler",
            "usim.constructions.universal.schedule"} <= set(EXAMPLES)


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_examples_in_a_module_are_true(name):
    module = importlib.import_module(name)
    if "from tracr" in Path(module.__file__).read_text() and importlib.util.find_spec("tracr") is None:
        pytest.skip(f"{name}'s examples read tracr's programs: tracr is not installed (the tracr extra)")
    attempted, failed, report = _failures(module)
    prompts = len(re.findall(r"^\s*>>>", Path(module.__file__).read_text(), flags=re.M))
    assert attempted == prompts, (f"{name} has {prompts} '>>>' lines but doctest runs {attempted}: an example "
                                  "outside a module's, class's or function's docstring (after an attribute) never runs")
    assert not failed, f"{name}: {failed} of {attempted} examples failed:\n{report}"


def test_a_false_example_fails():
    fake = types.ModuleType("usim_fake_examples")
    fake.__doc__ = """A module whose example is wrong.

    >>> 1 + 1
    3
    """
    attempted, failed, report = _failures(fake)
    assert (attempted, failed) == (1, 1)
    assert "1 + 1" in report and "Expected:" in report


# -- the sections -------------------------------------------------------------

def _section(doc: str, name: str) -> str | None:
    """The text of the Google-style section ``name`` (its indented lines), or None."""
    match = re.search(rf"^([ \t]*){name}:[ \t]*\n((?:\1[ \t]+\S.*\n?|[ \t]*\n)*)", doc, flags=re.M)
    return None if match is None else match.group(2)


def _returns_nothing(function: Callable) -> bool:
    annotation = inspect.signature(function).return_annotation
    return annotation is None or annotation == "None"


def problems(function: Callable) -> list[str]:
    """What the docstring of ``function`` lacks (empty when it is complete)."""
    doc = inspect.getdoc(function) or ""
    name = f"{function.__module__}.{function.__qualname__}"
    if not doc:
        return [f"{name}: no docstring"]
    found = []
    parameters = [p for p in inspect.signature(function).parameters if p not in ("self", "cls")]
    if parameters:
        args = _section(doc, "Args")
        if args is None:
            found.append(f"{name}: no Args: section")
        else:
            found += [f"{name}: Args: does not name {p}" for p in parameters
                      if not re.search(rf"^[ \t]+\**{p}(?:[ \t]*\([^)\n]*\))?:", args, flags=re.M)]
    if not _returns_nothing(function) and _section(doc, "Returns") is None:
        found.append(f"{name}: no Returns: section")
    return found


def public_functions(module: types.ModuleType) -> list[Callable]:
    """The functions ``module`` defines for its users."""
    listed = getattr(module, "__all__", None)
    return [value for key, value in vars(module).items()
            if not key.startswith("_") and inspect.isfunction(value) and value.__module__ == module.__name__
            and (listed is None or key in listed)]


@pytest.mark.parametrize("name", PUBLIC_SURFACE)
def test_every_public_function_has_its_sections(name):
    module = importlib.import_module(name)
    found = [p for function in public_functions(module) for p in problems(function)]
    assert not found, "\n".join(found)


def test_a_function_without_its_sections_is_found():
    def bare(rows: int, cols: int) -> int:
        """The number of entries."""
        return rows * cols

    def half(rows: int, cols: int) -> int:
        """The number of entries.

        Args:
            rows: how many rows.

        Returns:
            rows times cols.
        """
        return rows * cols

    def complete(rows: int, *sizes: int, **options: int) -> None:
        """Nothing.

        Args:
            rows: how many rows.
            *sizes: more sizes.
            **options: ignored.
        """

    def undocumented() -> int:
        return 1

    assert [p.split(": ", 1)[1] for p in problems(bare)] == ["no Args: section", "no Returns: section"]
    assert [p.split(": ", 1)[1] for p in problems(half)] == ["Args: does not name cols"]
    assert problems(complete) == []
    assert [p.split(": ", 1)[1] for p in problems(undocumented)] == ["no docstring"]


def test_only_the_functions_a_module_defines_and_lists_are_its_public_ones():
    fake = types.ModuleType("usim_fake_surface")
    exec("from os.path import join\n"
         "def listed(x: int) -> int:\n    return x\n"
         "def unlisted(x: int) -> int:\n    return x\n"
         "def _private(x: int) -> int:\n    return x\n"
         "__all__ = ['listed', 'join']\n", fake.__dict__)
    assert [f.__name__ for f in public_functions(fake)] == ["listed"]
    assert problems(fake.listed)  # and it is found wanting
