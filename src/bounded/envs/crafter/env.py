"""`bounded/Crafter-v0`: Crafter (Hafner, 2021) as text, with BALROG's settings (a 64 x 64
world, a 9 x 9 view, 2,000 steps), its 17 actions by name, and its progression: the share
of Crafter's 22 achievements unlocked, read from Crafter's own `info["achievements"]`.

Two presentations (`presentation`): `"bounded"` (the default: our text, `describe.py`)
and `"balrog"` (BALROG's instruction prompt, text and reset, `balrog.py`).

Two departures from the `crafter` package as it ships, both for determinism: under the
bounded presentation the image is never rendered (at night Crafter's renderer draws its
noise from the world's random stream, so rendering changes the game; nothing here needs
the image; the balrog presentation renders it as BALROG's wrapper does, twice a step at
BALROG's 256 x 256, so that the stream is BALROG's), and the creature a chunk despawns is
drawn from its creatures in the order they were created (Crafter draws it from a set
ordered by memory address, which differs between runs).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import crafter
import numpy as np
from pydantic import BaseModel, Field, ValidationError

from bounded.core import (
    JSON,
    Action,
    ConfigError,
    IllegalActionError,
    Observation,
    Outcome,
    first_validation_error,
)
from bounded.envs.base import (
    Choices,
    Presentation,
    balrog_texts,
    presentation_option,
    progression_outcome,
    with_action_mask,
)
from bounded.envs.crafter import balrog
from bounded.envs.crafter.describe import VITALS, describe, inventory_items, nearest_things
from bounded.envs.crafter.knowledge import crafter_knowledge
from bounded.envs.replayed import ReplayedEnv
from bounded.stores.knowledge import GameKnowledge

ENV_VERSION = "1"

ACTIONS: dict[str, str] = {
    "Noop": "do nothing",
    "Move West": "move west on flat ground (or turn to face west)",
    "Move East": "move east on flat ground (or turn to face east)",
    "Move North": "move north on flat ground (or turn to face north)",
    "Move South": "move south on flat ground (or turn to face south)",
    "Do": "collect the material in front, drink water, eat a cow or ripe plant, hit a creature",
    "Sleep": "sleep while energy is below maximum",
    "Place Stone": "place a stone in front",
    "Place Table": "place a table in front (needs wood)",
    "Place Furnace": "place a furnace in front (needs stone, a table nearby)",
    "Place Plant": "plant a sapling on the grass in front",
    "Make Wood Pickaxe": "craft a wood pickaxe (a table nearby, wood)",
    "Make Stone Pickaxe": "craft a stone pickaxe (a table nearby, wood and stone)",
    "Make Iron Pickaxe": "craft an iron pickaxe (a table and a furnace nearby, wood, coal, iron)",
    "Make Wood Sword": "craft a wood sword (a table nearby, wood)",
    "Make Stone Sword": "craft a stone sword (a table nearby, wood and stone)",
    "Make Iron Sword": "craft an iron sword (a table and a furnace nearby, wood, coal, iron)",
}
"""BALROG's names for Crafter's 17 actions, in Crafter's order (index = position)."""

ACHIEVEMENTS: tuple[str, ...] = tuple(crafter.constants.achievements)
"""Crafter's 22 achievements (BALROG's progression divides by their number)."""

INSTRUCTIONS = """\
You are playing Crafter, a two-dimensional survival game in the spirit of Minecraft.
Your goal is to unlock as many of its 22 achievements as you can: {achievements}.
Each turn you see the nearest thing of each kind around you (with its direction and
distance), what you face, your vitals (health, food, drink, energy, each out of 9) and
your inventory, and you choose one action:
{actions}
Moving towards something that blocks you turns you to face it; `Do` acts on what you
face. Drink water and eat to keep food and drink up, sleep when energy is low, and
avoid lava. Crafting needs a table nearby (an iron tool also a furnace)."""


BALROG_IMAGE_SIZE = 256
"""BALROG's Crafter image size (`crafter_kwargs.size`): the night noise drawn per image
depends on it."""


class _RenderedCrafter(crafter.Env):
    """Crafter with a creation-ordered despawn draw (module docstring)."""

    def _balance_object(self, chunk: Any, objs: Any, *args: Any) -> None:
        index = self._world._obj_map
        ordered = sorted(objs, key=lambda obj: int(index[tuple(obj.pos)]))
        super()._balance_object(chunk, ordered, *args)


