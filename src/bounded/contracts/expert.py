"""`ExpertContract`: a scripted player (`Expert`) in the contract's seat, so that its games
run through the one episode loop, are archived like any other, and need no model.

Every decision is the expert's, made in `propose`; the prompt is never assembled. With
`record=True` each decision is also kept as an episodic bank entry (time, numeric state
features, actions), which is how a bank is built from an expert's winning games.
"""

from __future__ import annotations

import random

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
    memory_settings = ("strategy",)
    """What the expert plays is what is compared (`ContractBase.memory_settings`)."""

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


class PlayerContract(ExpertContract):
    """A scripted player of known skill for a sweep: an expert (`expert`, an import path
    `module:Class` constructed without arguments, e.g. `bounded.envs.spire:SpireExpert`)
    which at each decision, with probability `slip`, plays a uniformly random legal action
    instead (drawn from a generator seeded by the game's seed and `slip`, so a seed
    replays the same game). `slip = 0` is the expert; a larger slip is a weaker player on
    the same deals. Named in an experiment file by its import path: `contract =
    "bounded.contracts.expert:PlayerContract"`, `contract_config = { expert =
    "bounded.envs.spire:SpireExpert", slip = 0.1 }`."""

    name = "player"
    memory_settings = ("slip",)
    """The player's skill is what is compared (`ContractBase.memory_settings`)."""

    def __init__(self, *, expert: str, slip: float = 0.0) -> None:
        from bounded.registry import is_import_path

        if not 0.0 <= slip <= 1.0:
            raise ValueError(f"slip must lie in [0, 1], got {slip}")
        if not is_import_path(expert):
            raise ValueError(f"expert must be an import path module:Class, got {expert!r}")
        super().__init__(_NoExpert(), strategy=f"slip={slip:g}")
        self.expert_path, self.slip = expert, slip
        self.rng = random.Random(0)

    def reset(self, episode: EpisodeContext) -> None:
        from bounded.registry import load_target

        super().reset(episode)
        self.expert = load_target(self.expert_path)()
        self.rng = random.Random(f"player:{episode.seed}:{self.slip}")

    def propose(self, obs: Observation) -> Decision:
        if obs.legal and self.rng.random() < self.slip:
            return Decision(actions=[self.rng.choice(obs.legal)], extra={"source": "slip"})
        return super().propose(obs)

    def config_dict(self) -> JSON:
        return {"expert": self.expert_path, "slip": self.slip}


class _NoExpert:
    """The seat before `reset` names the environment's expert."""

    def act(self, obs: Observation) -> Action:
        raise RuntimeError("PlayerContract.reset has not run")


__all__ = ["ExpertContract", "PlayerContract"]
