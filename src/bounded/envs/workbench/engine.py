"""`bounded/Workbench-v0`: coding tasks in a sandboxed directory, judged by strict oracles.

Every episode copies the task's template into a fresh directory; the agent works on
it with `read_file`, `write_file`, `str_replace`, `exec_shell` and `finish`, one or
several calls per turn; when it finishes (or runs out of turns) the task's oracle
judges the directory. Reward is 1 for a pass, 0 otherwise.
"""

from __future__ import annotations

import base64
import os
import shutil
import stat
import tempfile
import weakref
from pathlib import Path
from typing import Any

from bounded.core import JSON, Outcome
from bounded.envs.tools import FINISH, Tool, ToolEnv, ToolError
from bounded.envs.workbench.sandbox import Sandbox, SandboxError, SandboxLimits
from bounded.envs.workbench.tasks import (
    OracleVerdict,
    Task,
    copy_template,
    hidden_files,
    judge,
    load_task,
    prepare,
)

ENV_VERSION = "1"

ANSWER_FILE = "answer.txt"

WORKBENCH_RULES = """\
You work in a task directory, which is your current directory (`/work` inside the shell).
Paths are relative to it; nothing outside it can be read or written. `exec_shell` runs
/bin/sh there with no network, a timeout and capped output. Tasks that ask for an
answer want it in `answer.txt` (or as `finish`'s answer, which is written there)."""

READ_LIMIT_LINES = 400

TURN_SECONDS = 60.0
"""Default wall-clock budget of one turn's tool calls (all commands of the turn together)."""
EPISODE_SECONDS = 600.0
"""Default wall-clock budget of all the tool calls of an episode."""

SHORTEST_COMMAND_S = 0.1
"""The least timeout a command gets when a budget is nearly spent."""

STATE_SCHEMA: JSON = {
    "type": "object",
    "properties": {
        "plan": {"type": "string"},
        "findings": {"type": "array", "items": {"type": "string"}, "maxItems": 12},
        "next": {"type": "string"},
    },
}
"""The state shape suggested to the `state` contract. Typed keys keep a constrained
decoder from wandering into an open-ended patch object (small models otherwise fill
`state_patch` until the token limit); the contract's own `state_schema` overrides it."""


def _schema(properties: JSON, required: list[str]) -> JSON:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


REPLY_TOKENS = 2048
"""The reply token limit a workbench turn wants: a turn writes files and commands, not one
action (the suite and inspect's workbench task use it)."""


