"""`bounded/Craft-v0`: the Gymnasium environment around a `World`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from bounded.core import JSON, Action, ConfigError, IllegalActionError, Observation, Outcome
from bounded.envs.base import Choices, TextEnv, with_action_mask
from bounded.envs.craft import commands
from bounded.envs.craft.actions import ACTION_DICTIONARY, ACTION_NAMES, EMPTY_ACTION
from bounded.envs.craft.data import PROTOSS_RESEARCH, PROTOSS_STRUCTURES
from bounded.envs.craft.maps import DEFAULT_MAP, MAPS
from bounded.envs.craft.metrics import episode_metrics
from bounded.envs.craft.render import state_dict, summary_text
from bounded.envs.craft.world import World
from bounded.envs.craft.zerg import STYLES

ENV_VERSION = "2"

Style = Literal["timing", "rush", "power", "macro", "air"]

INSTRUCTIONS = """\
You play Protoss against the built-in Zerg AI (difficulty level {level}, {style} style) on the \
map {map}, in a real-time strategy macro game. Every {interval:g} seconds of game time you choose \
up to {max_actions} actions from the action dictionary below; they are carried out in order, each \
seeing the resources the previous ones left. Scripted routines gather resources, place buildings, \
defend your bases and fight. An action that cannot be carried out now fails with a reason, \
shown in the next summary. You win by destroying every enemy structure, lose if all of yours \
are destroyed; the game ends in a timeout after {limit}.

Action dictionary: {dictionary}"""

LABELS = {
    "TRAIN": "train a unit",
    "MORPH": "merge two templar into an archon",
    "BUILD": "build a structure",
    "RESEARCH": "start a research",
    "SCOUTING": "send a unit to scout the enemy base",
    "MULTI-ATTACK": "send the whole army to attack the enemy",
    "MULTI-RETREAT": "bring the attacking army home",
    "CHRONOBOOST": "speed up a structure with a nexus's chrono boost",
    "EMPTY": "do nothing",
}


class CraftConfig(BaseModel):
    """Settings of one game."""

    level: int = Field(default=5, ge=1, le=10)
    """Built-in AI difficulty: 1 (very easy) to 7 (elite); 8-10 cheat (vision, income)."""
    style: Style = "timing"
    """The AI's build style: timing, rush, power, macro or air."""
    map: str = DEFAULT_MAP
    """Map name (see `bounded.envs.craft.MAPS`)."""
    decision_interval: float = Field(default=10.0, gt=0, le=600)
    """Game seconds simulated after each decision."""
    time_limit: float = Field(default=1800.0, gt=0, le=7200)
    """Game seconds after which the game ends in a timeout."""
    max_actions: int = Field(default=5, ge=1, le=20)
    """Actions one decision may carry (TextStarCraft II asks for five)."""


def action_label(name: str) -> str:
    head = name.split(" ")[0]
    return f"{LABELS.get(head, LABELS.get(name, name.lower()))}: {name.lower()}"


ACTIONS: dict[str, Action] = {
    name: Action(id=name, label=action_label(name)) for name in ACTION_NAMES
}


