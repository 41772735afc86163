"""The layers import only downwards, the engine is a library, nothing imports in a circle.

Layers, lowest first: the language (``usim.rasp``), its interpretations
(``usim.encodings``), the reader of the RASP REPL's language
(``usim.repl``: it runs a listing's examples, so it sits above the
interpretations), the constructions, the transformer model and the compiler
from RASP to weights (``usim.transformer``), the engine, the proofs, and the command
line (``usim.commands``, ``usim.render``, ``usim.show``, ``usim.cli``). The
package root (``usim``: its version), ``usim.errors`` and ``usim.packages``
(the list of folders, which the engine's source digest reads) are below them
all. Every ``import`` in a module counts: at its top, inside a function, in a
script's ``if __name__ == "__main__"`` block, and under ``if TYPE_CHECKING``
(type hints go down the layers too; only the circle check leaves them out, as
Python does at run time).
One name for one thing: no class name is defined in two modules, and PyTorch is
imported by the transformer layer only, never by the constructions.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from usim.packages import FOLDERS

ROOT = Path(__file__).resolve().parent.parent
BELOW_ALL = ("usim", "usim.errors", "usim.packages")  # the package root (its version), errors, the list of packages
LAYERS = ["usim.errors", "usim.rasp", "usim.encodings", "usim.repl", "usim.tracr_reader", "usim.constructions",
          "usim.transformer", "usim.engine", "usim.proofs", "usim.listings", "usim.*"]  # usim.*: the command line and everything else in the usim folder


@functools.lru_cache(maxsize=1)
def _modules() -> dict[str, Path]:
    found = {}
    for folder, package in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([package, *parts])] = path
    return found


def _layer(module: str) -> int:
    if module in BELOW_ALL:
        return 0
    best = len(LAYERS) - 1
    for i, prefix in enumerate(LAYERS[:-1]):  # the longest matching prefix decides
        if (module == prefix or module.startswith(prefix + ".")) and len(prefix) >= len(LAYERS[best]):
            best = i
    return best


class _Imports(ast.NodeVisitor):
    def __init__(self, module: str, is_package: bool) -> None:
        self.module, self.is_package, self.found, self.at_run_time = module, is_package, [], []
        self.typing_only = False

    def visit_If(self, node: ast.If) -> None:
        if ast.unparse(node.test) == "TYPE_CHECKING":  # imported for type hints, not at run time
            self.typing_only = True
            self.generic_visit(node)
            self.typing_only = False
        else:
            self.generic_visit(node)

    def _add(self, names: list[str]) -> None:
        self.found += names
        if not self.typing_only:
            self.at_run_time += names

    def visit_Import(self, node: ast.Import) -> None:
        self._add([a.name for a in node.names if a.name.startswith("usim")])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.module.split(".")
            base = base[: len(base) - node.level + (1 if self.is_package else 0)]
            name = ".".join(base + ([node.module] if node.module else []))
        else:
            name = node.module or ""
        if name.startswith("usim"):
            modules = _modules()
            submodules = [f"{name}.{a.name}" for a in node.names if f"{name}.{a.name}" in modules]
            self._add(submodules or [name])


@functools.lru_cache(maxsize=2)
def _imports(at_run_time: bool = False) -> dict[str, list[str]]:
    out = {}
    for module, path in _modules().items():
        visitor = _Imports(module, path.name == "__init__.py")
        visitor.visit(ast.parse(path.read_text()))
        out[module] = visitor.at_run_time if at_run_time else visitor.found
    return out


def test_every_import_goes_down_the_layers():
    wrong = [f"{m} ({LAYERS[_layer(m)]}) imports {i} ({LAYERS[_layer(i)]})"
             for m, found in _imports().items() for i in found if _layer(i) > _layer(m)]
    assert not wrong, "\n".join(wrong)


def test_the_package_has_no_import_circle():
    graph = {m: {i for i in found if i in _modules()} for m, found in _imports(at_run_time=True).items()}
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in graph.get(node, ()):
            if state.get(nxt) == 1:
                pytest.fail("import circle: " + " -> ".join(path[path.index(nxt):] + [nxt]))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node, [node])


@pytest.mark.parametrize("path", sorted((ROOT / "engine").rglob("*.py")),
                         ids=lambda p: str(p.relative_to(ROOT / "engine")))
def test_the_engine_is_a_library(path):
    tree = ast.parse(path.read_text())
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert "print" not in names, f"{path.name} prints"
    assert "argparse" not in imported, f"{path.name} parses options"


@pytest.mark.parametrize("path", sorted((ROOT / "listings").glob("*.py")), ids=lambda p: p.name)
def test_the_listings_layer_returns_data(path):
    """``usim check``'s text is the command line's (usim/render_check.py): the listings layer prints nothing."""
    tree = ast.parse(path.read_text())
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert "print" not in names, f"{path.name} prints"
    assert "argparse" not in imported, f"{path.name} parses options"


def test_only_the_repl_s_running_module_runs_a_program():
    """The REPL reader elaborates a file into expressions; one module of it
    (``usim.repl.running``) runs them through the interpretations."""
    running = {m for m, found in _imports().items() if m.startswith("usim.repl")
               for i in found if _layer(i) == LAYERS.index("usim.encodings")}
    assert running == {"usim.repl.running"}



def test_no_class_name_is_defined_in_two_modules():
    defined: dict[str, list[str]] = {}
    for module, path in sorted(_modules().items()):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                defined.setdefault(node.name, []).append(module)
    twice = [f"{name}: {', '.join(modules)}" for name, modules in sorted(defined.items())
             if len(modules) > 1]
    assert not twice, "one name for one thing; defined in several modules:\n" + "\n".join(twice)


def test_the_constructions_import_no_torch():
    torch_users = [module for module, path in _modules().items() if module.startswith("usim.constructions")
                   for node in ast.walk(ast.parse(path.read_text()))
                   if isinstance(node, (ast.Import, ast.ImportFrom))
                   and any(name.split(".")[0] == "torch"
                           for name in ([a.name for a in node.names] if isinstance(node, ast.Import)
                                        else [node.module or ""]))]
    assert not torch_users, f"PyTorch interop goes in usim.transformer: {sorted(set(torch_users))}"


LONGEST_MODULE = 600
"""No module outside tests/ is longer: past it, a module does several jobs."""


def test_no_module_outside_the_tests_is_longer_than_600_lines():
    paths = [*_modules().values(), *(ROOT / "benchmarks").rglob("*.py"), ROOT / "setup.py"]
    long = [f"{path.relative_to(ROOT)}: {n} lines" for path in paths
            if (n := len(path.read_text().splitlines())) > LONGEST_MODULE]
    assert not long, "split by job:\n" + "\n".join(long)


WHOLE_REPOSITORY = {
    "test_layers": "the layers, names and lengths of every module",
    "test_docstrings": "the public surface's docstrings and every example in the package",
    "test_readme": "README.md's commands",
    "test_contributing": "CONTRIBUTING.md's worked examples; the paths README.md and CONTRIBUTING.md name",
    "test_docs_api_reference": "the API reference docs/api_reference.py builds from the public modules",
}
"""The test modules about the repository as a whole, not one module of it."""


def _test_names() -> set[str]:
    """What a test module may be called: ``test_`` and a module's or package's
    dotted name below ``usim``, dots as underscores, a private module's
    underscore dropped (``usim.proofs._weights``: ``test_proofs_weights``)."""
    return {"test_" + "_".join(part.lstrip("_") for part in module.split(".")[1:])
            for module in _modules() if module != "usim"}


def test_every_test_module_is_named_for_what_it_tests():
    names = _test_names()
    assert "test_engine_cache" in names and "test_commands_check" in names and "test_repl" in names
    assert "test_check_command" not in names and "test_universal" not in names  # the schemes before
    wrong = [path.name for path in sorted((ROOT / "tests").glob("test_*.py"))
             if path.stem not in names and path.stem not in WHOLE_REPOSITORY]
    assert not wrong, ("a test module is named for the module or package it tests "
                       "(CONTRIBUTING.md, 'Tests mirror the folders'):\n" + "\n".join(wrong))
