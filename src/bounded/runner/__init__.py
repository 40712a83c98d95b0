"""Running episodes: the loop, and (in sweeps) matrices of them."""

from bounded.runner.episode import EpisodeRunner, ModelUnavailableError, run_episode

__all__ = ["EpisodeRunner", "ModelUnavailableError", "run_episode"]
