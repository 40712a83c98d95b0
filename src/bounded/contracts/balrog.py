"""`balrog`: BALROG's agents as BALROG runs them (`balrog/agents/*`, its
`HistoryPromptBuilder` in `balrog/prompt_builder/history.py` and the loop of
`balrog/evaluator.py`, commit af7d1f1), the contract behind the `balrog-*` presets.

Each prompt is BALROG's:

1. the environment's instruction prompt, as the **first user message** (its own message,
   not merged with what follows; `bounded.core.OWN_MESSAGE_LAYERS`);
2. the newest events of a deque of `2 * max_text_history` (32) events, oldest first, each
   a message of its own (layer `events`): past observations as user messages
   `Observation:\\n<text>` (the observation's text alone, without its legal list or the
   reply instruction; only the newest `max_text_history` observations, the current one
   among them, carry their text, an older one is `Observation:` alone, as BALROG's
   `get_prompt` counts them) and past actions as assistant messages: the action the agent
   extracted from its reply (even one that was not legal: BALROG resends
   `response.completion`; an empty one it does not record), or, for the newest
   `max_cot_history` replies of an agent that keeps its reasoning (BALROG's cot agent; its
   robust cot agent keeps none), `Previous plan:\\n<the whole reply>`;
3. the current observation, `Current Observation:\\n<text>`, then its legal list (not
   under the environment's BALROG presentation, whose instruction prompt lists BALROG's
   actions, as BALROG's own does), then the agent's closing instruction
   (`bounded.contracts.replies`).

Where the environment offers BALROG's presentation (`BalrogTasks.presentation`: BALROG's
observation text, instruction prompt, vocabulary, step limits and levels) the game is
played at it unless its options say otherwise (`balrog_presentation`).

Once the deque is full the history holds 15 past observations and 16 actions, and starts
with an action. After an unusable reply the game's default action runs and the next
observation's text starts with BALROG's feedback naming it (`feedback_on_invalid_action`);
the feedback stays part of that observation when it is resent.

The reply is read stripped, as BALROG's clients strip every completion. BALROG's client
settings are the defaults of a game whose spec sets none: temperature 1.0 and 8,192 reply
tokens (`paper_temperature`, `paper_max_tokens`); no request carries a sampling seed, as
BALROG's clients send none (`sampling_seed = "game"` sends the game's seed). A model that
declares a context window keeps `reply_tokens` of it for the reply: a reply is capped there
(`max_reply_tokens`, recorded with the run as `model_params["max_tokens_cap"]`) and the
history is cut, oldest events first, to what the rest holds (`history_dropped`); BALROG
has no such cut.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Literal

from pydantic import Field

from bounded.contracts._budget import ExactCount, prompt_budget
from bounded.contracts._configured import ConfiguredContract
from bounded.contracts._render import render_legal
from bounded.contracts.balrog_presets import BALROG_HISTORY
from bounded.contracts.replies.reading import scrub
from bounded.contracts.replies.rules import balrog_candidate, instruction, parse_reply
from bounded.contracts.replies.settings import FallbackSettings, ReasoningSettings
from bounded.core import (
    INVALID_KEY,
    JSON,
    Completion,
    Decision,
    Observation,
    Prompt,
    StepResult,
    TokenCounter,
    approx_tokens,
    stable_hash,
)
from bounded.env_records import env_record
from bounded.protocols import EpisodeContext, FallbackPolicy, Model, ReplyMode

BalrogRule = Literal["balrog-naive", "balrog-cot", "balrog-robust", "balrog-robust-cot"]

INVALID_FEEDBACK = (
    "\n\nYour previous output did not contain a valid action. Defaulted to action: {action}"
    "\n\nObservation:\n"
)
"""What BALROG's evaluator puts before the next observation's text after an invalid action."""
OBSERVATION = "Observation:"
"""A past observation's header; alone where its text is no longer shown."""
PAST_OBSERVATION = OBSERVATION + "\n"
CURRENT_OBSERVATION = "Current Observation:\n"
PREVIOUS_PLAN = "Previous plan:\n"
MESSAGE_OVERHEAD_TOKENS = 4
"""Chat-template tokens around each message (role markers), counted against the budget."""

Event = dict[str, Any]
"""One entry of the history: `{"type": "observation", "text": ...}` or
`{"type": "action", "action": ..., "reasoning": ... or None}`."""


