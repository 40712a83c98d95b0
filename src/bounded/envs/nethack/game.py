"""One seeded NLE game on `NetHackChallenge-v0`'s settings, stepped by keys.

`NetHackChallenge-v0` fixes the full keyboard, shows every menu and question, and draws a
random character; it refuses seeds (an anti-automation measure of the challenge). We set
NetHack's seeds through NLE's base `Nethack.set_initial_seeds` with reseeding off and
the moon phase derived from the seed (`fix_moon_phase`), so the same seed plays the same
game in any process. NLE has no state snapshot: a game is saved as its seed and keys and
loaded by replaying them (NLE steps about 78,000 keys a second).

NLE's own failures never escape: an exception from a step, a game NLE aborts (no game
time passing for `no_progress_timeout` keys), or a death, end the game with `end_reason`.
After a death, the end-of-game questions (possessions identified, ...) are answered with
escape until NLE reports the game over.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from nle.env.tasks import NetHackChallenge
from nle.nethack.nethack import Nethack

from bounded.core import BoundedError
from bounded.envs.nethack.screen import message, screen_lines
from bounded.envs.nethack.vocabulary import ESC

FINISH_KEYS = 300
"""Keys answered with escape after a death before the game is declared over anyway."""
NO_PROGRESS_KEYS = 10_000
"""NLE aborts a game whose game time stood still for this many keys (the challenge's)."""

_KILLED = re.compile(r"(killed by [^.]+|died of [^.]+|starved to death|drowned [^.]+)")


@dataclass
class KeyResult:
    """What one action's keys did."""

    reward: float = 0.0
    over: bool = False
    end_reason: str = ""


@dataclass
class NetHackGame:
    """An NLE game: `start(seed)`, then `press(keys)` per action."""

    character: str = "@"
    """NetHack's character spec: `@` random (the challenge's), or `role-race-gender-align`
    such as `val-dwa-fem-law`."""
    env: Any = None
    obs: dict[str, Any] = field(default_factory=dict)
    over: bool = False
    end_reason: str = ""
    cause: str = ""
    """How the game ended: the end screens' `killed by ...`, else the last message seen."""
    last_message: str = ""

    def start(self, seed: int) -> dict[str, Any]:
        """A fresh game for `seed`: its first observation."""
        self.close()
        self.env = NetHackChallenge(
            character=self.character,
            fix_moon_phase=True,
            max_episode_steps=10**9,
            no_progress_timeout=NO_PROGRESS_KEYS,
        )
        Nethack.set_initial_seeds(self.env.nethack, seed, seed, False, None)
        try:
            self.obs, _ = self.env.reset()
        except Exception as exc:
            raise BoundedError(f"NLE could not start a game for seed {seed}: {exc}") from exc
        self.over, self.end_reason, self.cause, self.last_message = False, "", "", ""
        return self.obs

    def press(self, keys: tuple[int, ...]) -> KeyResult:
        """Send `keys`; the game may end on any of them."""
        result = KeyResult()
        for key in keys:
            if self.over:
                break
            result.reward += self._step(key)
        if not self.over and _died(self.obs):
            self._finish_after_death()
        result.over, result.end_reason = self.over, self.end_reason
        return result

    def _step(self, key: int) -> float:
        try:
            obs, reward, terminated, truncated, info = self.env.step(self._index(key))
        except Exception as exc:
            self._end(f"nle-error: {type(exc).__name__}: {exc}")
            return 0.0
        self.obs = obs
        self._read_cause()
        text = " ".join(message(obs).split())
        if text:
            self.last_message = text
        if terminated or truncated:
            status = end_status(info)
            reason = _END_REASONS.get(status, f"nle-{status}".lower())
            if "Still climb" in self.last_message:
                reason = "escaped (climbed out of the dungeon)"
            self._end(reason)
        return float(reward)

    def _finish_after_death(self) -> None:
        if not self.cause:
            self.cause = " ".join(message(self.obs).split())
        for _ in range(FINISH_KEYS):
            if self.over:
                return
            self._step(ESC)
        self._end("death")

    def _read_cause(self) -> None:
        if self.cause:
            return
        match = _KILLED.search(" ".join(screen_lines(self.obs)))
        if match:
            self.cause = " ".join(match.group(1).split())

    def _end(self, reason: str) -> None:
        if not self.over:
            self.over, self.end_reason = True, reason
            # NLE's last observation of a finished game is blank: the last message seen
            # is the best account of how it ended (a death, climbing out of the dungeon).
            self.cause = self.cause or self.last_message

    def _index(self, key: int) -> int:
        return _KEY_INDEX[key]

    def close(self) -> None:
        if self.env is not None:
            self.env.close()
            self.env = None


BALROG_NO_PROGRESS_KEYS = 150
"""BALROG's `no_progress_timeout`: NLE aborts after 150 keys without game time."""
BALROG_NLE_STEPS = 100_000
"""BALROG's `max_episode_steps`: NLE aborts after 100,000 keys (a `--More--` is one)."""


def balrog_nle_env(character: str, seed: int) -> Any:
    """`NetHackChallenge-v0` on BALROG's settings, seeded as `start` seeds (core and
    display seed `seed`, no reseeding, the moon phase from the seed)."""
    env = NetHackChallenge(
        character=character,
        fix_moon_phase=True,
        max_episode_steps=BALROG_NLE_STEPS,
        no_progress_timeout=BALROG_NO_PROGRESS_KEYS,
    )
    Nethack.set_initial_seeds(env.nethack, seed, seed, False, None)
    return env


def _died(obs: dict[str, Any]) -> bool:
    text = message(obs)
    return "You die" in text or "possessions identified" in text


_END_REASONS = {"DEATH": "death", "ABORTED": "aborted (no game time passed for 10,000 keys)"}


def _key_index() -> dict[int, int]:
    from nle import nethack

    index: dict[int, int] = {}
    for position, action in enumerate(nethack.ACTIONS):
        index.setdefault(int(action), position)
    return index


_KEY_INDEX = _key_index()
"""Key code -> index in NLE's full action list (every key but `?`)."""


def known_key(key: int) -> bool:
    return key in _KEY_INDEX


def end_status(info: dict[str, Any]) -> str:
    """The name of NLE's `end_status` in a last step's info (`DEATH`, `TASK_SUCCESSFUL`)."""
    status = info.get("end_status")
    return getattr(status, "name", str(status))


__all__ = [
    "BALROG_NLE_STEPS",
    "BALROG_NO_PROGRESS_KEYS",
    "FINISH_KEYS",
    "KeyResult",
    "NetHackGame",
    "balrog_nle_env",
    "end_status",
    "known_key",
]
