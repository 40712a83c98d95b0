"""`bounded/Spire-v0`: the run behind Gymnasium's API, with plans, metrics and save/load."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from bounded.core import JSON, Action, IllegalActionError, Observation, Outcome
from bounded.envs.base import Choices, TextEnv, with_action_mask
from bounded.envs.spire.game import ASCENSION_RULES, BOSS_POINTS, FINAL_FLOOR, FLOORS_PER_ACT, Run
from bounded.envs.spire.knowledge import spire_knowledge
from bounded.envs.spire.render import render_text, state_dict
from bounded.stores.knowledge import GameKnowledge

ENV_VERSION = "2"
"""2: a fight's observation lists no deck (its size only); the game is unchanged."""
SAVE_FORMAT = 1
MAX_PLAN = 12
"""Most actions one combat plan may hold."""
KINDS = (
    "neow", "map", "combat", "card_select", "card_reward", "reward", "shop", "event", "rest",
    "treasure", "boss_relic", "game_over",
)  # fmt: skip
"""Every decision kind an observation may have."""

INSTRUCTIONS = """\
You play a deck-building roguelike: climb three acts of 15 floors each, beat each act's
boss, then the final boss. You fight with a deck of cards: each turn you draw 5 cards and
get {energy} energy; cards cost energy. Attacks deal damage, skills mostly give Block
(absorbs damage this turn) or other effects, powers last the whole combat. Enemies show
their intent (what they will do on their turn). Poison deals its amount at the start of
the enemy's turn and then drops by 1. Weak: deals 25% less attack damage. Vulnerable:
takes 50% more attack damage. Frail: gains 25% less Block. Block is removed at the start
of your turn. HP carries over between fights; at 0 HP the run ends.
Between fights choose your path on the map (monster, elite, rest, shop, event, treasure
rooms), take rewards (gold, a card from three or none, potions, relics), buy and remove
cards in shops, rest or upgrade a card at rest sites.
In combat, send a plan: the cards and potions to play in order; end the plan with
`end_turn` to end your turn (otherwise you keep the turn and see the new state).
Ascension {ascension}: {rules}"""


M = TypeVar("M", bound=BaseModel)


def _construct(model: type[M], fields: dict[str, Any]) -> M:
    """A model from already-valid values: what `model_construct` does, without its per-call
    default handling (every field is given). Observations are built on every decision."""
    instance = model.__new__(model)
    _set_attribute(instance, "__dict__", fields)
    _set_attribute(instance, "__pydantic_fields_set__", set(fields))
    _set_attribute(instance, "__pydantic_extra__", None)
    _set_attribute(instance, "__pydantic_private__", None)
    return instance


_set_attribute = object.__setattr__
"""Bypasses pydantic's `__setattr__` (validation, frozen models)."""


REPLY_TOKENS = 640
"""The reply token limit a spire game wants: a combat plan of up to 12 plays, with
reasoning, does not fit `core.DEFAULT_MAX_TOKENS` (256), and a reply cut short by the limit
is invalid JSON even under the grammar (the demo and inspect's spire task use it)."""


class SpireConfig(BaseModel):
    """Settings of one Spire run."""

    ascension: int = Field(default=0, ge=0, le=10)
    """Ascension level 0 (base) to 10 (hardest); each level adds a modifier to all below it."""
    max_decisions: int = Field(default=20_000, ge=1)
    """Decisions after which the episode is truncated."""
    acts: int = Field(default=3, ge=1, le=3)
    """Acts to play: 3 is the whole game with the final boss; with 1 or 2, beating that
    act's boss wins the run (a shorter game, e.g. for a demo on a slow model)."""


