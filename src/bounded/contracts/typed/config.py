"""The typed contract's settings: the prompt, each layer's mode and budget, postrun learning.

Presets (`bounded.contracts.typed.presets`) set several of these at once; a user's
config overrides them field by field. Game content is no setting: the rules book and
the seed skills come from the environment's `GameKnowledge` (`skill_seed` only picks
which of its libraries seeds L5).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bounded.contracts.replies.rules import TextRule
from bounded.contracts.replies.settings import ReasoningSettings
from bounded.core import DEFAULT_MAX_TOKENS, ConfigError, first_validation_error
from bounded.stores.budget import LayerBudget
from bounded.stores.rules import RulesScope

LayerOrder = Literal["paper", "legacy", "cache"]
"""The order of the prompt's layers after L1 (see `TypedConfig.order`)."""

LayerMode = Literal["off", "on", "frozen", "writable"]
"""`off`: not in the prompt; `on`/`frozen`: read, never written; `writable`: read, and
written by postrun learning."""

SkillSeed = Literal["none", "hand", "templates"]
"""Which of the environment's seed libraries (`GameKnowledge.skills`) a fresh L5 starts from."""


class StoreLayer(BaseModel):
    """One store-backed layer (L3, L4 or L5): whether it is used, and its budget."""

    model_config = ConfigDict(extra="forbid")

    mode: LayerMode = "off"
    """`off`, `on` (read only), `frozen` (read only), or `writable` (postrun writes)."""
    budget: LayerBudget = Field(default_factory=LayerBudget)
    """k entries of at most s tokens in one prompt."""

    @property
    def reads(self) -> bool:
        return self.mode != "off"

    @property
    def writes(self) -> bool:
        return self.mode == "writable"


class RulesLayer(StoreLayer):
    """L3: the rules store, retrieved for what is in play (`filtered`) or whole (`full`)."""

    mode: LayerMode = "on"
    """L3 is patched by hand (`RulesPatch`), never learned: `writable` is refused."""
    budget: LayerBudget = Field(default_factory=lambda: LayerBudget(items=12, tokens=80))
    scope: RulesScope = "filtered"
    """`filtered`: only rules of what is in play now, plus core mechanics; `full`: all rules."""
    changing: LayerBudget = Field(default_factory=lambda: LayerBudget(items=6, tokens=80))
    """`order = "cache"` only: the budget of its second block of rules, those of what is in
    play now (hand, powers, potions, offers) but not among the lasting facts that `budget`
    covers (relics, deck, the fight's enemies, room)."""


class StateLayer(BaseModel):
    """L2: how much of the decision's state and legal actions a prompt shows."""

    model_config = ConfigDict(extra="forbid")

    state_tokens: int = Field(default=900, ge=50, le=20_000)
    """Cap on the rendered state (schema line plus the observation text)."""
    actions: LayerBudget = Field(default_factory=lambda: LayerBudget(items=60, tokens=32))
    """k legal-action lines of at most s tokens (the reply schema still holds all of them)."""
    schema_hints: bool = True
    """Show the state's schema (its keys and their types) above the state."""


class CombatContainer(BaseModel):
    """The one stateful container: within a fight, start + acknowledgement + latest round."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    """Off: fights are decided like any other decision, from the latest state alone."""
    kinds: list[str] = Field(default_factory=lambda: ["combat"])
    """Observation kinds that belong to a fight."""
    start_tokens: int = Field(default=700, ge=20, le=20_000)
    """Cap on the fight's start message."""


class PostrunSettings(BaseModel):
    """What postrun learning may do after a run (only for writable layers)."""

    model_config = ConfigDict(extra="forbid")

    max_calls: int = Field(default=8, ge=0, le=200)
    """Model calls one postrun may make, over L4 and L5 together."""
    note_chars: int = Field(default=400, ge=40, le=4000)
    """Longest L4 note (characters), enforced by the reply schema."""
    skill_chars: int = Field(default=320, ge=40, le=4000)
    """Longest L5 skill text (characters)."""
    new_skills: int = Field(default=2, ge=0, le=10)
    """Most new skills one postrun may propose (self-evolve; templates are filled instead)."""
    facts_tokens: int = Field(default=400, ge=50, le=8000)
    """Cap on the trajectory facts shown in one postrun call."""
    max_tokens: int = Field(default=DEFAULT_MAX_TOKENS, ge=16, le=4096)
    """Completion limit of one postrun call."""
    gate_threshold: float = Field(default=0.9, gt=0, le=1)
    """Similarity at or above which a new text is a duplicate of a stored one."""


