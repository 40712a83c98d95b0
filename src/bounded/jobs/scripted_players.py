"""Experts as scripted models: known play answering a contract's model calls, to test and
benchmark the plumbing (what a model reading the prompt would do is not shown by them).

- `counting_model()`: the warehouse counter (`bounded.envs.warehouse.expert.counting_reply`):
  exact counts in a `state` prompt's state, a recount of the events a transcript shows.
- `expert_model(task)`: the workbench task's reference solution, turn by turn
  (`bounded.envs.workbench.expert.expert_replies`).
- `ExpertExplorer`: for craft. EpicStar's and Chain of Summarization's mechanisms ask a
  model for a few decisions at a time (exploration actions, CoS's action queue);
  `ExpertExplorer` answers every such call with the craft expert's plan for the current
  observation (as many actions as the reply's schema allows, or `decisions`, `<ACTION
  NAME>` form) and any other reply with the simplest value its schema accepts. It reads
  the observation the runner shows the contract, through the runner's observer hook, not
  the prompt: it stands for a model that reads the game well. A call before the observer
  has seen an observation (CoS's call at decision 0) gets the simplest reply.

      explorer = ExpertExplorer()
      run = play(spec, model=explorer.model, observer=explorer.see)

Each is a model import path for an experiment file
(`model = "bounded.jobs.scripted_players:counting_model"`).
"""

from __future__ import annotations

from typing import Any

from bounded.core import JSON, Observation
from bounded.envs.craft.expert import CraftExpert
from bounded.envs.warehouse.expert import counting_reply
from bounded.envs.workbench.expert import expert_replies
from bounded.models.scripted import ScriptedModel, minimal_instance


def counting_model() -> ScriptedModel:
    """The warehouse counter as a model, for either contract."""
    return ScriptedModel(counting_reply, id="scripted:warehouse-counter")


def expert_model(task: str, which: str = "good") -> ScriptedModel:
    """A model that answers every decision with the workbench reference solution's next calls."""
    return ScriptedModel(expert_replies(task, which), id=f"expert:{task}:{which}")


STRATEGY = "replay the winning build, then keep producing and attack when ahead"


class ExpertExplorer:
    """`model` answers decisions with `CraftExpert(build)`'s plan for the last observation."""

    def __init__(self, build: str = "gateway", decisions: int | None = None) -> None:
        self.expert = CraftExpert(build)
        self.decisions = decisions
        self.obs: Observation | None = None
        self.model = ScriptedModel(self.reply, id=f"expert-explorer:{build}")

    def see(self, record: Any, obs: Observation) -> None:
        """The runner's observer: the observation the next decision (and call) is about."""
        self.obs = obs

    def reply(self, messages: list[dict[str, str]], constraint: JSON | None) -> JSON:
        properties = (constraint or {}).get("properties", {})
        if "strategy" in properties:
            return {"strategy": STRATEGY}
        reply = minimal_instance(constraint or {"type": "object"})
        if "decisions" in properties and self.obs is not None and self.obs.legal:
            limit = self.decisions or int(properties["decisions"].get("maxItems", 3))
            plan = self.obs.model_copy(update={"max_actions": limit})
            reply["decisions"] = [f"<{a.id}>" for a in self.expert.act(plan)][:limit]
        return dict(reply)


__all__ = ["ExpertExplorer", "counting_model", "expert_model"]
