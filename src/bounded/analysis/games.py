"""Completed games as the analysis sees them: outcome, derived score and cost per game."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from bounded.analysis.cost import CostModel
from bounded.analysis.fallbacks import DecisionTally, Tallies
from bounded.analysis.parity import effective_rate
from bounded.core import ConfigError, RunRecord, victory_of

BOSS_POINTS = 52 / 3
"""Points per boss beaten in the derived score (AgenticSTS, Eq. 1)."""
GROUP_FIELDS = ("tag", "experiment", "cell", "env_id", "contract", "model", "reasoning_chars")
"""Run fields a table may group by."""


class CompletedGame(BaseModel):
    """One completed game."""

    run_id: str
    tag: str
    experiment: str
    cell: str
    env_id: str
    contract: str
    model: str
    reasoning_chars: str = ""
    """The reasoning cap in force (`reasoning_label`): `120`, `uncapped`, `off`, or "" where
    the run recorded none (older archives, contracts without the setting)."""
    seed: int
    started_at: float
    victory: bool
    score: float | None
    """The derived score (see `derived_score`); None where the environment has none."""
    floor: int | None = None
    """The floor reached (see `floor_reached`); None where the environment has no floors."""
    progress: float | None = None
    """The environment's progress, in percent (`Outcome.progress` x 100: BALROG's
    progression); None where the run recorded none."""
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0
    """Prompt tokens the provider served from its cache (part of `prompt_tokens`)."""
    decisions: int
    model_calls: int
    wall_s: float
    effective_action_rate: float | None = None
    """Effective actions per decision (`bounded.runner.tally`); None where not recorded."""
    usage: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Per model id: prompt, cached and completion tokens (`RunRecord.usage`; a run that
    recorded none: its totals under its model)."""
    tally: DecisionTally | None = None
    """Its recorded decisions' fallbacks, parse errors and invalid actions
    (`bounded.analysis.fallbacks`); None where the archive holds no decisions of it."""

    @property
    def won_on_fallbacks(self) -> bool:
        """A victory in which at least one decision executed a fallback."""
        return self.victory and self.tally is not None and self.tally.fallbacks > 0

    def cost(self, costs: CostModel) -> float | None:
        """The game's calls at each model's prices; None where a model is unpriced."""
        return costs.usage_cost(self.usage)

    def latency_s(self, costs: CostModel) -> float | None:
        """The game's calls' modelled seconds (None unless every model has a latency model)."""
        return costs.usage_latency(self.usage) if self.usage else None

    @property
    def tokens(self) -> int:
        """Prompt + completion tokens, cached prompt tokens included."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def fresh_tokens(self) -> int:
        """Tokens not served from a cache: prompt - cached + completion."""
        return self.prompt_tokens - self.cached_tokens + self.completion_tokens

    def group_value(self, field: str) -> str:
        return str(getattr(self, field))


def floor_score(victory: bool, floor: int) -> float:
    """AgenticSTS Eq. 1: 100 for a victory, else floor + 52/3 per boss the floor implies."""
    if victory:
        return 100.0
    bosses = 0 if floor < 18 else 1 if floor < 34 else 2
    return floor + BOSS_POINTS * bosses


def derived_score(outcome: Mapping[str, Any]) -> float | None:
    """A game's score: AgenticSTS Eq. 1 (Slay the Spire 2's boss floors) for the imported
    AgenticSTS runs, whose outcome holds `final_floor`; otherwise the environment's own
    `Outcome.score` (our spire: its own boss floors), else 100 x accuracy (older archives)."""
    floor = outcome.get("final_floor")
    if isinstance(floor, int | float) and not isinstance(floor, bool):
        return floor_score(victory_of(outcome), int(floor))
    for key, scale in (("score", 1.0), ("accuracy", 100.0)):
        value = outcome.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value) * scale
    return None


def floor_reached(outcome: Mapping[str, Any]) -> int | None:
    """The floor a game reached: `final_floor` (the imported AgenticSTS runs), else the
    environment's own `floor` metric (our spire); None for environments without floors."""
    for key in ("final_floor", "floor"):
        value = outcome.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return int(value)
    return None


