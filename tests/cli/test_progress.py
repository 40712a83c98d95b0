"""`bounded sweep`'s progress display, drawn from the sweep's events: a real sweep's
events reach it, in order, and it shows each worker's games, the whole count, and each
cell's games, failures, tokens and cost, in place on a terminal and as plain lines
elsewhere."""

from __future__ import annotations

import io
import re
import time

from rich.console import Console

from bounded.analysis.cost import Prices
from bounded.cli._progress import SweepProgress
from bounded.core import RunRecord
from bounded.runner import GameSpec
from bounded.sweeps.board import SweepBoard
from bounded.sweeps.estimate import SweepPrices
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


def crafter_games() -> list[GameSpec]:
    return [
        GameSpec(env="crafter", contract="typed", seed=seed, cell=cell, experiment="live",
                 model="openai:m")
        for cell in ("typed.crafter", "transcript.crafter")
        for seed in (1, 2)
    ]  # fmt: skip


def ended(spec: GameSpec, status: str, prompt: int, completion: int) -> GameResult:
    run = RunRecord(
        run_id=f"{spec.cell}-{spec.seed}", env_id="balrog/Crafter-v0", contract=spec.contract,
        model=spec.model, seed=spec.seed, status=status, experiment="live", cell=spec.cell,
        prompt_tokens=prompt, completion_tokens=completion,
        usage={spec.model: {"prompt_tokens": prompt, "completion_tokens": completion}},
    )  # fmt: skip
    return GameResult(spec=spec, run=run)


def play_events(display: SweepProgress) -> None:
    """Two cells of two games: one completed and one failed in typed.crafter, one in
    flight in transcript.crafter, at 1 per million prompt tokens and 2 per million
    completion tokens."""
    games = crafter_games()
    prices = SweepPrices({"openai:m": Prices(input=1.0, cached_input=0.5, output=2.0)})
    display.planned(SweepBoard.planned(games, prices))
    display.begin(planned=4, skipped=0, workers=2)
    display.started(0, games[0])
    display.started(1, games[1])
    display.finished(0, ended(games[0], "completed", 1_000_000, 500_000))
    display.finished(1, ended(games[1], "failed", 200_000, 0))
    display.started(0, games[2])


def test_the_terminal_view_updates_each_cell_in_place():
    out = io.StringIO()
    display = SweepProgress(Console(file=out, width=150, force_terminal=True))
    play_events(display)
    display.end()
    shown = out.getvalue()
    assert "\x1b[" in shown  # drawn in place, with the terminal's codes
    final = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown).rsplit("live: games per cell", 1)[1]
    rows = {
        cells[1].strip(): [c.strip() for c in cells[2:-1]]
        for cells in (line.split("│") for line in final.splitlines())
        if len(cells) > 3
    }
    assert rows["typed.crafter"] == [
        "crafter", "1/2", "1", "0", "1,200,000", "500,000", "2.2000",
    ]  # fmt: skip
    assert rows["transcript.crafter"] == ["crafter", "0/2", "0", "1", "0", "0", "0.0000"]
    assert rows["all"] == ["", "1/4", "1", "1", "1,200,000", "500,000", "2.2000"]


def test_elsewhere_the_cells_are_plain_lines_at_most_every_interval():
    out = io.StringIO()
    now = [0.0]
    display = SweepProgress(Console(file=out, width=150), interval=30, clock=lambda: now[0])
    games = crafter_games()
    display.planned(SweepBoard.planned(games, SweepPrices()))
    display.begin(planned=4, skipped=0, workers=1)
    now[0] = 10.0
    display.started(0, games[0])  # 10 s after the last lines: none
    now[0] = 40.0
    display.finished(0, ended(games[0], "completed", 300, 20))  # 40 s: lines
    display.end()
    lines = out.getvalue().splitlines()
    assert "\x1b[" not in out.getvalue()
    cell_lines = [line for line in lines if line.startswith("typed.crafter:")]
    assert cell_lines == [
        "typed.crafter: 0/2 games, 0 failed, 0 playing, 0 prompt + 0 completion tokens, "
        "cost unpriced (openai:m)",  # before its first game too: no price covers the model
        "typed.crafter: 1/2 games, 0 failed, 0 playing, 300 prompt + 20 completion tokens, "
        "cost unpriced (openai:m)",
        "typed.crafter: 1/2 games, 0 failed, 0 playing, 300 prompt + 20 completion tokens, "
        "cost unpriced (openai:m)",
    ]
    assert "live (all cells): 1/4 games, 0 failed, 0 playing" in out.getvalue()


