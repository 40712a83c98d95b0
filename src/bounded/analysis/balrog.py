"""BALROG's protocol on a bounded archive: its table and its results folder.

`balrog_summary` computes what BALROG's `collect_and_summarize_results` computes
(`balrog/utils.py`), per agent: the runs of one tag, model and experiment (one BALROG
results folder each; `AgentKey`). Each environment's mean progression over
its episodes and the standard error `sqrt(sum (x - mean)^2 / n) / sqrt(n)` (the
population deviation; 0 for one episode), per task likewise, the average over the
environments of their means, and its standard error `sqrt(sum se_env^2) / n_envs`; all
in percent. `write_results` lays the runs out as BALROG's results folder, one per agent
under `[<experiment>/]<tag>/<model>/`, as BALROG's evaluator writes it, so that its resume
(`EvaluatorManager`: `<env>/<task>/<task>_run_XX.json` exists) and its summariser read it:
one JSON per episode at `<env>/<task>/<task>_run_XX.json` (a task with `/` is nested
folders, as BALROG's `os.path.join` makes them) with every field BALROG's evaluator writes
(`episode_log`), `<env>_summary.json` per environment and `summary.json`.

Environment names are BALROG's (`nle`, `minihack`, `babyai`, `crafter`, `textworld`),
from each environment's record (`bounded.env_records`, its `balrog`); a run's task is its
environment's `task` or `level` under BALROG's name for it (`BalrogTasks.names`: BabyAI's
`goto` is `BabyAI-MixedTrainLocal-v0/goto`), else the record's default task (Crafter's
`default`, NetHack's `NetHackChallenge-v0`). How the agent's seeds were drawn
(`GameSpec.seed_draw`: `paired` or BALROG's `balrog`) is a column of the table and a field
of each episode's file and summary.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

from bounded.analysis.parity import ParityReport, parity_of_runs
from bounded.core import (
    FREE_TEXT_ACTION,
    INVALID_KEY,
    JSON,
    Action,
    ConfigError,
    DecisionRecord,
    RunRecord,
)
from bounded.env_records import BUILTIN_RECORDS, BalrogTasks, env_record

ENV_STATS: dict[str, tuple[str, ...]] = {
    record.balrog.env: record.balrog.stats for record in BUILTIN_RECORDS if record.balrog
}
"""Our environments' `BalrogTasks.stats` by BALROG's name: the fields of each one's
`get_stats()` that BALROG's evaluator adds to an episode's file."""

AGENT_TYPES = {
    "balrog-naive": "naive",
    "balrog-cot": "cot",
    "balrog-robust": "robust_naive",
    "balrog-robust-cot": "robust_cot",
}
"""A `balrog` run's text rule -> BALROG's `agent.type` of the agent it plays."""
DECISION_LIMIT = "decision-limit"
"""`ended_by` of a game the runner cut at its `max_decisions` (`bounded.runner.episode`):
BALROG's evaluator writes no `done` for a game its step budget cut."""
NOT_DONE = (None, "", "running", DECISION_LIMIT)

Decisions = Callable[[str], Iterable[DecisionRecord]]
"""A run id -> its decisions (`Archive.iter_decisions`, read once), for the per-action
fields."""


class AgentKey(NamedTuple):
    """What makes one agent of BALROG's table: one results folder."""

    tag: str
    model: str
    experiment: str

    @property
    def label(self) -> str:
        return " · ".join(part for part in self if part)

    @property
    def folder(self) -> Path:
        """`[<experiment>/]<tag>/<model>`, each part safe as a file name."""
        parts = [self.experiment] if self.experiment else []
        return Path(*(safe_name(part) for part in [*parts, self.tag, self.model]))


