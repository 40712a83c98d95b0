"""A sweep's time left: decisions still to play (the cell's completed games' mean, else its
decision limit, less what the games in flight have played) over the rate of the games in
flight, worked by hand on small boards."""

from __future__ import annotations

import time

import pytest

from bounded.archive import Archive
from bounded.core import RunRecord
from bounded.runner import GameSpec
from bounded.sweeps.board import SweepBoard, boards_from_archive, store_plan
from bounded.sweeps.estimate import SweepPrices
from bounded.sweeps.pace import Pace, board_pace, duration_text, pace_text


def board_of(seeds: int, limit: int) -> SweepBoard:
    games = [GameSpec(env="warehouse", contract="state", seed=s, cell="c", experiment="x",
                      max_decisions=limit) for s in range(1, seeds + 1)]  # fmt: skip
    return SweepBoard.planned(games, SweepPrices())


def test_before_any_game_ends_the_decision_limits_count():
    board = board_of(4, 100)
    cell = board.cells["c"]
    cell.running, cell.playing_decisions, cell.playing_per_s = 1, [10], 2.0
    # 3 games waiting at 100 each, and 100 - 10 left of the one playing: 390 at 2 a second
    assert board_pace(board) == Pace(decisions_left=390, per_second=2.0)
    assert board_pace(board).seconds_left == pytest.approx(195.0)


def test_completed_games_set_what_a_game_is_expected_to_take():
    board = board_of(4, 100)
    cell = board.cells["c"]
    cell.completed, cell.decisions_done = 1, 40
    cell.running, cell.playing_decisions, cell.playing_per_s = 1, [10], 2.0
    # expected 40 a game: 2 waiting (80) and 30 left of the one playing, at 2 a second
    assert board_pace(board).decisions_left == 110
    assert board_pace(board).seconds_left == pytest.approx(55.0)


def test_a_game_started_but_not_yet_read_counts_as_none_played():
    board = board_of(2, 50)
    board.cells["c"].running = 1
    assert board_pace(board).decisions_left == 100


def test_without_a_limit_or_a_completed_game_there_is_no_estimate():
    board = SweepBoard("x")
    cell = board.cell("c", "warehouse")
    cell.total, cell.running, cell.playing_per_s = 2, 1, 3.0
    assert board_pace(board).seconds_left is None
    assert pace_text(board_pace(board)) == "time left: unknown"
    assert pace_text(Pace(decisions_left=10, per_second=0.0)) == "time left: measuring"


def test_the_text_names_the_time_the_decisions_and_the_rate():
    assert duration_text(7530) == "2 h 05 min"
    assert duration_text(250) == "4 min 10 s"
    assert pace_text(Pace(decisions_left=1200, per_second=4.8)) == (
        "about 4 min 10 s left (1,200 decisions at 4.8/s)"
    )


def test_the_view_reads_the_pace_back_from_the_archive(tmp_path):
    games = [GameSpec(env="warehouse", contract="state", seed=s, cell="c", experiment="x",
                      max_decisions=60) for s in (1, 2, 3)]  # fmt: skip
    running = RunRecord(
        run_id="r2", env_id="bounded/Warehouse-v0", contract="state", model="m", seed=2,
        experiment="x", cell="c", status="running", decisions=20, started_at=time.time() - 10,
    )  # fmt: skip
    done = running.model_copy(update={"run_id": "r1", "seed": 1, "status": "completed",
                                      "decisions": 30})  # fmt: skip
    with Archive(tmp_path / "a.sqlite") as archive:
        store_plan(archive, SweepBoard.planned(games, SweepPrices()))
        archive.save_run(done)
        archive.save_run(running)
        (board,) = boards_from_archive(archive)
    shown = {**board.as_json(), "pace": board_pace(board).as_json()}
    cell = shown["cells"][0]
    assert (cell["limit"], cell["decisions"], cell["playing_decisions"]) == (60, 50, [20])
    # expected 30 a game: seed 3 waiting (30) and 30 - 20 left of seed 2, at about 20/10 s
    assert shown["pace"]["decisions_left"] == 40
    assert shown["pace"]["decisions_per_s"] == pytest.approx(2.0, rel=0.05)
    assert shown["pace"]["text"].startswith("about 2")


def test_without_a_plans_limit_the_default_ceiling_is_only_a_bound_until_a_game_ends(tmp_path):
    games = [GameSpec(env="warehouse", contract="state", seed=s, cell="c", experiment="x")
             for s in (1, 2)]  # fmt: skip
    with Archive(tmp_path / "a.sqlite") as archive:  # as `bounded view` reads it back
        store_plan(archive, SweepBoard.planned(games, SweepPrices()))
        (board,) = boards_from_archive(archive)
    cell = board.cells["c"]
    cell.running, cell.playing_decisions, cell.playing_per_s = 1, [10], 2.0
    pace = board_pace(board)
    # 100,000 waiting and 99,990 left of the game playing, at 2 a second: 27 h 46 min at most
    assert pace == Pace(decisions_left=199_990, per_second=2.0, upper_bound=True)
    assert pace_text(pace) == (
        "time left: unknown until a game ends (no max_decisions in the plan; at most 27 h 46 min)"
    )
    assert pace.as_json()["upper_bound"] is True
    cell.completed, cell.decisions_done, cell.running, cell.playing_decisions = 1, 40, 0, []
    assert board_pace(board) == Pace(decisions_left=40, per_second=2.0)
    assert pace_text(board_pace(board)) == "about 20 s left (40 decisions at 2/s)"
