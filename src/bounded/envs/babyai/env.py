"""`bounded/BabyAI-v0`: minigrid's BabyAI levels as text, with BALROG's six actions and
its success metric (progression 1 when the mission is accomplished, else 0).

Two presentations (`presentation`): `"bounded"` (the default: minigrid's single-room
levels closest to BALROG's tasks, our text, `describe.py`) and `"balrog"` (BALROG's levels,
`mixed.py`, and its instruction prompt and text, `balrog.py`)."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Sequence
from typing import Any

import gymnasium
import minigrid  # noqa: F401 (registers the BabyAI levels with Gymnasium)
from pydantic import BaseModel, Field, ValidationError, field_validator

from bounded.core import (
    JSON,
    Action,
    ConfigError,
    IllegalActionError,
    Observation,
    Outcome,
    first_validation_error,
)
from bounded.envs.babyai import balrog
from bounded.envs.babyai.describe import describe
from bounded.envs.babyai.mixed import MixedTrainLocal
from bounded.envs.base import (
    Choices,
    Presentation,
    balrog_texts,
    presentation_option,
    progression_outcome,
    with_action_mask,
)
from bounded.envs.replayed import ReplayedEnv
from bounded.registry import did_you_mean

ENV_VERSION = "2"

ACTIONS: dict[str, str] = {
    "turn left": "turn to the left",
    "turn right": "turn to the right",
    "go forward": "take one step forward",
    "pick up": "pick up the object in front of you",
    "drop": "drop the object that you are holding",
    "toggle": "manipulate the object in front of you (open a door)",
}
"""BALROG's BabyAI actions, in minigrid's order (action index = position)."""

TASKS: dict[str, str] = {
    "goto": "BabyAI-GoToLocal-v0",
    "pickup": "BabyAI-PickupLoc-v0",
    "open": "BabyAI-OpenDoorLoc-v0",
    "putnext": "BabyAI-PutNextLocal-v0",
    "pick_up_seq_go_to": "BabyAI-SynthLoc-v0",
}
"""BALROG's five BabyAI-Text tasks (BabyAI-MixedTrainLocal-v0 split by instruction type)
-> the closest level minigrid ships (single-room levels of the same instruction type;
MixedTrainLocal itself is BabyAI-Text's, not minigrid's)."""

INSTRUCTIONS = """\
You are an agent playing a simple navigation game in a grid world. Your goal is to
{mission}. Each turn you see what is in front of you and to your sides (steps left or
right, and steps forward), and you choose one action:
{actions}
Tips: once the object you want to interact with or pick up is right in front of you
(1 step forward), use toggle or pick up. Repeating an action that does not change what
you see makes no sense."""


BALROG_LEVEL = "BabyAI-MixedTrainLocal-v0"
BALROG_NUM_DISTS = 0
"""BALROG's `babyai_kwargs.num_dists`."""


class BabyAIConfig(BaseModel):
    """Settings of a BabyAI episode."""

    level: str = "goto"
    """One of BALROG's tasks (`goto`, `pickup`, `open`, `putnext`, `pick_up_seq_go_to`)
    or any minigrid BabyAI id (`BabyAI-GoToLocal-v0`)."""
    max_steps: int | None = Field(default=None, ge=1, le=100_000)
    """Steps before the episode is truncated (None: the level's own limit)."""
    presentation: Presentation = "bounded"
    """`bounded` (minigrid's closest levels, our text) or `balrog` (BALROG's levels and
    text; `level` one of its tasks)."""

    @field_validator("level")
    @classmethod
    def _known(cls, level: str) -> str:
        level_id = TASKS.get(level, level)
        if not level_id.startswith("BabyAI-") or level_id not in gymnasium.registry:
            raise ValueError(f"unknown BabyAI level {level!r} (tasks: {', '.join(TASKS)})")
        return level

    @property
    def level_id(self) -> str:
        if self.presentation == "balrog":
            return f"{BALROG_LEVEL}/{self.level}"
        return TASKS.get(self.level, self.level)


