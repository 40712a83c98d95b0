"""`summary` (Chain of Summarization, the TextStarCraft II baseline).

Each decision adds a rule-based text summary of the observation (the L1 summary: the
environment's own text, or its numeric state where it has no text) to a bounded
window. Every `interval` (K) decisions one model call sees the last K summaries plus
the queues of executed and failed actions, and answers with an analysis,
suggestions and `decisions` actions from the action dictionary written in
`<ACTION NAME>` form (a `text` reply: numbered after `Decisions:`, read by CoS's reference
rule, `bounded.contracts.replies.cos`). Those decisions replace the action queue, which is then
executed one action per decision; a queued action that is not executable when its
turn comes is moved to the failed queue. With the queue empty between calls the
environment's empty action is executed, or (on an environment without one) the model
is asked early.

Prompts (`prompt`): `paper` is Appendix B's Prompt 2 in our words
(`bounded.contracts.cos_prompt`: six analysis parts, five suggestion areas, the
decisions; text fields as long as the model's context allows); `short` is this
contract's first prompt (a flat analysis and suggestions, each capped at
`text_max_chars`, 160 by default).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pydantic import ConfigDict, Field

from bounded.contracts import cos_prompt
from bounded.contracts._configured import ConfiguredContract
from bounded.contracts._features import flatten_state
from bounded.contracts.cos_prompt import (
    decision_item_schema,
    decisions_from_text,
    resolve_decision,
    tag,
)
from bounded.contracts.replies import cos
from bounded.contracts.replies.reading import (
    INVALID_KEY,
    NotLegalError,
    clip,
    decode_reply,
    note_scrubbed,
    resolve_action,
    scrub,
)
from bounded.contracts.replies.settings import ReplySettings
from bounded.contracts.step_protocol import PAPER_TEMPERATURE, with_step
from bounded.core import (
    JSON,
    Action,
    Completion,
    Decision,
    Observation,
    Prompt,
    StepResult,
    stable_hash,
)
from bounded.protocols import EpisodeContext, ReplyMode

ROLE = """\
You play by Chain of Summarization. Every few decisions you read the summaries of the
latest game steps and the actions executed and failed since, then give an analysis of
the situation, suggestions, and the next decisions, which are executed one per step in
the order you give them."""

ANSWER = """\
Answer with one JSON object with the keys "analysis" (the situation in a few sentences),
"suggestions" (what to do next and why), and "decisions": a list of {n} actions from the
action dictionary, each written as "<ACTION NAME>" (for an action with arguments, an
object {{"id": "<name>", "args": {{...}}}})."""

TEXT_ANSWER = """\
Answer in plain text: the analysis (the situation in a few sentences), the suggestions (what
to do next and why), and last {n} actions from the action dictionary: the line Decisions:,
then one line per decision, numbered from 0 in the order they should run, each written as
<ACTION NAME> (0: <ACTION NAME>)."""
"""The `short` prompt's closing instruction for a `text` reply."""

SHORT_TEXT_CHARS = 160
"""The `short` prompt's cap on the analysis and suggestions fields. A small model tends to
fill a field up to its cap, so a long cap leaves no tokens for the decisions."""


class SummaryConfig(ReplySettings):
    """Settings of the Chain-of-Summarization baseline. A `text` reply is read as CoS's
    reference code reads it (`bounded.contracts.replies.cos`): the numbered `N: <ACTION NAME>`
    decisions after `Decisions:`, names upper-cased, a near miss read as the nearest legal
    action."""

    model_config = ConfigDict(extra="forbid")

    reply: ReplyMode = "text"
    """CoS's (Appendix B): free text ending in numbered `<ACTION NAME>` decisions."""
    interval: int = Field(default=5, ge=1)
    """K: decisions between two model calls, and how many L1 summaries a call sees."""
    decisions: int = Field(default=3, ge=1, le=16)
    """How many decisions one call asks for (they become the action queue)."""
    executed_limit: int = Field(default=10, ge=0)
    """Capacity of the executed-actions queue shown to the model."""
    failed_limit: int = Field(default=10, ge=0)
    """Capacity of the failed-actions queue shown to the model."""
    summary_chars: int = Field(default=1500, ge=80)
    """An L1 summary longer than this is cut (its end is dropped)."""
    prompt: Literal["paper", "short"] = "paper"
    """`paper`: Appendix B's CoS prompt and its structured reply; `short`: the flat prompt."""
    text_max_chars: int | None = Field(default=None, ge=40)
    """Length cap of each text field of a reply. None: with `paper`, the reply's room
    (`reply_tokens`, at most a quarter of the model's context) shared among its fields;
    with `short`, 160."""
    reply_tokens: int = Field(default=1024, ge=64)
    """Room for one reply, in tokens, that the `paper` prompt's text fields share."""
    empty_action: str | None = None
    """Id of the do-nothing action, executed when the queue is empty; None (the default): the
    environment's own (`Env.empty_action`, craft's `EMPTY ACTION`). On an environment that
    declares none the model is asked early when the queue runs dry."""


