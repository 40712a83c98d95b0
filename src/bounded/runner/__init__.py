"""Running games: the spec, the one builder, the episode loop, and sweeps of them."""

from bounded.runner.build import Game, build_game, check_spec, play
from bounded.runner.episode import EpisodeRunner, ModelUnavailableError, run_episode
from bounded.runner.spec import GameSpec, make_spec

__all__ = [
    "EpisodeRunner",
    "Game",
    "GameSpec",
    "ModelUnavailableError",
    "build_game",
    "check_spec",
    "make_spec",
    "play",
    "run_episode",
]