def safe_name(text: str) -> str:
    """`text` as one path component: anything but letters, digits, `.`, `-`, `_` as `_`."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", text) or "_"


def balrog_tasks(env_id: str) -> BalrogTasks | None:
    """Where an environment (a Gymnasium id) stands in BALROG, from its record; None for
    one outside BALROG."""
    record = env_record(env_id)
    return record.balrog if record is not None else None


def run_balrog(run: RunRecord) -> BalrogTasks:
    """Where a BALROG run's environment stands in BALROG; refused for any other run."""
    found = balrog_tasks(run.env_id)
    if found is None:
        raise ConfigError(f"run {run.run_id[:12]}: {run.env_id} is not a BALROG environment")
    return found


def balrog_env(run: RunRecord) -> str:
    """BALROG's name of a BALROG run's environment."""
    return run_balrog(run).env


def run_task(run: RunRecord) -> str:
    """The BALROG task of a run, under BALROG's name."""
    task = run.outcome.get("task") or run.outcome.get("level")
    found = balrog_tasks(run.env_id)
    if not task:
        return found.default_task if found else "default"
    return found.names.get(str(task), str(task)) if found else str(task)


def seed_draw(run: RunRecord) -> str:
    """How the run's seed was drawn (`GameSpec.seed_draw`; `paired` for a run without)."""
    return str(run.spec.get("seed_draw") or "paired")


def agent_type(run: RunRecord) -> str:
    """BALROG's `agent.type` of the run's agent (`naive`, `cot`, `robust_naive`,
    `robust_cot` for a `balrog` run), else the contract's name."""
    if run.contract == "balrog":
        rule = run.contract_config.get("text_rule", "balrog-naive")
        return AGENT_TYPES.get(str(rule), run.contract)
    return run.contract


def client_config(run: RunRecord) -> JSON:
    """The run's model as BALROG's `config.client`: `client_name` (the model's provider,
    `openai` for an endpoint), `model_id`, `base_url` and the `generate_kwargs` sent (with
    the sampling `seed` where one was sent; BALROG sends none)."""
    provider, _, name = run.model.partition(":")
    kwargs = _generate_kwargs(run)
    if run.model_params.get("sampling_seed") is not None:
        kwargs["seed"] = run.model_params["sampling_seed"]
    return {
        "client_name": provider if name else run.model,
        "model_id": name or run.model,
        "base_url": run.spec.get("base_url"),
        "generate_kwargs": kwargs,
    }


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
        "client": client_config(first) if first else None,
        "agent": {"type": agent_type(first), "tag": first.tag} if first else None,
        "seed_draw": seed_draws(runs),
    }


def seed_draws(runs: list[RunRecord]) -> str:
    """The seed draws of an agent's runs (`paired`, `balrog`, or both, comma-separated)."""
    return ", ".join(sorted({seed_draw(run) for run in runs}))


def agent_name(run: RunRecord) -> str:
    return run.tag or run.contract


def agent_key(run: RunRecord) -> AgentKey:
    return AgentKey(agent_name(run), run.model, run.experiment)


def select(
    runs: Iterable[RunRecord], *, experiment: str | None = None, model: str | None = None
) -> list[RunRecord]:
    """The completed runs of BALROG's environments, of one experiment and one model where
    named."""
    return [
        run
        for run in balrog_runs(runs)
        if experiment in (None, run.experiment) and model in (None, run.model)
    ]


def balrog_summary(runs: Iterable[RunRecord]) -> dict[AgentKey, JSON]:
    """Agent (tag, model, experiment) -> its BALROG summary."""
    by_agent: dict[AgentKey, list[RunRecord]] = defaultdict(list)
    for run in balrog_runs(runs):
        by_agent[agent_key(run)].append(run)
    return {agent: agent_summary(agent_runs) for agent, agent_runs in sorted(by_agent.items())}


def summaries_json(summaries: dict[AgentKey, JSON]) -> dict[str, JSON]:
    """The summaries keyed by each agent's label (`tag · model · experiment`), for JSON."""
    return {agent.label: summary for agent, summary in summaries.items()}


