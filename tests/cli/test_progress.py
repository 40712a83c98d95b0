"""`bounded sweep`'s progress display, drawn from the sweep's events: a real sweep's
events reach it, in order, and it shows each worker's games and the whole count."""

from __future__ import annotations

import io

from rich.console import Console

from bounded.cli._progress import SweepProgress
from bounded.core import RunRecord
from bounded.runner import GameSpec
from bounded.sweeps.executors import GameResult
from bounded.sweeps.experiment import parse_experiment
from bounded.sweeps.sweep import run_sweep


class Heard(SweepProgress):
    """The display, keeping the events it was told."""

    def __init__(self, console: Console) -> None:
        super().__init__(console)
        self.heard: list[str] = []

    def begin(self, planned: int, skipped: int, workers: int) -> None:
        self.heard.append(f"begin {planned} {skipped} {workers}")
        super().begin(planned, skipped, workers)

    def started(self, slot: int, spec: GameSpec) -> None:
        self.heard.append(f"started {slot} {spec.seed}")
        super().started(slot, spec)

    def finished(self, slot: int, result: GameResult, spend: str = "") -> None:
        self.heard.append(f"finished {slot} {result.run.status}")
        super().finished(slot, result, spend)

    def settle(self, completed: int) -> None:
        self.heard.append(f"settle {completed}")
        super().settle(completed)


def test_the_display_shows_the_workers_games_and_the_count():
    out = io.StringIO()
    display = SweepProgress(Console(file=out, width=120))
    spec = GameSpec(env="warehouse", contract="state", seed=4, cell="counting")
    run = RunRecord(run_id="r1", env_id="bounded/Warehouse-v0", contract="state", model="m",
                    seed=4, status="failed")  # fmt: skip
    display.begin(planned=3, skipped=1, workers=2)
    display.started(1, spec)
    display.finished(1, GameResult(spec=spec, run=run), "$0.01 of $1")
    display.settle(2)
    display.end()
    shown = out.getvalue()
    assert "worker 2: done counting seed 4 (failed)" in shown
    assert "all games, $0.01 of $1" in shown and "2/3" in shown


def test_a_sweep_tells_its_events_to_the_display(tmp_path):
    experiment = parse_experiment(
        {
            "experiment": {"name": "heard", "archive": str(tmp_path / "a.sqlite")},
            "defaults": {
                "env": "warehouse",
                "env_options": {"horizon": 2},
                "games": 2,
                "model": "bounded.jobs.scripted_players:counting_model",
            },
            "cells": [{"tag": "state", "contract": "state"}],
        }
    )
    display = Heard(Console(file=io.StringIO()))
    summary = run_sweep(experiment, events=display)
    assert summary.played == 2
    assert display.heard == [
        "begin 2 0 1", "started 0 1", "finished 0 completed", "started 0 2",
        "finished 0 completed", "settle 2",
    ]  # fmt: skip