class _Crafter(_RenderedCrafter):
    """Crafter without its image, with a creation-ordered despawn draw."""

    def _obs(self) -> np.ndarray:
        return np.zeros((1, 1, 3), np.uint8)


@lru_cache(maxsize=8)
def _fresh_world(area: int, view: int, seed: int, rendered: bool) -> crafter.Env:
    """A freshly generated world (generation takes a second or two; a load replays from a
    copy of it). The first image, at dawn, draws no noise: both kinds start alike."""
    cls, size = (_RenderedCrafter, BALROG_IMAGE_SIZE) if rendered else (_Crafter, view)
    game = cls(area=(area, area), view=(view, view), size=(size, size), length=None, seed=seed)
    game.reset()
    return game


class CrafterConfig(BaseModel):
    """Settings of a Crafter game (BALROG's by default)."""

    area: int = Field(default=64, ge=16, le=256)
    """The world's width and height in cells."""
    view: int = Field(default=9, ge=5, le=17)
    """The view's width and height (the text describes its top `view - 2` rows, as the
    image shows them)."""
    max_steps: int = Field(default=2_000, ge=1, le=100_000)
    """Steps before the episode is truncated (`ended_by = "step-limit"`)."""
    presentation: Presentation = "bounded"
    """`bounded` (our text) or `balrog` (BALROG's prompt, text and reset)."""