class BalrogConfig(ReasoningSettings, FallbackSettings):
    """Settings of BALROG's agents (BALROG's `config.yaml` names where it has one)."""

    reply: ReplyMode = "text"
    text_rule: BalrogRule = "balrog-naive"
    """The agent's rule for a `text` reply: `balrog-naive`, `balrog-cot`, `balrog-robust`
    (robust naive), `balrog-robust-cot`."""
    reasoning: bool = False
    """Ask for a `reasoning` field in a JSON reply (`constrained`, `json`)."""
    fallback: FallbackPolicy = "game-default"
    """What an unusable reply executes: BALROG's `check_action_validity` runs the game's
    default action."""
    max_text_history: int = Field(default=BALROG_HISTORY, ge=1)
    """BALROG's `max_text_history`: the deque holds twice as many events."""
    max_cot_history: int = Field(default=0, ge=0)
    """How many of the newest replies are resent whole as `Previous plan:` (BALROG's
    `max_cot_history` is 1, but only its cot agent records reasoning: the other presets
    set 0)."""
    feedback_on_invalid_action: bool = True
    """BALROG's `eval.feedback_on_invalid_action`."""
    reply_note: str = ""
    """A line after the reply format of a JSON reply (the robust agents' strict wording)."""
    temperature: float = Field(default=1.0, ge=0)
    """BALROG's `client.generate_kwargs.temperature`, for a game whose spec sets none."""
    max_tokens: int = Field(default=8192, ge=1)
    """BALROG's `client.generate_kwargs.max_tokens`, for a game whose spec sets none."""
    max_prompt_tokens: int | None = Field(default=None, ge=64)
    """Prompt budget; None: the model's context window, if it has one, minus
    `reply_tokens`. Past it the oldest events are dropped (recorded)."""
    reply_tokens: int = Field(default=256, ge=1)
    """Room kept for the reply in a model's context window; the cap on a reply's tokens
    on such a model."""
    sampling_seed: Literal["none", "game"] = "none"
    """What each request sends as its sampling `seed`: `none` (BALROG's clients send none)
    or `game`, the game's seed (`SetupHooks.sends_game_seed`)."""
    balrog_presentation: bool = True
    """Play an environment that offers BALROG's presentation (`BalrogTasks.presentation`)
    at it, unless the game's own options set those options; False: the environment's own
    presentation."""


