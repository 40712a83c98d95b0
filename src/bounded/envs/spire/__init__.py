"""`bounded/Spire-v0`: a headless, seeded deck-building roguelike with an expert player."""

from bounded.envs.spire.env import SpireConfig, SpireEnv
from bounded.envs.spire.expert import SpireExpert
from bounded.envs.spire.players import PlayedGame, RandomPlayer, play_game

__all__ = ["PlayedGame", "RandomPlayer", "SpireConfig", "SpireEnv", "SpireExpert", "play_game"]
