"""The architecture stays visible: each package imports only the packages beneath it, and
no import cycle exists anywhere, between modules or between packages at any level,
counting the imports under `if TYPE_CHECKING:` and those inside functions (a type-only
back edge shows a type in the wrong file as surely as a runtime one)."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

SOURCE = Path(__file__).parents[1] / "src"
PACKAGE = SOURCE / "bounded"

ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "version": set(),
    # the protocols the parts implement, over the records they speak in
    "protocols": {"core"},
    "registry": {"core", "protocols"},
    "validation": {"core", "protocols"},
    "env_records": {"core", "protocols", "registry"},
    "testing": {"core", "protocols"},
    "stores": {"core", "protocols"},
    "models": {"core", "protocols", "registry"},
    "contracts": {"core", "protocols", "registry", "env_records", "stores", "validation"},
    # an environment's expert plays by the observation: envs import no model
    "envs": {"core", "protocols", "registry", "env_records", "stores", "validation"},
    # the archive stores runs of any environment and builds none
    "archive": {"core", "protocols", "env_records"},
    "runner": {
        "core",
        "protocols",
        "version",
        "registry",
        "env_records",
        "stores",
        "models",
        "contracts",
        "envs",
        "archive",
    },
    # sweeps may read the analysis: an experiment file carries the cost columns' prices
    "sweeps": {
        "core",
        "protocols",
        "version",
        "registry",
        "env_records",
        "stores",
        "models",
        "contracts",
        "envs",
        "archive",
        "analysis",
        "runner",
    },
    "jobs": {
        "core",
        "protocols",
        "registry",
        "env_records",
        "stores",
        "models",
        "contracts",
        "envs",
        "archive",
        "runner",
    },
    "agent": {"core", "protocols", "contracts", "envs", "runner"},
    "importers": {"core", "protocols", "archive", "version"},
    "analysis": {"core", "protocols", "registry", "env_records", "archive", "stores"},
    # `bounded view` follows a sweep being written: its progress reads the sweep's stored
    # plan (`sweeps.board`)
    "report": {
        "core",
        "protocols",
        "registry",
        "env_records",
        "archive",
        "analysis",
        "sweeps",
        "version",
    },
    "attribution": {
        "core",
        "protocols",
        "registry",
        "env_records",
        "stores",
        "models",
        "contracts",
        "envs",
        "archive",
        "runner",
        "analysis",
    },
    # the docs' tables: reads committed data through the analysis; nothing imports it
    "docgen": {"analysis"},
    "inspect_tasks": {
        "core",
        "protocols",
        "registry",
        "env_records",
        "stores",
        "models",
        "contracts",
        "envs",
        "archive",
        "runner",
    },
}
"""Package -> the packages it may import. `cli` (and `bounded/__init__`) sit on top of
everything."""
TOP = {"cli", "__init__", "__main__"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imported_modules(name: str, path: Path, *, type_only: bool = True) -> set[str]:
    """The `bounded` modules a module imports: `from a.b import c` is `a.b.c` when that is a
    module, else `a.b` (the package's `__init__`, whose names it reads)."""
    known = modules()
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if not type_only and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join([*package, *([node.module] if node.module else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in known:
                    found.add(full)
                elif base in known:
                    found.add(base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(), filename=str(path)))
    found.discard(name)
    return found


@cache
def module_graph() -> dict[str, frozenset[str]]:
    return {name: frozenset(imported_modules(name, path)) for name, path in modules().items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the directed graph (its nodes in order, the first repeated), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (cycle := visit(target)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def collapsed(package: str) -> dict[str, set[str]]:
    """The import graph between the direct children of `package` (its modules, its
    subpackages taken whole, and its own `__init__`)."""

    def child(module: str) -> str | None:
        if module == package:
            return "__init__"
        if not module.startswith(package + "."):
            return None
        return module[len(package) + 1 :].split(".")[0]

    graph: dict[str, set[str]] = {}
    for source, targets in module_graph().items():
        if (a := child(source)) is None:
            continue
        for target in targets:
            if (b := child(target)) is not None and b != a:
                graph.setdefault(a, set()).add(b)
    return graph


def packages() -> list[str]:
    return sorted(name for name, path in modules().items() if path.name == "__init__.py")


def test_there_is_no_import_cycle_between_modules():
    graph = {name: set(targets) for name, targets in module_graph().items()}
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


@pytest.mark.parametrize("package", packages())
def test_there_is_no_import_cycle_between_the_parts_of_a_package(package):
    cycle = find_cycle(collapsed(package))
    assert cycle is None, f"{package}: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle_through_three_nodes():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "d": {"a", "c"}}) is None


def test_a_type_only_import_counts(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bounded.core import Action\n"
    )
    assert imported_modules("bounded.x", path) == {"bounded.core"}
    assert imported_modules("bounded.x", path, type_only=False) == set()


def package_graph() -> dict[str, set[str]]:
    return collapsed("bounded")


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_a_package_imports_only_what_lies_beneath_it(package):
    imports = package_graph().get(package, set())
    assert imports <= ALLOWED[package], imports - ALLOWED[package]


def test_every_package_has_a_place_in_the_layers():
    assert set(package_graph()) <= set(ALLOWED) | TOP


@pytest.mark.parametrize(("package", "forbidden"), [("envs", "models"), ("archive", "envs")])
def test_the_layers_the_readme_names_are_kept(package, forbidden):
    assert forbidden not in ALLOWED[package]
    assert forbidden not in package_graph().get(package, set())


def test_nothing_in_bounded_imports_the_doc_renderers():
    importers = {source for source, targets in package_graph().items() if "docgen" in targets}
    assert importers == set()


def test_the_workbench_environment_imports_no_runner_or_contract():
    for name, path in modules().items():
        if name.startswith("bounded.envs.workbench"):
            imports = {target.split(".")[1] for target in imported_modules(name, path)}
            assert not imports & {"runner", "contracts", "agent"}, path.name
