"""`bounded/NetHack-v0`: NetHack through NLE, as text, with legal actions in words."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

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
from bounded.envs.base import Choices, Presentation, presentation_option, with_action_mask
from bounded.envs.nethack.balrog import BALROG_KIND, BalrogSession, NetHackStats
from bounded.envs.nethack.balrog_prompt import instruction_prompt
from bounded.envs.nethack.balrog_words import nethack_vocabulary
from bounded.envs.nethack.game import NetHackGame, balrog_nle_env
from bounded.envs.nethack.knowledge import nethack_knowledge
from bounded.envs.nethack.progress import Progress
from bounded.envs.nethack.render import INSTRUCTIONS, observation_state, observation_text
from bounded.envs.nethack.screen import Stats, message, read_mode, screen_lines
from bounded.envs.nethack.vocabulary import ESCAPE, MODES, Mode, Word, words_for
from bounded.envs.replayed import ReplayedEnv
from bounded.stores.knowledge import GameKnowledge

ENV_VERSION = "2"

_POSITION_PROMPTS = ("Where do you want", "Pick an object", "Pick a monster")

BALROG_MAX_STEPS = 100_000
"""BALROG's NetHack step limit (its `nle_kwargs.max_episode_steps`)."""


class NetHackConfig(BaseModel):
    """Settings of a NetHack game."""

    character: str = "@"
    """NetHack's character: `@` random per seed (the challenge's), or
    `role-race-gender-alignment`, e.g. `val-dwa-fem-law`."""
    max_steps: int = Field(default=10_000, ge=1, le=1_000_000)
    """Decisions before the episode is truncated (`ended_by = "step-limit"`); under
    BALROG's presentation the default is BALROG's 100,000."""
    vocabulary: Literal["balrog", "core"] = "balrog"
    """The commands offered when the game waits for one (see `vocabulary`)."""
    prompt_limit: int = Field(default=100, ge=1)
    """Decisions in a row spent in questions, menus and --More-- before the episode ends
    (`ended_by = "stuck in a prompt"`): an unexpected prompt never loops for ever."""
    full_map: bool = False
    """Show the whole 21 x 79 map instead of the part seen so far."""
    presentation: Presentation = "bounded"
    """`bounded`: the text, modes and words above; `balrog`: BALROG's (`balrog`)."""


