"""`bounded/MiniHack-v0`: BALROG's MiniHack tasks that need no downloaded data, as text,
with NetHack's rendering and vocabulary (`bounded.envs.nethack`), BALROG's step limit
(100) and its progression: 1 when the task is accomplished (the stairs down reached),
else 0.

BALROG also plays MiniHack's Boxoban (Medium, Hard); those levels are a separate download
(`minihack/scripts/download_boxoban_levels.py`, from GitHub), so they are refused here
with that reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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
from bounded.envs.base import (
    Choices,
    Presentation,
    presentation_option,
    progression_outcome,
    with_action_mask,
)
from bounded.envs.minihack.balrog_prompt import ACTION_HELP, instruction_prompt
from bounded.envs.minihack.game import MiniHackGame, balrog_minihack_env
from bounded.envs.minihack.knowledge import minihack_knowledge
from bounded.envs.nethack.balrog import BALROG_KIND, BalrogSession, MiniHackStats
from bounded.envs.nethack.balrog_words import minihack_words
from bounded.envs.nethack.render import observation_state, observation_text
from bounded.envs.nethack.screen import message, screen_lines
from bounded.envs.nethack.vocabulary import BALROG_COMMANDS, MODES, MORE, Mode, Word, words_for
from bounded.envs.replayed import ReplayedEnv
from bounded.stores.knowledge import GameKnowledge

ENV_VERSION = "1"

TASKS: dict[str, str] = {
    "mazewalk-9x9": "MiniHack-MazeWalk-9x9-v0",
    "mazewalk-15x15": "MiniHack-MazeWalk-15x15-v0",
    "corridor-r3": "MiniHack-Corridor-R3-v0",
    "corridorbattle-dark": "MiniHack-CorridorBattle-Dark-v0",
    "quest-easy": "MiniHack-Quest-Easy-v0",
    "quest-medium": "MiniHack-Quest-Medium-v0",
}
"""BALROG's MiniHack tasks that play offline: short name -> MiniHack id."""
NEEDS_DOWNLOAD = {
    "MiniHack-Boxoban-Medium-v0": "boxoban-medium",
    "MiniHack-Boxoban-Hard-v0": "boxoban-hard",
}
"""BALROG's MiniHack tasks whose levels are a separate download."""


BALROG_WORDS = frozenset(
    {"north", "east", "south", "west", "northeast", "southeast", "southwest", "northwest"}
    | {f"far {d}" for d in ("north", "east", "south", "west")}
    | {f"far {d}" for d in ("northeast", "southeast", "southwest", "northwest")}
    | {"up", "down", "wait", "more", "apply", "close", "open", "eat", "force", "kick"}
    | {"loot", "pickup", "pray", "puton", "quaff", "search", "zap"}
)
"""BALROG's MiniHack action words (those of its NetHack words it offers MiniHack)."""
COMMAND_WORDS: tuple[Word, ...] = tuple(w for w in (*BALROG_COMMANDS, MORE) if w.id in BALROG_WORDS)

GOALS = {
    "corridor": "Your goal is to explore the level and reach the stairs down `>`.",
    "quest": (
        "Your goal is to explore the level, fight monsters, and find your way through "
        "rooms and mazes to the stairs down `>`. A river of lava `}` bars the way: an item "
        "you find (a wand of cold, a ring or potion of levitation) gets you across."
    ),
    "mazewalk": "Your goal is to find your way through the maze to the stairs down `>`.",
}

INSTRUCTIONS = """\
You are playing MiniHack, small NetHack levels, as the hero `@`. {goal}
The episode ends with success when you stand on `>`. The map uses NetHack's symbols: `.`
floor, `#` corridor, `|` and `-` walls, `+` a closed door, `}}` water or lava, letters are
monsters, `@` is you. North is up. Move into a monster to attack it.
The actions you can take:
{actions}
Tip: there is no point in repeating an action that changes nothing."""


def question_mode(obs: dict[str, Any]) -> Mode:
    """What the game waits for, read from the screen (MiniHack's observations have no
    NLE `misc` flags; menus and typed text never reach the agent)."""
    text = message(obs).strip()
    if "--More--" in "\n".join(screen_lines(obs)):
        return "more"
    if "direction" in text.lower() and text.endswith("?"):
        return "direction"
    if text.endswith("]") and "[" in text:
        return "choice"
    return "command"


