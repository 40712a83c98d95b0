"""`bounded/TextWorld-v0`: BALROG's three TextWorld games (treasure hunter, the cooking
game, coin collector), generated from a seed (`games`), as text, with BALROG's
observation options (objective, room description, score, max score), 80 steps, and its
progression: score / max score, 1 on a win.

The legal actions are the game's admissible commands, plus `free text`: any command in
the game's own words (the parser answers what it makes of it, as BALROG lets a model
type anything).

`presentation="balrog"` shows what BALROG shows instead: BALROG's instruction prompt, the
game's answer alone with the objective split out of it (`TextWorldWrapper.filter_objective`),
`free text` as the only listed action (BALROG's `language_action_space` accepts any
string, the empty one too; any action id is typed as a command too), on BALROG's own game
pool (`bounded.envs.textworld.pool`, game `seed % 25`, or BALROG's per-process counter:
`game_choice`), with BALROG's reward (TextWorld's
running score) and its episode end (the 80-step limit ends the episode as `terminated`).
"""

from __future__ import annotations

import contextlib
import json
import re
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

import textworld
from pydantic import BaseModel, Field, ValidationError, field_validator

from bounded.core import (
    FREE_TEXT_ACTION,
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
from bounded.envs.replayed import ReplayedEnv
from bounded.envs.textworld.games import CHALLENGES, cache_dir, ensure_game, game_settings
from bounded.envs.textworld.knowledge import textworld_knowledge
from bounded.envs.textworld.pool import (
    DATA,
    as_glulx,
    counter_game,
    pool_entry,
    pool_game,
    pool_size,
)
from bounded.stores.knowledge import GameKnowledge

ENV_VERSION = "1"
Task = Literal["treasure_hunter", "the_cooking_game", "coin_collector"]
BALROG_INSTRUCTIONS: dict[str, str] = json.loads(
    (DATA / "balrog_instructions.json").read_text(encoding="utf-8")
)
"""BALROG's `get_instruction_prompt(env, task)` per task, as its evaluator sends it."""

FREE_TEXT = FREE_TEXT_ACTION
FREE_TEXT_SCHEMA: JSON = {
    "type": "object",
    "properties": {"text": {"type": "string", "minLength": 1, "maxLength": 200}},
    "required": ["text"],
    "additionalProperties": False,
}
BALROG_FREE_TEXT_SCHEMA: JSON = {
    **FREE_TEXT_SCHEMA,
    "properties": {"text": {"type": "string", "maxLength": 200}},
}
"""Free text under BALROG's presentation: the empty command too (BALROG's `AlwaysTrue`)."""
HELP = "help"
"""BALROG's default action for TextWorld."""

GOALS: dict[str, str] = {
    "treasure_hunter": (
        "You are in a randomly generated maze and must find a specific object, named in "
        "the objective. Doors and containers may be closed or locked: open them, and "
        "unlock them with the key whose adjective matches the lock."
    ),
    "the_cooking_game": (
        "Find the cookbook in the kitchen, read the recipe, gather the ingredients, "
        "prepare them exactly as the recipe says (slice, chop or dice with a knife; "
        "grill with the BBQ, fry with the stove, roast with the oven), then `prepare "
        "meal` in the kitchen and `eat meal`. Cooking something the wrong way loses the "
        "game."
    ),
    "coin_collector": (
        "You are in a randomly generated maze and must find the coin: explore with "
        "`go <direction>` and `take coin` when you see it."
    ),
}

INSTRUCTIONS = """\
You are playing TextWorld, a text adventure game. {goal}
Each turn you see the game's answer to your last command, where you are, and your
score. Choose one of the listed commands (`look`, `inventory`, `go north`, `open ...`,
`take ... from ...`, `unlock ... with ...`, ...), or type any command as free text.
You have {max_steps} steps. Restarting is not possible."""


class TextWorldConfig(BaseModel):
    """Settings of a TextWorld game (BALROG's by default)."""

    task: Task = "treasure_hunter"
    """One of BALROG's games: `treasure_hunter`, `the_cooking_game`, `coin_collector`."""
    max_steps: int = Field(default=80, ge=1, le=10_000)
    """Commands before the episode is truncated (`ended_by = "step-limit"`)."""
    settings: dict[str, Any] | None = None
    """TextWorld challenge settings replacing BALROG's (`{"level": 5}` for a smaller
    treasure hunt; the cooking game's `recipe`, `take`, `go`, `open`, `cook`, `cut`,
    `drop`)."""
    objective: bool = True
    """Show the game's objective (BALROG's `objective`)."""
    description: bool = True
    """Show the room's description (BALROG's `description`)."""
    score: bool = True
    """Show the score (BALROG's `score`)."""
    max_score: bool = True
    """Show the score out of its maximum (BALROG's `max_score`)."""
    games_dir: str | None = None
    """Where generated games are kept (None: `games.cache_dir()`)."""
    presentation: Presentation = "bounded"
    """`bounded` (this module's text and admissible commands) or `balrog` (BALROG's text,
    prompt and free commands)."""
    pool: Literal["generated", "balrog"] | None = None
    """`generated` (a game generated from the seed) or `balrog` (BALROG's own game pool,
    shipped: game `seed % 25`); None: `balrog` under BALROG's presentation unless
    `settings` asks for a generated game, else `generated`."""
    game_choice: Literal["seed", "counter"] = "seed"
    """Which of BALROG's pool games an episode plays: `seed` (game `seed % 25`, BALROG's
    choice for a seeded episode) or `counter` (BALROG's choice under its default config,
    which seeds no episode: a per-process, per-task counter, `pool.counter_game`; the game
    played is in `reset`'s info and in the save)."""

    @property
    def balrog_pool(self) -> bool:
        if self.pool is not None:
            return self.pool == "balrog"
        return self.presentation == "balrog" and self.settings is None

    @field_validator("task", mode="before")
    @classmethod
    def _known(cls, task: Any) -> Any:
        if task not in CHALLENGES:
            raise ValueError(f"unknown TextWorld task {task!r} (tasks: {', '.join(CHALLENGES)})")
        return task


class TextWorldEnv(ReplayedEnv[TextWorldConfig]):
    """`bounded/TextWorld-v0`: one generated TextWorld game per episode, one command per
    decision.

    Outcome: `victory` when the game is won; `score` the game's score; `progress` BALROG's
    progression (score / max score, 1 on a win); `ended_by` `victory`, `lost`,
    `step-limit` or `running`.
    """

    version = ENV_VERSION
    thread_safe = False
    """TextWorld parses a game's logic with one module-wide TatSu parser
    (`textworld.logic._PARSER`), which keeps its parse state on itself: two games loaded
    at once in threads corrupt each other's parse (IndexError in tatsu.contexts)."""
    env_id = "bounded/TextWorld-v0"
    game_name = "TextWorld"
    move_name = "command"

    def __init__(
        self,
        task: str = "treasure_hunter",
        max_steps: int = 80,
        settings: dict[str, Any] | None = None,
        objective: bool = True,
        description: bool = True,
        score: bool = True,
        max_score: bool = True,
        games_dir: str | None = None,
        presentation: str = "bounded",
        pool: str | None = None,
        game_choice: str = "seed",
    ) -> None:
        try:
            self.config = TextWorldConfig(
                task=task,  # type: ignore[arg-type]
                max_steps=max_steps, settings=settings, objective=objective,
                description=description, score=score, max_score=max_score, games_dir=games_dir,
                presentation=presentation_option(presentation),
                pool=pool,  # type: ignore[arg-type]
                game_choice=game_choice,  # type: ignore[arg-type]
            )  # fmt: skip
        except ValidationError as exc:
            raise ConfigError(f"bad TextWorld settings: {first_validation_error(exc)}") from exc
        if self.config.balrog_pool and settings is not None:
            raise ConfigError("TextWorld settings= has no effect on BALROG's game pool "
                              "(pool='balrog'): drop one of them")  # fmt: skip
        if self.config.game_choice == "counter" and not self.config.balrog_pool:
            raise ConfigError("TextWorld game_choice='counter' picks from BALROG's game pool: "
                              "play it with pool='balrog'")  # fmt: skip
        self._game: Any = None
        self._path: Path | None = None
        self._seed: int | None = None
        self._commands: list[str] = []
        self._state: Any = None
        self._ended_by = ""
        self._glulx = False
        self._game_index: int | None = None
        """The pool game of the episode (None: a generated game)."""
        self.walkthrough: list[str] = []
        """The generator's solution of the current game (for the scripted player)."""
        self.instructions = INSTRUCTIONS.format(
            goal=GOALS[self.config.task], max_steps=self.config.max_steps
        )
        if self.balrog:
            self.instructions = BALROG_INSTRUCTIONS[self.config.task]
        self.init_spaces(self.choices, kinds=("play",))

    @property
    def presentation(self) -> str:
        """`bounded` or `balrog` (see the module docstring)."""
        return self.config.presentation

    @property
    def balrog(self) -> bool:
        return self.config.presentation == "balrog"

    # -- Gymnasium API ------------------------------------------------------------------

    def reset_info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"task": self.config.task}
        if self._game_index is not None:
            info["game"] = self._game_index
        return info

    def step(
        self, action: Action | Sequence[Action]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        chosen = self.one_move(action, over=bool(self._ended_by))
        before = self._score()
        self._act(self._command(chosen))
        obs = self._observe()
        info = {"score": self._score(), "ended_by": self._ended_by}
        truncated = self._ended_by == "step-limit" and not self.balrog
        terminated = bool(self._ended_by) and not truncated
        reward = float(self._score() if self.balrog else self._score() - before)
        return obs, reward, terminated, truncated, with_action_mask(info, obs)

    def _command(self, action: Action) -> str:
        if action.id == FREE_TEXT:
            text = action.args.get("text")
            if isinstance(text, str) and self.balrog:  # BALROG types any string, "" too
                return text
            if not isinstance(text, str) or not text.strip():
                raise IllegalActionError("free text needs a non-empty `text` argument")
            return " ".join(text.split())
        if self.balrog:  # BALROG types any string it is given
            return action.id
        if action.id == HELP or action.id in self._admissible():
            return action.id
        raise IllegalActionError(f"{action.id!r} is not a command the game admits now")

    def choices(self) -> Choices:
        if self._ended_by or self._state is None:
            return Choices(legal=[], max_actions=1)
        legal = [] if self.balrog else [Action(id=command) for command in self._admissible()]
        schema = BALROG_FREE_TEXT_SCHEMA if self.balrog else FREE_TEXT_SCHEMA
        legal.append(Action(id=FREE_TEXT, label="type any command", schema=schema))
        return Choices(legal=legal, max_actions=1)

    def default_action(self) -> Action:
        """BALROG's default action for TextWorld: `help` (accepted at every decision)."""
        return Action(id=HELP, label="ask the game for help")

    def game_knowledge(self) -> GameKnowledge:
        """TextWorld's L3 rules, L5 seed skills and situation reader (`knowledge`)."""
        return textworld_knowledge()

    def close(self) -> None:
        if self._game is not None:
            self._game.close()
            self._game = None
        super().close()

    # -- playing ------------------------------------------------------------------------

    def _start(self, seed: int, game: int | None = None) -> None:
        """Start the game of `seed` (from the pool: game `game`, else the one the
        config's `game_choice` picks)."""
        games_dir = Path(self.config.games_dir) if self.config.games_dir else cache_dir()
        self._game_index = None
        if self.config.balrog_pool:
            if game is None:
                counted = self.config.game_choice == "counter"
                game = counter_game(self.config.task, seed) if counted else seed
            self._game_index = game % pool_size(self.config.task)
            path = pool_game(self.config.task, self._game_index, games_dir)
            self._glulx = pool_entry(self.config.task, self._game_index)["format"] == "ulx"
        else:
            settings = game_settings(self.config.task, self.config.settings)
            path = ensure_game(self.config.task, seed, settings, games_dir)
        if path != self._path:
            self.close()
            # The admissible and winning commands are read by probing the game, which
            # changes its text (a blank line more before a score notice): BALROG asks
            # for neither.
            probes = not self.balrog
            infos = textworld.EnvInfos(
                objective=True, description=True, inventory=True, score=True,
                max_score=True, won=True, lost=True, admissible_commands=probes,
                policy_commands=probes, feedback=True,
            )  # fmt: skip
            with _jericho_quiet():
                self._game = textworld.start(str(path), request_infos=infos)
            self.walkthrough = list(textworld.Game.load(str(path.with_suffix(".json"))).walkthrough)
            self._path = path
        with _jericho_quiet():
            self._state = self._game.reset()
        self._seed, self._commands, self._ended_by = seed, [], ""

    def _act(self, command: str) -> None:
        self._state, _, done = self._game.step(command)
        self._commands.append(command)
        if self._state["won"]:
            self._ended_by = "victory"
        elif self._state["lost"]:
            self._ended_by = "lost"
        elif done:
            self._ended_by = "game over"
        elif len(self._commands) >= self.config.max_steps:
            self._ended_by = "step-limit"

    def _admissible(self) -> list[str]:
        return sorted(set(self._state["admissible_commands"] or []))

    def policy(self) -> list[str]:
        """TextWorld's winning commands from here (empty where it tracks no quest, and
        under BALROG's presentation, which does not ask for them)."""
        return [] if self.balrog else list(self._state["policy_commands"] or [])

    def _score(self) -> int:
        return int(self._state["score"] or 0) if self._state is not None else 0

    def _feedback(self) -> str:
        text = str(self._state["feedback"] or "")
        objective = str(self._state["objective"] or "")
        if not self._commands and objective and objective in text:
            text = text.split(objective)[-1]  # the opening banner, as BALROG removes it
        lines = [line for line in text.splitlines() if not line.lstrip().startswith(">")]
        return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()

    def _balrog_text(self) -> str:
        """BALROG's `filter_objective` of the game's answer (the text after the objective's
        last occurrence, stripped), as its Glulx interpreter prints a Glulx game's."""
        text = str(self._state["feedback"] or "")
        objective = str(self._state["objective"] or "")
        text = (text.split(objective)[-1] if objective else text).strip()
        if self._glulx:
            text = as_glulx(text, ended=self._ended_by not in ("", "step-limit"))
        return text

    def _observe(self) -> Observation:
        config, state = self.config, self._state
        parts = []
        if config.objective:
            parts.append(f"Objective: {' '.join(str(state['objective']).split())}")
        parts.append(self._feedback())
        if config.description and self._commands:
            parts.append(f"Where you are:\n{str(state['description']).strip()}")
        if config.score:
            out_of = f" out of {state['max_score']}" if config.max_score else ""
            steps = f"Steps: {len(self._commands)} of {config.max_steps}."
            parts.append(f"Score: {self._score()}{out_of}. {steps}")
        if self._ended_by:
            parts.insert(0, f"The game is over: {self._ended_by}.")
        return Observation(
            kind="play",
            state={
                "task": config.task,
                "score": self._score(),
                "max_score": int(state["max_score"] or 0),
                "step": len(self._commands),
                "won": bool(state["won"]),
                "lost": bool(state["lost"]),
                "inventory": " ".join(str(state["inventory"] or "").split()),
                "room": _room(str(state["description"] or "")),
                "progression": self._progression(),
            },
            text=self._balrog_text() if self.balrog else "\n\n".join(p for p in parts if p),
            legal=list(self.choices().legal),
            t=len(self._commands),
        )

    # -- reports, save and load ---------------------------------------------------------

    def _progression(self) -> float:
        if self._state is None:
            return 0.0
        if self._state["won"]:
            return 1.0
        top = int(self._state["max_score"] or 0)
        return min(1.0, self._score() / top) if top > 0 else 0.0

    def metrics(self) -> dict[str, Any]:
        state = self._state
        return {
            "progression": self._progression(),
            "score": self._score(),
            "max_score": int(state["max_score"] or 0) if state is not None else 0,
            "steps": len(self._commands),
            "task": self.config.task,
            **({"game": self._game_index} if self._game_index is not None else {}),
            "ended_by": self._ended_by or "running",
            "victory": bool(state is not None and state["won"]),
        }

    def outcome(self) -> Outcome:
        """See the class docstring."""
        return progression_outcome(self.metrics())

    def save(self) -> JSON:
        """The settings, seed, pool game and commands typed (a load replays them)."""
        return {**self.replay_save(self._commands), "game": self._game_index}

    def load(self, data: JSON) -> None:
        config, seed, commands = self.read_save(data, TextWorldConfig, str)
        if config != self.config:
            self.close()
            self._path = None
        self.config = config
        game = data.get("game")
        self._start(seed, int(game) if isinstance(game, int) else None)
        self.replay(commands, self._playable, self._act)

    def _playable(self, command: str) -> str | None:
        return None if self._ended_by else command


@contextlib.contextmanager
def _jericho_quiet() -> Iterator[None]:
    """Jericho warns that a TextWorld story "is not fully supported" (it keeps no score
    for stories it does not know): TextWorld keeps the score itself."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is not fully supported")
        yield


def _room(description: str) -> str:
    """The room's name from its description's `-= Kitchen =-` heading."""
    first = description.strip().splitlines()[0] if description.strip() else ""
    return first.strip().strip("-=").strip()


__all__ = ["FREE_TEXT", "TextWorldConfig", "TextWorldEnv"]