class CraftEnv(TextEnv):
    """`bounded/Craft-v0`: Protoss macro against a Zerg-like built-in AI.

    Outcome: `victory` when every enemy structure is destroyed (as `metrics()["victory"]`);
    `progress` the game time played over the time limit (1 for a victory); `score` 1 for a
    victory, otherwise half the progress (a loss at minute 10 of 30 scores 1/6; surviving
    to the time limit, a draw, 0.5);
    `ended_by` `victory`, `defeat` (every structure of ours destroyed), `truncated` (the
    time limit reached) or `running`.
    """

    version = ENV_VERSION
    empty_action = EMPTY_ACTION

    def __init__(
        self,
        level: int = 5,
        style: str = "timing",
        map: str = DEFAULT_MAP,
        decision_interval: float = 10.0,
        time_limit: float = 1800.0,
        max_actions: int = 5,
    ) -> None:
        if map not in MAPS:
            raise ConfigError(f"unknown map {map!r} (known: {', '.join(sorted(MAPS))})")
        if style not in STYLES:
            raise ConfigError(f"unknown style {style!r} (known: {', '.join(STYLES)})")
        self.config = CraftConfig.model_validate(
            {
                "level": level,
                "style": style,
                "map": map,
                "decision_interval": decision_interval,
                "time_limit": time_limit,
                "max_actions": max_actions,
            }
        )
        self.instructions = self._instructions()
        self._seed = 0
        self._decisions: list[list[str]] = []
        self._results: list[dict[str, Any]] = []
        self._failed = 0
        self._executed = 0
        self.world = self._new_world(0)
        self.init_spaces(self.choices, kinds=("macro",))

    # -- Gymnasium API ------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        self._seed = 0 if seed is None else int(seed)
        self.world = self._new_world(self._seed)
        self._decisions, self._results = [], []
        self._failed = self._executed = 0
        obs = self._observe()
        return obs, with_action_mask({"seed": self._seed}, obs)

    def step(
        self, action: Action | Sequence[Action]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        action = self.resolve_action(action)
        actions = [action] if isinstance(action, Action) else list(action)
        ids = [a.id for a in actions]
        unknown = [i for i in ids if i not in ACTIONS]
        if unknown:
            raise IllegalActionError(f"unknown action {unknown[0]!r}: not in the action dictionary")
        if self.world.outcome is not None:
            raise IllegalActionError("the game is over: call reset()")
        if len(ids) > self.config.max_actions:
            raise IllegalActionError(
                f"{len(ids)} actions given, at most {self.config.max_actions} allowed"
            )
        self._decisions.append(ids)
        results = self._apply(ids)
        return self._after(results)

    def _apply(self, ids: list[str]) -> list[dict[str, Any]]:
        self.world.events = []
        results = []
        for action_id in ids:
            reason = commands.execute(self.world, action_id)
            results.append({"id": action_id, "ok": reason is None, "reason": reason or ""})
            self._executed += reason is None
            self._failed += reason is not None
        self._results = results
        self.world.advance(self.config.decision_interval)
        return results

    def _after(
        self, results: list[dict[str, Any]]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        outcome = self.world.outcome
        terminated = outcome in ("victory", "defeat")
        truncated = outcome == "timeout"
        reward = {"victory": 1.0, "defeat": -1.0}.get(outcome or "", 0.0)
        info = {"actions": results, "outcome": outcome, "game_time": self.world.time}
        obs = self._observe()
        return obs, reward, terminated, truncated, with_action_mask(info, obs)

    def choices(self) -> Choices:
        """The dictionary actions that can be carried out now (none once the game is over)."""
        legal = [] if self.world.outcome else [ACTIONS[name] for name in self.legal_ids()]
        return Choices(legal=legal, max_actions=self.config.max_actions)

    def outcome(self) -> Outcome:
        """See the class docstring."""
        result = self.world.outcome
        victory = result == "victory"
        progress = 1.0 if victory else min(self.world.time / self.config.time_limit, 1.0)
        ended = {"victory": "victory", "defeat": "defeat", "timeout": "truncated"}
        return Outcome(
            victory=victory,
            score=1.0 if victory else 0.5 * progress,
            progress=progress,
            ended_by=ended.get(result or "", "running"),
        )

    def metrics(self) -> dict[str, Any]:
        world = self.world
        tally = world.tally
        player = world.player
        paper = episode_metrics(
            tally,
            duration=world.time,
            spent=player.spent,
            researched=world.technologies_done(),
            research_total=len(PROTOSS_RESEARCH),
            structure_total=len(PROTOSS_STRUCTURES),
        )
        decisions = len(self._decisions)
        actions = sum(len(ids) for ids in self._decisions)
        return {
            "victory": world.outcome == "victory",
            "outcome": world.outcome or "running",
            "game_time": world.time,
            "level": self.config.level,
            "style": self.config.style,
            "map": self.config.map,
            **paper,
            "resources_spent": player.spent,
            "resources_collected": player.collected,
            "supply_peak": tally.peak_supply,
            "army_supply_peak": tally.peak_army,
            "workers_peak": tally.peak_workers,
            "bases_peak": tally.peak_bases,
            "maxed_at": tally.maxed_at,
            "units_lost": sum(player.lost.values()),
            "units_killed": sum(player.killed.values()),
            "enemy_structures_left": len(world.enemy.structures),
            "decisions": decisions,
            "actions_executed": self._executed,
            "actions_failed": self._failed,
            "actions_given_per_step": actions / decisions if decisions else 0.0,
        }

    def save(self) -> JSON:
        return {
            "env_version": ENV_VERSION,
            "config": self.config.model_dump(),
            "seed": self._seed,
            "decisions": [list(d) for d in self._decisions],
        }

    def load(self, data: JSON) -> None:
        """Rebuild a saved game by replaying its decisions from its seed (deterministic)."""
        self.config = CraftConfig(**data["config"])
        self.instructions = self._instructions()
        self.reset(seed=data["seed"])
        for ids in data["decisions"]:
            self._decisions.append(list(ids))
            self._apply(list(ids))

    # -- rendering ----------------------------------------------------------------

    def legal_ids(self) -> list[str]:
        return [name for name in ACTION_NAMES if commands.check(self.world, name) is None]

    def _observe(self) -> Observation:
        state = state_dict(self.world)
        legal = list(self.choices().legal)
        text = summary_text(self.world, state, self._results, self.world.events)
        return Observation(
            kind="macro",
            state=state,
            text=text,
            legal=legal,
            t=self.world.time,
            max_actions=self.config.max_actions,
        )

    def _new_world(self, seed: int) -> World:
        c = self.config
        return World(
            level=c.level, style=c.style, map_name=c.map, seed=seed, time_limit=c.time_limit
        )

    def _instructions(self) -> str:
        c = self.config
        dictionary = "; ".join(
            f"{category}: {', '.join(names.values())}"
            for category, names in ACTION_DICTIONARY.items()
        )
        minutes = int(c.time_limit // 60)
        return INSTRUCTIONS.format(
            level=c.level,
            style=c.style,
            map=c.map,
            interval=c.decision_interval,
            max_actions=c.max_actions,
            limit=f"{minutes} minutes",
            dictionary=dictionary,
        )
