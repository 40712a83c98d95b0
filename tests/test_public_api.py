"""The public face: `bounded.__all__` is exactly the list docs/extending.md documents,
every name in it imports, internals are not public from the top level, and `import
bounded` loads none of the heavy packages until a name is used."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import bounded

EXTENDING = Path(__file__).parents[1] / "docs" / "extending.md"


def documented_names() -> list[str]:
    section = EXTENDING.read_text().split("## The public names", 1)[1]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "`" in line]
    return [name for row in rows for name in re.findall(r"`([\w]+)`", row.split("|")[2])]


def test_all_is_exactly_the_documented_list() -> None:
    documented = documented_names()
    assert len(documented) == len(set(documented))
    assert sorted(bounded.__all__) == sorted(documented)


def test_every_public_name_imports() -> None:
    namespace: dict[str, object] = {}
    exec("from bounded import *", namespace)
    assert all(namespace[name] is getattr(bounded, name) for name in bounded.__all__)
    from bounded.contracts import Preset
    from bounded.envs.base import Choices

    assert (bounded.Preset, bounded.Choices) == (Preset, Choices)


def test_internals_stay_in_their_modules() -> None:
    from bounded.contracts.base import ContractWrapper
    from bounded.core import FORMAT_VERSION

    assert ContractWrapper and FORMAT_VERSION
    for internal in ("ContractWrapper", "FORMAT_VERSION", "Segment"):
        assert internal not in bounded.__all__ and not hasattr(bounded, internal)


def test_import_bounded_loads_no_runner_contracts_or_archive() -> None:
    code = (
        "import sys, bounded, gymnasium; "
        "print(sorted(m for m in ('bounded.runner', 'bounded.contracts', 'bounded.archive', "
        "'bounded.sweeps') if m in sys.modules)); "
        "gymnasium.make('bounded/Warehouse-v0', horizon=3)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
