"""The BabyAI episodic bank: minigrid's bot's winning games on BALROG's five tasks.

Game r plays task `tasks[r % len(tasks)]` with seed `seed + r`; every game the bot wins
(all of them, in practice) is kept, up to `keep`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from bounded.core import victory_of
from bounded.env_records import BABYAI_TASKS, BankGame, BankPlan, BankRecipe

BABYAI_ENV = "bounded/BabyAI-v0"


def _expert(env: Any) -> Any:
    from bounded.envs.babyai.expert import BabyAIExpert

    return BabyAIExpert(env)


def babyai_bank_plan(
    *, rounds: int = 10, keep: int | None = None, seed: int = 1_000,
    tasks: Sequence[str] = BABYAI_TASKS,
) -> BankPlan:  # fmt: skip
    """The bot's games (the module docstring); `keep` None keeps every win."""
    games = [
        BankGame({"level": tasks[r % len(tasks)]}, seed + r, "bot", _expert) for r in range(rounds)
    ]
    meta = {"env": BABYAI_ENV, "source": "BabyAIBot", "rounds": rounds, "seed": seed}
    return BankPlan(games, meta, keep=keep)


def babyai_bank_options(
    rounds: Annotated[int, typer.Option(help="Games the bot plays (tasks in turn).")] = 10,
    seed: Annotated[int, typer.Option(help="First game seed.")] = 1_000,
) -> BankPlan:
    """Build the BabyAI bank from minigrid's bot's winning games on BALROG's tasks."""
    return babyai_bank_plan(rounds=rounds, seed=seed)


def babyai_bank_report(bank: Any, played: Sequence[Any], out: Path) -> str:
    wins = sum(victory_of(game.outcome) for game in played)
    return (
        f"kept {wins} winning games of {len(played)}, {len(bank)} entries -> {out} "
        f"(sha256 {bank.content_hash})"
    )


BABYAI_BANK = BankRecipe(plan=babyai_bank_options, report=babyai_bank_report)

__all__ = ["BABYAI_BANK", "BABYAI_ENV", "babyai_bank_plan"]
