"""A uniform random player (a game of any player is played through the one episode loop:
`bounded.runner.build.play_expert`)."""

from __future__ import annotations

import random

from bounded.core import Action, Observation


class RandomPlayer:
    """Picks a uniformly random legal action; in combat it plays one action per decision.

    `end_turn` is chosen with probability `end_turn_p` when other actions are legal, so
    random turns play a few cards instead of ending at once or never.
    """

    def __init__(self, seed: int = 0, end_turn_p: float = 0.25) -> None:
        self.rng = random.Random(f"random-player:{seed}")
        self.end_turn_p = end_turn_p

    def act(self, obs: Observation) -> Action:
        legal = obs.legal
        if obs.kind == "combat" and len(legal) > 1:
            if self.rng.random() < self.end_turn_p:
                end = obs.legal_action("end_turn")
                if end is not None:
                    return end
            legal = [a for a in legal if a.id != "end_turn"]
        return self.rng.choice(legal)
