"""Workbench tasks: directory templates with a statement, an oracle and two reference solutions.

A task lives in `tasks/<name>/`:

- `task.toml`: `title`, `skill` (what it exercises), `statement` (shown to the agent),
  and optionally `[limits]` (overrides of `SandboxLimits`);
- `files/`: the template copied into a fresh directory for every episode;
- `prepare.py.txt` (optional): run in the sandbox on the fresh copy to build derived
  inputs (a git repository, a SQLite database, binary samples, large generated files);
- `oracle.py.txt`: run in the sandbox with the finished directory mounted read-only at
  `/work`; its last output line is `PASS: reason` or `FAIL: reason`;
- `solutions/good.json` and `solutions/bad.json`: tool calls that solve the task and
  that fail it, which prove the oracle both ways. A `write_file` call may take its
  content from a file next to them with `"content_file": "name"`.

Python files are stored as `*.py.txt` so that the package's linters, type checker and
module discovery leave them alone; copying strips the `.txt`.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from functools import cache
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from bounded.core import JSON, Action, ConfigError
from bounded.envs.workbench.sandbox import Sandbox, SandboxLimits

PY_SUFFIX = ".py.txt"
ORACLE_MOUNT = "/oracle"
SETUP_MOUNT = "/setup"


class Task(BaseModel):
    """One workbench task, as read from its `task.toml`."""

    model_config = ConfigDict(frozen=True)

    name: str
    """Directory name under `tasks/`; the id used on the command line."""
    title: str
    """A short human title."""
    skill: str
    """What the task exercises (shown in tables and docs)."""
    statement: str
    """What the agent is asked to do."""
    limits: JSON = Field(default_factory=dict)
    """Overrides of the sandbox limits for this task."""
    root: Path
    """The task's directory in the installed package."""

    def sandbox_limits(self, base: SandboxLimits) -> SandboxLimits:
        return base.model_copy(update=self.limits)

    def solution(self, which: str = "good") -> list[Action]:
        """The reference tool calls (`good` or `bad`), `content_file`s resolved."""
        folder = self.root / "solutions"
        spec = json.loads((folder / f"{which}.json").read_text())
        calls = []
        for call in spec["calls"]:
            args = dict(call.get("args", {}))
            if "content_file" in args:
                args["content"] = (folder / args.pop("content_file")).read_text()
            calls.append(Action(id=call["id"], args=args))
        return calls


def tasks_root() -> Path:
    return Path(str(resources.files("bounded.envs.workbench") / "tasks"))


@cache
def task_names() -> tuple[str, ...]:
    """Every task in the suite, sorted by name."""
    root = tasks_root()
    return tuple(sorted(p.name for p in root.iterdir() if (p / "task.toml").is_file()))


@cache
def load_task(name: str) -> Task:
    if name not in task_names():
        raise ConfigError(f"unknown workbench task {name!r} (known: {', '.join(task_names())})")
    root = tasks_root() / name
    data = tomllib.loads((root / "task.toml").read_text())
    return Task(name=name, root=root, **data)


def select_tasks(spec: str) -> list[str]:
    """`all`, one name, or a comma-separated list of names."""
    if spec in ("", "all"):
        return list(task_names())
    names = [part.strip() for part in spec.split(",") if part.strip()]
    for name in names:
        load_task(name)
    return names


def copy_template(source: Path, destination: Path) -> None:
    """Copy a template tree, turning `*.py.txt` into `*.py` (and keeping modes)."""
    destination.mkdir(parents=True, exist_ok=True)
    for item in sorted(source.iterdir()):
        name = item.name[: -len(".txt")] if item.name.endswith(PY_SUFFIX) else item.name
        if item.is_dir():
            copy_template(item, destination / name)
        else:
            shutil.copy2(item, destination / name)


class OracleVerdict(BaseModel):
    """What an oracle said about a finished directory."""

    passed: bool
    reason: str
    output: str = ""
    """The oracle's whole (capped) output, for debugging a verdict."""


def hidden_files(task: Task, destination: Path) -> None:
    """The files only the set-up and the oracle see: scripts and the shared oracle helpers."""
    destination.mkdir(parents=True, exist_ok=True)
    shared = tasks_root() / "oracle_lib.py.txt"
    shutil.copy2(shared, destination / "oracle_lib.py")
    for script in ("prepare", "oracle"):
        source = task.root / f"{script}{PY_SUFFIX}"
        if source.is_file():
            shutil.copy2(source, destination / f"{script}.py")
    extra = task.root / "hidden"
    if extra.is_dir():
        copy_template(extra, destination / "hidden")


def prepare(task: Task, sandbox: Sandbox, hidden: Path) -> None:
    """Build derived inputs in the fresh copy; a failing set-up is a bug in the task."""
    if not (hidden / "prepare.py").is_file():
        return
    result = sandbox.run(
        ["python3", "-E", "-s", f"{SETUP_MOUNT}/prepare.py"], binds=[(hidden, SETUP_MOUNT)]
    )
    if result.exit_code != 0:
        raise RuntimeError(f"task {task.name}: prepare failed: {result.output[-2000:]}")


def judge(sandbox: Sandbox, hidden: Path) -> OracleVerdict:
    """Run the oracle over the directory (mounted read-only) and read its last line."""
    result = sandbox.run(
        ["python3", "-E", "-s", f"{ORACLE_MOUNT}/oracle.py"],
        writable=False,
        binds=[(hidden, ORACLE_MOUNT)],
    )
    lines = [line for line in result.output.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    if result.timed_out:
        return OracleVerdict(passed=False, reason="oracle timed out", output=result.output)
    if last.startswith("PASS:"):
        return OracleVerdict(passed=True, reason=last[5:].strip(), output=result.output)
    if last.startswith("FAIL:"):
        return OracleVerdict(passed=False, reason=last[5:].strip(), output=result.output)
    reason = f"oracle gave no verdict (exit {result.exit_code}): {last[-300:]}"
    return OracleVerdict(passed=False, reason=reason, output=result.output)
