"""The reply settings every model-asking contract's configuration shares: how a reply is
asked for and read (`reply`), and the modes a run may fall back to when the endpoint refuses
the response format that mode needs (`reply_fallback`).

A contract configuration inherits `ReplySettings`; `ConfiguredContract` reads it, and the
runner negotiates the mode in force with the model before the game starts
(`bounded.runner.replies`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, field_validator

from bounded.core import ReplyMode


class ReplySettings(BaseModel):
    """How a contract's replies are asked for and read."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    reply: ReplyMode = "constrained"
    """`constrained` (decoded under the reply's JSON schema), `json` (one JSON object asked
    for, any object decoded, parsed leniently) or `text` (free text read by the contract's
    own rule, as its paper does); see `bounded.core.ReplyMode`."""
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


__all__ = ["ReplySettings"]