@dataclass(frozen=True)
class Failure:
    action: str
    reason: str


def l1_summary(obs: Observation, max_chars: int) -> str:
    """The rule-based per-step summary: the observation's text, else its numeric state."""
    text = obs.text.strip()
    if not text:
        features = flatten_state(obs.state)
        text = ", ".join(f"{k}={v:g}" for k, v in sorted(features.items()) if v) or "(empty)"
    if len(text) > max_chars:
        text = text[: max_chars - 3].rstrip() + "..."
    return f"[t={obs.t:g}] {text}"


ARGS_IN_TEXT = (
    "An action with args is written with them as a JSON object after its name, like "
    "<{name} {example}>."
)
"""How a `text` reply gives an action's arguments (`bounded.contracts.replies.cos`'s
extension), said under the dictionary only where an action takes some."""
EXAMPLE_VALUES: dict[object, object] = {"string": "", "boolean": False, "array": [], "object": {}}
"""An example value of each JSON type in `ARGS_IN_TEXT` (0 for a number or any other)."""


def render_dictionary(obs: Observation, *, text: bool = False) -> str:
    """The legal actions in `<ACTION NAME>` form (arguments spelled out where needed; in a
    `text` reply, `ARGS_IN_TEXT` says how to write them)."""
    lines = []
    for action in obs.legal:
        line = tag(action.id)
        if action.schema_:
            props = action.schema_.get("properties", {})
            line += " args: " + ", ".join(f"{k} ({v.get('type', 'any')})" for k, v in props.items())
        lines.append(line)
    with_args = next((action for action in obs.legal if action.schema_), None)
    if text and with_args is not None:
        props = (with_args.schema_ or {}).get("properties", {})
        example = json.dumps({k: EXAMPLE_VALUES.get(v.get("type"), 0) for k, v in props.items()})
        lines.append(ARGS_IN_TEXT.format(name=with_args.id, example=example))
    return "Action dictionary (executable now):\n" + "\n".join(lines)


