"""Each bounded environment as an inspect `Task`: samples are seeds (and environment
options), the solver is a contract playing the episode, the scorer the game's outcome.

    inspect eval src/bounded/inspect/tasks.py@warehouse --model openai/gpt-4o-mini \\
        -T horizon=10 -T seeds=[1,2,3] -T contract=state

Task arguments (`-T`): `seeds` (a list, or a number of seeds from 1), `contract` (any
contract, preset or import path), `max_tokens`, `max_decisions`, `schema` (how the reply
schema is sent: `json_schema`, `json_object` for llama.cpp servers, `none`), `archive` (a
bounded archive path that also receives every decision), and the environment's own
options.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from bounded.core import ConfigError
from bounded.envs import resolve_env_id
from bounded.inspect._model import SchemaForm
from bounded.inspect._scorer import outcome_scorer
from bounded.inspect._solver import bounded_solver


def seed_list(seeds: int | list[int] | str) -> list[int]:
    """`[1, 2]`, `3` (seeds 1 to 3) or `"1,2"`: the seeds to play."""
    if isinstance(seeds, str):
        seeds = [int(part) for part in seeds.split(",") if part.strip()]
    if isinstance(seeds, int):
        seeds = list(range(1, seeds + 1))
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
    contract: str = "state",
    contract_config: dict[str, Any] | None = None,
    max_tokens: int = 256,
    max_decisions: int = 100_000,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
    **env_kwargs: Any,
) -> Task:
    """A task over any bounded environment (a short name, Gymnasium id or plugin):
    `variants` is a list of option dicts (each played on every seed), `env_options` the
    options they share; any other keyword is an environment option too
    (`bounded_task("nethack", max_steps=10)`)."""
    shared = {**(env_options or {}), **env_kwargs}
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
    horizon: int = 30,
    shelves: int = 8,
    contract: str = "state",
    max_tokens: int = 256,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """The STORE/SHIP/WAIT inventory stream (score: accuracy of the reported counts)."""
    return bounded_task(
        "warehouse", seeds=seeds, env_options={"horizon": horizon, "shelves": shelves},
        contract=contract, max_tokens=max_tokens, schema=schema, archive=archive,
    )  # fmt: skip


@task
def spire(
    seeds: int | list[int] | str = 1,
    acts: int = 1,
    ascension: int = 0,
    contract: str = "typed",
    max_tokens: int = 640,
    max_decisions: int = 100_000,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """The deck-building roguelike (score: floor reached; progress: floors of the acts)."""
    return bounded_task(
        "spire", seeds=seeds, env_options={"acts": acts, "ascension": ascension},
        contract=contract, max_tokens=max_tokens, max_decisions=max_decisions, schema=schema,
        archive=archive,
    )  # fmt: skip


@task
def craft(
    seeds: int | list[int] | str = 1,
    level: int = 5,
    style: str = "timing",
    contract: str = "summary",
    max_tokens: int = 256,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """The real-time-strategy macro game against the built-in AI."""
    return bounded_task(
        "craft", seeds=seeds, env_options={"level": level, "style": style},
        contract=contract, max_tokens=max_tokens, schema=schema, archive=archive,
    )  # fmt: skip


@task
def workbench(
    seeds: int | list[int] | str = 1,
    task_name: str = "all",
    contract: str = "state",
    max_tokens: int = 512,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """Coding tasks in a sandbox directory, judged by their oracles."""
    return bounded_task(
        "workbench", seeds=seeds, env_options={"task": task_name},
        contract=contract, max_tokens=max_tokens, schema=schema, archive=archive,
    )  # fmt: skip


@task
def nethack(
    seeds: int | list[int] | str = 1,
    character: str = "@",
    max_steps: int = 10_000,
    vocabulary: str = "balrog",
    contract: str = "typed",
    max_tokens: int = 256,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """NetHack through NLE (progress: BALROG's progression)."""
    return bounded_task(
        "nethack", seeds=seeds,
        env_options={"character": character, "max_steps": max_steps, "vocabulary": vocabulary},
        contract=contract, max_tokens=max_tokens, schema=schema, archive=archive,
    )  # fmt: skip


@task
def babyai(
    seeds: int | list[int] | str = 1,
    level: str = "goto",
    max_steps: int | None = None,
    contract: str = "typed",
    max_tokens: int = 256,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """A BabyAI mission (progress: 1 when accomplished)."""
    return bounded_task(
        "babyai", seeds=seeds, env_options={"level": level, "max_steps": max_steps},
        contract=contract, max_tokens=max_tokens, schema=schema, archive=archive,
    )  # fmt: skip


@task
def crafter(
    seeds: int | list[int] | str = 1,
    max_steps: int = 2_000,
    area: int = 64,
    view: int = 9,
    contract: str = "typed",
    max_tokens: int = 256,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """Crafter (progress: achievements unlocked / 22)."""
    return bounded_task(
        "crafter", seeds=seeds, env_options={"max_steps": max_steps, "area": area, "view": view},
        contract=contract, max_tokens=max_tokens, schema=schema, archive=archive,
    )  # fmt: skip


@task
def textworld(
    seeds: int | list[int] | str = 1,
    game: str = "treasure_hunter",
    max_steps: int = 80,
    settings: dict[str, Any] | None = None,
    contract: str = "typed",
    max_tokens: int = 256,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """A generated TextWorld game (progress: score / max score)."""
    return bounded_task(
        "textworld", seeds=seeds,
        env_options={"task": game, "max_steps": max_steps, "settings": settings},
        contract=contract, max_tokens=max_tokens, schema=schema, archive=archive,
    )  # fmt: skip


@task
def minihack(
    seeds: int | list[int] | str = 1,
    level: str = "mazewalk-9x9",
    max_steps: int = 100,
    contract: str = "typed",
    max_tokens: int = 256,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Task:
    """A MiniHack task (progress: 1 when the stairs down are reached)."""
    return bounded_task(
        "minihack", seeds=seeds, env_options={"task": level, "max_steps": max_steps},
        contract=contract, max_tokens=max_tokens, schema=schema, archive=archive,
    )  # fmt: skip


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
