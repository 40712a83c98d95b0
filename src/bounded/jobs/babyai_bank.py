"""The BabyAI episodic bank: minigrid's bot's winning games on BALROG's five tasks.

Game r plays task `tasks[r % len(tasks)]` with seed `seed + r`; every game the bot wins
(all of them, in practice) is kept, up to `keep`.
"""

from __future__ import annotations

from collections.abc import Sequence

from bounded.contracts.episodic.bank import BankEntry, EpisodicBank, GameInfo
from bounded.core import victory_of
from bounded.envs import make
from bounded.envs.babyai.env import TASKS, BabyAIEnv
from bounded.envs.babyai.expert import BabyAIExpert
from bounded.jobs.craft_bank import record_game

BABYAI_ENV = "bounded/BabyAI-v0"


def babyai_bank(
    *, rounds: int = 10, keep: int | None = None, seed: int = 1_000,
    tasks: Sequence[str] = tuple(TASKS),
) -> tuple[EpisodicBank, list[GameInfo]]:  # fmt: skip
    """The bank of the bot's wins over `rounds` games, and every game played."""
    played: list[GameInfo] = []
    kept: list[tuple[GameInfo, list[BankEntry]]] = []
    for round_ in range(rounds):
        options = {"level": tasks[round_ % len(tasks)]}
        env = make(BABYAI_ENV, **options)
        assert isinstance(env, BabyAIEnv)
        try:
            info, entries = record_game(
                env, BabyAIExpert(env), seed=seed + round_, options=options, strategy="bot"
            )
        finally:
            env.close()
        played.append(info.model_copy(update={"game": round_, "entries": len(entries)}))
        if victory_of(info.outcome) and (keep is None or len(kept) < keep):
            kept.append((info, entries))
    meta = {"env": BABYAI_ENV, "source": "BabyAIBot", "rounds": rounds, "seed": seed}
    return EpisodicBank.from_games(kept, meta=meta), played


__all__ = ["BABYAI_ENV", "babyai_bank"]
