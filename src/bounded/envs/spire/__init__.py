"""`bounded/Spire-v0`: a headless, seeded deck-building roguelike with an expert player."""

from bounded.envs.spire.env import REPLY_TOKENS, SpireConfig, SpireEnv
from bounded.envs.spire.expert import SpireExpert
from bounded.envs.spire.players import RandomPlayer

__all__ = [
    "REPLY_TOKENS",
    "RandomPlayer",
    "SpireConfig",
    "SpireEnv",
    "SpireExpert",
]
