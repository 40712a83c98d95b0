"""`ExpertContract`: a scripted player (`Expert`) in the contract's seat, so that its games
run through the one episode loop, are archived like any other, and need no model.

Every decision is the expert's, made in `propose`; the prompt is never assembled. With
`record=True` each decision is also kept as an episodic bank entry (time, numeric state
features, actions), which is how a bank is built from an expert's winning games.
"""

from __future__ import annotations

import random
from typing import Any, Protocol, cast, runtime_checkable

from bounded.contracts._features import flatten_state
from bounded.contracts.base import ContractBase
from bounded.contracts.episodic.bank import BankEntry
from bounded.core import JSON, Action, Completion, Decision, Observation, Prompt, StepResult
from bounded.protocols import Env, EpisodeContext, Expert


class ExpertContract(ContractBase):
    """Plays `expert.act(obs)` at every decision."""

    name = "expert"
    memory_settings = ("strategy",)
    """What the expert plays is what is compared (`MemoryHooks.memory_settings`)."""

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
    """A scripted player of known skill for a sweep: the environment's expert (its
    record's, `bounded.env_records`; or `expert`, an import path `module:Class`) which at
    each decision, with probability `slip`, plays a uniformly random legal action instead
    (drawn from a generator seeded by the game's seed and `slip`, so a seed replays the
    same game). `slip = 0` is the expert; a larger slip is a weaker player on the same
    deals. An expert that reads the game it plays (its record's `expert_reads_env`, or
    `reads_env = true` for one named by path: BabyAI's, Crafter's, TextWorld's) is built
    from the environment, which the runner hands over before each game (`read_env`).
    Named in an experiment file by its import path: `contract =
    "bounded.contracts.expert:PlayerContract"`, `contract_config = { slip = 0.1 }`."""

    name = "player"
    memory_settings = ("slip",)
    """The player's skill is what is compared (`MemoryHooks.memory_settings`)."""

    def __init__(
        self, *, expert: str | None = None, slip: float = 0.0, reads_env: bool | None = None
    ) -> None:
        from bounded.registry import is_import_path

        if not 0.0 <= slip <= 1.0:
            raise ValueError(f"slip must lie in [0, 1], got {slip}")
        if expert is not None and not is_import_path(expert):
            raise ValueError(f"expert must be an import path module:Class, got {expert!r}")
        super().__init__(_NoExpert(), strategy=f"slip={slip:g}")
        self.expert_path, self.slip, self.reads_env = expert, slip, reads_env
        self.env: Env | None = None
        self.rng = random.Random(0)

    def read_env(self, env: Env) -> None:
        """The environment this player's next game is played in (called by the runner)."""
        self.env = env

    def reset(self, episode: EpisodeContext) -> None:
        super().reset(episode)
        self.expert = self._build(episode.env_id)
        self.rng = random.Random(f"player:{episode.seed}:{self.slip}")

    def _build(self, env_id: str) -> Expert:
        """A fresh expert for the game: the named one, else the environment record's."""
        from bounded.env_records import env_record
        from bounded.registry import load_target

        record = env_record(env_id)
        target: Any = self.expert_path
        reads_env = bool(self.reads_env)
        if target is None:
            if record is None or record.expert is None:
                raise ValueError(f"environment {env_id} names no expert: give `expert`")
            target = record.expert
            reads_env = record.expert_reads_env if self.reads_env is None else self.reads_env
        factory = load_target(target) if isinstance(target, str) else target
        if not reads_env:
            return cast(Expert, factory())
        if self.env is None:
            raise ValueError(
                f"the expert of {env_id} reads the game it plays: the runner must hand the "
                "environment over (read_env) before the game"
            )
        return cast(Expert, factory(self.env))

    def propose(self, obs: Observation) -> Decision:
        if obs.legal and self.rng.random() < self.slip:
            return Decision(actions=[self.rng.choice(obs.legal)], extra={"source": "slip"})
        return super().propose(obs)

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        """Tells an expert that follows the game (`played`, BabyAI's bot) what was played,
        so that after a slip it plans from where the game is, not from its own plan."""
        super().commit(obs, decision, result)
        played = getattr(self.expert, "played", None)
        if callable(played):
            played(decision.actions)

    def config_dict(self) -> JSON:
        return {"expert": self.expert_path, "slip": self.slip}


@runtime_checkable
class EnvReader(Protocol):
    """A contract that is handed the environment before each game (a scripted player
    whose expert reads the game; never a contract a model plays)."""

    def read_env(self, env: Env) -> None: ...


class _NoExpert:
    """The seat before `reset` names the environment's expert."""

    def act(self, obs: Observation) -> Action:
        raise RuntimeError("PlayerContract.reset has not run")


__all__ = ["EnvReader", "ExpertContract", "PlayerContract"]
