"""BALROG's presentation of an NLE game (NetHack and MiniHack), after its
`balrog/environments/nle/*` (BALROG commit af7d1f1), in our code.

One decision is one of BALROG's words, sent as the NLE action the language wrapper maps
it to; a `--More--` the action leads to is continued at once, and the messages joined
(BALROG's `AutoMore`). The observation is BALROG's "hybrid" prompt: the part its history
keeps (the message, the language observation, the cursor and the screen below the top
line) and the part it shows for the current step only (the inventory). Progression is
BALROG's `get_stats()`: its NetHack `Progress` or its MiniHack `BaseProgress`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from nle import nethack

from bounded.core import Action, IllegalActionError, Observation
from bounded.envs.base import balrog_texts
from bounded.envs.nethack.balrog_words import accepted_strings
from bounded.envs.nethack.language import language_texts, text_message
from bounded.envs.nethack.progress import progression_table

MORE = "--More--"
BALROG_KIND = "balrog"
"""The observations' kind under BALROG's presentation (it has no modes)."""


def hybrid_text(obs: dict[str, Any], message: str) -> tuple[str, str]:
    """BALROG's (`long_term_context`, `short_term_context`) of an NLE observation whose
    message (after `AutoMore`) is `message`."""
    texts = language_texts(obs)
    rows = ["".join(chr(c) for c in row) for row in np.asarray(obs["tty_chars"])]
    cursor = obs["tty_cursor"]
    parts = (
        ("message", message),
        ("language observation", texts["text_glyphs"]),
        ("cursor", f"{texts['text_cursor']}\n(x={cursor[1]}, y={cursor[0]})"),
        ("map", "".join(f"{row}\n" for row in rows[1:])),
    )
    long_term = "\n".join(f"{name}:\n{value}\n" for name, value in parts)
    return long_term, f"inventory:\n{texts['text_inventory']}\n"


@dataclass
class StepResult:
    """One decision: the summed reward, NLE's end, and its last info."""

    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]