class CrafterEnv(ReplayedEnv[CrafterConfig]):
    """`bounded/Crafter-v0`: one Crafter world per episode, one action per decision.

    Outcome: `victory` when all 22 achievements are unlocked; `score` the number
    unlocked; `progress` BALROG's progression (that number / 22); `ended_by` `death`,
    `step-limit` or `running`.
    """

    version = ENV_VERSION
    env_id = "bounded/Crafter-v0"
    game_name = "Crafter"
    empty_action = "Noop"

    def __init__(
        self, area: int = 64, view: int = 9, max_steps: int = 2_000, presentation: str = "bounded"
    ) -> None:
        try:
            self.config = CrafterConfig(
                area=area,
                view=view,
                max_steps=max_steps,
                presentation=presentation_option(presentation),
            )
        except ValidationError as exc:
            raise ConfigError(f"bad Crafter settings: {first_validation_error(exc)}") from exc
        self._game: Any = None
        self._seed: int | None = None
        self._actions: list[int] = []
        self._info: dict[str, Any] = {}
        self._reward = 0.0
        self._ended_by = ""
        self.instructions = self._instructions()
        self.init_spaces(self.choices, kinds=("play",))

    # -- Gymnasium API ------------------------------------------------------------------

    def step(
        self, action: Action | Sequence[Action]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        chosen = self.one_move(action, over=bool(self._ended_by))
        if chosen.id not in ACTIONS:
            raise IllegalActionError(f"one of {', '.join(ACTIONS)} per decision")
        reward = self._act(list(ACTIONS).index(chosen.id))
        obs = self._observe()
        truncated = self._ended_by == "step-limit"
        terminated = self._ended_by == "death"
        info = {"achievements": dict(self._info["achievements"]), "ended_by": self._ended_by}
        return obs, reward, terminated, truncated, with_action_mask(info, obs)

    def _instructions(self) -> str:
        if self._balrog:
            return balrog.instruction_prompt()
        return INSTRUCTIONS.format(
            achievements=", ".join(a.replace("_", " ") for a in ACHIEVEMENTS),
            actions="\n".join(f"- {k}: {v}" for k, v in ACTIONS.items()),
        )

    @property
    def presentation(self) -> str:
        """`bounded` or `balrog` (a load takes the save's)."""
        return self.config.presentation

    @property
    def _balrog(self) -> bool:
        return self.config.presentation == "balrog"

    def choices(self) -> Choices:
        labels = balrog.ACTION_DESCRIPTIONS if self._balrog else ACTIONS
        legal = [] if self._ended_by else [Action(id=k, label=v) for k, v in labels.items()]
        return Choices(legal=legal, max_actions=1)

    def default_action(self) -> Action:
        """BALROG's default action for Crafter: `Noop`."""
        return Action(id="Noop", label=ACTIONS["Noop"])

    def game_knowledge(self) -> GameKnowledge:
        """Crafter's L3 rules, L5 seed skills and situation reader (`knowledge`)."""
        return crafter_knowledge()

    @property
    def world(self) -> Any:
        """Crafter's world (for the scripted player)."""
        return self._game._world

    @property
    def player(self) -> Any:
        """Crafter's player object (for the scripted player)."""
        return self._game._player

    # -- playing ------------------------------------------------------------------------

    def _start(self, seed: int) -> None:
        fresh = _fresh_world(self.config.area, self.config.view, seed, self._balrog)
        self._game = copy.deepcopy(fresh)
        self._seed, self._actions, self._reward, self._ended_by = seed, [], 0.0, ""
        self._info = {
            "achievements": dict(self.player.achievements),
            "inventory": dict(self.player.inventory),
        }
        if self._balrog:
            # BALROG's reset takes one `Noop` step (its reward dropped) and its stats
            # start empty until the first action.
            self._step_game(0)
            self._info["achievements"] = {}

    def _step_game(self, index: int) -> float:
        _, reward, _, info = self._game.step(index)
        if self._balrog:
            self._game.render()  # BALROG's wrapper renders each step's image once more
        self._info = info
        return float(reward)

    def _act(self, index: int) -> float:
        reward = self._step_game(index)
        self._actions.append(index)
        self._reward += reward
        if self.player.health <= 0:
            self._ended_by = "death"
        elif len(self._actions) >= self.config.max_steps:
            self._ended_by = "step-limit"
        return reward

    def unlocked(self) -> list[str]:
        """The achievements unlocked so far, from Crafter's `info["achievements"]`."""
        return [name for name, count in self._info["achievements"].items() if count > 0]

    def _text(self) -> str:
        if self._balrog:
            return balrog.long_term_context(self._game)
        text = describe(self.world, self.player, (self.config.view, self.config.view))
        if self._ended_by:
            text = f"The game is over: {self._ended_by}.\n\n{text}"
        return text

    def _observe(self) -> Observation:
        player = self.player
        view = (self.config.view, self.config.view)
        text = self._text()
        seen = nearest_things(self.world, player, view)
        state = {
            "step": len(self._actions),
            "position": [int(player.pos[0]), int(player.pos[1])],
            "facing": [int(v) for v in player.facing],
            "sleeping": bool(player.sleeping),
            "daylight": round(float(self.world.daylight), 3),
            **{v: int(player.inventory[v]) for v in VITALS},
            "inventory": inventory_items(player.inventory),
            "seen": [{"name": name, "dx": dx, "dy": dy} for name, dx, dy in seen],
            "achievements": self.unlocked(),
            "progression": self._progression(),
        }
        history_text = None
        if self._balrog:
            short_term = balrog.short_term_context(self._info["inventory"])
            text, history_text = balrog_texts(text, short_term)
        return Observation(
            kind="play", state=state, text=text, history_text=history_text,
            legal=list(self.choices().legal), t=len(self._actions),
        )  # fmt: skip

    # -- reports, save and load ---------------------------------------------------------

    def _progression(self) -> float:
        return len(self.unlocked()) / len(ACHIEVEMENTS)

    def metrics(self) -> dict[str, Any]:
        unlocked = self.unlocked()
        return {
            "progression": self._progression(),
            "achievements": unlocked,
            "score": len(unlocked),
            "reward": self._reward,
            "steps": len(self._actions),
            "health": int(self.player.health),
            "ended_by": self._ended_by or "running",
            "victory": len(unlocked) == len(ACHIEVEMENTS),
        }

    def outcome(self) -> Outcome:
        """See the class docstring."""
        return progression_outcome(self.metrics())

    def save(self) -> JSON:
        """The settings, seed and actions taken (a load replays them)."""
        return self.replay_save(self._actions)

    def load(self, data: JSON) -> None:
        self.config, seed, actions = self.read_save(data, CrafterConfig, int)
        self.instructions = self._instructions()
        self._start(seed)
        self.replay(actions, self._playable, self._act)

    def _playable(self, index: int) -> int | None:
        return index if 0 <= index < len(ACTIONS) and not self._ended_by else None


__all__ = ["ACHIEVEMENTS", "ACTIONS", "CrafterConfig", "CrafterEnv"]