def progress_of(outcome: Mapping[str, Any]) -> float | None:
    """A game's progress in percent (`progress`, or an imported run's `progression`)."""
    value = outcome.get("progress", outcome.get("progression"))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return 100.0 * float(value)
    return None


GAME_FIELDS = set(CompletedGame.model_fields)
"""Every field of a game: the fields-set that the games `game_from_run` builds share."""


def game_from_run(run: RunRecord, tally: DecisionTally | None = None) -> CompletedGame:
    """The completed game a run is. Built without a second validation: its values are
    computed here with their types, and a validated copy would give each game its own
    copy of its usage and its own set of fields (2.3 KB a game, held by every table of
    a report over 10,000 games)."""
    return CompletedGame.model_construct(
        GAME_FIELDS,
        run_id=run.run_id,
        tag=run.tag,
        experiment=run.experiment,
        cell=run.cell,
        env_id=run.env_id,
        contract=run.contract,
        model=run.model,
        reasoning_chars=reasoning_label(run),
        seed=run.seed,
        started_at=run.started_at,
        victory=victory_of(run.outcome),
        score=derived_score(run.outcome),
        floor=floor_reached(run.outcome),
        progress=progress_of(run.outcome),
        prompt_tokens=run.prompt_tokens,
        completion_tokens=run.completion_tokens,
        cached_tokens=run.cached_tokens,
        decisions=run.decisions,
        model_calls=run.model_calls,
        wall_s=run.wall_s,
        effective_action_rate=effective_rate(run.outcome),
        usage=usage_of(run),
        tally=tally,
    )


def reasoning_label(run: RunRecord) -> str:
    """The run's reasoning cap as a group value: the number, `uncapped`, `off` (no
    reasoning asked for), or "" where the run recorded none."""
    if "reasoning_chars" not in run.model_params:
        return ""
    value = run.model_params["reasoning_chars"]
    return "uncapped" if value is None else str(value)


def usage_of(run: RunRecord) -> dict[str, dict[str, int]]:
    """The run's token counts per model id."""
    keys = ("prompt_tokens", "cached_tokens", "completion_tokens")
    if run.usage:
        return {
            model: {key: int(counts.get(key, 0)) for key in keys}
            for model, counts in run.usage.items()
        }
    return {run.model: {key: int(getattr(run, key)) for key in keys}}


def completed_games(
    runs: Iterable[RunRecord], tallies: Tallies | None = None
) -> list[CompletedGame]:
    """Only completed games enter statistics; aborted and failed runs never do (`tallies`:
    their decisions' fallbacks, parse errors and invalid actions, where known)."""
    found = tallies or {}
    return [game_from_run(run, found.get(run.run_id)) for run in runs if run.status == "completed"]


def group_games(
    games: Iterable[CompletedGame], fields: tuple[str, ...]
) -> dict[tuple[str, ...], list[CompletedGame]]:
    """Games by the values of `fields`, each group ordered by start time."""
    unknown = [f for f in fields if f not in GROUP_FIELDS]
    if unknown:
        raise ConfigError(f"cannot group by {', '.join(unknown)} (use {', '.join(GROUP_FIELDS)})")
    groups: dict[tuple[str, ...], list[CompletedGame]] = {}
    for game in games:
        groups.setdefault(tuple(game.group_value(f) for f in fields), []).append(game)
    return {key: first_by_start(group) for key, group in sorted(groups.items())}


def first_by_start(games: Iterable[CompletedGame], n: int | None = None) -> list[CompletedGame]:
    """The first `n` games by start time (all when n is None): the rule that balances
    cells without choosing which games count."""
    ordered = sorted(games, key=lambda g: (g.started_at, g.run_id))
    return ordered if n is None else ordered[:n]


__all__ = [
    "GROUP_FIELDS",
    "CompletedGame",
    "completed_games",
    "derived_score",
    "first_by_start",
    "floor_reached",
    "floor_score",
    "game_from_run",
    "group_games",
    "usage_of",
]
