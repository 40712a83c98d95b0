"""The BabyAI bank in Python: the BabyAI recipe (`bounded.envs.babyai.bank`: minigrid's
bot's winning games on BALROG's tasks) built by the one bank builder (`bounded.jobs.bank`)."""

from __future__ import annotations

from collections.abc import Sequence

from bounded.contracts.episodic.bank import EpisodicBank, GameInfo
from bounded.env_records import BABYAI_TASKS
from bounded.envs.babyai.bank import BABYAI_ENV, babyai_bank_plan
from bounded.jobs.bank import build_bank


def babyai_bank(
    *, rounds: int = 10, keep: int | None = None, seed: int = 1_000,
    tasks: Sequence[str] = BABYAI_TASKS,
) -> tuple[EpisodicBank, list[GameInfo]]:  # fmt: skip
    """The bank of the bot's wins over `rounds` games, and every game played."""
    plan = babyai_bank_plan(rounds=rounds, keep=keep, seed=seed, tasks=tasks)
    return build_bank(BABYAI_ENV, plan)


__all__ = ["BABYAI_ENV", "babyai_bank"]