class MiniHackConfig(BaseModel):
    """Settings of a MiniHack episode (BALROG's by default)."""

    task: str = "mazewalk-9x9"
    """One of BALROG's tasks (`mazewalk-9x9`, `mazewalk-15x15`, `corridor-r3`,
    `corridorbattle-dark`, `quest-easy`, `quest-medium`) or its MiniHack id."""
    max_steps: int = Field(default=100, ge=1, le=100_000)
    """Actions before the episode is truncated (BALROG's MiniHack limit: 100)."""
    full_map: bool = False
    """Show the whole map instead of the part around the hero."""
    presentation: Presentation = "bounded"
    """`bounded`: NetHack's rendering and words above; `balrog`: BALROG's prompt, text,
    vocabulary, `AutoMore` and settings (`bounded.envs.nethack.balrog`)."""

    @field_validator("task")
    @classmethod
    def _known(cls, task: str) -> str:
        task_id = TASKS.get(task, task)
        if task_id in NEEDS_DOWNLOAD or task.lower().startswith("boxoban"):
            raise ValueError(
                f"{task} needs MiniHack's Boxoban level files, a separate download "
                "(python -m minihack.scripts.download_boxoban_levels): not available offline"
            )
        if task_id not in TASKS.values():
            raise ValueError(f"unknown MiniHack task {task!r} (tasks: {', '.join(TASKS)})")
        return task

    @property
    def task_id(self) -> str:
        return TASKS.get(self.task, self.task)


