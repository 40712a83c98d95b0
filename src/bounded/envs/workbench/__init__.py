"""`bounded/Workbench-v0`: coding tasks with tools in a real sandbox, judged by strict oracles."""

from bounded.envs.workbench.engine import WorkbenchEnv
from bounded.envs.workbench.expert import WorkbenchExpert, expert_model
from bounded.envs.workbench.sandbox import (
    ExecResult,
    Sandbox,
    SandboxError,
    SandboxLimits,
    SandboxUnavailable,
    sandbox_available,
)
from bounded.envs.workbench.suite import SuiteRow, format_table, run_suite
from bounded.envs.workbench.tasks import OracleVerdict, Task, load_task, select_tasks, task_names

__all__ = [
    "ExecResult",
    "OracleVerdict",
    "Sandbox",
    "SandboxError",
    "SandboxLimits",
    "SandboxUnavailable",
    "SuiteRow",
    "Task",
    "WorkbenchEnv",
    "WorkbenchExpert",
    "expert_model",
    "format_table",
    "load_task",
    "run_suite",
    "sandbox_available",
    "select_tasks",
    "task_names",
]