class BabyAIEnv(ReplayedEnv[BabyAIConfig]):
    """`bounded/BabyAI-v0`: one BabyAI mission per episode, one action per decision.

    Outcome: `victory` when the mission is accomplished (BALROG's progression 1, else 0);
    `score` minigrid's reward (1 - 0.9 x steps / max steps on success); `progress` the
    progression; `ended_by` `victory`, `step-limit` or `running`.
    """

    version = ENV_VERSION
    env_id = "bounded/BabyAI-v0"
    game_name = "BabyAI"

    def __init__(
        self, level: str = "goto", max_steps: int | None = None, presentation: str = "bounded"
    ) -> None:
        chosen = presentation_option(presentation)
        if chosen == "balrog" and level not in TASKS:
            raise ConfigError(
                f"level {level!r}{did_you_mean(level, TASKS)}: one of {', '.join(TASKS)} "
                "under presentation balrog"
            )
        try:
            self.config = BabyAIConfig(level=level, max_steps=max_steps, presentation=chosen)
        except ValidationError as exc:
            raise ConfigError(f"bad BabyAI settings: {first_validation_error(exc)}") from exc
        self._env = self._make()
        self._seed: int | None = None
        self._actions: list[str] = []
        self._obs: dict[str, Any] = {}
        self._reward = 0.0
        self._done = False
        self._truncated = False
        self.init_spaces(self.choices, kinds=("navigate",))

    def _make(self) -> Any:
        kwargs: dict[str, Any] = {}
        if self.config.max_steps is not None:
            kwargs["max_steps"] = self.config.max_steps
        if self._balrog:
            return MixedTrainLocal(self.config.level, num_dists=BALROG_NUM_DISTS, **kwargs)
        return gymnasium.make(self.config.level_id, **kwargs).unwrapped

    @property
    def presentation(self) -> str:
        """`bounded` or `balrog` (a load takes the save's)."""
        return self.config.presentation

    @property
    def _balrog(self) -> bool:
        return self.config.presentation == "balrog"

    @property
    def minigrid(self) -> Any:
        """The underlying minigrid level (for the scripted player)."""
        return self._env

    # -- Gymnasium API ------------------------------------------------------------------

    def reset_info(self) -> dict[str, Any]:
        return {"mission": self.mission}

    def step(
        self, action: Action | Sequence[Action]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        chosen = self.one_move(action, over=bool(self._done))
        if chosen.id not in ACTIONS:
            raise IllegalActionError(f"one of {', '.join(ACTIONS)} per decision")
        reward = self._act(chosen.id)
        obs = self._observe()
        terminated = self._done and not self._truncated
        return obs, reward, terminated, self._truncated, with_action_mask({}, obs)

    def default_action(self) -> Action:
        """BALROG's default action for BabyAI: `go forward`."""
        return Action(id="go forward", label=ACTIONS["go forward"])

    def choices(self) -> Choices:
        labels = balrog.ACTION_DESCRIPTIONS if self._balrog else ACTIONS
        legal = [] if self._done else [Action(id=k, label=v) for k, v in labels.items()]
        return Choices(legal=legal, max_actions=1)

    def _start(self, seed: int) -> None:
        self._seed = seed
        with contextlib.redirect_stdout(io.StringIO()):  # minigrid prints rejected samples
            self._obs, _ = self._env.reset(seed=seed)
        self._actions, self._reward, self._done, self._truncated = [], 0.0, False, False
        if self._balrog:
            self.instructions = balrog.instruction_prompt(self.mission)
            return
        self.instructions = INSTRUCTIONS.format(
            mission=self.mission,
            actions="\n".join(f"- {k}: {v}" for k, v in ACTIONS.items()),
        )

    def _act(self, action_id: str) -> float:
        obs, reward, terminated, truncated, _ = self._env.step(list(ACTIONS).index(action_id))
        self._obs = obs
        self._actions.append(action_id)
        self._reward += float(reward)
        self._done = bool(terminated or truncated)
        self._truncated = bool(truncated) and not terminated
        return float(reward)

    @property
    def mission(self) -> str:
        return str(self._obs.get("mission", ""))

    def _text(self, lines: list[str]) -> str:
        if self._balrog:
            return balrog.observation_text(self._obs["image"], self._env.carrying)
        return f"Mission: {self.mission}\n\n" + "\n".join(
            line.removeprefix("You see ") for line in lines
        )

    def _observe(self) -> Observation:
        lines = describe(self._obs["image"], self._env.carrying)
        text = self._text(lines)
        state: dict[str, Any] = {
            "mission": self.mission,
            "direction": int(self._obs["direction"]),
            "step": len(self._actions),
            "carrying": lines[0].removeprefix("You carry ") if self._env.carrying else None,
            "seen": len(lines),
        }
        history_text = None
        if self._balrog:
            text, history_text = balrog_texts(text)  # BALROG's BabyAI has no short-term part
        return Observation(
            kind="navigate",
            state=state,
            text=text,
            history_text=history_text,
            legal=list(self.choices().legal),
            t=len(self._actions),
        )

    # -- reports, save and load ---------------------------------------------------------

    def metrics(self) -> dict[str, Any]:
        victory = self._reward > 0
        return {
            "progression": 1.0 if victory else 0.0,
            "reward": self._reward,
            "steps": len(self._actions),
            "mission": self.mission,
            "level": self.config.level_id,
            "ended_by": "victory" if victory else "step-limit" if self._done else "running",
            "victory": victory,
        }

    def outcome(self) -> Outcome:
        """See the class docstring."""
        return progression_outcome(self.metrics(), score_key="reward")

    def save(self) -> JSON:
        """The level, seed and actions taken (a load replays them)."""
        return self.replay_save(self._actions)

    def load(self, data: JSON) -> None:
        self.config, seed, actions = self.read_save(data, BabyAIConfig, str)
        self._env = self._make()
        self._start(seed)
        self.replay(actions, self._playable, self._act)

    def _playable(self, action_id: str) -> str | None:
        return action_id if action_id in ACTIONS and not self._done else None


__all__ = ["ACTIONS", "TASKS", "BabyAIConfig", "BabyAIEnv"]