class MiniHackEnv(ReplayedEnv[MiniHackConfig]):
    """`bounded/MiniHack-v0`: one MiniHack level per episode, one action per decision.

    Outcome: `victory` when the task is accomplished; `score` MiniHack's reward; `progress`
    BALROG's progression (1 on success, else 0); `ended_by` `victory`, `death`,
    `step-limit`, `aborted`, `nle-error: ...` or `running`.
    """

    version = ENV_VERSION
    env_id = "bounded/MiniHack-v0"
    game_name = "MiniHack"

    def __init__(
        self,
        task: str = "mazewalk-9x9",
        max_steps: int = 100,
        full_map: bool = False,
        presentation: str = "bounded",
    ):
        try:
            self.config = MiniHackConfig(
                task=task,
                max_steps=max_steps,
                full_map=full_map,
                presentation=presentation_option(presentation),
            )
        except ValidationError as exc:
            raise ConfigError(f"bad MiniHack settings: {first_validation_error(exc)}") from exc
        self.balrog: BalrogSession | None = None
        self.game = MiniHackGame(self.config.task_id)
        self._seed: int | None = None
        self._actions: list[str] = []
        self._reward = 0.0
        self._ended_by = ""
        self._legal: dict[str, Word] = {}
        self._mode: Mode = "command"
        self.init_spaces(self.choices, kinds=(*MODES, BALROG_KIND))

    # -- Gymnasium API ------------------------------------------------------------------

    @property
    def presentation(self) -> str:
        return self.config.presentation

    def reset_info(self) -> dict[str, Any]:
        return {"task": self.config.task_id}

    def step(
        self, action: Action | Sequence[Action]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        if self.balrog is not None:
            session = self.balrog
            reward = session.play(self.one_move(action, over=session.over).id)
            obs = session.observation(BALROG_KIND)
            info = {"ended_by": session.ended_by(), "stats": session.stats.as_dict()}
            done = session.terminated, session.truncated
            return obs, reward, *done, with_action_mask(info, obs)
        chosen = self.one_move(action, over=bool(self._ended_by))
        word = self._legal.get(chosen.id)
        if word is None:
            raise IllegalActionError(
                f"{chosen.id!r} is not legal now (legal: {', '.join(self._legal)})"
            )
        reward = self._act(word)
        obs = self._observe()
        truncated = self._ended_by == "step-limit"
        terminated = bool(self._ended_by) and not truncated
        info = {"mode": self._mode, "ended_by": self._ended_by}
        return obs, reward, terminated, truncated, with_action_mask(info, obs)

    def choices(self) -> Choices:
        if self.balrog is not None:
            return Choices(legal=[] if self.balrog.over else self.balrog.legal, max_actions=1)
        return Choices(legal=[w.action() for w in self._legal.values()], max_actions=1)

    def default_action(self) -> Action:
        """BALROG's default action for MiniHack: `north`."""
        return Action(id="north", label="move north")

    def game_knowledge(self) -> GameKnowledge:
        """MiniHack's L3 rules, L5 seed skills and situation reader (`knowledge`)."""
        return minihack_knowledge()

    def close(self) -> None:
        self.game.close()
        if self.balrog is not None:
            self.balrog.close()
        super().close()

    # -- playing ------------------------------------------------------------------------

    def _start(self, seed: int) -> None:
        if self.config.presentation == "balrog":
            self._start_balrog(seed)
            return
        self.game = MiniHackGame(self.config.task_id)
        self.game.start(seed)
        self._seed, self._actions, self._reward, self._ended_by = seed, [], 0.0, ""
        self._read()
        self.instructions = INSTRUCTIONS.format(
            goal=self._goal(),
            actions="\n".join(f"- {w.id}: {w.label}" for w in self._command_words()),
        )

    def _start_balrog(self, seed: int) -> None:
        if self.balrog is not None:
            self.balrog.close()
        env = balrog_minihack_env(self.config.task_id, seed)
        words = minihack_words(env.actions, ACTION_HELP)
        self.balrog = BalrogSession(words, MiniHackStats, self.config.max_steps)
        self.balrog.start(env)
        self._seed = seed
        self.instructions = instruction_prompt(words, self.config.task_id)

    def _goal(self) -> str:
        name = self.config.task_id.lower()
        return next((text for key, text in GOALS.items() if key in name), GOALS["corridor"])

    def _command_words(self) -> list[Word]:
        return [w for w in COMMAND_WORDS if self.game.accepts(w.keys) and w.id != "more"]

    def _act(self, word: Word) -> float:
        result = self.game.press(word.keys)
        self._actions.append(word.id)
        self._reward += result.reward
        self._read()
        if result.over:
            self._end(result.end_reason)
        elif len(self._actions) >= self.config.max_steps:
            self._end("step-limit")
        return result.reward

    def _read(self) -> None:
        """The mode and legal actions: the task's own keys in NetHack's words."""
        obs = self.game.obs
        self._mode = question_mode(obs)
        words: list[Word] = self._command_words()
        if self._mode != "command":
            lines = screen_lines(obs)
            answers = words_for(self._mode, "balrog", message(obs), lines, "\n".join(lines))
            words = [w for w in answers if self.game.accepts(w.keys)] or words
        self._legal = {w.id: w for w in words}

    def _end(self, reason: str) -> None:
        self._ended_by = reason
        self._legal = {}

    def _observe(self) -> Observation:
        if self.balrog is not None:
            return self.balrog.observation(BALROG_KIND)
        obs = self.game.obs
        text = observation_text(obs, self._mode, full_map=self.config.full_map)
        if self._ended_by:
            text = f"The episode is over: {self._ended_by}.\n\n{text}"
        state = observation_state(obs, self._mode, self._progression())
        state["task"] = self.config.task_id
        return Observation(
            kind=self._mode, state=state, text=text,
            legal=[w.action() for w in self._legal.values()], t=len(self._actions),
        )  # fmt: skip

    # -- reports, save and load ---------------------------------------------------------

    def _progression(self) -> float:
        return 1.0 if self._ended_by == "victory" else 0.0

    def metrics(self) -> dict[str, Any]:
        if self.balrog is not None:
            return self._balrog_metrics(self.balrog)
        return {
            "progression": self._progression(),
            "reward": self._reward,
            "steps": len(self._actions),
            "task": self.config.task_id,
            "ended_by": self._ended_by or "running",
            "victory": self._ended_by == "victory",
        }

    def _balrog_metrics(self, session: BalrogSession) -> dict[str, Any]:
        stats = session.stats.as_dict()
        return {
            "progression": float(stats.get("progression", 0.0)),
            "reward": float(stats.get("episode_return", 0.0)),
            "steps": len(session.words),
            "task": self.config.task_id,
            "ended_by": session.ended_by(),
            "victory": session.end_status == "TASK_SUCCESSFUL",
            "balrog_stats": stats,
        }

    def outcome(self) -> Outcome:
        """See the class docstring."""
        return progression_outcome(self.metrics(), score_key="reward")

    def save(self) -> JSON:
        """The task, seed and actions taken (a load replays them)."""
        return self.replay_save(self.balrog.words if self.balrog else self._actions)

    def load(self, data: JSON) -> None:
        self.config, seed, actions = self.read_save(data, MiniHackConfig, str)
        if self.balrog is not None and self.presentation != "balrog":
            self.balrog.close()
            self.balrog = None
        self._start(seed)
        if self.balrog is not None:
            session = self.balrog
            self.replay(actions, lambda w: w if session.playable(w) else None, session.play)
            return
        self.replay(actions, self._playable, self._act)

    def _playable(self, action_id: str) -> Word | None:
        return None if self._ended_by else self._legal.get(action_id)


__all__ = ["NEEDS_DOWNLOAD", "TASKS", "MiniHackConfig", "MiniHackEnv"]
