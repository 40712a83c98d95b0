"""`ConfiguredContract`: the base of a contract whose settings are one pydantic model.

Its `config_dict` (what a run records of the contract's settings) is that model as JSON,
written once here rather than in every contract. A configuration that inherits
`ReplySettings` gives the contract its reply mode (`reply`) and the modes it may fall back
to (`reply_fallback`); switching mode rewrites the configuration, so the mode played is the
one the run records and hashes. The reply settings are read here, once for every contract
(`bounded.contracts.replies.settings`): the reasoning budget in force (`reasoning_chars`),
the decision's reply schema (`decision_reply_schema`), the reply's instruction and parse
in the mode in force (`reply_instruction`, `read_reply`) and the fallback policy."""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import BaseModel

from bounded.contracts.base import ContractBase
from bounded.contracts.replies.policy import reasoning_chars_in_force
from bounded.contracts.replies.reading import decision_schema
from bounded.contracts.replies.rules import instruction, parse_reply
from bounded.contracts.replies.settings import FallbackSettings, ReasoningSettings, ReplySettings
from bounded.core import JSON, Completion, ConfigError, Decision, Observation
from bounded.protocols import FallbackPolicy, Model, ReplyMode, TextRule

ConfigT = TypeVar("ConfigT", bound=BaseModel)


class ConfiguredContract(ContractBase, Generic[ConfigT]):
    """A contract whose settings are `config`, a `ConfigT`."""

    config: ConfigT
    model: Model | None = None
    """The episode's model (set at reset): its reasoning budget is the one `model` means."""
    text_rule: TextRule = "json-block"
    """The rule a `text` reply is read by where the configuration names none (`text_rule`)."""

    def config_dict(self) -> JSON:
        """The settings as JSON. The reply settings of a game played constrained without a
        fallback, at their defaults, are left out: such a game is the one bounded played
        before reply modes existed, and keeps its archived identity (`reply_fields`)."""
        data = self.config.model_dump()
        for key in implicit_reply_fields(self.config):
            data.pop(key, None)
        return data

    @property
    def reply_mode(self) -> ReplyMode:
        """The configuration's `reply` (constrained for one without reply settings)."""
        return self.config.reply if isinstance(self.config, ReplySettings) else "constrained"

    def reply_modes(self) -> list[ReplyMode]:
        if isinstance(self.config, ReplySettings):
            return self.config.reply_modes
        return ["constrained"]

    def use_reply_mode(self, mode: ReplyMode) -> None:
        """Play in `mode`, one of `reply_modes()` (a `ConfigError` for any other)."""
        if mode == self.reply_mode:
            return
        if mode not in self.reply_modes():
            allowed = ", ".join(self.reply_modes())
            raise ConfigError(f"contract {self.name!r} may reply in {allowed}, not {mode!r}")
        self.config = self.config.model_copy(update={"reply": mode})

    @property
    def reply_rule(self) -> TextRule:
        """The text rule in force: the configuration's `text_rule`, else the contract's."""
        rule: TextRule = getattr(self.config, "text_rule", self.text_rule)
        return rule

    def text_rule_for(self, obs: Observation) -> TextRule:
        """The rule this decision's `text` reply is read by (default: `reply_rule`)."""
        return self.reply_rule

    @property
    def reasoning_chars(self) -> int | None:
        """The cap on a reply's reasoning in force (`reasoning_chars` with the episode's
        model; before a reset, with none); None: no cap, or no reasoning settings."""
        if not isinstance(self.config, ReasoningSettings):
            return None
        return reasoning_chars_in_force(self.config.reasoning_chars, self.model)

    def decision_reply_schema(self, obs: Observation, extra: JSON | None = None) -> JSON:
        """The reply object of one decision: the reasoning (when asked for, capped at the
        budget in force), the contract's `extra` fields, then the action(s)."""
        reasoning = isinstance(self.config, ReasoningSettings) and self.config.reasoning
        return decision_schema(
            obs, reasoning=reasoning, extra=extra, reasoning_chars=self.reasoning_chars
        )

    def reply_schema(self, obs: Observation) -> JSON:
        """Default: the decision's reply object with no fields of the contract's own."""
        return self.decision_reply_schema(obs)

    def reply_instruction(self, obs: Observation) -> str:
        """How to answer, in the reply mode in force (a `text` reply: the rule's wording)."""
        return instruction(self.reply_schema(obs), self.reply_mode, self.reply_rule)

    def read_reply(self, completion: Completion, obs: Observation) -> tuple[Decision, JSON]:
        """The decision a reply holds, read in the mode in force, and the reply object the
        read decoded ({} for none). A decision tag must hold the reasoning where the
        reply schema requires one (AgenticSTS, Appendix E.1)."""
        tagged = self.reply_mode == "text" and self.reply_rule == "decision-tag"
        required = self.reply_schema(obs).get("required", []) if tagged else []
        return parse_reply(
            completion.text, obs, self.reply_mode, self.reply_rule,
            reasoning_required="reasoning" in required,
        )  # fmt: skip

    def fallback_policy(self) -> FallbackPolicy:
        """The configuration's `fallback`, else the game's default action."""
        if isinstance(self.config, FallbackSettings):
            return self.config.fallback
        return super().fallback_policy()


REPLY_FIELDS = ("reply", "reply_fallback", "text_rule")
"""The reply settings a configuration may hold (`text_rule`: a contract's own)."""


def implicit_reply_fields(config: BaseModel) -> list[str]:
    """The reply settings left out of a configuration's record: all of them, where the game
    is played `constrained` with no fallback and the contract's default `text_rule` (nothing
    about the reply differs from a game of a bounded without reply modes, whatever mode the
    contract defaults to); none otherwise."""
    if not isinstance(config, ReplySettings) or config.reply_modes != ["constrained"]:
        return []
    fields = type(config).model_fields
    present = [key for key in REPLY_FIELDS if key in fields]
    rule = getattr(config, "text_rule", None)
    if "text_rule" in fields and rule != fields["text_rule"].get_default():
        return []
    return present


__all__ = ["ConfiguredContract", "implicit_reply_fields"]
