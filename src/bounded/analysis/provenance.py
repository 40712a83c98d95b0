"""Where a measurement comes from: the commit, the command, the date and the machine's load.

A figure measured on a shared machine means little without the load it was measured
under, and a figure without its commit cannot be checked against the code that made it.
Every benchmark that writes a data file records `provenance(...)` at its start and
`finished(...)` at its end.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

from bounded.core import JSON


def _git(*args: str) -> str:
    try:
        done = subprocess.run(
            ["git", *args], capture_output=True, text=True, check=False, timeout=10,
            cwd=Path(__file__).parent,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages, rounded."""
    return [round(x, 2) for x in os.getloadavg()]


KINDS = ("measured", "floor", "estimate")
"""What a file's figures are: measured, a lower bound, or an estimate."""


def provenance(kind: str = "measured", note: str = "") -> JSON:
    """The start of a measurement: commit (with `dirty` when the tree has changes), the
    command as run, the UTC date, CPU count and load. `kind` says what the figures are
    (one of `KINDS`); `note` says which of them, when only some are floors or estimates."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r} (use {', '.join(KINDS)})")
    commit = _git("rev-parse", "HEAD")
    return {
        "commit": commit,
        "dirty": bool(_git("status", "--porcelain", "--untracked-files=no")) if commit else None,
        "command": " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "load_start": load_average(),
        "kind": kind,
        **({"note": note} if note else {}),
    }


def finished(started: JSON) -> JSON:
    """The provenance with the load at the end added."""
    return {**started, "load_end": load_average()}


def write_result(path: str | Path, result: JSON, started: JSON, *, indent: int = 2) -> Path:
    """Write a benchmark's result as JSON with its provenance (`started`, finished now)
    first; the folder is made when missing."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    payload = {"provenance": finished(started), **result}
    target.write_text(json.dumps(payload, indent=indent) + "\n")
    return target


__all__ = ["KINDS", "finished", "load_average", "provenance", "write_result"]
