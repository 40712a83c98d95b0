"""A sweep's progress per cell: games completed of those planned, failures, games in
flight, prompt and completion tokens and cost so far.

One tally (`SweepBoard`) serves both displays: `bounded sweep` keeps it from the sweep's
events (`bounded.cli._live`), and `bounded view` reads it back from the archive being
written (`boards_from_archive`). For the view to know what was planned and at what
prices, a sweep stores its plan in the archive's `meta` table as it starts
(`store_plan`, key `sweep_plan:EXPERIMENT`); an experiment without one (an older sweep)
shows no totals, and its cost at the prices of scripted players only.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bounded.analysis.cost import CURRENCY, CostModel, Prices, cost_model, money
from bounded.archive import Archive
from bounded.archive.queries import meta_with_prefix, progress_runs, store_meta
from bounded.core import ConfigError, RunRecord
from bounded.runner.spec import GameKey, GameSpec, run_key
from bounded.sweeps.estimate import SweepPrices

PLAN_KEY = "sweep_plan:"
"""Prefix of the `meta` key that holds an experiment's plan (its name follows)."""


@dataclass
class CellProgress:
    """One cell's count so far."""

    cell: str
    env: str
    total: int | None = None
    """Games planned; None where the archive holds no plan."""
    completed: int = 0
    failed: int = 0
    running: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    unpriced: set[str] = field(default_factory=set)
    unpriced_planned: set[str] = field(default_factory=set)
    """The models of the cell's plan that no price covers, as the plan names them: what
    its cost reads before a game has been counted (`unpriced`, not 0)."""
    limit: int | None = None
    """The most decisions a game of the cell may take (its plan's `max_decisions`); None
    where the archive holds no plan."""
    decisions_done: int = 0
    """Decisions of the cell's completed games."""
    playing_decisions: list[int] = field(default_factory=list)
    """Decisions so far of each game in flight (`bounded.sweeps.pace`)."""
    playing_per_s: float = 0.0
    """Decisions per second of the games in flight, added up."""

    def cost_text(self, currency: str = "") -> str:
        """`0.0123 USD` (no currency: `0.0123`), or `unpriced (MODEL)`
        (`bounded.analysis.cost.money`); a cell of an unpriced model reads unpriced before
        its first game too."""
        unpriced = self.unpriced or (set() if self.cost else self.unpriced_planned)
        return money(self.cost, unpriced, currency)

    def as_json(self, currency: str = "") -> dict[str, Any]:
        return {
            "cell": self.cell,
            "env": self.env,
            "completed": self.completed,
            "total": self.total,
            "failed": self.failed,
            "running": self.running,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost": round(self.cost, 6),
            "unpriced": sorted(self.unpriced),
            "cost_text": self.cost_text(currency),
            "limit": self.limit,
            "decisions": self.decisions_done + sum(self.playing_decisions),
            "playing_decisions": list(self.playing_decisions),
        }


class SweepBoard:
    """Every cell of one experiment, in the plan's order."""

    def __init__(self, experiment: str, prices: SweepPrices | None = None) -> None:
        self.experiment = experiment
        self.prices = prices or SweepPrices()
        self.cells: dict[str, CellProgress] = {}

    @classmethod
    def planned(cls, games: Sequence[GameSpec], prices: SweepPrices) -> SweepBoard:
        """The board of a plan's games, nothing played yet."""
        board = cls(games[0].experiment if games else "", prices)
        for spec in games:
            cell = board.cell(spec.cell, spec.env)
            cell.total = (cell.total or 0) + 1
            cell.limit = max(cell.limit or 0, spec.max_decisions)
            models = {spec.model, *spec.models.values()}
            cell.unpriced_planned.update(m for m in models if prices.prices(m) is None)
        return board

    def cell(self, name: str, env: str) -> CellProgress:
        if name not in self.cells:
            self.cells[name] = CellProgress(cell=name, env=env)
        return self.cells[name]

    def started(self, spec: GameSpec) -> None:
        self.cell(spec.cell, spec.env).running += 1

    def finished(self, run: RunRecord, *, was_running: bool = True) -> None:
        """A game ended (completed or failed): its tokens and cost join its cell's."""
        cell = self.cell(run.cell, run.env_id)
        if was_running:
            cell.running = max(0, cell.running - 1)
        self.count(cell, run)

    def count(self, cell: CellProgress, run: RunRecord) -> None:
        if run.status == "completed":
            cell.completed += 1
            cell.decisions_done += run.decisions
        elif run.status == "failed":
            cell.failed += 1
        else:
            cell.running += 1
            cell.playing_decisions.append(run.decisions)
            cell.playing_per_s += decisions_per_s(run, time.time())
        cell.prompt_tokens += run.prompt_tokens
        cell.completion_tokens += run.completion_tokens
        cost, unpriced = self.prices.cost(run.usage)
        cell.cost += cost
        cell.unpriced.update(unpriced)

    def totals(self) -> CellProgress:
        """Every cell's counts added up (the cell named `all`)."""
        total = CellProgress(cell="all", env="")
        known = [c.total for c in self.cells.values()]
        total.total = None if None in known else sum(t or 0 for t in known)
        for cell in self.cells.values():
            for name in ("completed", "failed", "running", "prompt_tokens", "completion_tokens",
                         "decisions_done", "playing_per_s", "cost"):  # fmt: skip
                setattr(total, name, getattr(total, name) + getattr(cell, name))
            total.playing_decisions += cell.playing_decisions
            total.unpriced |= cell.unpriced
            total.unpriced_planned |= cell.unpriced_planned
        return total

    def as_json(self) -> dict[str, Any]:
        return {
            "experiment": self.experiment,
            "currency": self.prices.currency,
            "cells": [cell.as_json(self.prices.currency) for cell in self.cells.values()],
            "total": self.totals().as_json(self.prices.currency),
        }


