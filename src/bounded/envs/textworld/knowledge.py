"""What the typed contract knows about TextWorld: its L3 rules, L5 seed skills and
situation reader, supplied through `TextWorldEnv.game_knowledge()`.

The files live in `data/` beside this module, written for this project from TextWorld's
command set and BALROG's advice on its three games. The situation reader maps the state
onto the stores' facts: `room` is the room's name and `encounter` the task (treasure
hunter, cooking game, coin collector), so rules and skills can be keyed on the task.
"""

from __future__ import annotations

from bounded.core import Observation
from bounded.envs.knowledge_files import packaged_knowledge
from bounded.stores.knowledge import GameKnowledge
from bounded.stores.situation import Situation

GAME = "textworld"


def textworld_situation(obs: Observation) -> Situation:
    """The facts of one TextWorld decision (what L3, L4 and L5 key on)."""
    state = obs.state
    task = str(state.get("task", "")).replace("_", " ")
    return Situation(
        kind=obs.kind,
        room=str(state.get("room", "")) or None,
        encounter=task or None,
    )


def textworld_knowledge() -> GameKnowledge:
    """TextWorld's rules book, seed skill libraries and situation reader."""
    return packaged_knowledge("bounded.envs.textworld", GAME, textworld_situation)


__all__ = ["GAME", "textworld_knowledge", "textworld_situation"]
