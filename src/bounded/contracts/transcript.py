"""`transcript`: the accumulating baseline. Every observation and reply is appended and resent."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from bounded.contracts._render import render_observation, reply_format
from bounded.contracts._reply import decision_schema, parse_decision
from bounded.core import (
    JSON,
    Completion,
    Decision,
    DecisionRecord,
    Observation,
    Prompt,
    StepResult,
    stable_hash,
)


class TranscriptConfig(BaseModel):
    """Settings of the transcript baseline."""

    model_config = ConfigDict(extra="forbid")

    reasoning: bool = True
    """Ask for a short reasoning field before the action."""


class TranscriptContract:
    """Keeps the whole conversation: prompt size grows with every decision."""

    name = "transcript"

    def __init__(self, **settings: object) -> None:
        self.config = TranscriptConfig.model_validate(settings)
        self.instructions = ""
        self.history: list[tuple[str, str]] = []
        self._pending: str | None = None

    def reset(self, episode: JSON) -> None:
        self.instructions = str(episode.get("instructions", ""))
        self.history = []
        self._pending = None

    def reply_schema(self, obs: Observation) -> JSON:
        return decision_schema(obs, reasoning=self.config.reasoning)

    def assemble(self, obs: Observation) -> Prompt:
        prompt = Prompt()
        system = f"{self.instructions}\n\n{reply_format(self.reply_schema(obs))}".strip()
        prompt.add("instructions", "system", system)
        for observation_text, reply_text in self.history:
            prompt.add("history", "user", observation_text)
            prompt.add("history", "assistant", reply_text)
        prompt.add("observation", "user", render_observation(obs))
        return prompt

    def parse(self, completion: Completion, obs: Observation) -> Decision:
        self._pending = completion.text
        decision, _ = parse_decision(completion.text, obs)
        return decision

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        self.history.append((render_observation(obs), self._pending or ""))
        self._pending = None

    def postrun(self, trajectory: list[DecisionRecord]) -> None:
        return None

    def config_dict(self) -> JSON:
        return self.config.model_dump()

    def store_hashes(self) -> dict[str, str]:
        return {"transcript": stable_hash(self.history)}
