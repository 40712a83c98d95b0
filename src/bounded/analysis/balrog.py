"""BALROG's protocol on a bounded archive: its table and its results folder.

`balrog_summary` computes what BALROG's `collect_and_summarize_results` computes
(`balrog/utils.py`), per agent (a run's tag): each environment's mean progression over
its episodes and the standard error `sqrt(sum (x - mean)^2 / n) / sqrt(n)` (the
population deviation; 0 for one episode), per task likewise, the average over the
environments of their means, and its standard error `sqrt(sum se_env^2) / n_envs`; all
in percent. `write_results` lays the runs out as BALROG's results folder: one JSON per
episode under `<agent>/<env>/<task>/`, `<env>_summary.json` per environment and
`summary.json` per agent.

Environment names are BALROG's (`nle`, `minihack`, `babyai`, `crafter`, `textworld`),
from each environment's record (`bounded.env_records`, its `balrog`); a run's task is its
environment's `task` or `level`, else the record's default task (Crafter's `default`,
NetHack's `NetHackChallenge-v0`).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bounded.analysis.parity import ParityReport, parity_of_runs
from bounded.core import JSON, ConfigError, RunRecord
from bounded.env_records import BalrogTasks, env_record


def balrog_tasks(env_id: str) -> BalrogTasks | None:
    """Where an environment (a Gymnasium id) stands in BALROG, from its record; None for
    one outside BALROG."""
    record = env_record(env_id)
    return record.balrog if record is not None else None


def balrog_env(run: RunRecord) -> str:
    """BALROG's name of a BALROG run's environment."""
    found = balrog_tasks(run.env_id)
    if found is None:
        raise ConfigError(f"run {run.run_id[:12]}: {run.env_id} is not a BALROG environment")
    return found.env


def run_task(run: RunRecord) -> str:
    """The BALROG task of a run."""
    task = run.outcome.get("task") or run.outcome.get("level")
    found = balrog_tasks(run.env_id)
    return str(task) if task else (found.default_task if found else "default")


def mean_and_error(values: list[float]) -> tuple[float, float]:
    """BALROG's mean and standard error (population deviation over sqrt(n))."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0
    mean = sum(values) / n
    if n == 1:
        return mean, 0.0
    deviation = math.sqrt(sum((x - mean) ** 2 for x in values) / n)
    return mean, deviation / math.sqrt(n)


def _progression(run: RunRecord) -> float:
    value = run.outcome.get("progress", run.outcome.get("progression"))
    return float(value) if isinstance(value, int | float) else 0.0


def balrog_runs(runs: Iterable[RunRecord]) -> list[RunRecord]:
    """The completed runs of BALROG's environments."""
    return [r for r in runs if r.status == "completed" and balrog_tasks(r.env_id) is not None]


def env_summary(runs: list[RunRecord]) -> JSON:
    """One environment's summary, as BALROG's `<env>_summary.json`."""
    mean, error = mean_and_error([_progression(r) for r in runs])
    tasks: dict[str, list[RunRecord]] = defaultdict(list)
    for run in runs:
        tasks[run_task(run)].append(run)
    task_summaries = {}
    for task, task_runs in sorted(tasks.items()):
        task_mean, task_error = mean_and_error([_progression(r) for r in task_runs])
        task_summaries[task] = {
            "progression_percentage": 100 * task_mean,
            "standard_error": 100 * task_error,
            "episodes_played": len(task_runs),
        }
    return {
        "progression_percentage": 100 * mean,
        "standard_error": 100 * error,
        "average_steps": sum(r.decisions for r in runs) / len(runs) if runs else 0.0,
        "episodes_played": len(runs),
        "tasks": task_summaries,
        "input_tokens": sum(r.prompt_tokens for r in runs),
        "output_tokens": sum(r.completion_tokens for r in runs),
    }


def agent_summary(runs: list[RunRecord]) -> JSON:
    """One agent's summary over its environments, as BALROG's `summary.json`."""
    by_env: dict[str, list[RunRecord]] = defaultdict(list)
    for run in runs:
        by_env[balrog_env(run)].append(run)
    envs = {name: env_summary(env_runs) for name, env_runs in sorted(by_env.items())}
    means = [e["progression_percentage"] for e in envs.values()]
    errors = [e["standard_error"] for e in envs.values()]
    count = len(envs)
    first = runs[0] if runs else None
    return {
        "average_progress": sum(means) / count if count else 0.0,
        "standard_error": math.sqrt(sum(se**2 for se in errors)) / count if count else 0.0,
        "environments": {
            name: {k: e[k] for k in ("progression_percentage", "standard_error", "episodes_played")}
            for name, e in envs.items()
        },
        "environment_details": envs,
        "total_input_tokens": sum(r.prompt_tokens for r in runs),
        "total_output_tokens": sum(r.completion_tokens for r in runs),
        "client": {"model_id": first.model} if first else None,
        "agent": {"type": first.contract, "tag": first.tag} if first else None,
    }


