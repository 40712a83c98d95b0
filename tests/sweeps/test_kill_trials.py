"""A few of bench/kill_trials.py's trials against a counting endpoint: a sweep's driver
SIGKILLed mid-game, then rerun; a Ray sweep's worker SIGKILLed mid-game, its game continued
on another worker."""

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[2] / "bench" / "kill_trials.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("kill_trials", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_sweeps_killed_mid_game_lose_at_most_the_decision_in_flight():
    result = load_bench().run_trials(3, games=1, horizon=30, seed=3, start=0.4, span=0.9)
    assert result["trials"] == 3 and result["killed"] >= 1
    assert (result["orphans"], result["duplicates"], result["stuck_archives"]) == (0, 0, 0)
    assert result["different_games"] == 0  # every resumed game is the game never killed
    assert result["trials_re_asking_more_than_their_interrupted_games"] == 0
    for row in result["rows"]:
        assert row["integrity"] == "ok" and row["cell_games"] == {"state": 1, "transcript": 1}
        assert 0 <= row["re_asked"] <= row["interrupted_games"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads processes in /proc")
def test_a_ray_worker_killed_mid_game_leaves_its_game_to_continue_on_another():
    result = load_bench().run_ray_trials(1, games=1, horizon=30, seed=1, start=0.3, span=0.8)
    (row,) = result["rows"]
    assert row["interrupted_games"] >= 1 and row["sweep_status"] == 0, row
    assert (result["orphans"], result["duplicates"], result["stuck_archives"]) == (0, 0, 0)
    assert result["running_rows_left"] == 0 and row["rerun_found_nothing_to_play"]
    assert result["different_games"] == 0  # each continued game is the game never killed
    assert 0 <= row["re_asked"] <= row["interrupted_games"]  # not replayed from decision 0
