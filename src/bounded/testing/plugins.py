"""An out-of-tree plugin package installed for a test: pip puts it (with its entry points)
into a directory of its own, and `bounded` runs in a process with that directory first on
`PYTHONPATH`, as a user's installed plugin would be found."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

BOUNDED = Path(sys.executable).with_name("bounded")
"""The `bounded` command of the running interpreter's environment."""


def install_plugin(source: Path, target: Path) -> Path:
    """Install the plugin package at `source` into `target` (no dependencies, no build
    isolation: nothing is fetched) and return `target`."""
    subprocess.run(
        [
            sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
            "--no-build-isolation", "--target", str(target), str(source),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return target


def run_with_plugin(
    plugin_path: Path, *args: str, cwd: Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`bounded ARGS` in `cwd` with the installed plugin on `PYTHONPATH` (and `env` over the
    inherited environment)."""
    path = os.pathsep.join(filter(None, [str(plugin_path), os.environ.get("PYTHONPATH")]))
    return subprocess.run(
        [str(BOUNDED), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {}), "PYTHONPATH": path},
        cwd=cwd,
        timeout=300,
    )
