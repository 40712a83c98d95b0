"""`transcript`: the accumulating baseline. Every observation and reply is appended and resent.

Like the agents it stands for, it meets a full context window by dropping the oldest turns;
each decision records how many it dropped (`history_dropped`). Each turn is resent exactly
as it was first sent (the reply format goes with its observation, not in the system
message), so until a turn is dropped every prompt starts with the whole previous one:
the best case for a provider's prefix cache. A reply whose reasoning is longer than the
cap in force (`reasoning_chars`) is resent with the reasoning cut, the cut recorded
(`cut`); the decision archives it whole."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from bounded.contracts._budget import ExactCount, prompt_budget
from bounded.contracts._configured import ConfiguredContract
from bounded.contracts._render import compact_json, render_observation
from bounded.contracts.perturbation import Perturbation, corrupt_text
from bounded.contracts.replies.reading import decode_reply, resent_reply, scrub
from bounded.contracts.replies.rules import TextRule, balrog_candidate
from bounded.contracts.replies.settings import FallbackSettings, ReasoningSettings
from bounded.core import (
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
from bounded.protocols import EpisodeContext


class TranscriptConfig(ReasoningSettings, FallbackSettings):
    """Settings of the transcript baseline."""

    model_config = ConfigDict(extra="forbid")

    text_rule: TextRule = "json-block"
    """How a `text` reply is read (`bounded.contracts.replies.rules`): `json-block` (reasoning,
    then the reply object), or one of BALROG's agents' rules (`balrog-naive`, ...; the
    `balrog-*` presets play them in the `balrog` contract, with BALROG's own history)."""
    max_prompt_tokens: int | None = Field(default=None, ge=64)
    """Prompt budget; when the transcript outgrows it the oldest turns are dropped (and the
    number dropped recorded on the decision). None: the model's context window, if it has
    one, minus `reply_tokens`."""
    reply_tokens: int = Field(default=256, ge=1)
    """Room kept for the reply when the budget comes from the model's context window."""
    max_turns: int | None = Field(default=None, ge=0)
    """Keep only the newest this many observation/reply turns (BALROG's
    `max_text_history = 16`); None: every turn the budget holds."""
    reasoning_turns: int | None = Field(default=None, ge=0)
    """Resend the reasoning of only the newest this many replies; older replies are
    resent as their action alone (BALROG's `max_cot_history = 1`). None: all of it."""
    invalid_feedback: bool = False
    """After an unusable reply, say so at the top of the next observation (BALROG's
    `feedback_on_invalid_action`)."""
    reply_note: str = ""
    """A line added after the reply format of a JSON reply (`constrained`, `json`: BALROG's
    robust agents' strict wording); a `text` reply's rule has its own wording."""
    perturb_at: int | None = Field(default=None, ge=0)
    """State recovery: the decision (0-based) before which the transcript is perturbed
    (see `bounded.contracts.perturbation`); None: never."""
    perturb: Perturbation = "wipe"
    """How: `wipe` (every earlier turn forgotten) or `corrupt` (the integers in its own
    earlier replies off by one)."""


INVALID_FEEDBACK = (
    "Your previous output did not contain a valid action. Defaulted to action: {action}"
)
"""BALROG's feedback on an unusable reply, naming what ran instead, at the top of the next
observation."""


def without_reasoning(reply: str) -> str:
    """A reply object resent without its `reasoning` (the text as it was where it holds no
    object)."""
    try:
        parsed, _ = decode_reply(reply)
    except ValueError:
        return reply
    return compact_json({k: v for k, v in parsed.items() if k != "reasoning"})


MESSAGE_OVERHEAD_TOKENS = 4
"""Chat-template tokens around each message (role markers), counted against the budget."""


class TranscriptContract(ConfiguredContract[TranscriptConfig]):
    """Keeps the whole conversation: prompt size grows with every decision."""

    name = "transcript"
    memory_settings = (
        "max_prompt_tokens", "max_turns", "reasoning_turns"
    )  # fmt: skip
    """The configuration keys that are the memory under test (`MemoryHooks.memory_settings`)."""

    def __init__(self, **settings: object) -> None:
        self.config = TranscriptConfig.model_validate(settings)
        self.instructions = ""
        self.history: list[tuple[str, str]] = []
        self._bare_replies: list[str] = []
        self._turn_tokens: list[int] = []
        self._fell_back: str | None = None
        """The action that ran instead of the model's at the latest decision, if one did."""
        self._pending: str | None = None
        self._pending_bare: str | None = None
        self._current = ""
        self._dropped = 0
        self._budget: int | None = None
        self._count: TokenCounter = approx_tokens
        self._exact: ExactCount | None = None
        self._perturbed_now = False
        self.decisions = 0

    def reset(self, episode: EpisodeContext) -> None:
        self.instructions = episode.instructions
        self.history, self._turn_tokens, self._bare_replies = [], [], []
        self._pending, self._dropped, self._fell_back = None, 0, None
        self._perturbed_now, self.decisions = False, 0
        model = self.model = episode.model
        budget = prompt_budget(model, self.config.max_prompt_tokens, self.config.reply_tokens)
        self._count, self._exact, self._budget = budget.count, budget.exact, budget.limit

    def _perturb_if_due(self) -> None:
        self._perturbed_now = self.decisions == self.config.perturb_at
        if not self._perturbed_now:
            return
        if self.config.perturb == "wipe":
            self.history, self._turn_tokens, self._bare_replies = [], [], []
        else:
            self.history = [(seen, corrupt_text(reply)) for seen, reply in self.history]

    def assemble(self, obs: Observation) -> Prompt:
        self._perturb_if_due()
        system = self.instructions.strip()
        current = f"{render_observation(obs)}\n\n{self.reply_instruction(obs)}"
        if self.config.reply_note and self.reply_mode != "text":
            current += f"\n{self.config.reply_note}"
        if self.config.invalid_feedback and self._fell_back is not None:
            current = f"{INVALID_FEEDBACK.format(action=self._fell_back)}\n\n{current}"
        self._current = current
        kept = self._turns_that_fit(system, current)
        if self.config.max_turns is not None:
            kept = min(kept, self.config.max_turns)
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
        start = len(self.history) - kept
        full_from = len(self.history) - (self.config.reasoning_turns or 0)
        for index in range(start, len(self.history)):
            observation_text, reply_text = self.history[index]
            if self.config.reasoning_turns is not None and index < full_from:
                reply_text = self._bare(index)
            prompt.add("history", "user", observation_text)
            prompt.add("history", "assistant", reply_text)
        prompt.add("observation", "user", current)
        return prompt

    def _bare(self, index: int) -> str:
        """The reply of turn `index` without its reasoning (as it was, where none parsed)."""
        if index < len(self._bare_replies):
            return self._bare_replies[index]
        return self.history[index][1]

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
        mode, rule = self.reply_mode, self.reply_rule
        decision, reply = self.read_reply(completion, obs)
        resent = scrub(completion.text)[0]  # in every later prompt, within the reasoning cap
        self._pending = resent_reply(resent, reply, decision, self.reasoning_chars)
        if mode == "text" and rule.startswith("balrog"):  # its action, where resent bare
            self._pending_bare = balrog_candidate(resent.strip(), rule)  # as BALROG reads it
        if self._perturbed_now:
            decision.extra["perturbed"] = self.config.perturb
        if self._dropped:
            decision.extra["history_dropped"] = self._dropped
        return decision

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        turn = (self._current or render_observation(obs), self._pending or "")
        self.history.append(turn)
        bare = self._pending_bare if self._pending_bare is not None else without_reasoning(turn[1])
        self._bare_replies.append(bare)
        self._pending_bare = None
        unusable = not decision.actions or bool(decision.parse_error)
        self._fell_back = str(decision.extra.get("fallback_action", "")) if unusable else None
        self._turn_tokens.append(
            self._count(turn[0]) + self._count(turn[1]) + 2 * MESSAGE_OVERHEAD_TOKENS
        )
        self._pending = None
        self.decisions += 1

    def store_hashes(self) -> dict[str, str]:
        return {"transcript": stable_hash(self.history)}

    def memory_snapshot(self) -> JSON:
        """The turns kept so far and their token counts (`bounded resume`)."""
        return {
            "history": self.history,  # tuples: JSON arrays, as the archive keeps them
            "turn_tokens": self._turn_tokens,
            "decisions": self.decisions,
            "bare_replies": self._bare_replies,
        }

    def memory_logs(self) -> tuple[str, ...]:
        """The turns and their counts only grow, except under a perturbation: `corrupt`
        rewrites earlier turns, and a `wipe` that leaves as many turns as were stored (one
        turn wiped, one added) could not be told from growth."""
        if self.config.perturb_at is not None:
            return ()
        return ("history", "turn_tokens", "bare_replies")

    def restore_memory(self, memory: JSON) -> None:
        self.history = [(observation, reply) for observation, reply in memory["history"]]
        self._turn_tokens = list(memory["turn_tokens"])
        self.decisions = memory["decisions"]
        self._bare_replies = list(memory.get("bare_replies", [r for _, r in self.history]))
        self._pending, self._dropped = None, 0
