"""The demo: the warehouse stream at several horizons, `transcript` beside `state`, one seed.

It shows the project's point in one table: under `state` the last prompt stays the same
size whatever the horizon; under `transcript` it grows with every event.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from rich.console import Console
from rich.table import Table

from bounded.contracts import make_contract
from bounded.core import Model
from bounded.envs import make
from bounded.models import make_model
from bounded.runner.episode import run_episode

DEMO_CONTRACTS = ("transcript", "state")


class DemoRow(BaseModel):
    horizon: int
    contract: str
    accuracy: float
    prompt_tokens: int
    last_prompt_tokens: int
    fallbacks: int
    seconds: float
    run_id: str


def run_warehouse(
    llm: Model, contract: str, horizon: int, *, seed: int, archive: Any = None, tag: str = "demo"
) -> DemoRow:
    env = make("warehouse", horizon=horizon)
    record = run_episode(
        env, make_contract(contract), llm, seed=seed, env_id="warehouse", tag=tag, archive=archive
    )
    fallbacks = (
        0
        if archive is None
        else sum(d.fallback for d in archive.decisions(record.run_id, with_segments=False))
    )
    return DemoRow(
        horizon=horizon,
        contract=contract,
        accuracy=record.outcome["accuracy"],
        prompt_tokens=record.prompt_tokens,
        last_prompt_tokens=record.last_prompt_tokens,
        fallbacks=fallbacks,
        seconds=record.wall_s,
        run_id=record.run_id,
    )


def run_demo(
    model: str | Model,
    horizons: list[int],
    *,
    seed: int,
    archive: Any = None,
    base_url: str | None = None,
    console: Console | None = None,
) -> list[DemoRow]:
    llm = make_model(model, base_url=base_url) if isinstance(model, str) else model
    rows = []
    for horizon in horizons:
        for contract in DEMO_CONTRACTS:
            row = run_warehouse(llm, contract, horizon, seed=seed, archive=archive)
            if console is not None:
                console.print(
                    f"T={horizon:<3} {contract:<10} accuracy {row.accuracy:.2f}  "
                    f"last prompt {row.last_prompt_tokens} tokens  {row.seconds:.1f}s"
                )
            rows.append(row)
    return rows


def demo_table(rows: list[DemoRow]) -> Table:
    table = Table(title="warehouse stream: transcript vs state (same seed)")
    for column in (
        "T",
        "contract",
        "accuracy",
        "total prompt tokens",
        "last-step prompt tokens",
        "seconds",
    ):
        table.add_column(column, justify="right" if column != "contract" else "left")
    for row in rows:
        table.add_row(
            str(row.horizon), row.contract, f"{row.accuracy:.2f}", str(row.prompt_tokens),
            str(row.last_prompt_tokens), f"{row.seconds:.1f}",
        )  # fmt: skip
    return table