class AutoMoreGame:
    """An NLE environment stepped by BALROG's words, `--More--` continued at once."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.strings = accepted_strings(list(env.actions))
        self.obs: dict[str, Any] = {}
        self.message = ""
        self.done = False

    def reset(self) -> None:
        self.obs, _ = self.env.reset()
        self.message = text_message(self.obs["tty_chars"])
        self.done = False

    def step(self, word: str) -> StepResult:
        """`word` must be one of `strings` (BALROG's wrapper raises on any other)."""
        result = self._nle_step(self.strings[word])
        message = text_message(self.obs["tty_chars"])
        while MORE in message and not self.done:
            message = message.replace(MORE, "\n")
            more = self._nle_step(list(self.env.actions).index(nethack.MiscAction.MORE))
            message += text_message(self.obs["tty_chars"])
            result.reward += more.reward
            result.terminated, result.truncated, result.info = (
                more.terminated,
                more.truncated,
                more.info,
            )
        self.message = message
        return result

    def _nle_step(self, index: int) -> StepResult:
        self.obs, reward, terminated, truncated, info = self.env.step(index)
        self.done = bool(terminated or truncated)
        return StepResult(float(reward), bool(terminated), bool(truncated), dict(info))

    def close(self) -> None:
        self.env.close()


def end_status_name(info: dict[str, Any]) -> str:
    status = info.get("end_status")
    return str(getattr(status, "name", status))


@dataclass
class NetHackStats:
    """BALROG's NetHack `Progress`: its fields, in its order, updated as it updates them."""

    episode_return: float = 0.0
    score: int = 0
    depth: int = 1
    gold: int = 0
    experience_level: int = 1
    time: int = 0
    dlvl_list: list[str] = field(default_factory=list)
    xplvl_list: list[str] = field(default_factory=list)
    highest_achievement: str | None = None
    progression: float = 0.0
    end_reason: str | None = None

    def update(self, obs: dict[str, Any], reward: float, done: bool, info: dict[str, Any]) -> None:
        self.episode_return += reward
        blstats = obs["blstats"]
        self.score, self.depth = int(blstats[9]), int(blstats[12])
        self.gold, self.experience_level = int(blstats[13]), int(blstats[18])
        self.time = int(blstats[20])
        if done:
            screen = bytes(np.asarray(obs["tty_chars"], dtype=np.uint8).reshape(-1))
            self.end_reason = end_reason(screen.decode(errors="ignore"), end_status_name(info))
        table = progression_table()
        for key, seen in (
            (f"Xp:{self.experience_level}", self.xplvl_list),
            (f"Dlvl:{self.depth}", self.dlvl_list),
        ):
            if key not in seen and key in table:
                seen.append(key)
                if table[key] > self.progression:
                    self.progression, self.highest_achievement = table[key], key

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def end_reason(screen: str, status: str) -> str:
    """BALROG's account of a game's end from the last screen's words (`DEATH: killed by
    a jackal.`): the words from the eighth to the second last, cut at the first `in`."""
    words = screen.replace("You made the top ten list!", "").split()
    start = 8 if len(words) > 7 and words[7].startswith("Agent") else 7
    sentences = " ".join(words[start:-2]).split(".")
    first = sentences[0].split()
    first_part = " ".join(first[: first.index("in")] if "in" in first else first)
    rest = ".".join(sentences[1:]).strip()
    return f"{status}: {first_part}. {rest}".strip()


@dataclass
class MiniHackStats:
    """BALROG's `BaseProgress`, whose fields are class attributes until an update: its
    `get_stats()` is empty at the start, then these three (`end_reason` NLE's step
    status, as a number, as BALROG's JSON log writes it)."""

    fields: dict[str, Any] = field(default_factory=dict)

    def update(self, obs: dict[str, Any], reward: float, done: bool, info: dict[str, Any]) -> None:
        total = float(self.fields.get("episode_return", 0.0)) + reward
        self.fields = {
            "episode_return": total,
            "progression": 1.0 if reward >= 1.0 else 0.0,
            "end_reason": int(info["end_status"]),
        }

    def as_dict(self) -> dict[str, Any]:
        return dict(self.fields)


Stats = NetHackStats | MiniHackStats


class BalrogSession:
    """One episode under BALROG's presentation: its words, its text, its stats and its
    end (NLE's own, or `max_steps` decisions: BALROG's evaluator loop)."""

    def __init__(self, vocabulary: list[str], new_stats: Callable[[], Stats], max_steps: int):
        self.vocabulary = vocabulary
        self.legal = [Action(id=word) for word in vocabulary]
        self.new_stats = new_stats
        self.stats = new_stats()
        self.max_steps = max_steps
        self.game: AutoMoreGame | None = None
        self.words: list[str] = []
        self.terminated = self.truncated = False
        self.end_status = ""
        self.refused = ""
        self.info: dict[str, Any] = {}

    @property
    def over(self) -> bool:
        return self.terminated or self.truncated

    def start(self, env: Any) -> None:
        self.close()
        self.game = AutoMoreGame(env)
        self.game.reset()
        self.stats = self.new_stats()
        self.words, self.terminated, self.truncated, self.end_status = [], False, False, ""
        self.refused, self.info = "", {}

    def playable(self, word: str) -> bool:
        return self.game is not None and not self.over and word in self.vocabulary

    def play(self, word: str) -> float:
        """One decision. A word outside the vocabulary is refused; a word of the vocabulary
        that BALROG's wrapper does not map (`00`-`99` in NetHack) ends the episode, as
        BALROG's step raises `ValueError` on it and its evaluator loses the episode."""
        game = self.game
        if game is None or word not in self.vocabulary:
            raise IllegalActionError(f"{word!r} is not one of BALROG's words")
        self.words.append(word)
        if word not in game.strings:
            self.refused, self.truncated = word, True
            return 0.0
        result = game.step(word)
        self.stats.update(game.obs, result.reward, game.done, result.info)
        self.info = result.info
        if game.done:
            # BALROG's NLETimeLimit: an NLE abort (its step limit, or no game time passing)
            # is a truncation, any other end a termination.
            self.end_status = end_status_name(result.info)
            self.truncated = self.end_status == "ABORTED"
            self.terminated = not self.truncated
        elif len(self.words) >= self.max_steps:
            self.truncated = True
        return result.reward

    def ended_by(self) -> str:
        """`running`, `death`, `aborted` (NLE's), `victory` (MiniHack's), `step-limit`, or
        `balrog-error` (a word BALROG's wrapper raises on)."""
        if not self.over:
            return "running"
        if self.refused:
            return "balrog-error"
        ends = {"DEATH": "death", "ABORTED": "aborted", "TASK_SUCCESSFUL": "victory"}
        return ends.get(self.end_status, "step-limit")

    def observation(self, kind: str) -> Observation:
        game = self.game
        assert game is not None, "start() first"
        text, history_text = balrog_texts(*hybrid_text(game.obs, game.message))
        return Observation(
            kind=kind,
            state={"stats": self.stats.as_dict()},
            text=text,
            history_text=history_text,
            legal=[] if self.over else list(self.legal),
            t=len(self.words),
        )

    def close(self) -> None:
        if self.game is not None:
            self.game.close()
            self.game = None


__all__ = [
    "BALROG_KIND",
    "MORE",
    "AutoMoreGame",
    "BalrogSession",
    "MiniHackStats",
    "NetHackStats",
    "StepResult",
    "end_reason",
    "hybrid_text",
]
