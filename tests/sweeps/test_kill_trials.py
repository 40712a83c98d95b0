"""A few of bench/kill_trials.py's trials against a counting endpoint: a sweep's driver
SIGKILLed mid-game (and in its first decision), then rerun; a Ray sweep's worker SIGKILLed
mid-game, its game continued on another worker; on a Ray cluster started apart, a worker
node lost mid-game and a driver SIGKILLed, then rerun."""

import importlib.util
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
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


def check_cluster_trial(result: dict) -> dict:
    (row,) = result["rows"]
    assert (result["orphans"], result["duplicates"], result["stuck_archives"]) == (0, 0, 0), row
    assert result["running_rows_left"] == 0 and row["rerun_found_nothing_to_play"]
    assert result["different_games"] == 0  # each continued game is the game never stopped
    assert 0 <= row["re_asked"] <= row["interrupted_games"]  # not replayed from decision 0
    return row


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads processes in /proc")
def test_a_worker_node_lost_mid_game_costs_at_most_its_game_in_flight():
    result = load_bench().run_cluster_trials(
        "node", 1, games=1, horizon=30, seed=1, start=0.3, span=0.8, latency_s=0.25
    )  # slowed calls: on a loaded machine an unslowed game may end before the node is lost
    row = check_cluster_trial(result)
    assert row["node_lost"] and row["interrupted_games"] == 1, row  # one CPU: one game
    assert row["sweep_status"] == 0  # finished on the head by itself


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads processes in /proc")
def test_a_sweep_whose_driver_is_killed_on_a_cluster_is_continued_by_its_rerun():
    result = load_bench().run_cluster_trials(
        "driver", 1, games=1, horizon=30, seed=1, start=0.3, span=0.8, latency_s=0.25
    )
    row = check_cluster_trial(result)
    assert row["killed"] and row["interrupted_games"] >= 1 and row["rerun_status"] == 0, row


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_game_killed_in_its_first_decision_counts_as_interrupted(tmp_path):
    """The driver is killed as the endpoint receives the sweep's first call: that game has
    no decision stored, yet its call was counted and is asked again by the rerun."""
    bench = load_bench()
    endpoint = bench.counting_endpoint()
    count = endpoint.arrive
    driver: list[subprocess.Popen] = []
    first = threading.Lock()

    def kill_on_first_call(body: dict) -> None:
        count(body)
        if first.acquire(blocking=False):  # never released: the one kill
            os.kill(driver[0].pid, signal.SIGKILL)
            time.sleep(1.0)  # its workers die with it before the answer

    endpoint.arrive = kill_on_first_call
    try:
        experiment = bench.write_experiment(tmp_path, 1, 10, endpoint.url)
        command = [sys.executable, "-m", "bounded.cli", "sweep", str(experiment), "--workers", "2"]
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        driver.append(subprocess.Popen(command, **quiet))
        driver[0].wait(timeout=120)
        time.sleep(2.0)  # the first call's answer given up, counted
        archive = tmp_path / "a.sqlite"
        with sqlite3.connect(archive) as db:
            stored = db.execute("SELECT sum(decisions) FROM runs").fetchone()[0]
        interrupted = bench.interrupted_games(archive)
        assert stored == 0 and interrupted >= 1
        rerun = bench.bounded("sweep", str(experiment), "--workers", "2")
        assert rerun.returncode == 0, rerun.stderr[-3000:] + rerun.stdout[-3000:]
    finally:
        endpoint.close()
    re_asked = endpoint.calls - 2 * 10
    assert 1 <= re_asked <= interrupted
