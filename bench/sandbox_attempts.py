"""Hostile sandbox attempts against the workbench, under its default limits: what each does now.

Usage: python bench/sandbox_attempts.py [--episode-seconds 600] [--out PATH] [--attempts N]
Runs each attempt of issue 16 on a fresh `count_files` episode (FIFO answers, 5 GB to
one file and to many, filling /tmp, writing / and /dev, 8 x `sleep 600` in one turn,
`sleep 600` every turn until the episode's time budget ends it, SIGTERM to the host
mid-command), prints one row per attempt and writes bench/results/sandbox_attempts.json.
The episode attempt takes as long as `--episode-seconds` (the default budget: 10 minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
from bounded.core import Action
from bounded.envs.workbench import WorkbenchEnv
from bounded.envs.workbench.files import usage

RESULTS = Path(__file__).parent / "results"
GiB = 1 << 30


def shell(command: str) -> Action:
    return Action(id="exec_shell", args={"command": command})


def free_disk() -> int:
    info = os.statvfs(tempfile.gettempdir())
    return info.f_bavail * info.f_frsize


def attempt(name: str, actions: list[Action], **settings: Any) -> dict[str, Any]:
    """One turn of `actions` on a fresh episode; what came back, how long, what the host kept."""
    env = WorkbenchEnv("count_files", **settings)
    try:
        env.reset(seed=0)
        free = free_disk()
        started = time.monotonic()
        obs, _, terminated, truncated, info = env.step(actions)
        seconds = time.monotonic() - started
        used, _ = usage(env.workdir)
        outputs = [r["output"] for r in obs.state["results"]]
        return {
            "attempt": name,
            "seconds": round(seconds, 2),
            "ended": bool(terminated or truncated),
            "stop_reason": info.get("stop_reason", ""),
            "refused": info["refused"],
            "task_dir_mib": round(used / (1 << 20), 1),
            "host_disk_delta_mib": round((free - free_disk()) / (1 << 20), 1),
            "outputs": [text[-300:] for text in outputs],
        }
    finally:
        env.close()


def fifo_in_directory() -> dict[str, Any]:
    """A FIFO already in the task directory (as the old sandbox let one persist)."""
    env = WorkbenchEnv("count_files")
    try:
        env.reset(seed=0)
        os.mkfifo(env.workdir / "answer.txt")
        started = time.monotonic()
        obs, _, terminated, _, _ = env.step(
            [
                Action(id="read_file", args={"path": "answer.txt"}),
                Action(id="write_file", args={"path": "answer.txt", "content": "3"}),
                Action(id="finish", args={"answer": "3"}),
            ]
        )
        return {
            "attempt": "FIFO in the directory, read_file + write_file + finish",
            "seconds": round(time.monotonic() - started, 2),
            "ended": terminated,
            "refused": env.refusals,
            "outputs": [r["output"][-200:] for r in obs.state["results"]],
        }
    finally:
        env.close()


def episode_budget(seconds: float) -> dict[str, Any]:
    env = WorkbenchEnv("count_files", episode_seconds=seconds, max_turns=10_000)
    try:
        env.reset(seed=0)
        started = time.monotonic()
        truncated = False
        while not truncated:
            _, _, _, truncated, info = env.step([shell("sleep 600")] * 8)
        return {
            "attempt": f"8 x sleep 600 every turn, episode budget {seconds:g} s",
            "seconds": round(time.monotonic() - started, 2),
            "turns": env.turn,
            "stop_reason": info["stop_reason"],
            "ended_by": env.outcome().ended_by,
        }
    finally:
        env.close()


HOST = """
from bounded.envs.workbench import WorkbenchEnv
env = WorkbenchEnv("count_files")
env.reset(seed=0)
print(env.workdir.parent, flush=True)
env.exec_shell("sleep 600.5")
"""


def sigterm_mid_command() -> dict[str, Any]:
    host = subprocess.Popen([sys.executable, "-c", HOST], stdout=subprocess.PIPE, text=True)
    assert host.stdout is not None
    episode_dir = Path(host.stdout.readline().strip())
    time.sleep(1.0)
    started = time.monotonic()
    host.send_signal(signal.SIGTERM)
    host.wait(timeout=30)
    seconds = time.monotonic() - started
    time.sleep(0.5)
    return {
        "attempt": "SIGTERM to the host mid-command",
        "seconds": round(seconds, 2),
        "exit_code": host.returncode,
        "task_dir_left": episode_dir.exists(),
        "sandbox_processes_left": sum(
            "sleep 600.5" in _cmdline(p) for p in Path("/proc").iterdir() if p.name.isdigit()
        ),
    }


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def attempts(episode_seconds: float) -> list[Callable[[], dict[str, Any]]]:
    five_gb_many = "for i in $(seq 1 5120); do head -c 1M /dev/zero > f$i.bin || break; done"
    return [
        lambda: attempt("mkfifo answer.txt, then finish", [shell("mkfifo answer.txt"), finish()]),
        fifo_in_directory,
        lambda: attempt("5 GB to one file", [shell("head -c 5G /dev/zero > big.bin")]),
        lambda: attempt("5 GB as 1 MiB files", [shell(five_gb_many)]),
        lambda: attempt("5 GB to /tmp", [shell("head -c 5G /dev/zero > /tmp/fill; df -k /tmp")]),
        lambda: attempt(
            "write /, /dev, /dev/shm", [shell("touch /x; touch /dev/x; touch /dev/shm/x")]
        ),
        lambda: attempt("8 x sleep 600 in one turn", [shell("sleep 600")] * 8),
        sigterm_mid_command,
        lambda: episode_budget(episode_seconds),
    ]


def finish() -> Action:
    return Action(id="finish", args={"answer": "3"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episode-seconds", type=float, default=600.0)
    parser.add_argument("--out", type=Path, default=RESULTS / "sandbox_attempts.json")
    parser.add_argument(
        "--attempts", type=int, default=None, help="only the first N attempts (a quick check)"
    )
    args = parser.parse_args()
    started_at = provenance()
    rows = []
    for run in attempts(args.episode_seconds)[: args.attempts]:
        row = run()
        print(json.dumps(row), flush=True)
        rows.append(row)
        write_result(args.out, {"rows": rows}, started_at)


if __name__ == "__main__":
    main()
