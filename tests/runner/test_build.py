"""Playing a built game: `run_game` is the one way (from the start, from a claimed run, a
failure raised or kept as the run's row), and a scripted player's game goes through the
same episode loop (`play_expert`)."""

from __future__ import annotations

import pytest

from bounded.archive import Archive
from bounded.core import Observation
from bounded.envs import make
from bounded.envs.warehouse import WarehouseExpert, state_keeping_reply
from bounded.models.scripted import ScriptedModel
from bounded.runner import GameSpec, ModelUnavailableError
from bounded.runner.build import build_game, play_expert, run_game

SPEC = GameSpec(env="warehouse", contract="state", env_options={"horizon": 4}, seed=2)


class SilentModel(ScriptedModel):
    """A model whose every call times out."""

    def complete(self, messages, **kwargs):
        raise TimeoutError("server did not answer")


class Closing:
    """Counts `close()` calls of the environment it wraps."""

    def __init__(self, game):
        self.closed = 0
        inner = game.env.close

        def close():
            self.closed += 1
            inner()

        game.env.close = close


def test_a_failed_game_raises_or_is_kept_as_its_failed_run_and_its_env_is_closed(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        game = build_game(SPEC, model=SilentModel(state_keeping_reply))
        watched = Closing(game)
        with pytest.raises(ModelUnavailableError):
            run_game(game, archive=archive)
        assert watched.closed == 1
        kept = build_game(SPEC.model_copy(update={"seed": 3}), model=SilentModel([]))
        run = run_game(kept, archive=archive, keep_failure=True)
        assert run.status == "failed" and "TimeoutError" in (run.error or "")
        assert {r.seed: r.status for r in archive.runs()} == {2: "failed", 3: "failed"}


def test_a_played_game_is_its_archived_run():
    game = build_game(SPEC, model=ScriptedModel(state_keeping_reply))
    run = run_game(game)
    assert run.status == "completed" and run.decisions == 4
    assert run.outcome["accuracy"] == 1.0


def test_a_scripted_players_game_goes_through_the_episode_loop():
    seen: list[Observation] = []

    class Watching(WarehouseExpert):
        def act(self, obs):
            seen.append(obs)
            return super().act(obs)

    env = make("warehouse", horizon=5)
    run = play_expert(env, Watching(), seed=7)
    assert (run.status, run.decisions, run.contract) == ("completed", 5, "expert")
    assert run.outcome["accuracy"] == 1.0 == env.metrics()["accuracy"]  # left open to read
    assert [obs.t for obs in seen] == [0, 1, 2, 3, 4]
