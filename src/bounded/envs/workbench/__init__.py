"""`bounded/Workbench-v0`: coding tasks with tools in a real sandbox, judged by strict oracles."""

from bounded.envs.workbench.engine import REPLY_TOKENS, WorkbenchEnv
from bounded.envs.workbench.expert import WorkbenchExpert, expert_replies
from bounded.envs.workbench.sandbox import (
    ExecResult,
    Sandbox,
    SandboxError,
    SandboxLimits,
    SandboxUnavailable,
    sandbox_available,
)
from bounded.envs.workbench.tasks import OracleVerdict, Task, load_task, select_tasks, task_names

__all__ = [
    "REPLY_TOKENS",
    "ExecResult",
    "OracleVerdict",
    "Sandbox",
    "SandboxError",
    "SandboxLimits",
    "SandboxUnavailable",
    "Task",
    "WorkbenchEnv",
    "WorkbenchExpert",
    "expert_replies",
    "load_task",
    "sandbox_available",
    "select_tasks",
    "task_names",
]
