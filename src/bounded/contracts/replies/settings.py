"""The reply settings every model-asking contract's configuration shares, each defined here
once: how a reply is asked for and read (`reply`, `reply_fallback`), the reasoning asked
for in it and its budget (`reasoning`, `reasoning_chars`), and what an unusable reply
executes (`fallback`).

A contract configuration inherits `ReplySettings` (every contract that asks the model),
`ReasoningSettings` (those whose reply has a reasoning field) and `FallbackSettings` (those
whose fallback is a setting); `ConfiguredContract` reads them: the reply mode, the reply
schema, the reasoning budget in force and the fallback policy. The runner negotiates the
mode in force with the model before the game starts (`bounded.runner.replies`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, field_validator

from bounded.contracts.replies.reading import ReasoningChars
from bounded.protocols import FallbackPolicy, ReplyMode


class ReplySettings(BaseModel):
    """How a contract's replies are asked for and read."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    reply: ReplyMode = "constrained"
    """`constrained` (decoded under the reply's JSON schema), `json` (one JSON object asked
    for, any object decoded, parsed leniently) or `text` (free text read by the contract's
    own rule, as its paper does); see `bounded.protocols.ReplyMode`. A contract that reproduces
    one paper's method declares its paper's mode as its default (docs/replies.md)."""
    reply_fallback: list[ReplyMode] = []
    """The modes the run may play in instead, in order, when the model's endpoint refuses
    the response format `reply` needs (an endpoint without strict JSON schemas); empty: such
    a run stops before playing. The mode played is recorded (`model_params["reply"]`) and is
    part of the game's identity."""

    @field_validator("reply_fallback")
    @classmethod
    def _distinct(cls, modes: list[ReplyMode]) -> list[ReplyMode]:
        if len(set(modes)) != len(modes):
            raise ValueError("reply_fallback names a mode twice")
        return modes

    @property
    def reply_modes(self) -> list[ReplyMode]:
        """The modes allowed, in order of preference: `reply`, then `reply_fallback`."""
        return [self.reply, *(mode for mode in self.reply_fallback if mode != self.reply)]


class ReasoningSettings(ReplySettings):
    """The reply settings of a contract whose decision reply has a reasoning field."""

    reasoning: bool = True
    """Ask for a reasoning field before the decision's action(s) (what a contract keeps of
    it: its own docs; the embedded model's is short where it is capped)."""
    reasoning_chars: ReasoningChars = "model"
    """Longest reasoning a reply may hold, in characters (its schema's `maxLength`), or
    None: no cap. `model`: the model's own budget (the embedded model's 120; no cap for
    endpoint and plugin models). The value in force is recorded with the run
    (`model_params["reasoning_chars"]`) and read by `ConfiguredContract.reasoning_chars`."""


class FallbackSettings(BaseModel):
    """The fallback of a contract that makes it a setting."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    fallback: FallbackPolicy = "first-legal"
    """What an unusable reply (malformed, no action, an invalid action) executes: `no-op`
    (the SKILL.state replication's), `first-legal`, or `game-default` (BALROG's agents'); see
    `bounded.contracts.replies.policy.fallback_actions`."""


__all__ = ["FallbackSettings", "ReasoningSettings", "ReplySettings"]