def balrog_table_rows(summaries: dict[AgentKey, JSON]) -> list[list[str]]:
    """Rows of BALROG's table: agent, model, experiment, the seed draw, each environment's
    mean +- error, the average."""
    envs = sorted({env for s in summaries.values() for env in s["environments"]})
    rows = [["agent", "model", "experiment", "seeds", *envs, "average"]]
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
        draw = summary.get("seed_draw") or "paired"
        rows.append([agent.tag, agent.model, agent.experiment or "—", draw, *cells, average])
    return rows


def balrog_parity(runs: Iterable[RunRecord]) -> ParityReport:
    """The parity report of the agents, compared within each environment."""
    cells: dict[tuple[str, str], list[RunRecord]] = defaultdict(list)
    for run in balrog_runs(runs):
        cells[(agent_key(run).label, balrog_env(run))].append(run)
    return parity_of_runs(
        (agent, {"env": env}, found) for (agent, env), found in sorted(cells.items())
    )


def env_stats(run: RunRecord) -> JSON:
    """The environment's `get_stats()` fields BALROG writes, from the run's outcome."""
    outcome = run.outcome
    found: JSON = {}
    for key in run_balrog(run).stats:
        source = "ended_by" if key == "end_reason" and key not in outcome else key
        if source in outcome:
            found[key] = outcome[source]
    found["progression"] = _progression(run)
    return found


def balrog_action(action: Action) -> str:
    """An executed action as BALROG names it: the command typed for free text (BALROG's
    TextWorld passes the string on), else the action's id (BALROG's vocabulary)."""
    if action.id == FREE_TEXT_ACTION and isinstance(action.args.get("text"), str):
        return str(action.args["text"])
    return action.id


def action_fields(decisions: Iterable[DecisionRecord]) -> JSON:
    """BALROG's per-action fields of an episode: how often each action ran
    (`action_frequency`, by `balrog_action`) and every reply's action that was not legal
    (`failed_candidates`)."""
    return _episode_tally(decisions)[0]


def _episode_tally(decisions: Iterable[DecisionRecord]) -> tuple[JSON, float, int]:
    """The per-action fields, the sum of the rewards and the count of an episode's
    decisions, read once in order."""
    frequency: dict[str, int] = defaultdict(int)
    failed: list[str] = []
    rewards: float = 0
    count = 0
    for decision in decisions:
        for action in decision.actions:
            frequency[balrog_action(action)] += 1
        failed.extend(str(name) for name in decision.info.get(INVALID_KEY, []))
        rewards += decision.reward
        count += 1
    return {"action_frequency": dict(frequency), "failed_candidates": failed}, rewards, count


def episode_log(run: RunRecord, index: int, decisions: Iterable[DecisionRecord]) -> JSON:
    """One episode in the shape of BALROG's `<task>_run_XX.json`: every field its evaluator
    writes (`done` only for a game the environment ended, as BALROG's loop sets it), then
    bounded's own (`end_reason`, `seed_draw`, `bounded_run_id`, `episode_index`); the
    decisions are read once."""
    outcome: dict[str, Any] = dict(run.outcome)
    done = {} if outcome.get("ended_by") in NOT_DONE else {"done": True}
    fields, rewards, count = _episode_tally(decisions)
    return {
        "task": run_task(run),
        **fields,
        "input_tokens": run.prompt_tokens,
        "output_tokens": run.completion_tokens,
        **done,
        "episode_return": float(rewards) if count else outcome_return(run),
        "num_steps": run.decisions,
        **env_stats(run),
        "process_num": None,
        "seed": run.seed,
        "agent": {"type": agent_type(run), "tag": run.tag, **run.contract_config},
        "client": client_config(run),
        "end_reason": outcome.get("ended_by"),
        "seed_draw": seed_draw(run),
        "bounded_run_id": run.run_id,
        "episode_index": index,
    }


def episode_return(run: RunRecord, decisions: list[DecisionRecord]) -> float:
    """BALROG's `episode_return`: the sum of the rewards of the episode's steps (BALROG's
    TextWorld rewards each step with the running score); without the decisions, the
    outcome's reward or score."""
    if decisions:
        return float(sum(decision.reward for decision in decisions))
    return outcome_return(run)


