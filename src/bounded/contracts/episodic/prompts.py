"""The episodic contract's prompts: what a decision asks and how its reply is shaped.

An exploration call is Appendix B's Prompt 1 (`prompt = "paper"`, the CoS prompt of
`bounded.contracts.cos_prompt`) or this contract's first, `"short"`, prompt; any other
call asks for the decision's reply object. Contextual fusion writes the strategy
description of the retrieved episodes (one model call per strategy key, cached for the
episode) inserted after the role line; the recalled episodes and the working memory
(Eq. 4) are rendered as the prompt's user sections.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from bounded.contracts import cos_prompt
from bounded.contracts._render import render_observation
from bounded.contracts.episodic.bank import Retrieved
from bounded.contracts.episodic.config import (
    ACT_TASK,
    DESCRIBE_SYSTEM,
    DESCRIPTION_SCHEMA,
    EXECUTABLE_NOW,
    EXPLORE_TASK,
    ROLE,
)
from bounded.contracts.episodic.memory import (
    MemoryEntry,
    action_text,
    differing_keys,
    number,
    observation_text,
    render_changes,
    working_memory,
)
from bounded.contracts.episodic.planning import StepPlan, StepPlanning
from bounded.contracts.replies.reading import (
    action_schema,
    extract_json_object,
    reasoning_schema,
    scrub,
)
from bounded.contracts.replies.rules import text_instruction
from bounded.core import JSON, Observation, Prompt
from bounded.protocols import TextRule


class EpisodicPrompts(StepPlanning):
    """The reply schema, the prompt, its fusion and its rendering (state set by the contract)."""

    instructions: str
    seed: int | None
    context_window: int | None
    history: deque[MemoryEntry]
    descriptions: dict[str, str]

    def text_chars(self) -> int:
        """The length cap of each text field of a `paper` exploration reply."""
        if self.config.text_max_chars is not None:
            return self.config.text_max_chars
        return cos_prompt.field_chars(self.config.reply_tokens, self.context_window)

    def reply_schema(self, obs: Observation) -> JSON:
        if not self.plan(obs).explore:
            return self.decision_reply_schema(obs)
        if self.config.prompt == "paper":
            return cos_prompt.reply_schema(
                obs.legal, self.config.explore_actions, self.text_chars()
            )
        properties: JSON = {}
        if self.config.reasoning:
            properties["reasoning"] = reasoning_schema(self.reasoning_chars)
        properties["actions"] = {
            "type": "array",
            "items": action_schema(obs.legal),
            "minItems": 1,
            "maxItems": self.config.explore_actions,
        }
        return {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        }

    def assemble(self, obs: Observation) -> Prompt:
        plan = self.plan(obs)
        prompt = Prompt()
        description = self.describe(plan) if self.config.fusion and plan.hits else ""
        if self.config.prompt == "paper":
            before, after = self._paper_system(obs, strategy=bool(description))
            prompt.add("instructions", "system", before)
            if description:
                prompt.add("fusion", "system", cos_prompt.STRATEGY.format(description=description))
            prompt.add("instructions", "system", after)
        else:
            prompt.add("instructions", "system", self._system(obs))
            if description:
                prompt.add("fusion", "system", "Strategy of the recalled games: " + description)
        recalled = not plan.explore or self.config.exploration_prompt == "recalled"
        if recalled:
            prompt.add("episodic", "user", self.render_hits(plan))
        memory = self.render_memory(plan)
        if memory:
            prompt.add("working_memory", "user", memory)
        if recalled and self.queue:
            prompt.add("queue", "user", "Queued exploration actions: " + action_text(self.queue))
        prompt.add("observation", "user", render_observation(obs))
        task = EXPLORE_TASK.format(n=self.config.explore_actions) if plan.explore else ACT_TASK
        prompt.add("task", "user", task)
        return prompt

    def _executable_instruction(self) -> bool:
        """Fusion's executable-now instruction (the `description` ablation keeps it)."""
        return self.config.fusion or self.config.fusion_ablation == "description"

    def _system(self, obs: Observation) -> str:
        parts = [self.instructions, ROLE]
        if self._executable_instruction():
            parts.append(EXECUTABLE_NOW)
        parts.append(self.reply_instruction(obs))
        return "\n\n".join(p for p in parts if p)

    def text_rule_for(self, obs: Observation) -> TextRule:
        """An exploration call's `<ACTION NAME>`s; any other call's JSON block."""
        return "action-tags" if self.plan(obs).explore else self.reply_rule

    def reply_instruction(self, obs: Observation) -> str:
        """How to answer in the mode in force: an exploration call in `text` mode names its
        actions as `<ACTION NAME>` (EpicStar's), any other reply is a JSON object (in
        `text` mode: reasoning, then a JSON block)."""
        if self.reply_mode == "text" and self.plan(obs).explore:
            return text_instruction(self.reply_schema(obs), "action-tags")
        return super().reply_instruction(obs)

    def _paper_system(self, obs: Observation, *, strategy: bool) -> tuple[str, str]:
        """Prompt 1 around the strategy slot; an exploration-free decision (an environment
        without an empty action) keeps the plain reply format."""
        plan = self.plan(obs)
        if plan.explore:
            before, after = cos_prompt.system_prompt(
                self.instructions, self.config.explore_actions, strategy=strategy,
                text=self.reply_mode == "text",
            )  # fmt: skip
        else:
            before, after = self.instructions, self.reply_instruction(obs)
        if self._executable_instruction():
            after = f"{after}\n\n{EXECUTABLE_NOW}"
        return before, after

    # -- contextual fusion ------------------------------------------------

    def strategy_key(self, hits: Sequence[Retrieved]) -> str:
        return " | ".join(sorted({hit.strategy for hit in hits}))

    def describe(self, plan: StepPlan) -> str:
        """The cached description of the retrieved episodes' strategy (one call per key)."""
        key = self.strategy_key(plan.hits)
        if key in self.descriptions:
            return self.descriptions[key]
        if self.model is None:
            return ""
        messages = [
            {"role": "system", "content": DESCRIBE_SYSTEM},
            {"role": "user", "content": self.render_hits(plan)},
        ]
        try:
            completion = self.model.complete(
                messages,
                constraint=DESCRIPTION_SCHEMA,
                max_tokens=self.config.description_max_tokens,
                temperature=self.config.description_temperature,
                seed=self.seed,
            )
        except Exception as exc:  # the decision goes on without a description
            plan.fusion_error = f"{type(exc).__name__}: {exc}"
            return ""
        self.descriptions[key] = self._description_text(completion.text)
        return self.descriptions[key]

    @staticmethod
    def _description_text(text: str) -> str:
        try:
            value = extract_json_object(text).get("strategy")
        except ValueError:
            value = None
        return scrub(value if isinstance(value, str) else text)[0].strip()[:400]

    # -- rendering --------------------------------------------------------

    def render_hits(self, plan: StepPlan) -> str:
        if not plan.hits:
            return "Recalled episodes: none at this game time (EmptyAction)."
        lines = ["Recalled episodes from winning games (closest first):"]
        for rank, hit in enumerate(plan.hits, start=1):
            then = self.bank.entry(hit.index).features
            changes = differing_keys(plan.features, then, self.config.diff_keys)
            lines.append(
                f"{rank}. t={number(hit.t)} ({hit.strategy}): did {action_text(hit.actions)};"
                f" D_item={hit.d_item}, D_value={number(hit.d_value)};"
                f" then->now: {render_changes(changes)}"
            )
        return "\n".join(lines)

    def render_memory(self, plan: StepPlan) -> str:
        config = self.config
        entries = working_memory(
            self.history, plan.step, config.memory_interval, config.memory_depth
        )
        if not entries:
            return ""
        lines = [f"Working memory (every {config.memory_interval} decisions back):"]
        for entry in entries:
            when = f"- {plan.step - entry.step} decisions ago (t={number(entry.t)}):"
            if config.memory_view == "observation":
                lines.append(f"{when}\n{observation_text(entry)}")
                continue
            changes = differing_keys(plan.features, entry.features, config.diff_keys)
            lines.append(f"{when} then->now: {render_changes(changes)}")
        return "\n".join(lines)


__all__ = ["EpisodicPrompts"]