def agent_name(run: RunRecord) -> str:
    return run.tag or run.contract


def balrog_summary(runs: Iterable[RunRecord]) -> dict[str, JSON]:
    """Agent (a run's tag) -> its BALROG summary."""
    by_agent: dict[str, list[RunRecord]] = defaultdict(list)
    for run in balrog_runs(runs):
        by_agent[agent_name(run)].append(run)
    return {agent: agent_summary(agent_runs) for agent, agent_runs in sorted(by_agent.items())}


def balrog_table_rows(summaries: dict[str, JSON]) -> list[list[str]]:
    """Rows of BALROG's table: agent, each environment's mean +- error, the average."""
    envs = sorted({env for s in summaries.values() for env in s["environments"]})
    rows = [["agent", *envs, "average"]]
    for agent, summary in summaries.items():
        cells = []
        for env in envs:
            data = summary["environments"].get(env)
            cells.append(
                f"{data['progression_percentage']:.1f} ± {data['standard_error']:.1f} "
                f"(n={data['episodes_played']})"
                if data
                else "—"
            )
        average = f"{summary['average_progress']:.1f} ± {summary['standard_error']:.1f}"
        rows.append([agent, *cells, average])
    return rows


def balrog_parity(runs: Iterable[RunRecord]) -> ParityReport:
    """The parity report of the agents (run tags), compared within each environment."""
    cells: dict[tuple[str, str], list[RunRecord]] = defaultdict(list)
    for run in balrog_runs(runs):
        cells[(agent_name(run), balrog_env(run))].append(run)
    return parity_of_runs(
        (agent, {"env": env}, found) for (agent, env), found in sorted(cells.items())
    )


def episode_log(run: RunRecord, index: int) -> JSON:
    """One episode in the shape of BALROG's `<task>_run_XX.json`."""
    outcome: dict[str, Any] = dict(run.outcome)
    return {
        "task": run_task(run),
        "input_tokens": run.prompt_tokens,
        "output_tokens": run.completion_tokens,
        "done": outcome.get("ended_by") not in (None, "running"),
        "episode_return": float(outcome.get("reward", outcome.get("score", 0.0)) or 0.0),
        "num_steps": run.decisions,
        "progression": _progression(run),
        "seed": run.seed,
        "agent": {"type": run.contract, "tag": run.tag, **run.contract_config},
        "client": {"model_id": run.model},
        "end_reason": outcome.get("ended_by"),
        "bounded_run_id": run.run_id,
        "episode_index": index,
    }


def write_results(runs: Iterable[RunRecord], out: str | Path) -> list[Path]:
    """BALROG's results folder, one per agent: `out/<agent>/<env>/<task>/<task>_run_XX.json`,
    `out/<agent>/<env>/<env>_summary.json` and `out/<agent>/summary.json`."""
    root = Path(out)
    written: list[Path] = []
    chosen = balrog_runs(runs)
    summaries = balrog_summary(chosen)
    counters: dict[tuple[str, str, str], int] = defaultdict(int)
    for run in sorted(chosen, key=lambda r: (agent_name(r), r.env_id, run_task(r), r.seed)):
        env, task = balrog_env(run), run_task(run)
        key = (agent_name(run), env, task)
        index = counters[key]
        counters[key] += 1
        safe_task = task.replace("/", "_")
        path = root / key[0] / env / safe_task / f"{safe_task}_run_{index:02d}.json"
        written.append(_write(path, episode_log(run, index)))
    for agent, summary in summaries.items():
        for env, details in summary["environment_details"].items():
            written.append(_write(root / agent / env / f"{env}_summary.json", details))
        top = {k: v for k, v in summary.items() if k != "environment_details"}
        written.append(_write(root / agent / "summary.json", top))
    return written


def _write(path: Path, data: JSON) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=4) + "\n")
    return path


__all__ = [
    "agent_summary",
    "balrog_env",
    "balrog_parity",
    "balrog_summary",
    "balrog_table_rows",
    "balrog_tasks",
    "env_summary",
    "mean_and_error",
    "run_task",
    "write_results",
]