class SummaryContract(ConfiguredContract[SummaryConfig]):
    """Chain of Summarization: L1 summaries every step, an L2 call every K steps."""

    name = "summary"
    memory_settings = (
        "interval", "decisions", "executed_limit", "failed_limit", "summary_chars"
    )  # fmt: skip
    """The configuration keys that are the memory under test (`MemoryHooks.memory_settings`)."""
    text_rule = "action-tags"

    def __init__(self, **settings: object) -> None:
        self.config = SummaryConfig.model_validate(settings)
        self.instructions = ""
        self.summaries: deque[str] = deque(maxlen=self.config.interval)
        self.queue: deque[Action] = deque()
        self.executed: deque[str] = deque(maxlen=self.config.executed_limit)
        self.failed: deque[Failure] = deque(maxlen=self.config.failed_limit)
        self.step = 0
        self.last_call: int | None = None
        self.calls = 0
        self._seen_step: int | None = None
        self._analysis: JSON = {}
        self._context_window: int | None = None
        self.empty_action: str | None = self.config.empty_action
        """The do-nothing action in force (the configured one, else the environment's)."""

    def reset(self, episode: EpisodeContext) -> None:
        self.instructions = episode.instructions
        self.empty_action = self.config.empty_action or episode.empty_action
        model = episode.model
        self._context_window = model.context_window if model is not None else None
        self.summaries.clear()
        self.queue.clear()
        self.executed.clear()
        self.failed.clear()
        self.step = 0
        self.last_call = None
        self.calls = 0
        self._seen_step = None
        self._analysis = {}

    # -- per step ---------------------------------------------------------

    def observe(self, obs: Observation) -> None:
        """Add this step's L1 summary (once per step, whichever hook runs first)."""
        if self._seen_step != self.step:
            self.summaries.append(l1_summary(obs, self.config.summary_chars))
            self._seen_step = self.step

    def call_due(self) -> bool:
        return self.last_call is None or self.step - self.last_call >= self.config.interval

    def propose(self, obs: Observation) -> Decision | None:
        """The next queued (or empty) action between calls; None when the model is due."""
        self.observe(obs)
        if self.call_due():
            return None
        action = self._pop(obs)
        if action is not None:
            return Decision(actions=[action], extra={"source": "queue"})
        empty = obs.legal_action(self.empty_action)
        if empty is not None:
            return Decision(actions=[empty], extra={"source": "empty"})
        return None

    def _pop(self, obs: Observation) -> Action | None:
        while self.queue:
            queued = self.queue.popleft()
            try:
                return resolve_action({"id": queued.id, "args": queued.args}, obs)
            except ValueError as exc:
                self.failed.append(Failure(queued.id, str(exc)))
        return None

    # -- the model call -----------------------------------------------------

    def text_chars(self) -> int:
        """The length cap of each text field of a reply (see `text_max_chars`)."""
        if self.config.text_max_chars is not None:
            return self.config.text_max_chars
        if self.config.prompt == "short":
            return SHORT_TEXT_CHARS
        return cos_prompt.field_chars(self.config.reply_tokens, self._context_window)

    def reply_schema(self, obs: Observation) -> JSON:
        if self.config.prompt == "paper":
            return cos_prompt.reply_schema(obs.legal, self.config.decisions, self.text_chars())
        text = {"type": "string", "maxLength": self.text_chars()}
        return {
            "type": "object",
            "properties": {
                "analysis": text,
                "suggestions": text,
                "decisions": {
                    "type": "array",
                    "items": decision_item_schema(obs.legal),
                    "minItems": 1,
                    "maxItems": self.config.decisions,
                },
            },
            "required": ["analysis", "suggestions", "decisions"],
            "additionalProperties": False,
        }

    def system_prompt(self) -> str:
        n, text = self.config.decisions, self.reply_mode == "text"
        if self.config.prompt == "paper":
            return "\n\n".join(cos_prompt.system_prompt(self.instructions, n, text=text))
        answer = (TEXT_ANSWER if text else ANSWER).format(n=n)
        return "\n\n".join(p for p in (self.instructions, ROLE, answer) if p)

    def assemble(self, obs: Observation) -> Prompt:
        self.observe(obs)
        prompt = Prompt()
        prompt.add("instructions", "system", self.system_prompt())
        prompt.add("summaries", "user", self.render_summaries())
        prompt.add("actions", "user", self.render_action_queues())
        prompt.add("observation", "user", render_dictionary(obs, text=self.reply_mode == "text"))
        return prompt

    def render_summaries(self) -> str:
        count = len(self.summaries)
        return f"Summaries of the last {count} steps (oldest first):\n" + "\n\n".join(
            self.summaries
        )

    def render_action_queues(self) -> str:
        executed = " ".join(tag(a) for a in self.executed) or "(none)"
        failed = "; ".join(f"{tag(f.action)}: {f.reason}" for f in self.failed) or "(none)"
        return f"Executed actions: {executed}\nFailed actions: {failed}"

    def parse(self, completion: Completion, obs: Observation) -> Decision:
        self.last_call, self.calls = self.step, self.calls + 1
        text, replaced = scrub(completion.text)
        if self.reply_mode == "text":
            return self._text_decision(text, replaced, obs)
        decoded_object, items, error, decoded = self._reply(text)
        reply = decoded_object or {}
        actions, errors, invalid = self._resolve(items, obs)
        problems = "; ".join(([error] if error else []) + errors) or None
        decision = self._queue_and_pop(actions, problems, obs, reply)
        decision.extra["rejected"] = errors
        decision.reply_object = decoded_object
        if invalid:
            decision.extra[INVALID_KEY] = invalid
        note_scrubbed(decision, replaced + decoded)
        return decision

    def _queue_and_pop(
        self, actions: list[Action], problem: str | None, obs: Observation, reply: JSON
    ) -> Decision:
        """Queue a call's decisions and play the first (the empty action where none runs)."""
        self.queue = deque(actions)
        self._analysis = {k: reply.get(k, "") for k in ("analysis", "suggestions")}
        action = self._pop(obs)
        empty = obs.legal_action(self.empty_action)
        decision = Decision(
            actions=[action] if action else ([empty] if empty else []),
            parse_error=problem if not actions else None,
            extra={"source": "model", "decisions": [a.id for a in actions]},
        )
        # Archived whole, flattened to one line (never resent: each call sees summaries).
        decision.reasoning = cos_prompt.flatten_text(reply.get("analysis", ""))
        decision.extra["suggestions"] = cos_prompt.flatten_text(reply.get("suggestions", ""))
        return decision

    def _text_decision(self, text: str, replaced: int, obs: Observation) -> Decision:
        """A free-text reply read by CoS's rule (`bounded.contracts.replies.cos`): the numbered
        decisions after `Decisions:`, upper-cased, near misses read as the nearest legal
        action; the first `decisions` of them are queued (the rest recorded as dropped),
        and the prose before `Decisions:` is the analysis."""
        reading = cos.read_decisions(text, obs, keep=self.config.decisions)
        actions = reading.actions
        reply: JSON = {"analysis": cos.analysis_before_decisions(text)}
        decision = self._queue_and_pop(actions, reading.problem, obs, reply)
        decision.extra["rejected"] = reading.errors
        cos.note_reading(decision.extra, reading)
        if reading.invalid:
            decision.extra[INVALID_KEY] = reading.invalid
        note_scrubbed(decision, replaced)
        return decision

    def _reply(self, text: str) -> tuple[JSON | None, list[object], str | None, int]:
        """The reply object (None: the reply holds none), its decision items, a problem,
        and the lone surrogates its decoded strings held (replaced)."""
        try:
            reply, replaced = decode_reply(text)
        except ValueError as exc:
            tags = decisions_from_text(text)[: self.config.decisions]
            problem = None if tags else f"{exc} and no <ACTION>"
            return None, list(tags), problem, 0
        items = reply.get("decisions", [])
        if not isinstance(items, list):
            return reply, [], "decisions must be a list", replaced
        return reply, items[: self.config.decisions], None, replaced

    @staticmethod
    def _resolve(
        items: Iterable[object], obs: Observation
    ) -> tuple[list[Action], list[str], list[str]]:
        """The decisions that resolve, the problems of the others, and the names of those
        that are not legal (invalid actions)."""
        actions: list[Action] = []
        errors: list[str] = []
        invalid: list[str] = []
        for item in items:
            try:
                actions.append(resolve_decision(item, obs))
            except NotLegalError as exc:
                errors.append(str(exc))
                invalid.append(clip(exc.candidate))
            except ValueError as exc:
                errors.append(str(exc))
        return actions, errors, invalid

    # -- after the step -------------------------------------------------------

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        self.observe(obs)
        for action_id, ok, reason in outcomes(decision.actions, result):
            if action_id == self.empty_action:
                continue
            if ok:
                self.executed.append(action_id)
            else:
                self.failed.append(Failure(action_id, reason))
        self.step += 1

    paper_temperature = PAPER_TEMPERATURE
    """The temperature of a game whose spec sets none (the paper's, Appendix A.1)."""

    def action_rate_bound(self) -> float:
        """A call every `interval` decisions queues at most `decisions` actions; the other
        decisions of the interval play the empty action."""
        return min(self.config.decisions, self.config.interval) / self.config.interval

    @staticmethod
    def env_options(env_id: str, options: JSON) -> JSON:
        """The paper's one-action step filled into the game's environment options
        (`bounded.contracts.step_protocol`); options the game sets are kept."""
        return with_step(env_id, options)

    def store_hashes(self) -> dict[str, str]:
        return {
            "summaries": stable_hash(list(self.summaries)),
            "action_queues": stable_hash(
                [list(self.executed), [(f.action, f.reason) for f in self.failed]]
            ),
        }

    def memory_snapshot(self) -> JSON:
        """The summaries, the action queues and the call schedule (`bounded resume`)."""
        return {
            "summaries": list(self.summaries),
            "queue": [action.model_dump(by_alias=True) for action in self.queue],
            "executed": list(self.executed),
            "failed": [[f.action, f.reason] for f in self.failed],
            "step": self.step,
            "last_call": self.last_call,
            "calls": self.calls,
            "seen_step": self._seen_step,
            "analysis": self._analysis,
        }

    def restore_memory(self, memory: JSON) -> None:
        self.summaries.clear()
        self.summaries.extend(memory["summaries"])
        self.queue = deque(Action.model_validate(action) for action in memory["queue"])
        self.executed.clear()
        self.executed.extend(memory["executed"])
        self.failed.clear()
        self.failed.extend(Failure(action, reason) for action, reason in memory["failed"])
        self.step, self.last_call, self.calls = memory["step"], memory["last_call"], memory["calls"]
        self._seen_step, self._analysis = memory["seen_step"], dict(memory["analysis"])


def outcomes(actions: list[Action], result: StepResult) -> list[tuple[str, bool, str]]:
    """(id, executed, reason) per action, from the env's `info["actions"]` when it reports one."""
    reported = result.info.get("actions")
    if isinstance(reported, list) and all(isinstance(r, dict) for r in reported):
        return [
            (str(r.get("id", "")), bool(r.get("ok", True)), str(r.get("reason", "")))
            for r in reported
        ]
    return [(a.id, True, "") for a in actions]


__all__ = [
    "SummaryConfig",
    "SummaryContract",
    "decisions_from_text",
    "l1_summary",
    "outcomes",
    "resolve_decision",
]
