"""Helpers shared by the craft tests."""

from __future__ import annotations

from bounded.core import Action
from bounded.envs.craft import CraftEnv, CraftExpert


def play_expert(
    env: CraftEnv, seed: int, *, until: float | None = None, build: str = "gateway"
) -> CraftEnv:
    """Play the expert from a reset until the game ends (or game time `until`)."""
    expert = CraftExpert(build)
    obs, _ = env.reset(seed=seed)
    done = False
    while not done and (until is None or obs.t < until):
        obs, _, terminated, truncated, _ = env.step(expert.act(obs))
        done = terminated or truncated
    return env


def act(*ids: str) -> list[Action]:
    return [Action(id=i) for i in ids]