def outcome_return(run: RunRecord) -> float:
    """The outcome's reward or score: the episode's return where no decision is read."""
    outcome = run.outcome
    return float(outcome.get("reward", outcome.get("score", 0.0)) or 0.0)


def _generate_kwargs(run: RunRecord) -> JSON:
    params = run.model_params
    return {key: params[key] for key in ("temperature", "max_tokens") if key in params}


def write_results(
    runs: Iterable[RunRecord],
    out: str | Path,
    decisions: Decisions | None = None,
    *,
    reread: Callable[[str], RunRecord | None] | None = None,
) -> list[Path]:
    """BALROG's results folder of each agent: `out/<agent folder>/<env>/<task>/
    <task>_run_XX.json`, `<env>/<env>_summary.json` and `summary.json` (`AgentKey.folder`).
    `decisions` gives each run's decisions for the per-action fields (none without).
    With `reread` (a run id -> the run, as `Archive.run`), the runs may be `summarised`
    ones: each episode's file is written from its run read whole again, one at a time."""
    root = Path(out)
    written: list[Path] = []
    chosen = balrog_runs(runs)
    summaries = balrog_summary(chosen)
    counters: dict[tuple[AgentKey, str, str], int] = defaultdict(int)
    for run in sorted(chosen, key=lambda r: (agent_key(r), r.env_id, run_task(r), r.seed)):
        env, task = balrog_env(run), run_task(run)
        key = (agent_key(run), env, task)
        index = counters[key]
        counters[key] += 1
        path = root / key[0].folder / env / task / f"{task}_run_{index:02d}.json"
        played = decisions(run.run_id) if decisions is not None else []
        whole = run if reread is None else _reread(run, reread)
        written.append(_write(path, episode_log(whole, index, played)))
    for agent, summary in summaries.items():
        for env, details in summary["environment_details"].items():
            written.append(_write(root / agent.folder / env / f"{env}_summary.json", details))
        top = {k: v for k, v in summary.items() if k != "environment_details"}
        written.append(_write(root / agent.folder / "summary.json", top))
    return written


def _reread(run: RunRecord, reread: Callable[[str], RunRecord | None]) -> RunRecord:
    whole = reread(run.run_id)
    if whole is None:
        raise ConfigError(f"run {run.run_id[:12]} left the archive while it was exported")
    return whole


SUMMARISED = {
    "outcome": ("task", "level", "progress", "progression"),
    "spec": ("seed_draw", "base_url"),
    "contract_config": ("text_rule",),
    "model_params": ("temperature", "max_tokens", "sampling_seed"),
}
"""The keys of a run's JSON fields that BALROG's summaries and the episodes' order read
(`run_task`, `_progression`, `seed_draw`, `client_config`, `agent_type`)."""


def summarised(run: RunRecord) -> RunRecord:
    """The run as far as BALROG's summaries and the order of its episode files read it
    (`SUMMARISED`; its other JSON fields empty): what an export holds of each chosen run."""
    kept = {
        field: {key: getattr(run, field)[key] for key in keys if key in getattr(run, field)}
        for field, keys in SUMMARISED.items()
    }
    empty: JSON = {"postrun": {}, "usage": {}, "inputs": {}, "store_hashes": {}, "error": None}
    return run.model_copy(update={**kept, **empty})


def _write(path: Path, data: JSON) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=4) + "\n")
    return path


__all__ = [
    "AGENT_TYPES",
    "ENV_STATS",
    "AgentKey",
    "action_fields",
    "agent_summary",
    "agent_type",
    "balrog_action",
    "balrog_env",
    "balrog_parity",
    "balrog_summary",
    "balrog_table_rows",
    "balrog_tasks",
    "client_config",
    "env_summary",
    "episode_log",
    "mean_and_error",
    "outcome_return",
    "run_task",
    "seed_draw",
    "select",
    "summaries_json",
    "summarised",
    "write_results",
]
