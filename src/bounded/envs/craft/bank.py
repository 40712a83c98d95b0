"""The craft episodic bank (EpicStar's): the expert's winning games.

Round r plays level `levels[r % len(levels)]`, style `styles[r % len(styles)]` and expert
build `builds[(r // len(levels)) % len(builds)]` (the entries' strategy), so every level
meets every build, with seed `seed + r`, at the one-action step the bank records as its
`protocol`. Play stops once `keep` wins are kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer

from bounded.env_records import BankGame, BankPlan, BankRecipe, env_record

CRAFT_ENV = "bounded/Craft-v0"
CRAFT_BANK_MAP = "highlands"
"""The map banks are collected on; the paper's protocol evaluates on the other maps."""
CRAFT_BANK_KEEP = 5
"""Winning games a craft bank keeps (the paper's bank holds five)."""


def _expert(build: str, _env: Any) -> Any:
    from bounded.envs.craft import CraftExpert

    return CraftExpert(build)


def craft_bank_plan(
    *,
    levels: Sequence[int] = (6, 7),
    rounds: int = 20,
    map_name: str = CRAFT_BANK_MAP,
    styles: Sequence[str] = ("timing", "rush", "power", "macro", "air"),
    builds: Sequence[str] = ("gateway", "robo"),
    seed: int = 0,
    keep: int | None = CRAFT_BANK_KEEP,
    step: Mapping[str, Any] | None = None,
) -> BankPlan:
    """The craft bank's games (the module docstring) at `step` (default: the record's
    one-action step); `keep` None keeps every win."""
    record = env_record(CRAFT_ENV)
    default_step = record.one_action_step if record is not None else {}
    protocol = dict(default_step if step is None else step)
    games = []
    for round_ in range(rounds):
        options = {
            "level": levels[round_ % len(levels)],
            "style": styles[round_ % len(styles)],
            "map": map_name,
            **protocol,
        }
        build = builds[(round_ // len(levels)) % len(builds)]
        games.append(BankGame(options, seed + round_, build, partial(_expert, build)))
    meta = {
        "env": CRAFT_ENV,
        "source": "CraftExpert",
        "levels": list(levels),
        "rounds": rounds,
        "map": map_name,
        "seed": seed,
        "protocol": protocol,
    }
    return BankPlan(games, meta, keep=keep, stop_when_kept=True)


def craft_bank_options(
    levels: Annotated[list[int] | None, typer.Option(help="Built-in AI levels to play.")] = None,
    rounds: Annotated[
        int,
        typer.Option(
            help="Games the expert plays at most, in all (levels in turn); play stops once "
            "--keep wins are kept."
        ),
    ] = 20,
    map_name: Annotated[
        str, typer.Option("--map", help="Map the bank is collected on.")
    ] = CRAFT_BANK_MAP,
    seed: Annotated[int, typer.Option(help="First game seed.")] = 0,
    keep: Annotated[
        int, typer.Option(help="Winning games kept (the paper's 5); 0 keeps every win.")
    ] = CRAFT_BANK_KEEP,
) -> BankPlan:
    """Bootstrap the craft bank from the expert's winning games, played at the paper's
    one-action step (decision_interval=3, max_actions=1), which the bank records."""
    return craft_bank_plan(
        levels=tuple(levels or (6, 7)), rounds=rounds, map_name=map_name, seed=seed,
        keep=keep or None,
    )  # fmt: skip


def craft_bank_report(bank: Any, games: Sequence[Any], out: Path) -> str:
    lines = [f"{'round':>5}  {'level':>5}  {'style':<7} {'build':<8} {'outcome':<8} {'entries':>7}"]
    for game in games:
        lines.append(
            f"{game.game:>5}  {game.options['level']:>5}  {game.options['style']:<7} "
            f"{game.strategy:<8} {game.outcome.get('outcome', '?'):<8} {game.entries:>7}"
        )
    lines.append(
        f"kept {len(bank.game_info)} of {len(games)} games, {len(bank)} entries -> {out}"
        f" (sha256 {bank.content_hash})"
    )
    return "\n".join(lines)


CRAFT_BANK = BankRecipe(plan=craft_bank_options, report=craft_bank_report)

__all__ = ["CRAFT_BANK", "CRAFT_BANK_KEEP", "CRAFT_BANK_MAP", "craft_bank_plan"]
