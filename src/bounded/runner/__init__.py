"""Running one game: the spec, the one builder, the episode loop and its resume (sweeps of
games are `bounded.sweeps`)."""

from bounded.runner.build import Game, build_game, check_spec, play
from bounded.runner.episode import EpisodeRunner, run_episode
from bounded.runner.meter import ModelDeadlineError, ModelUnavailableError
from bounded.runner.spec import GameSpec, make_spec

__all__ = [
    "EpisodeRunner",
    "Game",
    "GameSpec",
    "ModelDeadlineError",
    "ModelUnavailableError",
    "build_game",
    "check_spec",
    "make_spec",
    "play",
    "run_episode",
]
