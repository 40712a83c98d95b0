"""The architecture stays visible: each package imports only the packages beneath it, and
there are no import cycles between packages (imports under `if TYPE_CHECKING:` excepted)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOURCE = Path(__file__).parents[1] / "src" / "bounded"

ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "registry": {"core"},
    "validation": {"core"},
    "testing": {"core"},
    "stores": {"core"},
    "models": {"core", "registry"},
    "contracts": {"core", "registry", "stores", "validation"},
    "envs": {"core", "registry", "stores", "models", "validation"},
    "archive": {"core", "envs"},
    # the runner may read the analysis: an experiment file carries the cost columns' prices
    "runner": {
        "core",
        "registry",
        "stores",
        "models",
        "contracts",
        "envs",
        "archive",
        "analysis",
    },
    "apps": {"core", "registry", "stores", "models", "contracts", "envs", "archive", "runner"},
    "agent": {"core", "contracts", "envs", "runner"},
    "importers": {"core", "archive"},
    "analysis": {"core", "archive", "stores"},
    "report": {"core", "archive", "analysis"},
    "attribution": {
        "core",
        "registry",
        "stores",
        "models",
        "contracts",
        "envs",
        "archive",
        "runner",
        "analysis",
    },
    "inspect": {"core", "registry", "stores", "models", "contracts", "envs", "archive", "runner"},
}
"""Package -> the packages it may import. `commands` and `cli` sit on top of everything."""
TOP = {"commands", "cli", "__init__", "__main__"}


def package_of(path: Path) -> str:
    relative = path.relative_to(SOURCE)
    return relative.parts[0].removesuffix(".py")


def runtime_imports(tree: ast.Module) -> set[str]:
    """The `bounded.<package>` names a module imports when it runs."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            names = []
        for name in names:
            parts = name.split(".")
            if parts[0] == "bounded" and len(parts) > 1:
                found.add(parts[1])
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in SOURCE.rglob("*.py"):
        package = package_of(path)
        imports = runtime_imports(ast.parse(path.read_text(), filename=str(path)))
        graph.setdefault(package, set()).update(imports - {package})
    return graph


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_a_package_imports_only_what_lies_beneath_it(package):
    graph = package_graph()
    assert graph.get(package, set()) <= ALLOWED[package], graph[package] - ALLOWED[package]


def test_every_package_has_a_place_in_the_layers():
    assert set(package_graph()) <= set(ALLOWED) | TOP


def test_there_are_no_cycles_between_packages():
    graph = package_graph()
    for package in graph:
        seen, stack = set(), list(graph[package])
        while stack:
            current = stack.pop()
            assert current != package, f"{package} imports itself through {sorted(seen)}"
            if current not in seen:
                seen.add(current)
                stack.extend(graph.get(current, set()))


def test_the_workbench_environment_imports_no_runner_or_contract():
    for path in (SOURCE / "envs" / "workbench").glob("*.py"):
        imports = runtime_imports(ast.parse(path.read_text()))
        assert not imports & {"runner", "contracts", "agent"}, path.name
