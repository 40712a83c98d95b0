"""Each bounded environment as an inspect `Task`: samples are seeds (and environment
options), the solver is a contract playing the episode, the scorer the game's outcome.

    inspect eval src/bounded/inspect/tasks.py@warehouse --model openai/gpt-4o-mini \\
        -T horizon=10 -T seeds=[1,2,3] -T contract=state

Task arguments (`-T`): `seeds` (a list, or a number N of games: seeds 1..N, as a sweep's
`games = N`), `contract` (any contract, preset or import path), `max_tokens`,
`max_decisions`, `schema` (how the reply schema is sent: `json_schema`, `json_object` for
llama.cpp servers, `none`), `archive` (a bounded archive path that also receives every
decision), and the environment's own options. Settings are `GameSpec`'s: one left unset
takes the spec's default (`max_tokens` 256, spire's `REPLY_TOKENS`), an environment option
left unset the environment's own (the warehouse's 12 shelves, spire's three acts).
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from bounded.core import ConfigError
from bounded.envs import resolve_env_id
from bounded.envs.spire import REPLY_TOKENS
from bounded.envs.workbench import REPLY_TOKENS as WORKBENCH_MAX_TOKENS
from bounded.inspect._model import SchemaForm
from bounded.inspect._scorer import outcome_scorer
from bounded.inspect._solver import bounded_solver
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
def warehouse(
    seeds: int | list[int] | str = 1,
    horizon: int | None = None,
    shelves: int | None = None,
    contract: str = "state",
    max_tokens: int | None = None,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """The STORE/SHIP/WAIT inventory stream (score: accuracy of the reported counts)."""
    return bounded_task("warehouse", **locals())


@task
def spire(
    seeds: int | list[int] | str = 1,
    acts: int | None = None,
    ascension: int | None = None,
    contract: str = "typed",
    max_tokens: int = REPLY_TOKENS,
    max_decisions: int | None = None,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """The deck-building roguelike (score: floor reached; progress: floors of the acts)."""
    return bounded_task("spire", **locals())


@task
def craft(
    seeds: int | list[int] | str = 1,
    level: int | None = None,
    style: str | None = None,
    contract: str = "summary",
    max_tokens: int | None = None,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """The real-time-strategy macro game against the built-in AI."""
    return bounded_task("craft", **locals())


@task
def workbench(
    seeds: int | list[int] | str = 1,
    task_name: str = "all",
    contract: str = "state",
    max_tokens: int = WORKBENCH_MAX_TOKENS,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """Coding tasks in a sandbox directory, judged by their oracles."""
    arguments = locals()
    return bounded_task("workbench", task=arguments.pop("task_name"), **arguments)


@task
def nethack(
    seeds: int | list[int] | str = 1,
    character: str | None = None,
    max_steps: int | None = None,
    vocabulary: str | None = None,
    contract: str = "typed",
    max_tokens: int | None = None,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """NetHack through NLE (progress: BALROG's progression)."""
    return bounded_task("nethack", **locals())


@task
def babyai(
    seeds: int | list[int] | str = 1,
    level: str | None = None,
    max_steps: int | None = None,
    contract: str = "typed",
    max_tokens: int | None = None,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """A BabyAI mission (progress: 1 when accomplished)."""
    return bounded_task("babyai", **locals())


@task
def crafter(
    seeds: int | list[int] | str = 1,
    max_steps: int | None = None,
    area: int | None = None,
    view: int | None = None,
    contract: str = "typed",
    max_tokens: int | None = None,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """Crafter (progress: achievements unlocked / 22)."""
    return bounded_task("crafter", **locals())


@task
def textworld(
    seeds: int | list[int] | str = 1,
    game: str | None = None,
    max_steps: int | None = None,
    settings: dict[str, Any] | None = None,
    contract: str = "typed",
    max_tokens: int | None = None,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """A generated TextWorld game (progress: score / max score)."""
    arguments = locals()
    return bounded_task("textworld", task=arguments.pop("game"), **arguments)


@task
def minihack(
    seeds: int | list[int] | str = 1,
    level: str | None = None,
    max_steps: int | None = None,
    contract: str = "typed",
    max_tokens: int | None = None,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """A MiniHack task (progress: 1 when the stairs down are reached)."""
    arguments = locals()
    return bounded_task("minihack", task=arguments.pop("level"), **arguments)


__all__ = [
    "babyai",
    "bounded_task",
    "craft",
    "crafter",
    "game_samples",
    "minihack",
    "nethack",
    "seed_list",
    "spire",
    "textworld",
    "warehouse",
    "workbench",
]