class BalrogContract(ConfiguredContract[BalrogConfig]):
    """BALROG's history prompt builder and agent loop."""

    name = "balrog"
    memory_settings = (
        "text_rule", "reasoning", "max_text_history", "max_cot_history", "reply_note"
    )  # fmt: skip
    """The configuration keys that are the memory under test (`MemoryHooks.memory_settings`)."""

    def __init__(self, **settings: object) -> None:
        self.config = BalrogConfig.model_validate(settings)
        self.paper_temperature: float | None = self.config.temperature
        self.paper_max_tokens: int | None = self.config.max_tokens
        self.sends_game_seed = self.config.sampling_seed == "game"
        self.instructions = ""
        self.events: deque[Event] = deque(maxlen=2 * self.config.max_text_history)
        self._current_text = ""
        """The current observation's text as BALROG stores it (feedback included)."""
        self._fell_back: str | None = None
        self._candidate = ""
        self._reasoning: str | None = None
        self._dropped = 0
        self._budget: int | None = None
        self._count: TokenCounter = approx_tokens
        self._exact: ExactCount | None = None
        self._lists_legal = True

    def max_reply_tokens(self, model: Model) -> int | None:
        """The cap on a reply's tokens on `model`: `reply_tokens` where it declares a
        context window (the rest of it is the prompt's), else none."""
        return self.config.reply_tokens if model.context_window else None

    def env_options(self, env_id: str, options: JSON) -> JSON:
        """The game's options, completed with the environment's BALROG presentation where
        it offers one (`balrog_presentation`); an option the game sets is kept."""
        record = env_record(env_id)
        if not self.config.balrog_presentation or record is None or record.balrog is None:
            return options
        return {**record.balrog.presentation, **options}

    def reset(self, episode: EpisodeContext) -> None:
        self.instructions = episode.instructions.strip()
        self._lists_legal = episode.presentation != "balrog"
        self.events.clear()
        self._fell_back, self._candidate, self._reasoning, self._dropped = None, "", None, 0
        model = self.model = episode.model
        budget = prompt_budget(model, self.config.max_prompt_tokens, self.config.reply_tokens)
        self._count, self._exact, self._budget = budget.count, budget.exact, budget.limit

    def observation_text(self, obs: Observation) -> str:
        """The observation's text as BALROG keeps it in its history: after an unusable
        reply, the feedback naming the default action that ran, then the text (the part a
        history keeps: `Observation.kept_text`)."""
        if self.config.feedback_on_invalid_action and self._fell_back is not None:
            return INVALID_FEEDBACK.format(action=self._fell_back) + obs.kept_text
        return obs.kept_text

    def closing(self, obs: Observation) -> str:
        """The agent's instruction that ends the current observation."""
        asked = instruction(self.reply_schema(obs), self.reply_mode, self.config.text_rule)
        if self.config.reply_note and self.reply_mode != "text":
            asked += f"\n{self.config.reply_note}"
        return asked

    def assemble(self, obs: Observation) -> Prompt:
        self._candidate, self._reasoning = "", None
        self._current_text = self.observation_text(obs)
        current = CURRENT_OBSERVATION + obs.current_only_text + self._current_text
        if obs.legal and self._lists_legal:
            current += "\n\n" + render_legal(obs)
        current += "\n\n" + self.closing(obs)
        past = list(self.events)[-(2 * self.config.max_text_history - 1) :]  # + current: 32
        kept = self._events_that_fit(past, current)
        prompt = self._prompt(past[len(past) - kept :], current)
        while kept and not self._fits(prompt):
            kept -= 1
            prompt = self._prompt(past[len(past) - kept :], current)
        self._dropped = len(past) - kept
        return prompt

    def _events_that_fit(self, past: list[Event], current: str) -> int:
        """How many of the newest events fit the budget by the per-message count (all of
        them without a budget); `_fits` then checks the prompt as the model reads it."""
        if self._budget is None:
            return len(past)
        room = self._budget - self._count(self.instructions) - self._count(current)
        room -= 2 * MESSAGE_OVERHEAD_TOKENS
        kept = 0
        for event in reversed(past):
            text = event["text"] if event["type"] == "observation" else event["action"]
            cost = self._count(text) + MESSAGE_OVERHEAD_TOKENS
            if event["type"] == "action" and event["reasoning"] is not None:
                cost = max(cost, self._count(event["reasoning"]) + MESSAGE_OVERHEAD_TOKENS)
            if cost > room:
                break
            room -= cost
            kept += 1
        return kept

    def _prompt(self, past: list[Event], current: str) -> Prompt:
        prompt = Prompt()
        if self.instructions:
            prompt.add("instruction", "user", self.instructions)
        plans, shown = self._plans(past), self._shown(past)
        for index, event in enumerate(past):
            if event["type"] == "observation":
                text = PAST_OBSERVATION + event["text"] if index in shown else OBSERVATION
                prompt.add("events", "user", text)
            elif index in plans:
                prompt.add("events", "assistant", PREVIOUS_PLAN + event["reasoning"])
            else:
                prompt.add("events", "assistant", event["action"])
        prompt.add("observation", "user", current)
        return prompt

    def _shown(self, past: list[Event]) -> set[int]:
        """The indices of the past observations whose text is shown: the newest
        `max_text_history - 1` (the current observation is the newest of BALROG's count)."""
        observations = [i for i, event in enumerate(past) if event["type"] == "observation"]
        hidden = max(0, len(observations) - (self.config.max_text_history - 1))
        return set(observations[hidden:])

    def _plans(self, past: list[Event]) -> set[int]:
        """The indices of the newest `max_cot_history` actions resent with their reasoning."""
        left, found = self.config.max_cot_history, set()
        for index in range(len(past) - 1, -1, -1):
            if left and past[index]["type"] == "action" and past[index]["reasoning"] is not None:
                found.add(index)
                left -= 1
        return found

    def _fits(self, prompt: Prompt) -> bool:
        """Whether the prompt fits the budget: as the model counts it with its chat template
        where it can (`prompt_tokens`), else by the per-message estimate."""
        if self._budget is None:
            return True
        messages = prompt.messages()
        if self._exact is not None:
            tokens, _ = self._exact(messages)
            return len(tokens) <= self._budget
        used = sum(self._count(m["content"]) + MESSAGE_OVERHEAD_TOKENS for m in messages)
        return used <= self._budget

    def parse(self, completion: Completion, obs: Observation) -> Decision:
        decision, _ = parse_reply(completion.text, obs, self.reply_mode, self.config.text_rule)
        text = scrub(completion.text)[0].strip()  # as BALROG's clients strip it
        self._candidate = self._named(text, decision)
        keeps_reasoning = self.config.max_cot_history > 0
        self._reasoning = text if keeps_reasoning else None
        if self._dropped:
            decision.extra["history_dropped"] = self._dropped
        return decision

    def _named(self, text: str, decision: Decision) -> str:
        """The action the reply named, as BALROG resends it: the text rule's extraction; in
        a JSON mode, the action's id (an illegal one as named), else the reply."""
        if self.reply_mode == "text":
            return balrog_candidate(text, self.config.text_rule)
        if decision.actions:
            return decision.actions[0].id
        invalid = decision.extra.get(INVALID_KEY)
        return str(invalid[0]) if invalid else text.strip()

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        self.events.append({"type": "observation", "text": self._current_text or obs.kept_text})
        if self._candidate:  # BALROG records no action its agent extracted as empty
            self.events.append(
                {"type": "action", "action": self._candidate, "reasoning": self._reasoning}
            )
        unusable = not decision.actions or bool(decision.parse_error)
        self._fell_back = str(decision.extra.get("fallback_action", "")) if unusable else None
        self._candidate, self._reasoning, self._current_text = "", None, ""

    def store_hashes(self) -> dict[str, str]:
        return {"balrog_history": stable_hash(list(self.events))}

    def memory_snapshot(self) -> JSON:
        """The deque and the pending feedback (`bounded resume`)."""
        return {"events": list(self.events), "fell_back": self._fell_back}

    def memory_logs(self) -> tuple[str, ...]:
        """None: the deque forgets its oldest events."""
        return ()

    def restore_memory(self, memory: JSON) -> None:
        self.events.clear()
        self.events.extend(memory["events"])
        self._fell_back = memory.get("fell_back")
        self._dropped = 0


__all__ = ["INVALID_FEEDBACK", "BalrogConfig", "BalrogContract"]