class NetHackEnv(ReplayedEnv[NetHackConfig]):
    """`bounded/NetHack-v0`: one NetHack game per episode, one decision per action.

    Outcome: `victory` only on an ascension; `score` NetHack's own in-game score;
    `progress` BALROG's progression (the human-data win probability of the deepest
    dungeon level or highest experience level reached); `ended_by` `death`, `step-limit`,
    `stuck in a prompt`, `nle-error: ...`, `aborted ...` or `running`.

    `presentation="balrog"` shows BALROG's instruction prompt, observation text and
    vocabulary, and ends the episode as BALROG's NLE settings do (`balrog`).
    """

    version = ENV_VERSION
    env_id = "bounded/NetHack-v0"
    game_name = "NetHack"
    instructions = INSTRUCTIONS

    def __init__(
        self,
        character: str = "@",
        max_steps: int | None = None,
        vocabulary: str = "balrog",
        prompt_limit: int = 100,
        full_map: bool = False,
        presentation: str = "bounded",
    ) -> None:
        shown = presentation_option(presentation)
        if max_steps is None:
            max_steps = BALROG_MAX_STEPS if shown == "balrog" else 10_000
        try:
            config = NetHackConfig(
                character=character,
                max_steps=max_steps,
                vocabulary=vocabulary,  # type: ignore[arg-type]
                prompt_limit=prompt_limit,
                full_map=full_map,
                presentation=shown,
            )
        except ValidationError as exc:
            raise ConfigError(f"bad NetHack settings: {first_validation_error(exc)}") from exc
        self._configure(config)
        self.game = NetHackGame(character=character)
        self._seed: int | None = None
        self._actions: list[str] = []
        self._steps = 0
        self._prompt_run = 0
        self._picking = False
        self._ended_by = ""
        self._truncated = False
        self._progress = Progress()
        self._legal: dict[str, Word] = {}
        self._mode: Mode = "command"
        self._stats: Stats | None = None
        self.init_spaces(self.choices, kinds=(*MODES, BALROG_KIND))

    @property
    def presentation(self) -> str:
        return self.config.presentation

    def _configure(self, config: NetHackConfig) -> None:
        self.config = config
        self.balrog: BalrogSession | None = None
        self.instructions = INSTRUCTIONS
        if config.presentation == "balrog":
            self.instructions = instruction_prompt()
            self.balrog = BalrogSession(_balrog_vocabulary(), NetHackStats, config.max_steps)

    # -- Gymnasium API ------------------------------------------------------------------

    def step(
        self, action: Action | Sequence[Action]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        if self.balrog is not None:
            return self._balrog_step(action, self.balrog)
        chosen = self.one_move(action, over=bool(self._ended_by))
        word = self._legal.get(chosen.id)
        if word is None and chosen.id == ESCAPE.id:
            word = ESCAPE  # the default action, accepted in every mode as BALROG's is
        if word is None:
            raise IllegalActionError(
                f"{chosen.id!r} is not legal now (legal: {', '.join(self._legal)})"
            )
        reward = self._act(word)
        obs = self._observe()
        info = {"mode": self._mode, "ended_by": self._ended_by}
        terminated = bool(self._ended_by) and not self._truncated
        return obs, reward, terminated, self._truncated, with_action_mask(info, obs)

    def _balrog_step(
        self, action: Action | Sequence[Action], session: BalrogSession
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        chosen = self.one_move(action, over=session.over)
        reward = session.play(chosen.id)
        obs = session.observation(BALROG_KIND)
        info = {
            "end_status": session.end_status,
            "ended_by": session.ended_by(),
            "stats": session.stats.as_dict(),
        }
        return obs, reward, session.terminated, session.truncated, with_action_mask(info, obs)

    def choices(self) -> Choices:
        if self.balrog is not None:
            return Choices(legal=[] if self.balrog.over else self.balrog.legal, max_actions=1)
        return Choices(legal=[w.action() for w in self._legal.values()], max_actions=1)

    def close(self) -> None:
        self.game.close()
        if self.balrog is not None:
            self.balrog.close()
        super().close()

    def default_action(self) -> Action:
        """BALROG's default action, `esc`: it cancels a question, menu or --More--, and
        passes a command decision without game time. Accepted in every mode."""
        return Action(id="esc") if self.balrog is not None else ESCAPE.action()

    def game_knowledge(self) -> GameKnowledge:
        """NetHack's L3 rules, L5 seed skills and situation reader (`knowledge`)."""
        return nethack_knowledge()

    # -- playing ------------------------------------------------------------------------

    def _start(self, seed: int) -> None:
        self._seed = seed
        if self.balrog is not None:
            self.balrog.start(balrog_nle_env(self.config.character, seed))
            return
        self.game.start(seed)
        self._actions, self._steps, self._prompt_run = [], 0, 0
        self._picking, self._ended_by, self._truncated = False, "", False
        self._progress = Progress()
        self._stats = None
        self._read()

    def _act(self, word: Word) -> float:
        before = self._mode
        result = self.game.press(word.keys)
        self._actions.append(word.id)
        self._steps += 1
        if before == "position" and word.id in ("confirm", "esc"):
            self._picking = False
        if any(p in message(self.game.obs) for p in _POSITION_PROMPTS):
            self._picking = True
        self._read()
        if result.over:
            self._end(result.end_reason)
        elif self._mode != "command" and self._prompt_run >= self.config.prompt_limit:
            self._end("stuck in a prompt", truncated=True)
        elif self._steps >= self.config.max_steps:
            self._end("step-limit", truncated=True)
        return result.reward

    def _read(self) -> None:
        """Update the mode, legal actions, progress and the prompt counter from the screen."""
        obs = self.game.obs
        self._mode = read_mode(obs, self._picking)
        if self._mode != "position":
            self._picking = False
        self._prompt_run = 0 if self._mode == "command" else self._prompt_run + 1
        lines = screen_lines(obs)
        words = words_for(self._mode, self.config.vocabulary, message(obs), lines, "\n".join(lines))
        self._legal = {w.id: w for w in words}
        stats = Stats.of(obs)
        if stats.depth > 0:  # after the game ends NLE's statistics read all zero
            self._stats = stats
            self._progress.update(stats.depth, stats.xp_level)

    def _end(self, reason: str, *, truncated: bool = False) -> None:
        self._ended_by, self._truncated = reason, truncated
        self._legal = {}
        self.game.close()

    def _observe(self) -> Observation:
        if self.balrog is not None:
            return self.balrog.observation(BALROG_KIND)
        obs = self.game.obs
        text = observation_text(obs, self._mode, full_map=self.config.full_map)
        if self._ended_by:
            text = f"The game is over: {self._ended_by}.\n\n{text}"
        return Observation(
            kind=self._mode,
            state=observation_state(obs, self._mode, self._progress.progression),
            text=text,
            legal=[w.action() for w in self._legal.values()],
            t=self._steps,
        )

    # -- reports ------------------------------------------------------------------------

    def metrics(self) -> dict[str, Any]:
        if self.balrog is not None:
            return self._balrog_metrics(self.balrog)
        stats = self._stats
        return {
            "progression": self._progress.progression,
            "depth": stats.depth if stats else 1,
            "max_depth": self._progress.max_depth,
            "experience_level": stats.xp_level if stats else 1,
            "max_experience_level": self._progress.max_xp_level,
            "score": stats.score if stats else 0,
            "turns": stats.turn if stats else 0,
            "steps": self._steps,
            "hp": stats.hp if stats else 0,
            "ended_by": self._ended_by or "running",
            "cause": self.game.cause,
            "victory": self._ascended(),
        }

    def _balrog_metrics(self, session: BalrogSession) -> dict[str, Any]:
        return {
            **session.stats.as_dict(),
            "steps": len(session.words),
            "ended_by": session.ended_by(),
            "victory": bool(session.info.get("is_ascended", False)),
        }

    def _ascended(self) -> bool:
        return "ascended" in self.game.cause

    def outcome(self) -> Outcome:
        """See the class docstring."""
        metrics = self.metrics()
        victory = bool(metrics["victory"])
        return Outcome(
            victory=victory,
            score=float(metrics["score"]),
            progress=1.0 if victory else float(metrics["progression"]),
            ended_by="victory" if victory else str(metrics["ended_by"]),
        )

    # -- save and load (replay) ---------------------------------------------------------

    def save(self) -> JSON:
        """The seed and the actions taken: NLE has no snapshot, so a load replays them."""
        return self.replay_save(self.balrog.words if self.balrog else self._actions)

    def load(self, data: JSON) -> None:
        config, seed, actions = self.read_save(data, NetHackConfig, str)
        if self.balrog is not None:
            self.balrog.close()
        self._configure(config)
        self.game = NetHackGame(character=self.config.character)
        self._start(seed)
        if self.balrog is not None:
            session = self.balrog
            self.replay(actions, lambda w: w if session.playable(w) else None, session.play)
            return
        self.replay(actions, self._playable, self._act)

    def _playable(self, action_id: str) -> Word | None:
        return None if self._ended_by else self._legal.get(action_id)


def _balrog_vocabulary() -> list[str]:
    from nle import nethack

    return nethack_vocabulary(nethack.USEFUL_ACTIONS)


__all__ = ["ENV_VERSION", "NetHackConfig", "NetHackEnv"]
