"""One seeded MiniHack level, stepped by keys from the task's own action set.

A MiniHack task fixes the keys it accepts (MazeWalk: the eight moves; Quest: most of
the keyboard). Its level is seeded through NLE's `seed(core, disp, reseed=False)` with the
moon phase derived from the seed (`fix_moon_phase`), so the same seed plays the same
level in any process. NLE has no snapshot: a game is saved as its seed and keys and
loaded by replaying them.

MiniHack has NLE decline menus and typed text and skip most --More--s itself (its
`allow_all_modes` is off); as BALROG's `AutoMore` does, any other `--More--` is continued
at once where the task has the key for it. NLE's own failures never escape: an exception
from a step ends the game with `end_reason`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gymnasium
import minihack  # noqa: F401 (registers the MiniHack tasks with Gymnasium)
from gymnasium.envs.registration import load_env_creator

from bounded.core import BoundedError
from bounded.envs.nethack.game import KeyResult, end_status
from bounded.envs.nethack.screen import screen_lines
from bounded.envs.nethack.vocabulary import ENTER

OBSERVATION_KEYS = (
    "glyphs", "chars", "blstats", "message", "tty_chars", "inv_letters", "inv_strs",
)  # fmt: skip
MORE_PRESSES = 20
"""--More-- continued in a row after one action before the game is left as it is."""

_END_REASONS = {"TASK_SUCCESSFUL": "victory", "DEATH": "death", "ABORTED": "aborted"}


@dataclass
class MiniHackGame:
    """A MiniHack task: `start(seed)`, then `press(keys)` per action."""

    task_id: str
    env: Any = None
    obs: dict[str, Any] = field(default_factory=dict)
    over: bool = False
    end_reason: str = ""
    keys: tuple[int, ...] = ()
    """The key codes the task accepts, in its action order."""

    def start(self, seed: int) -> dict[str, Any]:
        """A fresh level for `seed`: its first observation."""
        self.close()
        self.env = gymnasium.make(
            self.task_id,
            observation_keys=OBSERVATION_KEYS,
            max_episode_steps=10**9,
            autopickup=False,
            fix_moon_phase=True,
        ).unwrapped
        self.keys = tuple(int(a) for a in self.env.actions)
        self.env.seed(seed, seed, reseed=False)
        try:
            self.obs, _ = self.env.reset()
        except Exception as exc:
            raise BoundedError(
                f"MiniHack could not start {self.task_id} seed {seed}: {exc}"
            ) from exc
        self.over, self.end_reason = False, ""
        self._continue_more(KeyResult())
        return self.obs

    def accepts(self, keys: tuple[int, ...]) -> bool:
        return all(key in self.keys for key in keys)

    def press(self, keys: tuple[int, ...]) -> KeyResult:
        """Send `keys`; the game may end on any of them."""
        result = KeyResult()
        for key in keys:
            if self.over:
                break
            self._step(key, result)
        self._continue_more(result)
        result.over, result.end_reason = self.over, self.end_reason
        return result

    def _continue_more(self, result: KeyResult) -> None:
        for _ in range(MORE_PRESSES):
            if self.over or ENTER not in self.keys or not self._shows_more():
                return
            self._step(ENTER, result)

    def _shows_more(self) -> bool:
        return "--More--" in "\n".join(screen_lines(self.obs))

    def _step(self, key: int, result: KeyResult) -> None:
        try:
            obs, reward, terminated, truncated, info = self.env.step(self.keys.index(key))
        except Exception as exc:
            self._end(f"nle-error: {type(exc).__name__}: {exc}")
            return
        self.obs = obs
        result.reward += float(reward)
        if terminated or truncated:
            status = end_status(info)
            self._end(_END_REASONS.get(status, f"nle-{status}".lower()))

    def _end(self, reason: str) -> None:
        if not self.over:
            self.over, self.end_reason = True, reason

    def close(self) -> None:
        if self.env is not None:
            self.env.close()
            self.env = None


BALROG_OBSERVATION_KEYS = (
    "glyphs", "blstats", "tty_chars", "inv_letters", "inv_strs", "tty_cursor", "tty_colors",
)  # fmt: skip
BALROG_SETTINGS: dict[str, Any] = {
    "character": "@",
    "max_episode_steps": 100,
    "penalty_step": -0.01,
    "penalty_time": 0.0,
    "penalty_mode": "constant",
    "savedir": None,
    "save_ttyrec_every": 0,
    "autopickup": False,
}
"""BALROG's `minihack_kwargs` (less `skip_more`: its `AutoMore`)."""


def balrog_minihack_env(task_id: str, seed: int) -> Any:
    """A MiniHack task on BALROG's settings, seeded as `start` seeds it.

    Built from its entry point: `gymnasium.make` would keep `max_episode_steps` for a
    wrapper of its own, where gym 0.23's `make` (BALROG's) hands it to NLE, which ends
    the episode after that many keys (`ABORTED`)."""
    spec = gymnasium.spec(task_id)
    creator = load_env_creator(spec.entry_point)  # type: ignore[arg-type]
    env: Any = creator(
        **spec.kwargs,
        observation_keys=BALROG_OBSERVATION_KEYS,
        fix_moon_phase=True,
        **BALROG_SETTINGS,
    )
    env.seed(seed, seed, reseed=False)
    return env


__all__ = [
    "BALROG_OBSERVATION_KEYS",
    "BALROG_SETTINGS",
    "OBSERVATION_KEYS",
    "KeyResult",
    "MiniHackGame",
    "balrog_minihack_env",
]
