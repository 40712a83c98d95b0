"""A uniform random player, and a loop that plays one whole run with any player."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from bounded.core import Action, Expert, Observation
from bounded.envs.spire.env import SpireEnv


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


@dataclass
class PlayedGame:
    """One run a scripted player played to the end: its metrics and its action log."""

    metrics: dict[str, Any]
    log: list[list[str]]


def play_game(
    player: Expert, *, seed: int, ascension: int = 0, max_decisions: int = 20_000
) -> PlayedGame:
    """Play one run to the end with `player`; returns the metrics and the action log."""
    env = SpireEnv(ascension=ascension, max_decisions=max_decisions)
    obs, _ = env.reset(seed=seed)
    done = False
    while not done:
        obs, _, terminated, truncated, _ = env.step(player.act(obs))
        done = terminated or truncated
    return PlayedGame(env.metrics(), env.log)
