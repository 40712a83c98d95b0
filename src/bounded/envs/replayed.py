"""`ReplayedEnv`: the base of the wrappers over an external game (Crafter, TextWorld,
MiniHack, BabyAI, NetHack), whose own state cannot be saved.

Such a wrapper plays one action a decision and saves its settings, its seed and the moves
made since the reset; a load starts the seed again and replays them. `reset`
(start the seed, observe), the preamble of `step` (one action, none after the end) and
the save's format are the same for all of them and live here once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel

from bounded.core import JSON, Action, ConfigError, IllegalActionError, Observation
from bounded.envs.base import TextEnv, with_action_mask

ConfigT = TypeVar("ConfigT", bound=BaseModel)
MoveT = TypeVar("MoveT")
PlayedT = TypeVar("PlayedT")


class ReplayedEnv(TextEnv, Generic[ConfigT]):
    """A wrapper saved as settings, seed and moves; see the module docstring."""

    env_id: ClassVar[str] = ""
    """The Gymnasium id, for errors (`bounded/Crafter-v0`)."""
    game_name: ClassVar[str] = ""
    """The game's name, for errors (`Crafter`)."""
    move_name: ClassVar[str] = "action"
    """What one move is called in errors and in the save (`command` in TextWorld)."""
    config: ConfigT
    _seed: int | None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        self._start(self.start_seed(seed, options))
        obs = self._observe()
        return obs, with_action_mask({"seed": self._seed, **self.reset_info()}, obs)

    def reset_info(self) -> dict[str, Any]:
        """What `reset`'s info says beside the seed (the task, the mission)."""
        return {}

    def _start(self, seed: int) -> None:
        """Start the game of `seed` afresh."""
        raise NotImplementedError

    def _observe(self) -> Observation:
        """The observation of the game as it stands."""
        raise NotImplementedError

    def start_seed(self, seed: int | None, options: dict[str, Any] | None) -> int:
        """`reset`'s preamble: Gymnasium's reset, no options, the seed to start (0 for None)."""
        super().reset(seed=seed)
        if options:
            raise ConfigError(f"{self.env_id} takes no reset options, got {sorted(options)}")
        return 0 if seed is None else int(seed)

    def one_move(self, action: Action | Sequence[Action], *, over: bool) -> Action:
        """`step`'s preamble: the one action of this decision (none once the game is over)."""
        action = self.resolve_action(action)
        if over:
            raise IllegalActionError("the game is over: call reset()")
        actions = [action] if isinstance(action, Action) else list(action)
        if len(actions) != 1:
            raise IllegalActionError(f"one {self.move_name} per decision, got {len(actions)}")
        return actions[0]

    def replay_save(self, moves: Sequence[Any]) -> JSON:
        """The save: the version, the settings, the seed and the moves made."""
        return {
            "version": self.version,
            "config": self.config.model_dump(),
            "seed": self._seed,
            f"{self.move_name}s": list(moves),
        }

    def read_save(
        self, data: JSON, config: type[ConfigT], move: Callable[[Any], MoveT]
    ) -> tuple[ConfigT, int, list[MoveT]]:
        """A save's settings, seed and moves (each read by `move`), or a one-line error."""
        try:
            settings = config(**data["config"])
            seed, moves = int(data["seed"] or 0), [move(m) for m in data[f"{self.move_name}s"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"not a {self.game_name} save: {exc}") from exc
        return settings, seed, moves

    def replay(
        self,
        moves: Sequence[MoveT],
        playable: Callable[[MoveT], PlayedT | None],
        play: Callable[[PlayedT], Any],
    ) -> None:
        """Play a save's moves again; one the game no longer takes is a one-line error."""
        for number, move in enumerate(moves):
            played = playable(move)
            if played is None:
                raise ConfigError(
                    f"the save's {self.move_name} {number} ({move!r}) does not replay"
                )
            play(played)


__all__ = ["ReplayedEnv"]
