"""The demos.

- `spire`: one game of the deck-building roguelike under the typed contract on the embedded
  model, with a progress bar over floors and a summary of what the prompts held per layer.
- `warehouse`: the inventory stream at several horizons, `transcript` beside `state`, one
  seed: under `state` the last prompt stays the same size whatever the horizon; under
  `transcript` it grows with every event. Both reply `constrained` (`DEMO_REPLY`): one
  decoding for both, so the rows differ by memory alone.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from bounded.core import DecisionRecord, Observation, RunRecord
from bounded.envs.spire import REPLY_TOKENS
from bounded.protocols import Model
from bounded.runner.build import build_model, play
from bounded.runner.spec import GameSpec, make_spec

DEMO_CONTRACTS = ("transcript", "state")
DEMO_REPLY = "constrained"
"""The warehouse demo's reply mode, the same for both contracts (`state`'s own default is
SKILL.state's free text, which the embedded 135M model rarely writes readably)."""


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
    spec = GameSpec(
        env="warehouse", env_options={"horizon": horizon}, contract=contract,
        contract_config={"reply": DEMO_REPLY}, seed=seed, tag=tag,
    )  # fmt: skip
    record = play(spec, archive=archive, model=llm)
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


def demo_model(model: str | Model, base_url: str | None) -> Model:
    """One model for every game of a demo (the embedded model loads once)."""
    if isinstance(model, str):
        return build_model(make_spec(env="warehouse", model=model, base_url=base_url))
    return model


def run_demo(
    model: str | Model,
    horizons: list[int],
    *,
    seed: int,
    archive: Any = None,
    base_url: str | None = None,
    console: Console | None = None,
) -> list[DemoRow]:
    llm = demo_model(model, base_url)
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


SPIRE_REPLY_TOKENS = REPLY_TOKENS
"""The spire game's reply token limit (`bounded.envs.spire.REPLY_TOKENS`)."""

SPIRE_FLOORS_PER_ACT = 16
"""15 rooms and a boss; the floor counter in spire observations runs across acts."""


class SpireDemoResult(BaseModel):
    run: RunRecord
    tokens_by_layer: dict[str, int]
    max_prompt_tokens: int
    fallbacks: int


def player_hp(state: dict[str, Any]) -> str:
    """`hp/max_hp` from a spire observation's state (the player's, under `player`)."""
    player = state.get("player", {})
    return f"{player.get('hp', '-')}/{player.get('max_hp', '-')}"


def run_spire_demo(
    model: str | Model,
    *,
    acts: int = 1,
    contract: str = "typed",
    seed: int = 1,
    ascension: int = 0,
    archive: Any = None,
    base_url: str | None = None,
    console: Console | None = None,
) -> SpireDemoResult:
    """One spire game (Act 1 by default) under `contract`, with a progress bar over floors."""
    spec = GameSpec(
        env="spire", env_options={"acts": acts, "ascension": ascension}, contract=contract,
        seed=seed, tag=f"demo-{contract}", max_tokens=SPIRE_REPLY_TOKENS,
    )  # fmt: skip
    llm = demo_model(model, base_url)
    layers: dict[str, int] = {}
    peak, fallbacks = 0, 0
    floors = acts * SPIRE_FLOORS_PER_ACT
    with Progress(
        TextColumn("[bold]spire[/] act {task.fields[act]}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("floors · {task.fields[decisions]} decisions · HP {task.fields[hp]}"),
        TimeElapsedColumn(),
        console=console,
        disable=console is None,
    ) as progress:
        bar = progress.add_task("floors", total=floors, act=1, decisions=0, hp="-")

        def observe(record: DecisionRecord, obs: Observation) -> None:
            nonlocal peak, fallbacks
            for layer, tokens in record.tokens_by_layer.items():
                layers[layer] = layers.get(layer, 0) + tokens
            peak = max(peak, record.prompt_tokens)
            fallbacks += record.fallback
            state = obs.state
            hp = player_hp(state)
            floor = min(int(state.get("floor", 0)), floors)
            progress.update(
                bar, completed=floor, act=state.get("act", "-"), decisions=record.index + 1, hp=hp
            )

        run = play(spec, archive=archive, model=llm, observer=observe)
    return SpireDemoResult(
        run=run, tokens_by_layer=layers, max_prompt_tokens=peak, fallbacks=fallbacks
    )


def spire_summary(result: SpireDemoResult, archive_path: Any) -> Table:
    run, outcome = result.run, result.run.outcome
    table = Table(title=f"spire under {run.contract} on {run.model}, seed {run.seed}")
    table.add_column("", style="bold")
    table.add_column("value", justify="right")
    verdict = "victory" if outcome.get("victory") else "defeat"
    table.add_row("outcome", f"{verdict} (score {outcome.get('score', 0):.1f})")
    table.add_row("floor / act", f"{outcome.get('floor')} / {outcome.get('act')}")
    table.add_row("HP", str(outcome.get("hp")))
    table.add_row("decisions / model calls", f"{run.decisions} / {run.model_calls}")
    table.add_row("fallback actions", str(result.fallbacks))
    table.add_row("prompt tokens (total)", f"{run.prompt_tokens:,}")
    for layer, tokens in result.tokens_by_layer.items():
        share = tokens / max(1, sum(result.tokens_by_layer.values()))
        table.add_row(f"  {layer}", f"{tokens:,} ({share:.0%})")
    mean = run.prompt_tokens / max(1, run.model_calls)
    table.add_row(
        "prompt tokens per call (mean / max)", f"{mean:,.0f} / {result.max_prompt_tokens:,}"
    )
    table.add_row("wall time", f"{run.wall_s / 60:.1f} min")
    table.add_row("archive", escape(f"{archive_path} (run {run.run_id[:12]})"))
    return table
