"""What the typed contract knows about MiniHack: its L3 rules, L5 seed skills and
situation reader, supplied through `MiniHackEnv.game_knowledge()`.

The files live in `data/` beside this module, written for this project. The situation
is NetHack's (`bounded.envs.nethack.knowledge.nethack_situation`: depth, HP, hostile
monsters in view), with the task as the encounter, so rules can be keyed on it.
"""

from __future__ import annotations

from bounded.core import Observation
from bounded.envs.knowledge_files import packaged_knowledge
from bounded.envs.nethack.knowledge import nethack_situation
from bounded.stores.knowledge import GameKnowledge
from bounded.stores.situation import Situation

GAME = "minihack"


def minihack_situation(obs: Observation) -> Situation:
    """NetHack's facts of a decision, the task's family (`mazewalk`, `quest`, ...) as the
    encounter."""
    situation = nethack_situation(obs)
    task = str(obs.state.get("task", ""))
    family = task.removeprefix("MiniHack-").split("-")[0].lower() or None
    return situation.model_copy(update={"encounter": family})


def minihack_knowledge() -> GameKnowledge:
    """MiniHack's rules book, seed skill libraries and situation reader."""
    return packaged_knowledge("bounded.envs.minihack", GAME, minihack_situation)


__all__ = ["GAME", "minihack_knowledge", "minihack_situation"]