class TypedConfig(ReasoningSettings):
    """Settings of the typed contract (presets set several of these at once)."""

    model_config = ConfigDict(extra="forbid")

    text_rule: TextRule = "decision-tag"
    """How a `text` reply is read: `decision-tag` (AgenticSTS, Appendix E.1: valid JSON
    inside a decision tag, reasoning required, plan actions in order) or `json-block`."""
    prompt: Literal["strict", "full"] = "full"
    """`strict`: task, protocol and reply format only; `full`: plus the layer guide."""
    order: LayerOrder = "cache"
    """The order of the layers after L1 (the system message); the plain `typed` contract
    uses `cache`, every preset of the AgenticSTS matrix `paper`. `paper` (AgenticSTS,
    Appendix C: "fired L5 skills, L4 episodes, L3 game facts, the L2 state prompt, and
    valid-action schema hints in a fixed order"): L5, L4, L3, the combat container, L2 with
    the legal actions last. `legacy` (bounded before 0.2): the combat container, L2, L3,
    L4, L5. `cache`: what stays the same across consecutive decisions first, for prefix
    caches (L1; the rules of relics, deck, enemies and room in a fixed order; the combat
    container; L4; L5; the rules of what changes every play; L2). Recorded with the run's
    contract config."""
    l2: StateLayer = Field(default_factory=StateLayer)
    l3: RulesLayer = Field(default_factory=RulesLayer)
    l4: StoreLayer = Field(default_factory=lambda: StoreLayer(budget=LayerBudget(items=3)))
    l5: StoreLayer = Field(
        default_factory=lambda: StoreLayer(mode="on", budget=LayerBudget(items=4))
    )
    combat: CombatContainer = Field(default_factory=CombatContainer)
    skill_seed: SkillSeed = "hand"
    """L5 seed when the store has no skills yet, the environment's library of that name
    (`GameKnowledge.skills`): `hand` (written for the game, mode-a), `templates` (triggers
    and scaffold questions, filled postrun: mode-b), or `none`. A game that supplies no
    such library starts empty; ignored while L5 is off."""
    game: str | None = None
    """The stores' namespace (a store directory holds one game's stores); None: the game
    the environment's knowledge names, else the environment id's name."""
    store_dir: str | None = None
    """Directory of the L3/L4/L5 files; None keeps the stores in memory."""
    postrun: PostrunSettings = Field(default_factory=PostrunSettings)

    @model_validator(mode="after")
    def _coherent(self) -> TypedConfig:
        if self.l3.mode == "writable":
            raise ValueError("l3.mode: the rules store is patched, not learned (use on or off)")
        if self.l4.mode == "frozen" and self.store_dir is None:
            raise ValueError(
                "store_dir: l4.mode 'frozen' reads notes from earlier runs: give store_dir"
            )
        if self.l5.mode == "frozen" and self.store_dir is None and self.skill_seed == "none":
            raise ValueError("store_dir: l5.mode 'frozen' with no seed needs store_dir")
        return self

    def layer(self, name: str) -> StoreLayer:
        """The settings of store layer `L3`, `L4` or `L5`."""
        return {"L3": self.l3, "L4": self.l4, "L5": self.l5}[name]


def config_error(exc: ValidationError) -> ConfigError:
    """A one-line error naming the offending field."""
    return ConfigError(f"typed config: {first_validation_error(exc)}")


def game_of(env_id: str) -> str:
    """`bounded/Spire-v0` -> `spire`; any other id -> its lower-case name part."""
    name = env_id.rsplit("/", 1)[-1]
    return re.sub(r"-v\d+$", "", name).lower()


__all__ = [
    "CombatContainer",
    "LayerMode",
    "LayerOrder",
    "PostrunSettings",
    "RulesLayer",
    "SkillSeed",
    "StateLayer",
    "StoreLayer",
    "TypedConfig",
    "config_error",
    "game_of",
]
