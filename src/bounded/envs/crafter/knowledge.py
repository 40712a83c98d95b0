"""What the typed contract knows about Crafter: its L3 rules, L5 seed skills and situation
reader, supplied through `CrafterEnv.game_knowledge()`.

The files live in `data/` beside this module, written for this project from Crafter's own
rules (`crafter/data.yaml`). The situation reader maps Crafter's state onto the stores'
facts: `hp` is health (out of 9), `enemies` the zombies and skeletons in view, `offered`
every other kind of thing in view (so a rule about a material is retrieved when it is in
sight), and `deck` what the player holds (so a skill can require a tool).
"""

from __future__ import annotations

from bounded.core import Observation
from bounded.envs.knowledge_files import packaged_knowledge
from bounded.stores.knowledge import GameKnowledge
from bounded.stores.situation import Situation

GAME = "crafter"
HOSTILE = frozenset({"zombie", "skeleton", "arrow"})
MAX_HEALTH = 9


def crafter_situation(obs: Observation) -> Situation:
    """The facts of one Crafter decision (what L3, L4 and L5 key on)."""
    state = obs.state
    seen = [str(thing.get("name", "")) for thing in state.get("seen", [])]
    health = state.get("health")
    return Situation(
        kind=obs.kind,
        hp=int(health) if isinstance(health, int) else None,
        max_hp=MAX_HEALTH,
        enemies=[name for name in seen if name in HOSTILE],
        offered=[name for name in seen if name not in HOSTILE],
        deck=[name.replace("_", " ") for name in state.get("inventory", {})],
    )


def crafter_knowledge() -> GameKnowledge:
    """Crafter's rules book, seed skill libraries and situation reader."""
    return packaged_knowledge("bounded.envs.crafter", GAME, crafter_situation)


__all__ = ["GAME", "crafter_knowledge", "crafter_situation"]
