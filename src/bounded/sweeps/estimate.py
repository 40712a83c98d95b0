"""What a sweep will cost before it starts, and what it has spent while it runs.

**Prices.** A sweep prices each model by its id or spec (`openai:gpt-4.1`) from the
experiment file's `[prices]` table (and `--price MODEL=INPUT,CACHED,OUTPUT`); `default`
there prices every other model. Scripted players and `none` (`scripted:*`, `expert:*`,
`none`) cost 0. A model priced nowhere is **unpriced**: its cost is not guessed from a
list price, the estimate says so, and `--budget` refuses to start.

**Estimates** (`estimate_cells`), per cell, per game, labelled as estimates:

- from the cell's archived completed games, when it has some (the survey has checked
  that they are the games the file plans): their mean model calls and tokens per model;
- else from a **dry game**: the cell's first game to play, played in this process by the
  schema-filling scripted model (`scripted:minimal`, the cell's tiers the same way), no
  archive, stores copied to a temporary directory, at most `DRY_DECISIONS` decisions.
  Calls and prompt tokens are the contract's own prompts as assembled for the
  environment's game, every decision and every call the contract makes itself; the
  prompt tokens are counted as the scripted model counts them (`approx_tokens`), replies
  are priced at `max_tokens` each (an upper bound) and nothing as cached. Where the length
  of a game depends on how it is played (spire, craft), it is the length the dry game's
  play gives.

**Budget** (`Budget`): a sweep with `--budget X` starts a game only while the cost of the
games it played plus the estimates of those in flight and of the next one stay within X
(a cell not estimated yet, one reading a phase's store before the phase is frozen, is
taken at the dearest cell's estimate); games in flight finish; what was not started is
played by the next sweep.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from bounded.analysis.cost import CURRENCY, PER_MILLION, Prices, money, parse_price, price_of
from bounded.core import ConfigError, RunRecord
from bounded.runner.spec import GameSpec

DRY_DECISIONS = 5_000
"""The longest dry game, in decisions (a capped game's estimate is a lower bound)."""

COUNTS = ("calls", "prompt_tokens", "completion_tokens", "cached_tokens")
TOKEN_KEYS = ("prompt_tokens", "cached_tokens", "completion_tokens")

Usage = dict[str, dict[str, float]]
"""Model -> {calls, prompt_tokens, completion_tokens, cached_tokens}, as `RunRecord.usage`."""


class SweepPrices:
    """Prices per model for a sweep (see the module's docstring), in `currency`."""

    def __init__(self, table: Mapping[str, Prices] | None = None, currency: str = CURRENCY) -> None:
        self.table = dict(table or {})
        self.currency = currency

    @classmethod
    def of(
        cls, table: Mapping[str, Prices], specs: Iterable[str] = (), currency: str = CURRENCY
    ) -> SweepPrices:
        """The file's `[prices]` with `--price` specs over them."""
        return cls({**table, **dict(parse_price(spec) for spec in specs)}, currency)

    def prices(self, model: str) -> Prices | None:
        """The model's prices (`bounded.analysis.cost.price_of`); None when unpriced."""
        return price_of(self.table, model)

    def cost(self, usage: Mapping[str, Mapping[str, Any]]) -> tuple[float, list[str]]:
        """The cost of a usage, and the models in it that have no price."""
        total, unpriced = 0.0, []
        for model, counts in usage.items():
            prices = self.prices(model)
            if prices is None:
                unpriced.append(model)
                continue
            prompt, cached, completion = (float(counts.get(k, 0)) for k in TOKEN_KEYS)
            fresh = prompt - cached
            total += (
                fresh * prices.input + cached * prices.cached_input + completion * prices.output
            ) / PER_MILLION
        return total, sorted(unpriced)


def add_usage(total: Usage, usage: Mapping[str, Mapping[str, Any]], times: float = 1.0) -> None:
    for model, counts in usage.items():
        mine = total.setdefault(model, dict.fromkeys(COUNTS, 0.0))
        for key in COUNTS:
            mine[key] += times * float(counts.get(key, 0))


class CellEstimate(BaseModel):
    """One cell's (or phase's) estimate."""

    cell: str
    """The cell, as its games name it."""
    name: str
    """The cell's name in the file (`cells.TAG[horizon=10]`, `phases.NAME`)."""
    games: int
    """Games still to play."""
    per_game: Usage = Field(default_factory=dict)
    """Estimated usage of one game, per model."""
    source: str = ""
    """Where the estimate comes from."""
    error: str | None = None
    """Why there is no estimate."""

    def total(self, key: str) -> float:
        return self.games * sum(counts.get(key, 0.0) for counts in self.per_game.values())


def archived_usage(runs: list[RunRecord]) -> Usage:
    """Mean usage per game over archived runs."""
    total: Usage = {}
    for run in runs:
        add_usage(total, run.usage or {run.model: run_counts(run)}, 1 / len(runs))
    return total


def run_counts(run: RunRecord) -> dict[str, float]:
    return {
        "calls": run.model_calls,
        "prompt_tokens": run.prompt_tokens,
        "completion_tokens": run.completion_tokens,
        "cached_tokens": run.cached_tokens,
    }


def dry_spec(spec: GameSpec, scratch: Path) -> GameSpec:
    """The spec of a dry game: capped, its store copied into `scratch` (a dry game must
    never write a real store)."""
    config = dict(spec.contract_config)
    store = config.get("store_dir")
    if store is not None:
        copy = scratch / "store"
        if Path(str(store)).is_dir():
            shutil.copytree(str(store), copy)
        config["store_dir"] = str(copy)
    decisions = min(spec.max_decisions, DRY_DECISIONS)
    return spec.model_copy(
        update={"contract_config": config, "max_decisions": decisions, "model_options": {}}
    )


def dry_game(spec: GameSpec) -> tuple[Usage, str]:
    """Play `spec` with the schema-filling model (see the module's docstring): its usage
    (replies priced at `max_tokens`) and a label."""
    from bounded.models.scripted import schema_filler
    from bounded.runner.build import build_game, runner_for

    with tempfile.TemporaryDirectory(prefix="bounded-dry-") as scratch:
        dry = dry_spec(spec, Path(scratch))
        fillers = {model: schema_filler(id=model) for model in {dry.model, *dry.models.values()}}
        game = build_game(
            dry,
            model=fillers[dry.model],
            models={kind: fillers[model] for kind, model in dry.models.items()},
        )
        try:
            run = runner_for(game).execute()
        finally:
            game.env.close()
    usage: Usage = {}
    add_usage(usage, run.usage)
    for counts in usage.values():
        counts["completion_tokens"] = counts["calls"] * spec.max_tokens
        counts["cached_tokens"] = 0.0
    capped = run.decisions >= dry.max_decisions and dry.max_decisions < spec.max_decisions
    label = f"dry game of seed {spec.seed}, {run.decisions} decisions"
    return usage, label + (" (capped: at least)" if capped else "")


def estimate_cells(
    pending: list[GameSpec], archived: list[RunRecord], where: Callable[[str], str]
) -> list[CellEstimate]:
    """An estimate per cell with games to play, in plan order (`where`: a cell's name in
    the file)."""
    cells: dict[str, list[GameSpec]] = {}
    for spec in pending:
        cells.setdefault(spec.cell, []).append(spec)
    done: dict[str, list[RunRecord]] = {}
    for run in archived:
        if run.status == "completed":
            done.setdefault(run.cell, []).append(run)
    found = []
    for cell, specs in cells.items():
        entry = CellEstimate(cell=cell, name=where(cell), games=len(specs))
        if done.get(cell):
            entry.per_game = archived_usage(done[cell])
            entry.source = f"mean of {len(done[cell])} archived games"
        else:
            try:
                entry.per_game, entry.source = dry_game(specs[0])
            except Exception as exc:  # a contract that cannot start yet (a phase not frozen)
                entry.error = f"{type(exc).__name__}: {exc}"
        found.append(entry)
    return found


class Budget:
    """A sweep's spending limit: games start only while what was spent, the estimates of
    the games in flight and that of the next game stay within `limit`."""

    def __init__(
        self, limit: float | None, prices: SweepPrices, per_game: Mapping[str, Usage]
    ) -> None:
        self.limit, self.prices, self.per_game = limit, prices, dict(per_game)
        self.spent = 0.0
        self.unpriced: list[str] = []
        self.in_flight: dict[int, float] = {}
        self.refused = 0
        """Games not started because of the limit."""
        self.stop_reason = ""
        """What the first refusal weighed, when the games in flight took part in it."""

    def estimate(self, spec: GameSpec) -> float:
        """A game's estimated cost; a cell without an estimate (one reading a phase's
        store that was not frozen yet) takes the dearest of the others."""
        usage = self.per_game.get(spec.cell)
        if usage is not None:
            return self.prices.cost(usage)[0]
        return max((self.prices.cost(u)[0] for u in self.per_game.values()), default=0.0)

    def may_start(self, spec: GameSpec) -> bool:
        if self.limit is None:
            return True
        flight, next_game = sum(self.in_flight.values()), self.estimate(spec)
        if self.spent + flight + next_game > self.limit:
            if not self.refused and flight and self.spent + next_game <= self.limit:
                games = len(self.in_flight)
                self.stop_reason = (
                    f"the estimate of the {games} game{'s' * (games != 1)} in flight "
                    f"({flight:.4f}) plus the next game's ({next_game:.4f}) would pass it"
                )
            self.refused += 1
            return False
        return True

    def started(self, slot: int, spec: GameSpec) -> None:
        self.in_flight[slot] = self.estimate(spec)

    def finished(self, slot: int, run: RunRecord) -> None:
        self.in_flight.pop(slot, None)
        cost, unpriced = self.prices.cost(run.usage)
        self.spent += cost
        self.unpriced = sorted({*self.unpriced, *unpriced})

    def line(self) -> str:
        """Spend so far, for the progress display."""
        text = f"spent {money(self.spent, self.unpriced, self.prices.currency)}"
        return text + (f" of {self.limit:g}" if self.limit is not None else "")


def check_budget(limit: float | None, prices: SweepPrices, models: Iterable[str]) -> None:
    """A budget needs every model priced: one line naming the first that is not."""
    if limit is None:
        return
    if limit < 0:
        raise ConfigError(f"--budget must be at least 0, got {limit:g}")
    for model in sorted(set(models)):
        if prices.prices(model) is None:
            raise ConfigError(
                f"--budget: no price set for model {model!r} (add it to the file's [prices], "
                "or give --price MODEL=INPUT,CACHED,OUTPUT)"
            )


__all__ = [
    "DRY_DECISIONS",
    "Budget",
    "CellEstimate",
    "SweepPrices",
    "check_budget",
    "dry_game",
    "estimate_cells",
]
