"""The reply mode a run plays in, what it sent, and whether the endpoint honoured it.

A contract asks for its replies in one mode (`bounded.protocols.ReplyMode`), the model sends the
response format that mode needs, and an endpoint may refuse it (a server without strict
JSON schemas) or take it and not keep to it. `ReplyLedger` keeps, per run, in
`model_params["reply"]`:

- `mode`: the mode played; `asked`: the contract's preferred mode (they differ only when
  the endpoint refused the preferred one's format at the first call and the contract's
  `reply_fallback` allowed the next: never silently);
- `response_format`: what the model sent (`json_schema`, `json_object`,
  `json_object+schema`, `grammar`, `none`, or `constraint` for a model that does not say);
- `refused`: one line per format the endpoint refused;
- `replies`, `off_format`, `cut`: model replies read, those that broke the format asked
  for (not a JSON object in `json` mode; not valid under the reply schema when
  `constrained`), and those cut by the token limit (not counted as off format);
- `honoured`: no reply was off format (None in `text` mode, where no format is asked).

Whether a reply kept to its format is read from what the contract's parse found
(`Decision.reply_object`, the object it decoded, or None); the reply is decoded here again
only for a contract that does not say.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bounded.contracts.replies.reading import decode_reply, keeps_schema
from bounded.core import JSON, BoundedError, Completion, Decision, Observation
from bounded.protocols import Contract, ReplyMode
from bounded.runner.meter import reads_reply_schema

CUT_REASON = "length"
"""`Completion.finish_reason` of a reply the token limit cut."""


class ReplyFormatError(BoundedError):
    """The endpoint refuses every reply mode the contract allows: the run stops before it
    plays (one line naming the refusals and the setting that would allow another mode)."""


def decoded_object(text: str, decision: Decision | None) -> JSON | None:
    """The reply's JSON object as the contract's parse decoded it (`Decision.reply_object`),
    decoded here only where the decision does not say; None: the reply holds none."""
    if decision is not None and "reply_object" in decision.model_fields_set:
        return decision.reply_object
    try:
        return decode_reply(text)[0]
    except ValueError:
        return None


def keeps_format(
    mode: ReplyMode, text: str, constraint: JSON | None, decision: Decision | None = None
) -> bool:
    """Whether a reply keeps to the format its mode asked for (any text in `text` mode)."""
    if mode == "text":
        return True
    reply = decoded_object(text, decision)
    if reply is None:
        return False
    return mode == "json" or constraint is None or keeps_schema(reply, constraint)


@dataclass
class ReplyLedger:
    """What a run's replies were asked for in and how they came back."""

    asked: ReplyMode
    mode: ReplyMode
    response_format: str = ""
    refused: list[str] = field(default_factory=list)
    replies: int = 0
    off_format: int = 0
    cut: int = 0

    def read(
        self,
        completion: Completion,
        constraint: JSON | None,
        sent: str | None,
        decision: Decision | None = None,
    ) -> None:
        """Count one reply of the decision's own call, as the contract parsed it into
        `decision`; `sent` is what the model says it sent (None: it does not say, and the
        constraint was handed to it as it is)."""
        self.replies += 1
        if sent is not None:
            self.response_format = sent
        elif not self.response_format:
            self.response_format = "constraint" if constraint is not None else "none"
        if completion.finish_reason == CUT_REASON:
            self.cut += 1
        elif not keeps_format(self.mode, completion.text, constraint, decision):
            self.off_format += 1

    def refuse(self, line: str, next_mode: ReplyMode | None) -> None:
        """The endpoint refused the mode in force; play `next_mode` (None: none is left)."""
        self.refused.append(line)
        if next_mode is not None:
            self.mode = next_mode

    def record(self) -> JSON:
        """`model_params["reply"]`."""
        return {
            "mode": self.mode,
            "asked": self.asked,
            "response_format": self.response_format,
            "honoured": None if self.mode == "text" else self.off_format == 0,
            "refused": list(self.refused),
            "replies": self.replies,
            "off_format": self.off_format,
            "cut": self.cut,
        }


def reply_hints(
    contract: Contract,
    obs: Observation,
    model: object,
    schema: Callable[[], JSON] | None = None,
) -> dict[str, Any]:
    """What a model that reads them (`reads_reply_schema`) is told of a decision's reply
    in the `json` and `text` modes: its schema (`schema()`, default the contract's reply
    schema) and its text rule; {} for any other model, and in `constrained` mode."""
    if contract.replies.reply_mode == "constrained" or not reads_reply_schema(model):
        return {}
    reply_schema = schema() if schema is not None else contract.reply_schema(obs)
    return {"reply_schema": reply_schema, "text_rule": contract.replies.text_rule_for(obs)}


def no_mode_left(refused: list[str], allowed: list[ReplyMode]) -> ReplyFormatError:
    """The error of a run whose endpoint refused every mode allowed."""
    tried = ", ".join(allowed)
    return ReplyFormatError(
        f"{'; '.join(refused)}; no other reply mode allowed (tried {tried}): set "
        'reply_fallback (e.g. ["json", "text"]) to play in another mode'
    )


__all__ = [
    "ReplyFormatError",
    "ReplyLedger",
    "keeps_format",
    "no_mode_left",
    "reply_hints",
]
