"""Neither the contracts nor the stores know a game: none of their modules imports an env."""

from __future__ import annotations

import ast
from pathlib import Path

import bounded

SOURCE = Path(bounded.__file__).parent
GAME_FREE = ("contracts", "stores")


def imported_modules(source: str, package: str) -> set[str]:
    """Every module a source imports (absolute or relative, at any depth); `package` is the
    package the source lives in, against which relative imports resolve."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def package_of(path: Path) -> str:
    return ".".join(path.relative_to(SOURCE.parent).parts[:-1])


def game_free_files() -> list[Path]:
    return [f for package in GAME_FREE for f in sorted((SOURCE / package).rglob("*.py"))]


def test_contracts_and_stores_import_no_environment():
    files = game_free_files()
    assert len(files) > 10
    offenders = {}
    for file in files:
        modules = imported_modules(file.read_text(encoding="utf-8"), package_of(file))
        envs = sorted(m for m in modules if m == "bounded.envs" or m.startswith("bounded.envs."))
        if envs:
            offenders[str(file.relative_to(SOURCE))] = envs
    assert offenders == {}


def test_contracts_and_stores_ship_no_game_data():
    assert [f for package in GAME_FREE for f in (SOURCE / package).rglob("*.json")] == []


def test_the_check_sees_relative_and_absolute_imports():
    source = "from ..envs import spire\nimport bounded.envs.craft\nfrom . import rules\n"
    modules = imported_modules(source, "bounded.stores")
    assert {"bounded.envs", "bounded.envs.spire", "bounded.envs.craft"} <= modules
    assert "bounded.stores.rules" in modules
    assert package_of(SOURCE / "contracts" / "typed" / "contract.py") == "bounded.contracts.typed"