def decisions_per_s(run: RunRecord, now: float) -> float:
    """A game in flight's decisions per second since it started (a resumed game's count
    from its first start: slower than it plays now)."""
    elapsed = now - run.started_at
    return run.decisions / elapsed if run.started_at and elapsed > 0 else 0.0


def seeded(board: SweepBoard, runs: Iterable[RunRecord], planned: set[GameKey]) -> None:
    """Count the archive's completed games of the plan already played."""
    for run in runs:
        if run.status == "completed" and run_key(run) in planned:
            board.count(board.cell(run.cell, board_env(board, run)), run)


def board_env(board: SweepBoard, run: RunRecord) -> str:
    known = board.cells.get(run.cell)
    return known.env if known is not None else run.env_id


def store_plan(archive: Archive, board: SweepBoard) -> None:
    """Record the plan (cells, their environments and game counts) and the prices, for
    `bounded view` to read back."""
    value = {
        "cells": [
            [c.cell, c.env, c.total, c.limit, sorted(c.unpriced_planned)]
            for c in board.cells.values()
        ],
        "prices": {model: p.model_dump() for model, p in board.prices.table.items()},
        "currency": board.prices.currency,
    }
    store_meta(archive, PLAN_KEY + board.experiment, json.dumps(value, sort_keys=True))


def stored_plans(archive: Archive) -> dict[str, SweepBoard]:
    """Experiment -> its board as planned, from the plans sweeps stored."""
    boards = {}
    for key, stored in meta_with_prefix(archive, PLAN_KEY).items():
        experiment = key[len(PLAN_KEY) :]
        value = json.loads(stored)
        table = {m: Prices(**p) for m, p in value.get("prices", {}).items()}
        prices = SweepPrices(table, value.get("currency", CURRENCY))
        board = SweepBoard(experiment, prices)
        for name, env, total, *rest in value.get("cells", []):  # older plans: fewer fields
            cell = board.cell(name, env)
            cell.total, cell.limit = total, (rest or [None])[0]
            cell.unpriced_planned = set(rest[1] if len(rest) > 1 else ())
        boards[experiment] = board
    return boards


def stored_costs(archive: Archive, experiments: Iterable[str]) -> CostModel:
    """The prices the sweeps of `experiments` stored (`bounded.sweeps.board.store_plan`),
    laid on one another; two experiments pricing one model apart is an error."""
    plans = stored_plans(archive)
    costs = CostModel()
    seen: dict[str, tuple[str, Prices]] = {}
    for name in sorted(set(experiments)):
        board = plans.get(name)
        if board is None or not board.prices.table:
            continue
        for model, prices in board.prices.table.items():
            other = seen.setdefault(model, (name, prices))
            if other[1] != prices:
                raise ConfigError(
                    f"experiments {other[0]} and {name} price {model} apart: "
                    "name the prices with --prices FILE"
                )
        source = f"the [prices] of experiment {name} (stored by its sweep)"
        costs = costs.with_prices(board.prices.table, source, board.prices.currency)
    return costs


def archive_costs(
    archive: Archive,
    runs: Iterable[RunRecord],
    specs: Sequence[str] = (),
    files: Sequence[str | Path] = (),
) -> CostModel:
    """A command's prices: `files` (`--prices`: paths or shipped price files' names), else
    the prices the sweeps of the runs' experiments stored (their experiment files'
    `[prices]`, `stored_costs`); `specs` (`--price MODEL=...`) over either. Nothing else:
    a model none of them prices is unpriced (`bounded.analysis.cost`)."""
    if files:
        return cost_model(specs, files)
    base = stored_costs(archive, {run.experiment for run in runs if run.experiment})
    return cost_model(specs, base=base)


def boards_from_archive(archive: Archive) -> list[SweepBoard]:
    """Each experiment's board as the archive has it now (every run of the experiment,
    completed, failed or in flight), in the order experiments first appear."""
    boards = stored_plans(archive)
    order: list[str] = []
    for run in progress_runs(archive):  # the columns it counts, not every run's settings
        if not run.experiment:
            continue
        if run.experiment not in order:
            order.append(run.experiment)
        board = boards.setdefault(run.experiment, SweepBoard(run.experiment))
        board.count(board.cell(run.cell, board_env(board, run)), run)
    order += [name for name in boards if name not in order]
    return [boards[name] for name in order]


__all__ = [
    "CellProgress",
    "SweepBoard",
    "archive_costs",
    "boards_from_archive",
    "seeded",
    "store_plan",
    "stored_costs",
    "stored_plans",
]