class SpireEnv(TextEnv):
    """`bounded/Spire-v0`: one seeded run per episode.

    Outcome: `victory` when the run is won (the last configured act's boss, or with three
    acts the final boss, is beaten; as `metrics()["victory"]`); `score` the run's `score()`
    (floor reached plus `BOSS_POINTS` per boss beaten, 100 for a victory); `progress` the
    floor reached over the floors of the acts configured (`total_floors()`: 16 per act,
    plus the final act's 3 with all three); `ended_by` `victory`, `defeat` (the player
    died), `truncated` (`max_decisions` reached) or `running`.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 (Gymnasium's)
    """`render_fps` only because Gymnasium's checker asks every render mode for one."""
    version = ENV_VERSION

    def __init__(
        self,
        ascension: int = 0,
        max_decisions: int = 20_000,
        render_mode: str | None = None,
        acts: int = 3,
    ) -> None:
        self.config = SpireConfig(ascension=ascension, max_decisions=max_decisions, acts=acts)
        self.render_mode = render_mode
        rules = (
            "; ".join(ASCENSION_RULES[a] for a in range(1, self.config.ascension + 1))
            or "no modifiers."
        )
        self.instructions = INSTRUCTIONS.format(
            energy=3, ascension=self.config.ascension, rules=rules
        )
        self.run: Run | None = None
        self.log: list[list[str]] = []
        self.decisions = 0
        self._seed = 0
        self._obs: Observation | None = None
        self._actions: dict[tuple[str, str], Action] = {}
        self.init_spaces(self.choices, kinds=KINDS)

    # ------------------------------------------------------------------ Gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        # no seed: draw one from Gymnasium's generator, so the run is still replayable from its seed
        self._seed = int(self.np_random.integers(2**31)) if seed is None else int(seed)
        self.run = Run(self._seed, self.config.ascension, acts=self.config.acts)
        self.log = []
        self.decisions = 0
        self._obs = None
        self._actions = {}
        obs = self.observe()
        return obs, with_action_mask({"seed": self._seed, "ascension": self.config.ascension}, obs)

    def step(
        self, action: Action | Sequence[Action]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        action = self.resolve_action(action)
        run = self._require_run()
        actions = [action] if isinstance(action, Action) else list(action)
        self._validate(run, actions)
        before = self.score()
        executed = self._execute(run, actions)
        self.log.append(executed)
        self.decisions += 1
        self._obs = None
        obs = self.observe()
        reward = (self.score() - before) / 100.0
        truncated = not run.done and self.decisions >= self.config.max_decisions
        info = {"executed": len(executed), "dropped": len(actions) - len(executed)}
        return obs, reward, run.done, truncated, with_action_mask(info, obs)

    def choices(self) -> Choices:
        """The current decision's legal actions (none before a reset), a plan in combat."""
        if self.run is None:
            return Choices(legal=[], max_actions=1)
        obs = self.observe()
        return Choices(legal=obs.legal, max_actions=obs.max_actions)

    def _require_run(self) -> Run:
        if self.run is None:
            raise IllegalActionError("call reset() before step()")
        if self.run.done:
            raise IllegalActionError("the run is over: call reset()")
        return self.run

    def _validate(self, run: Run, actions: list[Action]) -> None:
        if not actions:
            raise IllegalActionError("no action given")
        limit = MAX_PLAN if run.kind == "combat" else 1
        if len(actions) > limit:
            raise IllegalActionError(
                f"{run.kind} takes at most {limit} action(s), got {len(actions)}"
            )
        legal = run.legal_handlers()
        for a in actions:
            if a.id not in legal:
                raise IllegalActionError(f"action {a.id!r} is not legal now ({run.kind})")

    @staticmethod
    def _execute(run: Run, actions: list[Action]) -> list[str]:
        executed: list[str] = []
        turn = run.combat.turn if run.combat else 0
        for i, a in enumerate(actions):
            if i > 0:
                still_same_turn = (
                    run.kind == "combat" and run.combat is not None and run.combat.turn == turn
                )
                fn = run.handler(a.id) if still_same_turn else None
                if fn is None:
                    break
                run.perform(fn)
            else:
                run.act_on(a.id)
            executed.append(a.id)
            if a.id == "end_turn":
                break
        return executed

    def observe(self) -> Observation:
        run = self._require_started()
        if self._obs is None:
            kind = run.kind
            legal = self._legal_actions(run)
            state = state_dict(run, kind)
            fields = {
                "kind": kind,
                "state": state,
                "text": render_text(run, kind, state),
                "history_text": None,
                "legal": legal,
                "t": self.decisions,
                "max_actions": MAX_PLAN if kind == "combat" else 1,
            }
            self._obs = _construct(Observation, fields)
        return self._obs

    def _legal_actions(self, run: Run) -> list[Action]:
        """Actions are frozen, so one instance per (id, label) is reused across observations."""
        cache = self._actions
        legal = []
        for choice in run.legal():
            key = (choice.id, choice.label)
            action = cache.get(key)
            if action is None:
                action = cache[key] = _construct(
                    Action, {"id": choice.id, "label": choice.label, "schema_": None, "args": {}}
                )
            legal.append(action)
        return legal

    def _require_started(self) -> Run:
        if self.run is None:
            raise IllegalActionError("call reset() first")
        return self.run

    # gymnasium 1.2 (pinned by nle) types render() with an unbound TypeVar.
    def render(self) -> str | None:  # type: ignore[override]
        return self.observe().text if self.run is not None else None

    # ------------------------------------------------------------------ outcome

    def score(self) -> float:
        run = self.run
        if run is None:
            return 0.0
        if run.victory:
            return 100.0
        return run.floor + BOSS_POINTS * run.bosses_beaten

    def total_floors(self) -> int:
        """The floors of the acts configured: 16 per act (15 and the boss), and with all
        three acts the final act's 3 (rest, shop, final boss)."""
        acts = self.config.acts
        return FINAL_FLOOR if acts == 3 else acts * FLOORS_PER_ACT

    def outcome(self) -> Outcome:
        """See the class docstring."""
        run = self._require_started()
        if run.victory:
            ended = "victory"
        elif run.dead:
            ended = "defeat"
        elif self.decisions >= self.config.max_decisions:
            ended = "truncated"
        else:
            ended = "running"
        progress = 1.0 if run.victory else min(run.floor / self.total_floors(), 1.0)
        return Outcome(victory=run.victory, score=self.score(), progress=progress, ended_by=ended)

    def metrics(self) -> dict[str, Any]:
        run = self._require_started()
        return {
            "victory": run.victory,
            "dead": run.dead,
            "floor": run.floor,
            "act": run.act,
            "bosses_beaten": run.bosses_beaten,
            "hp": run.hp,
            "max_hp": run.max_hp,
            "gold": run.gold,
            "deck_size": len(run.deck),
            "relics": len(run.relics),
            "decisions": self.decisions,
            "score": self.score(),
            "ascension": run.ascension,
            "seed": run.seed,
        }

    def game_knowledge(self) -> GameKnowledge | None:
        """Spire's rules book, seed skill libraries and situation reader (the typed contract's)."""
        return spire_knowledge()

    # ------------------------------------------------------------------ save / load

    def save(self) -> JSON:
        """The run as its seed and action log: loading replays it exactly."""
        run = self._require_started()
        return {
            "format": SAVE_FORMAT,
            "env_version": ENV_VERSION,
            "config": self.config.model_dump(),
            "seed": run.seed,
            "log": [list(step) for step in self.log],
            "state": state_dict(run, run.kind),
        }

    def load(self, data: JSON) -> None:
        if data.get("format") != SAVE_FORMAT:
            raise IllegalActionError(f"unknown save format {data.get('format')!r}")
        self.config = SpireConfig(**data["config"])
        self.reset(seed=data["seed"])
        for step in data["log"]:
            self.step([Action(id=action_id) for action_id in step])

    def replay(self, seed: int, log: list[list[str]]) -> Observation:
        """Replay a run from its seed and action log; returns the final observation."""
        obs, _ = self.reset(seed=seed)
        for step in log:
            obs, *_ = self.step([Action(id=action_id) for action_id in step])
        return obs
