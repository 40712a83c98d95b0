"""Settings, prompt texts and the default bank location of the `episodic` contract."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field

from bounded.contracts.episodic.bank import DValue
from bounded.contracts.episodic.gating import GatingStart
from bounded.contracts.replies.settings import ReasoningSettings
from bounded.core import JSON
from bounded.protocols import ReplyMode

BANK_DIR_VARIABLE = "BOUNDED_BANK_DIR"
DEFAULT_BANK_DIR = "runs/banks"

ROLE = """\
You play with an episodic memory of winning games. Most decisions replay what a winning
player did at the same game time in the most similar situation. Now and then you are
asked for exploration actions: they are queued and executed, one at a time, when the
memory has nothing to offer."""

EXECUTABLE_NOW = """\
Recalled actions are only used when they are executable now (legal in the current
observation); choose your own actions from the legal list only."""

EXPLORE_TASK = """\
Propose up to {n} exploration actions, in the order they should run, that move this game
towards a win where the recalled episodes fall short. They are queued and executed later."""

ACT_TASK = "The memory has no executable action now: choose the action to take now."

DESCRIBE_SYSTEM = """\
You analyse decisions recalled from winning games. Describe, in at most two sentences,
the strategy they follow (economy, tech, army, timing), so a player can continue it.
Answer with one JSON object: {"strategy": "<description>"}."""

DESCRIPTION_SCHEMA: JSON = {
    "type": "object",
    "properties": {"strategy": {"type": "string", "maxLength": 400}},
    "required": ["strategy"],
    "additionalProperties": False,
}


class EpisodicConfig(ReasoningSettings):
    """Settings of the episodic contract; defaults are the paper's where it gives them. A
    `text` reply is read as EpicStar's prompts (adapted from CoS's) ask: an exploration
    call's decisions, read by CoS's reference rule (`bounded.contracts.replies.cos`: numbered
    `N: <ACTION NAME>` items after `Decisions:`, near misses read as the nearest legal
    action), are its proposals; any other call's reply is reasoning, then a JSON block."""

    model_config = ConfigDict(extra="forbid")

    reply: ReplyMode = "text"
    """EpicStar's (Appendix B): an exploration call's free text ends in its decisions, each
    named as `<ACTION NAME>`; any other call answers with reasoning, then a JSON block."""
    bank: str | None = None
    """Path of the bank file (`.npz`); None: `$BOUNDED_BANK_DIR/<env>.npz` (default
    directory `runs/banks`) when that file exists, otherwise an empty bank."""
    t_delta: float = Field(default=0.0, ge=0.0)
    """Retrieval window: entries with |t_i - t| <= t_delta (game-time units)."""
    n: int = Field(default=3, ge=1, le=32)
    """Number of retrieved episodes (top n)."""
    alpha: float = Field(default=0.5, ge=0.0)
    """Weight of the normalised D_item (number of changed keys)."""
    beta: float = Field(default=0.5, ge=0.0)
    """Weight of the normalised D_value."""
    d_value: DValue = "sum"
    """D_value's reading: `sum` of absolute differences, or `count` of values that changed
    (the paper's words; with keys missing read as 0 it equals D_item, so Eq. 2 would
    weigh one quantity twice; see docs/episodic.md)."""
    memory_interval: int = Field(default=24, ge=1)
    """L: decisions between two observations of the working memory."""
    memory_depth: int = Field(default=4, ge=0)
    """k_max: how many past observations the working memory holds (0 disables it)."""
    memory_view: Literal["observation", "diff"] = "observation"
    """How a prompt shows the working memory's past observations: each `observation`
    itself (Eq. 4's o_t x Q_o(t)), or as the `diff_keys` keys that changed since it
    (`then->now`, largest change first)."""
    exploration: bool = True
    """Ask the model for exploration actions every `explore_every` decisions."""
    explore_every: int = Field(default=20, ge=1)
    """d_e: decisions between two exploration calls (the first at decision d_e)."""
    explore_actions: int = Field(default=3, ge=1, le=16)
    """How many exploration actions one call may propose."""
    queue_cooldown: int = Field(default=3, ge=0)
    """d_q: decisions that must pass between two pops of the exploration queue."""
    queue_limit: int = Field(default=12, ge=1)
    """Capacity of the exploration queue Q_a; the oldest actions drop out first."""
    gating_start: GatingStart = "paper"
    """`paper`: l_e = l_q = 0 at the start (first exploration at d_e, first pop at d_q);
    `immediate`: first exploration at decision 0, first pop without a cool-down."""
    extract: Literal["top", "first-executable"] = "top"
    """Which retrieved episode ExtractAction reads: `top`, the top-ranked one (Algorithm 1;
    when its action is not executable now nothing is replayed and gating goes on to the
    queue or the empty action), or `first-executable`, the best-ranked one whose action is
    executable now (this project's variant: it falls through to the second or third hit)."""
    replay: Literal["first", "plan"] = "first"
    """What a retrieved episode contributes: its first action (the paper's ExtractAction)
    or its whole decision (the entry's actions executable now, up to `max_actions`)."""
    fusion: bool = True
    """Contextual fusion: the strategy description of the retrieved episodes (and, see
    `fusion_ablation`, the executable-now instruction)."""
    fusion_ablation: Literal["fusion", "description", "legacy"] = "fusion"
    """What `fusion = false` removes: contextual fusion whole, the strategy description and
    the executable-now instruction (`fusion`, the paper's ablation); the description alone
    (`description`); or (`legacy`) both, and reads the top hit only whatever `extract` says."""
    exploration_prompt: Literal["paper", "recalled"] = "paper"
    """What an exploration call shows: `paper`, LLM(S, o'_t): the system prompt with the
    fusion description (S) and the observation with the working memory (o'_t), the
    recalled episodes reaching the model only through the description; `recalled` also
    shows the recalled episodes (actions, distances, changes) and the exploration queue."""
    prompt: Literal["paper", "short"] = "paper"
    """`paper`: Appendix B's Prompt 1 (the CoS prompt with the strategy description);
    `short`: a role paragraph and a reply of actions."""
    text_max_chars: int | None = Field(default=None, ge=40)
    """Length cap of each text field of a `paper` reply; None: `reply_tokens` (at most a
    quarter of the model's context) shared among the fields."""
    reply_tokens: int = Field(default=1024, ge=64)
    """Room for one exploration reply, in tokens (see `text_max_chars`)."""
    empty_action: str | None = None
    """Id of the do-nothing action, executed when nothing else is due; None (the default): the
    environment's own (`Env.empty_action`, craft's `EMPTY ACTION`). On an environment that
    declares none the model is asked whenever nothing is retrieved or popped."""
    description_max_tokens: int = Field(default=120, ge=16)
    """Token budget of one strategy description."""
    description_temperature: float = Field(default=0.1, ge=0.0)
    """Sampling temperature of the description call (the paper's 0.1 for every call)."""
    diff_keys: int = Field(default=8, ge=1)
    """How many differing keys a recalled episode or a memory entry shows in a prompt."""


def default_bank_path(env_id: str) -> Path:
    """Where `bank = None` looks: `$BOUNDED_BANK_DIR/<short env name>.npz`."""
    short = env_id.rsplit("/", 1)[-1].split("-v", 1)[0].lower() or "env"
    return Path(os.environ.get(BANK_DIR_VARIABLE, DEFAULT_BANK_DIR)) / f"{short}.npz"


__all__ = [
    "ACT_TASK",
    "BANK_DIR_VARIABLE",
    "DEFAULT_BANK_DIR",
    "DESCRIBE_SYSTEM",
    "DESCRIPTION_SCHEMA",
    "EXECUTABLE_NOW",
    "EXPLORE_TASK",
    "ROLE",
    "EpisodicConfig",
    "default_bank_path",
]
