"""The episodic contract's retrieval and gating (Algorithms 1 and 2) of one decision.

`StepPlan` is what they decide for an observation before any model call: the bank's
entries retrieved (Eq. 1-3, `bounded.contracts.episodic.bank`), the actions they give
(ExtractAction), whether to explore, and the decision itself when no model call is
needed (the retrieved action, a queue pop, the empty action). `StepPlanning` computes it
once per step for `EpisodicContract`, and answers `propose` and `asks_model` by it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from bounded.contracts._configured import ConfiguredContract
from bounded.contracts._features import flatten_state
from bounded.contracts.episodic.bank import EpisodicBank, Retrieved
from bounded.contracts.episodic.config import EpisodicConfig
from bounded.contracts.episodic.gating import GatingClock
from bounded.contracts.replies.reading import resolve_action
from bounded.core import JSON, Action, Decision, Observation


@dataclass
class StepPlan:
    """What the gating decided for one observation, before any model call."""

    step: int
    features: dict[str, float]
    hits: list[Retrieved]
    retrieved: list[Action]
    explore: bool
    direct: Decision | None = None
    """The decision when no model call is needed."""
    fusion_error: str | None = None
    """Why the strategy description could not be written (the model failed)."""


class StepPlanning(ConfiguredContract[EpisodicConfig]):
    """Retrieval and gating: the `StepPlan` of each decision (state set by the contract)."""

    bank: EpisodicBank
    queue: deque[Action]
    clock: GatingClock
    step: int
    empty_action: str | None
    _plan: StepPlan | None

    def plan(self, obs: Observation) -> StepPlan:
        """The retrieval and gating outcome for this decision (computed once per step)."""
        if self._plan is not None and self._plan.step == self.step:
            return self._plan
        config = self.config
        features = flatten_state(obs.state)
        hits = self.bank.retrieve(
            features,
            obs.t,
            t_delta=config.t_delta,
            n=config.n,
            alpha=config.alpha,
            beta=config.beta,
            d_value=config.d_value,
        )
        explore = config.exploration and self.clock.explore_due(self.step)
        if explore:
            self.clock.explored(self.step)
        plan = StepPlan(
            step=self.step,
            features=features,
            hits=hits,
            retrieved=self.retrieved_actions(hits, obs),
            explore=explore,
        )
        if not explore:
            plan.direct = self.gate(plan, obs)
        self._plan = plan
        return plan

    def retrieved_actions(self, hits: list[Retrieved], obs: Observation) -> list[Action]:
        """ExtractAction: the first action of the top hit when it is executable now
        (`extract = "first-executable"`: of the best hit whose first action is;
        `replay = "plan"`: that hit's executable actions); empty is EmptyAction."""
        legacy_plain = not self.config.fusion and self.config.fusion_ablation == "legacy"
        top_only = self.config.extract == "top" or legacy_plain
        candidates = hits[:1] if top_only else hits
        for hit in candidates:
            if self.config.replay == "first":
                first = self._legal(hit.actions[0], obs) if hit.actions else None
                if first is not None:
                    return [] if first.id == self.empty_action else [first]
                continue
            actions = self.executable(hit.actions, obs)
            if actions:
                return actions
        return []

    def executable(self, actions: list[Action], obs: Observation) -> list[Action]:
        """The recalled actions that are legal now, the empty action left out."""
        legal = (self._legal(action, obs) for action in actions)
        kept = [a for a in legal if a is not None and a.id != self.empty_action]
        return kept[: max(1, obs.max_actions)]

    def gate(self, plan: StepPlan, obs: Observation) -> Decision | None:
        """Algorithm 2: retrieved action, else a due queue pop, else the empty action.

        None means the model must choose (no empty action exists on this environment).
        """
        if plan.retrieved:
            return self._direct(plan, plan.retrieved, "retrieval")
        empty = obs.legal_action(self.empty_action)
        if self.queue and (self.clock.pop_due(self.step) or empty is None):
            popped = self._pop(obs)
            if popped is not None:
                return self._direct(plan, [popped], "queue")
        if empty is not None:
            return self._direct(plan, [empty], "empty")
        return None

    def _pop(self, obs: Observation) -> Action | None:
        """The first queued action that is executable now; older inexecutable ones drop."""
        while self.queue:
            action = self._legal(self.queue.popleft(), obs)
            if action is not None:
                self.clock.popped(self.step)
                return action
        return None

    @staticmethod
    def _legal(action: Action, obs: Observation) -> Action | None:
        try:
            return resolve_action({"id": action.id, "args": action.args}, obs)
        except ValueError:
            return None

    def _direct(self, plan: StepPlan, actions: list[Action], source: str) -> Decision:
        return Decision(actions=actions, extra=self._extra(plan, source))

    def _extra(self, plan: StepPlan, source: str) -> JSON:
        extra: JSON = {
            "source": source,
            "retrieved": [
                {"t": h.t, "game": h.game, "actions": [a.id for a in h.actions], "score": h.score}
                for h in plan.hits
            ],
            "queue": [a.id for a in self.queue],
        }
        if plan.fusion_error:
            extra["fusion_error"] = plan.fusion_error
        return extra

    # -- the contract protocol ---------------------------------------------

    def asks_model(self, empty_action: str | None) -> bool:
        """Without exploration, the gating settles every decision on an environment with an
        empty action (retrieval, else the empty action): the model is never asked."""
        return self.config.exploration or (self.config.empty_action or empty_action) is None

    def propose(self, obs: Observation) -> Decision | None:
        """The decision when the gating settles it without a model call, else None."""
        return self.plan(obs).direct


__all__ = ["StepPlan", "StepPlanning"]
