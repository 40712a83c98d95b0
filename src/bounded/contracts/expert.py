"""`ExpertContract`: a scripted player (`Expert`) in the contract's seat, so that its games
run through the one episode loop, are archived like any other, and need no model.

Every decision is the expert's, made in `propose`; the prompt is never assembled. With
`record=True` each decision is also kept as an episodic bank entry (time, numeric state
features, actions), which is how a bank is built from an expert's winning games.
"""

from __future__ import annotations

from bounded.contracts._features import flatten_state
from bounded.contracts.episodic.bank import BankEntry
from bounded.core import (
    JSON,
    Action,
    Completion,
    ContractBase,
    Decision,
    EpisodeContext,
    Expert,
    Observation,
    Prompt,
    StepResult,
)


class ExpertContract(ContractBase):
    """Plays `expert.act(obs)` at every decision."""

    name = "expert"

    def __init__(self, expert: Expert, *, strategy: str = "", record: bool = False) -> None:
        self.expert = expert
        self.strategy = strategy
        """What the expert plays (e.g. a build order), stored with the run's config."""
        self.record = record
        self.entries: list[BankEntry] = []

    def reset(self, episode: EpisodeContext) -> None:
        self.entries = []

    def propose(self, obs: Observation) -> Decision:
        chosen = self.expert.act(obs)
        actions = [chosen] if isinstance(chosen, Action) else list(chosen)
        return Decision(actions=actions, extra={"source": "expert"})

    def assemble(self, obs: Observation) -> Prompt:
        raise RuntimeError("an expert's decisions are proposed, never prompted")

    def reply_schema(self, obs: Observation) -> JSON:
        return {}

    def parse(self, completion: Completion, obs: Observation) -> Decision:
        raise RuntimeError("an expert's decisions are proposed, never parsed")

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        if self.record:
            features = flatten_state(obs.state)
            step = len(self.entries)
            self.entries.append(
                BankEntry(t=obs.t, features=features, actions=decision.actions, step=step)
            )

    def config_dict(self) -> JSON:
        return {"expert": type(self.expert).__name__, "strategy": self.strategy}


__all__ = ["ExpertContract"]
