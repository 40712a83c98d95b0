"""The README's first command, timed from a fresh clone: `scripts/install.sh &&
.venv/bin/bounded demo`, each part's seconds, the demo's output and the prompt tokens of
each decision its two games made (read from the clone's archive).

    python bench/quickstart_demo.py --out bench/results/quickstart_demo.json

The clone is of this repository's HEAD (commit what you measure), into a temporary
folder; the install reuses the llama.cpp wheel in `~/.cache/bounded/wheels` when there is
one (the first install builds it, about 4-7 minutes on 2 cores: `wheel_cached` says which).
The demo's output goes to `--log` beside the JSON. The load average is recorded before and
after: on a shared machine the seconds are an upper bound.

    python bench/quickstart_demo.py --add-first-install /work/main/.venv

adds to the existing `--out` file the times of a first install that built the wheel
(`scripts/install.sh --test` there), read from file times: the venv's creation, the
wheel's and the `bounded` console script's writing.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import resource
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results" / "quickstart_demo.json"


def timed(command: str, cwd: Path, log: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, of every child process) of one command: on a
    shared machine the CPU seconds say what an idle one would take better than the wall."""
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with log.open("a") as out:
        out.write(f"$ {command}\n")
        out.flush()
        subprocess.run(command, shell=True, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                       check=True, env={**os.environ, "COLUMNS": "100"})  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return round(time.perf_counter() - started, 1), round(cpu, 1)


def games(archive: Path) -> list[dict[str, Any]]:
    """Each run's contract, decisions, wall seconds and prompt tokens per decision."""
    db = sqlite3.connect(archive)
    rows = []
    for run, contract, decisions, wall in db.execute(
        "SELECT id, contract, decisions, wall_s FROM runs ORDER BY started_at"
    ):
        query = "SELECT prompt_tokens FROM decisions WHERE run = ? ORDER BY idx"
        prompts = [tokens for (tokens,) in db.execute(query, (run,))]
        rows.append({"contract": contract, "decisions": decisions, "wall_s": round(wall, 1),
                     "prompt_tokens": prompts})  # fmt: skip
    return rows


def birth(path: Path) -> float:
    """A file's creation time (its change time where the file system keeps none)."""
    done = subprocess.run(["stat", "-c", "%W %Z", str(path)], capture_output=True, text=True,
                          check=True)  # fmt: skip
    born, changed = (float(x) for x in done.stdout.split())
    return born if born > 0 else changed


def first_install(venv: Path, wheels: Path) -> dict[str, Any]:
    """Seconds from the venv's creation to the wheel built and to `bounded` installed."""
    created = birth(venv / "bin" / "python")
    (wheel,) = sorted(wheels.glob("llama_cpp_python-*.whl"))[-1:]
    built = wheel.stat().st_mtime
    installed = (venv / "bin" / "bounded").stat().st_mtime
    return {"venv": str(venv), "wheel_built_s": round(built - created, 1),
            "installed_s": round(installed - created, 1)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--log", type=Path, default=None)
    parser.add_argument("--add-first-install", type=Path, default=None, metavar="VENV")
    args = parser.parse_args()
    wheels = Path(os.environ.get("BOUNDED_WHEEL_CACHE", Path.home() / ".cache/bounded/wheels"))
    if args.add_first_install is not None:
        data = json.loads(args.out.read_text())
        data["first_install"] = first_install(args.add_first_install, wheels)
        args.out.write_text(json.dumps(data, indent=2) + "\n")
        return
    log = args.log or args.out.with_suffix(".log")
    log.write_text("")
    cached = bool(glob.glob(str(wheels / "llama_cpp_python-*.whl")))
    started_at = provenance(note="seconds under the load recorded: upper bounds")
    with tempfile.TemporaryDirectory() as folder:
        clone = Path(folder) / "bounded"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        install_s, install_cpu_s = timed("scripts/install.sh", clone, log)
        demo_s, demo_cpu_s = timed(".venv/bin/bounded demo", clone, log)
        played = games(clone / "runs" / "bounded.sqlite")
    result = {"install_s": install_s, "demo_s": demo_s, "total_s": round(install_s + demo_s, 1),
              "install_cpu_s": install_cpu_s, "demo_cpu_s": demo_cpu_s,
              "wheel_cached": cached, "games": played, "log": log.name}  # fmt: skip
    write_result(args.out, result, started_at)


if __name__ == "__main__":
    main()