def test_many_slots_show_no_line_each_and_a_log_is_not_redrawn():
    out = io.StringIO()
    display = SweepProgress(Console(file=out, width=150))
    games = crafter_games()
    display.planned(SweepBoard.planned(games, SweepPrices()))
    display.begin(planned=4, skipped=0, workers=128)
    assert display.progress.live.auto_refresh is False  # a log: drawn at the end only
    display.started(127, games[0])
    display.finished(127, ended(games[0], "completed", 300, 20))
    display.end()
    shown = out.getvalue()
    assert "worker" not in shown
    assert "1/4" in shown
    assert "typed.crafter: 1/2 games, 0 failed, 0 playing" in shown


def test_a_few_slots_on_a_terminal_are_redrawn_a_line_each():
    display = SweepProgress(Console(file=io.StringIO(), width=150, force_terminal=True))
    display.begin(planned=4, skipped=0, workers=2)
    assert display.progress.live.auto_refresh is True
    assert len(display.workers) == 2
    display.end()


def test_cell_names_with_brackets_show_as_written_on_the_board_and_the_workers():
    from bounded.cli._progress import board_table

    games = [
        GameSpec(env="babyai", contract="balrog-naive", seed=1, cell=f"balrog-naive[level={lv}]",
                 experiment="multi")
        for lv in ("goto", "pickup")
    ]  # fmt: skip
    board = SweepBoard.planned(games, SweepPrices({}))
    out = io.StringIO()
    Console(file=out, width=200).print(board_table(board))
    shown = out.getvalue()
    assert "balrog-naive[level=goto]" in shown and "balrog-naive[level=pickup]" in shown
    out = io.StringIO()
    display = SweepProgress(Console(file=out, width=200))
    display.begin(planned=2, skipped=0, workers=1)
    display.started(0, games[1])
    display.end()
    assert "worker 1: balrog-naive[level=pickup] seed 1" in out.getvalue()


class Noted(SweepProgress):
    """The display, keeping every note it shows (time left, a game's decisions so far),
    with the decisions of the game in flight when each was shown."""

    def __init__(self, console: Console, archive) -> None:
        super().__init__(console, archive=archive, poll_every=0.05)
        self.notes: list[tuple[float, str]] = []
        self.began = 0.0

    def begin(self, planned: int, skipped: int, workers: int) -> None:
        self.began = time.monotonic()
        super().begin(planned, skipped, workers)
        shown = self.progress.update

        def update(task, **fields):
            if fields.get("note"):
                self.notes.append((time.monotonic() - self.began, fields["note"]))
            shown(task, **fields)

        self.progress.update = update  # type: ignore[method-assign]


def test_a_long_game_shows_its_decisions_and_the_time_left_while_it_plays(tmp_path):
    horizon = 1500
    experiment = parse_experiment(
        {
            "experiment": {"name": "long", "archive": str(tmp_path / "a.sqlite")},
            "defaults": {
                "env": "warehouse",
                "env_options": {"horizon": horizon},
                "games": 1,
                "max_decisions": horizon,
                "model": "bounded.jobs.scripted_players:counting_model",
            },
            "cells": [{"tag": "state", "contract": "state"}],
        }
    )
    display = Noted(Console(file=io.StringIO(), width=150, force_terminal=True),
                    tmp_path / "a.sqlite")  # fmt: skip
    run_sweep(experiment, events=display)
    within = [note for _, note in display.notes if note.startswith("decision ")]
    left = [(at, note) for at, note in display.notes if " left (" in note]
    assert within, "no worker line showed its game's decisions"
    played = int(within[0].split()[1].replace(",", ""))
    assert 0 < played < horizon and within[0].endswith(f"of at most {horizon:,}")
    assert left and left[0][0] < 60
    decisions_left = int(left[0][1].split("(")[1].split()[0].replace(",", ""))
    assert 0 < decisions_left < horizon  # shown while the game was still playing
