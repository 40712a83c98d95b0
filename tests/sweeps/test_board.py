"""A sweep's progress per cell: the board a sweep's events keep and the one read back from
the archive it wrote agree, totals from the plan the sweep stored, and runs without an
experiment stay out."""

from __future__ import annotations

from bounded.archive import Archive
from bounded.core import RunRecord
from bounded.sweeps.board import SweepBoard, boards_from_archive
from bounded.sweeps.experiment import parse_experiment
from bounded.sweeps.sweep import SweepEvents, run_sweep


class Kept(SweepEvents):
    """Keeps the board the sweep hands over and counts each game's end on it."""

    def __init__(self) -> None:
        self.board: SweepBoard | None = None

    def planned(self, board: SweepBoard) -> None:
        self.board = board

    def finished(self, slot, result, spend=""):
        assert self.board is not None
        self.board.finished(result.run, was_running=False)


def two_cells(tmp_path, games: int):
    return parse_experiment(
        {
            "experiment": {"name": "board", "archive": str(tmp_path / "a.sqlite")},
            "defaults": {
                "env": "warehouse",
                "env_options": {"horizon": 2},
                "games": games,
                "model": "bounded.jobs.scripted_players:counting_model",
            },
            "cells": [
                {"tag": "state", "contract": "state"},
                {"tag": "transcript", "contract": "transcript"},
            ],
        }
    )


def test_the_sweeps_board_and_the_archives_agree(tmp_path):
    kept = Kept()
    run_sweep(two_cells(tmp_path, 2), events=kept)
    assert kept.board is not None
    with Archive(tmp_path / "a.sqlite", read_only=True) as archive:
        (read,) = boards_from_archive(archive)
    assert read.as_json() == kept.board.as_json()
    cells = {cell["cell"]: cell for cell in read.as_json()["cells"]}
    assert [(c["completed"], c["total"], c["failed"]) for c in cells.values()] == [(2, 2, 0)] * 2
    assert all(cell["prompt_tokens"] > 0 and cell["env"] == "warehouse" for cell in cells.values())


def test_a_resumed_sweep_starts_from_what_the_archive_holds(tmp_path):
    run_sweep(two_cells(tmp_path, 1))
    kept = Kept()
    run_sweep(two_cells(tmp_path, 2), events=kept)  # one more game per cell
    assert kept.board is not None
    total = kept.board.totals()
    assert (total.completed, total.total) == (4, 4)
    with Archive(tmp_path / "a.sqlite", read_only=True) as archive:
        (read,) = boards_from_archive(archive)
    assert read.totals().as_json() == total.as_json()


def test_runs_without_a_plan_or_an_experiment(tmp_path):
    with Archive(tmp_path / "b.sqlite") as archive:
        for run_id, experiment, status in (("a", "", "completed"), ("b", "old", "running")):
            archive.save_run(RunRecord(
                run_id=run_id, env_id="bounded/Warehouse-v0", contract="state", model="m",
                seed=1, experiment=experiment, cell="state", status=status, prompt_tokens=7,
            ))  # fmt: skip
        (board,) = boards_from_archive(archive)
    assert board.experiment == "old"
    assert board.as_json()["cells"][0] | {"unpriced": []} == {
        "cell": "state", "env": "bounded/Warehouse-v0", "completed": 0, "total": None,
        "failed": 0, "running": 1, "prompt_tokens": 7, "completion_tokens": 0, "cost": 0.0,
        "unpriced": [], "cost_text": "0.0000 USD", "limit": None, "decisions": 0,
        "playing_decisions": [0],
    }  # fmt: skip


def test_the_board_read_back_before_any_game_ends_reads_an_unpriced_model_unpriced(tmp_path):
    from bounded.runner import GameSpec
    from bounded.sweeps.board import store_plan
    from bounded.sweeps.estimate import SweepPrices

    games = [GameSpec(env="warehouse", contract="state", model="openai:fake", seed=seed,
                      cell="c", experiment="x") for seed in (1, 2)]  # fmt: skip
    planned = SweepBoard.planned(games, SweepPrices())
    with Archive(tmp_path / "a.sqlite") as archive:
        store_plan(archive, planned)
        (read,) = boards_from_archive(archive)  # what `bounded view` serves
    assert planned.cells["c"].cost_text("USD") == "unpriced (openai:fake)"
    shown = read.as_json()
    assert shown["cells"][0]["cost_text"] == "unpriced (openai:fake)"
    assert shown["total"]["cost_text"] == "unpriced (openai:fake)"
