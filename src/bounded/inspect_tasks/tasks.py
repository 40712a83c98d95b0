"""Each bounded environment as an inspect `Task`: samples are seeds (and environment
options), the solver is a contract playing the episode, the scorer the game's outcome.

    inspect eval src/bounded/inspect_tasks/tasks.py@warehouse --model openai/gpt-4o-mini \\
        -T horizon=10 -T seeds=[1,2,3] -T contract=state

There is one task per environment record (`bounded.env_records`), made from it, and
`environment` plays any environment by name (`-T env=...`). Task
arguments (`-T`): `seeds` (a list, or a number N of games: seeds 1..N, as a sweep's
`games = N`), `contract` (any contract, preset or import path), `max_tokens`,
`max_decisions`, `schema` (how the reply schema is sent: `json_schema`, `json_object` for
llama.cpp servers, `none`), `archive` (a bounded archive path that also receives every
decision), and the environment's own options (the record's `task_options`). Settings are
`GameSpec`'s: one left unset takes the record's or the spec's default (`max_tokens` 256,
spire's 640), an environment option left unset the environment's own (the warehouse's 12
shelves, spire's three acts).
"""

from __future__ import annotations

from collections.abc import Callable
from inspect import Parameter, Signature
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from bounded.core import ConfigError
from bounded.envs import ENV_RECORDS, EnvRecord, resolve_env_id
from bounded.inspect_tasks._model import SchemaForm
from bounded.inspect_tasks._scorer import outcome_scorer
from bounded.inspect_tasks._solver import bounded_solver
from bounded.runner.spec import DEFAULT_CONTRACT, seed_range


def seed_list(seeds: int | list[int] | str) -> list[int]:
    """`[1, 2]`, `3` (three games: seeds 1 to 3) or `"1,2"`: the seeds to play."""
    if isinstance(seeds, str):
        seeds = [int(part) for part in seeds.split(",") if part.strip()]
    if isinstance(seeds, int):
        seeds = seed_range(seeds)
    if not seeds or any(int(seed) < 0 for seed in seeds):
        raise ConfigError(f"seeds must be a non-empty list of seeds >= 0, got {seeds!r}")
    return [int(seed) for seed in seeds]


def game_samples(env: str, seeds: list[int], variants: list[dict[str, Any]]) -> list[Sample]:
    """One sample per (environment options, seed)."""
    env_id = resolve_env_id(env)
    samples = []
    for number, options in enumerate(variants):
        for seed in seeds:
            label = f"seed {seed}" + (f", {options}" if options else "")
            samples.append(
                Sample(
                    id=f"{number}-{seed}" if len(variants) > 1 else f"seed-{seed}",
                    input=f"Play {env_id}, {label}.",
                    metadata={"env": env, "env_id": env_id, "seed": seed, "env_options": options},
                )
            )
    return samples


def bounded_task(
    env: str,
    *,
    seeds: int | list[int] | str = 1,
    env_options: dict[str, Any] | None = None,
    variants: list[dict[str, Any]] | None = None,
    contract: str = DEFAULT_CONTRACT,
    contract_config: dict[str, Any] | None = None,
    max_tokens: int | None = None,
    max_decisions: int | None = None,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
    **env_kwargs: Any,
) -> Task:
    """A task over any bounded environment (a short name, Gymnasium id or plugin):
    `variants` is a list of option dicts (each played on every seed), `env_options` the
    options they share; any other keyword is an environment option too
    (`bounded_task("nethack", max_steps=10)`); an option given as None is left to the
    environment's default."""
    given = {**(env_options or {}), **env_kwargs}
    shared = {name: value for name, value in given.items() if value is not None}
    options = [{**shared, **variant} for variant in (variants or [{}])]
    return Task(
        dataset=MemoryDataset(game_samples(env, seed_list(seeds), options), name=env),
        solver=bounded_solver(
            contract=contract,
            contract_config=contract_config,
            max_tokens=max_tokens,
            max_decisions=max_decisions,
            schema=schema,
            archive=archive,
        ),
        scorer=outcome_scorer(),
        metadata={"env": env, "contract": contract},
    )


@task
def environment(
    env: str,
    seeds: int | list[int] | str = 1,
    env_options: dict[str, Any] | None = None,
    contract: str = DEFAULT_CONTRACT,
    max_tokens: int | None = None,
    max_decisions: int | None = None,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """Any environment by name (`-T env=...`), its options as `-T env_options={...}`."""
    settings = locals()
    return bounded_task(settings.pop("env"), **settings)


def _parameters(record: EnvRecord) -> list[Parameter]:
    """The task's parameters: the seeds, the record's environment options, then the run's
    settings (defaults: the record's contract and reply token limit)."""

    def keyword(name: str, default: Any, kind: Any) -> Parameter:
        return Parameter(name, Parameter.KEYWORD_ONLY, default=default, annotation=kind)

    options = [
        keyword(option.name, option.default, option.kind | None) for option in record.task_options
    ]
    return [
        keyword("seeds", 1, int | list[int] | str),
        *options,
        keyword("contract", record.default_contract, str),
        keyword("max_tokens", record.reply_tokens, int | None),
        keyword("max_decisions", None, int | None),
        keyword("schema", "json_schema", SchemaForm),
        keyword("archive", None, str | None),
    ]


def environment_task(record: EnvRecord) -> Callable[..., Task]:
    """The inspect task of one environment, named by its short name, its options (the
    record's `task_options`) as parameters."""
    signature = Signature(_parameters(record), return_annotation=Task)

    def play(**arguments: Any) -> Task:
        given = signature.bind(**arguments)
        given.apply_defaults()
        settings = dict(given.arguments)
        options = {option.key: settings.pop(option.name) for option in record.task_options}
        return bounded_task(record.name, env_options=options, **settings)

    play.__name__ = play.__qualname__ = record.name
    play.__doc__ = record.summary or f"The {record.env_id} environment."
    play.__signature__ = signature  # type: ignore[attr-defined]
    return task(name=record.name)(play)


ENVIRONMENT_TASKS: dict[str, Callable[..., Task]] = {
    record.name: environment_task(record) for record in ENV_RECORDS.records()
}
"""Every environment's task by its short name (`warehouse`, ...), made from its record."""

globals().update(ENVIRONMENT_TASKS)  # `tasks.py@warehouse` finds each as a module attribute

__all__ = [
    "ENVIRONMENT_TASKS",
    "bounded_task",
    "environment",
    "environment_task",
    "game_samples",
    "seed_list",
    *ENVIRONMENT_TASKS,
]
