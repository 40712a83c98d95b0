"""`transcript`: the accumulating baseline. Every observation and reply is appended and resent.

Like the agents it stands for, it meets a full context window by dropping the oldest turns;
each decision records how many it dropped (`history_dropped`). Each turn is resent exactly
as it was first sent (the reply format goes with its observation, not in the system
message), so until a turn is dropped every prompt starts with the whole previous one:
the best case for a provider's prefix cache."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bounded.contracts._fallback import FallbackPolicy, fallback_actions
from bounded.contracts._render import render_observation, reply_format
from bounded.contracts._reply import decision_schema, parse_decision, scrub
from bounded.contracts.recovery import Perturbation, corrupt_text
from bounded.core import (
    JSON,
    Action,
    Completion,
    ContractBase,
    Decision,
    EpisodeContext,
    Observation,
    Prompt,
    StepResult,
    TokenCounter,
    approx_tokens,
    stable_hash,
)


class TranscriptConfig(BaseModel):
    """Settings of the transcript baseline."""

    model_config = ConfigDict(extra="forbid")

    reasoning: bool = True
    """Ask for a short reasoning field before the action."""
    max_prompt_tokens: int | None = Field(default=None, ge=64)
    """Prompt budget; when the transcript outgrows it the oldest turns are dropped (and the
    number dropped recorded on the decision). None: the model's context window, if it has
    one, minus `reply_tokens`."""
    reply_tokens: int = Field(default=256, ge=1)
    """Room kept for the reply when the budget comes from the model's context window."""
    fallback: FallbackPolicy = "first-legal"
    """What an unusable reply executes: `first-legal`, or `no-op` as the SKILL.state
    replication's conversational mode (see `bounded.contracts._fallback`)."""
    perturb_at: int | None = Field(default=None, ge=0)
    """State recovery: the decision (0-based) before which the transcript is perturbed
    (see `bounded.contracts.recovery`); None: never."""
    perturb: Perturbation = "wipe"
    """How: `wipe` (every earlier turn forgotten) or `corrupt` (the integers in its own
    earlier replies off by one)."""


MESSAGE_OVERHEAD_TOKENS = 4
"""Chat-template tokens around each message (role markers), counted against the budget."""


class TranscriptContract(ContractBase):
    """Keeps the whole conversation: prompt size grows with every decision."""

    name = "transcript"

    def __init__(self, **settings: object) -> None:
        self.config = TranscriptConfig.model_validate(settings)
        self.instructions = ""
        self.history: list[tuple[str, str]] = []
        self._turn_tokens: list[int] = []
        self._pending: str | None = None
        self._current = ""
        self._dropped = 0
        self._budget: int | None = None
        self._count: TokenCounter = approx_tokens
        self._exact: Callable[[list[dict[str, str]]], tuple[list[int], Any]] | None = None
        self._perturbed_now = False
        self.decisions = 0

    def reset(self, episode: EpisodeContext) -> None:
        self.instructions = episode.instructions
        self.history, self._turn_tokens = [], []
        self._pending, self._dropped = None, 0
        self._perturbed_now, self.decisions = False, 0
        model = episode.model
        if model is not None:
            self._count = model.count_tokens
        exact = getattr(model, "prompt_tokens", None)
        self._exact = exact if callable(exact) else None
        self._budget = self.config.max_prompt_tokens
        window = model.context_window if model is not None else None
        if self._budget is None and window:
            self._budget = int(window) - self.config.reply_tokens

    def fallback_actions(self, obs: Observation) -> list[Action]:
        return fallback_actions(self.config.fallback, obs)

    def reply_schema(self, obs: Observation) -> JSON:
        return decision_schema(obs, reasoning=self.config.reasoning)

    def _perturb_if_due(self) -> None:
        self._perturbed_now = self.decisions == self.config.perturb_at
        if not self._perturbed_now:
            return
        if self.config.perturb == "wipe":
            self.history, self._turn_tokens = [], []
        else:
            self.history = [(seen, corrupt_text(reply)) for seen, reply in self.history]

    def assemble(self, obs: Observation) -> Prompt:
        self._perturb_if_due()
        system = self.instructions.strip()
        current = f"{render_observation(obs)}\n\n{reply_format(self.reply_schema(obs))}"
        self._current = current
        kept = self._turns_that_fit(system, current)
        prompt = self._prompt(system, current, kept)
        while kept and not self._fits(prompt):
            kept -= 1
            prompt = self._prompt(system, current, kept)
        self._dropped = len(self.history) - kept
        return prompt

    def _prompt(self, system: str, current: str, kept: int) -> Prompt:
        """The instructions, the newest `kept` turns and the current observation."""
        prompt = Prompt()
        prompt.add("instructions", "system", system)
        for observation_text, reply_text in self.history[len(self.history) - kept :]:
            prompt.add("history", "user", observation_text)
            prompt.add("history", "assistant", reply_text)
        prompt.add("observation", "user", current)
        return prompt

    def _fits(self, prompt: Prompt) -> bool:
        """Whether the prompt as the model will read it (its chat template applied) fits the
        budget, where the model can count that (`prompt_tokens`, the embedded model); the
        per-message estimate alone can fall short by a few tokens a message."""
        if self._budget is None or self._exact is None:
            return True
        tokens, _ = self._exact(prompt.messages())
        return len(tokens) <= self._budget

    def _turns_that_fit(self, system: str, current: str) -> int:
        """How many of the newest turns fit the budget (all of them without a budget)."""
        if self._budget is None:
            return len(self.history)
        room = self._budget - self._count(system) - self._count(current)
        room -= 2 * MESSAGE_OVERHEAD_TOKENS
        kept = 0
        for tokens in reversed(self._turn_tokens):
            if tokens > room:
                break
            room -= tokens
            kept += 1
        return kept

    def parse(self, completion: Completion, obs: Observation) -> Decision:
        self._pending = scrub(completion.text)[0]  # resent in every later prompt
        decision, _ = parse_decision(completion.text, obs)
        if self._perturbed_now:
            decision.extra["perturbed"] = self.config.perturb
        if self._dropped:
            decision.extra["history_dropped"] = self._dropped
        return decision

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        turn = (self._current or render_observation(obs), self._pending or "")
        self.history.append(turn)
        self._turn_tokens.append(
            self._count(turn[0]) + self._count(turn[1]) + 2 * MESSAGE_OVERHEAD_TOKENS
        )
        self._pending = None
        self.decisions += 1

    def config_dict(self) -> JSON:
        return self.config.model_dump()

    def store_hashes(self) -> dict[str, str]:
        return {"transcript": stable_hash(self.history)}

    def memory_snapshot(self) -> JSON:
        """The turns kept so far and their token counts (`bounded resume`)."""
        return {
            "history": self.history,  # tuples: JSON arrays, as the archive keeps them
            "turn_tokens": self._turn_tokens,
            "decisions": self.decisions,
        }

    def memory_logs(self) -> tuple[str, ...]:
        """The turns and their counts only grow (a wipe starts them over, which a log
        survives), except under a `corrupt` perturbation, which rewrites earlier turns."""
        if self.config.perturb_at is not None and self.config.perturb == "corrupt":
            return ()
        return ("history", "turn_tokens")

    def restore_memory(self, memory: JSON) -> None:
        self.history = [(observation, reply) for observation, reply in memory["history"]]
        self._turn_tokens = list(memory["turn_tokens"])
        self.decisions = memory["decisions"]
        self._pending, self._dropped = None, 0