class WorkbenchEnv(ToolEnv):
    """`bounded/Workbench-v0`: one task per episode (`task=`, or `options={"task": ...}`).

    Outcome: `victory` when the task's oracle passed the directory (as
    `metrics()["victory"]`); `score` and `progress` 1 then, else 0 (the oracle gives no
    partial credit); `ended_by` `victory`, `defeat` (finished, and the oracle failed it),
    `truncated` (the turns ran out and the oracle failed it) or `running`.
    """

    version = ENV_VERSION
    refusals_from = (SandboxError,)

    def __init__(
        self,
        task: str = "count_files",
        multi_action: bool = True,
        max_turns: int = 25,
        max_actions: int = 8,
        result_chars: int = 4000,
        limits: SandboxLimits | JSON | None = None,
        turn_seconds: float | None = TURN_SECONDS,
        episode_seconds: float | None = EPISODE_SECONDS,
    ) -> None:
        self.task_def: Task = load_task(task)
        self.base_limits = SandboxLimits.model_validate(limits or {})
        self.episode_dir: Path | None = None
        self.sandbox: Sandbox | None = None
        self.verdict: OracleVerdict | None = None
        super().__init__(
            self.task_def.statement.strip(),
            self._file_tools(),
            multi_action=multi_action,
            max_turns=max_turns,
            max_actions=max_actions,
            result_chars=result_chars,
            turn_seconds=turn_seconds,
            episode_seconds=episode_seconds,
        )
        self.state_schema = STATE_SCHEMA

    def describe(self) -> str:
        return f"{super().describe()}\n\n{WORKBENCH_RULES}"

    # -- episode life cycle ------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        if options and options.get("task"):
            self.task_def = load_task(str(options["task"]))
            self.task = self.task_def.statement.strip()
        self._materialize()
        obs, info = super().reset(seed=seed, options=options)
        info["task"] = self.task_def.name
        return obs, info

    def _materialize(self) -> None:
        self.close()
        self.verdict = None
        self.episode_dir = Path(tempfile.mkdtemp(prefix=f"workbench-{self.task_def.name}-"))
        os.chmod(self.episode_dir, 0o755)
        # Removed on close(), or when the environment is garbage-collected or the process exits.
        self._cleanup = weakref.finalize(self, shutil.rmtree, self.episode_dir, True)
        work = self.episode_dir / "work"
        copy_template(self.task_def.root / "files", work)
        hidden = self.episode_dir / "hidden"
        hidden_files(self.task_def, hidden)
        self.sandbox = Sandbox(work, self.task_def.sandbox_limits(self.base_limits))
        self.sandbox.hand_over_tree()
        prepare(self.task_def, self.sandbox, hidden)

    def close(self) -> None:
        if self.episode_dir is not None:
            self._cleanup()
            self.episode_dir = None
            self.sandbox = None

    def on_end(self) -> float:
        box = self._box()
        if self.answer:
            try:
                box.write_text(ANSWER_FILE, self.answer.strip() + "\n")
            except SandboxError:
                self.refusals += 1  # e.g. answer.txt made a symlink out: the oracle judges as is
        self.verdict = judge(box, box.root.parent / "hidden")
        return 1.0 if self.verdict.passed else 0.0

    def opening(self) -> str:
        listing = self._box().run(
            "find . -maxdepth 2 -not -path '*/.git/*' | sort | head -60", writable=False
        )
        return "No tool has run yet. The task directory holds:\n" + listing.output

    @property
    def workdir(self) -> Path:
        """The host path of this episode's task directory."""
        return self._box().root

    def _box(self) -> Sandbox:
        if self.sandbox is None:
            raise RuntimeError("call reset() first")
        return self.sandbox

    # -- tools ---------------------------------------------------------------------

    def _file_tools(self) -> list[Tool]:
        return [
            Tool(
                name="read_file",
                description=f"read a text file (numbered lines, at most {READ_LIMIT_LINES})",
                parameters=_schema(
                    {
                        "path": {"type": "string"},
                        "offset": {"type": "integer", "minimum": 1},
                        "limit": {"type": "integer", "minimum": 1, "maximum": READ_LIMIT_LINES},
                    },
                    ["path"],
                ),
                fn=self.read_file,
            ),
            Tool(
                name="write_file",
                description="create or overwrite a file with the given content",
                parameters=_schema(
                    {"path": {"type": "string"}, "content": {"type": "string"}},
                    ["path", "content"],
                ),
                fn=self.write_file,
            ),
            Tool(
                name="str_replace",
                description="replace one exact, unique occurrence of `old` by `new` in a file",
                parameters=_schema(
                    {
                        "path": {"type": "string"},
                        "old": {"type": "string"},
                        "new": {"type": "string"},
                    },
                    ["path", "old", "new"],
                ),
                fn=self.str_replace,
            ),
            Tool(
                name="exec_shell",
                description="run a shell command in the task directory (sandboxed)",
                parameters=_schema({"command": {"type": "string"}}, ["command"]),
                fn=self.exec_shell,
            ),
        ]

    def read_file(self, path: str, offset: int = 1, limit: int = 200) -> str:
        text = self._box().read_text(path, max_chars=self.config.result_chars * 50)
        lines = text.splitlines()
        chosen = lines[offset - 1 : offset - 1 + limit]
        body = "\n".join(f"{offset + i:>5}| {line}" for i, line in enumerate(chosen))
        last = offset - 1 + len(chosen)
        more = (
            f"\n[lines {offset}-{last} of {len(lines)}]" if last < len(lines) or offset > 1 else ""
        )
        return (body or "[empty]") + more

    def write_file(self, path: str, content: str) -> str:
        written = self._box().write_text(path, content)
        return f"wrote {written} bytes to {path}"

    def str_replace(self, path: str, old: str, new: str) -> str:
        box = self._box()
        text = box.read_text(path, max_chars=10_000_000)
        count = text.count(old) if old else 0
        if count != 1:
            raise ToolError(f"`old` occurs {count} times in {path}; it must occur exactly once")
        box.write_text(path, text.replace(old, new, 1))
        return f"replaced 1 occurrence in {path}"

    def exec_shell(self, command: str) -> str:
        """Run a command within the command limit and what is left of the turn's and the
        episode's time budgets."""
        box = self._box()
        seconds = box.limits.timeout_s
        left = self.seconds_left()
        if left is not None:
            seconds = max(min(seconds, left), SHORTEST_COMMAND_S)
        return box.run(command, timeout_s=seconds).render()

    # -- outcome and persistence ---------------------------------------------------

    def metrics(self) -> dict[str, Any]:
        verdict = self.verdict
        return {
            **super().metrics(),
            "task": self.task_def.name,
            "passed": bool(verdict and verdict.passed),
            "victory": bool(verdict and verdict.passed),
            "verdict": verdict.reason if verdict else "",
            "multi_action": self.config.multi_action,
        }

    def outcome(self) -> Outcome:
        """See the class docstring."""
        passed = bool(self.verdict and self.verdict.passed)
        if passed:
            ended = "victory"
        elif self.stop_reason:
            ended = "defeat" if self.stop_reason == FINISH else "truncated"
        else:
            ended = "running"
        return Outcome(victory=passed, score=float(passed), progress=float(passed), ended_by=ended)

    def save(self) -> JSON:
        data = super().save()
        data["task_name"] = self.task_def.name
        data["limits"] = self.base_limits.model_dump()
        data["verdict"] = self.verdict.model_dump() if self.verdict else None
        data["files"] = self._snapshot() if self.sandbox else {}
        return data

    def load(self, data: JSON) -> None:
        self.task_def = load_task(data["task_name"])
        self.base_limits = SandboxLimits.model_validate(data["limits"])
        self._materialize()
        super().load(data)
        self.verdict = OracleVerdict.model_validate(data["verdict"]) if data["verdict"] else None
        self._restore(data["files"])

    def _snapshot(self) -> dict[str, str]:
        """Every regular file of the task directory, base64-encoded by relative path (FIFOs,
        sockets and devices are never opened)."""
        box = self._box()
        files = {}
        for folder, _, names in os.walk(box.root):
            for name in names:
                path = Path(folder) / name
                if stat.S_ISREG(os.lstat(path).st_mode):
                    relative = str(path.relative_to(box.root))
                    data = box.read_bytes(relative)
                    files[relative] = base64.b64encode(data).decode()
        return files

    def _restore(self, files: dict[str, str]) -> None:
        root = self._box().root
        shutil.rmtree(root)
        root.mkdir()
        for relative, blob in sorted(files.items()):
            target = root / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(base64.b64decode(blob))
        self._box().hand_over_tree()
