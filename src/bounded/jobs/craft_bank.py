"""The craft bank (EpicStar's bootstrap) in Python: the craft recipe
(`bounded.envs.craft.bank`) built by the one bank builder (`bounded.jobs.bank`), with a
report of what was played and kept."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from bounded.contracts.episodic.bank import EpisodicBank, GameInfo
from bounded.core import JSON
from bounded.envs.craft.bank import CRAFT_BANK_KEEP, CRAFT_BANK_MAP, CRAFT_ENV, craft_bank_plan
from bounded.jobs.bank import build_bank, record_game, record_spec


class BootstrapReport(BaseModel):
    """What a bank bootstrap played and kept."""

    games: list[GameInfo]
    """Every game played, won or not (`game` is the round number)."""
    kept: int
    """Games kept in the bank (the wins)."""
    entries: int
    """Entries in the bank."""
    content_hash: str
    """The bank's SHA-256."""


def bootstrap_craft_bank(
    *,
    levels: Sequence[int] = (6, 7),
    rounds: int = 20,
    map_name: str = CRAFT_BANK_MAP,
    styles: Sequence[str] = ("timing", "rush", "power", "macro", "air"),
    builds: Sequence[str] = ("gateway", "robo"),
    seed: int = 0,
    keep: int | None = CRAFT_BANK_KEEP,
    archive: Any = None,
    step: JSON | None = None,
) -> tuple[EpisodicBank, BootstrapReport]:
    """EpicStar's bank: the craft expert plays up to `rounds` games (in all, over every
    level), the wins are kept (`bounded.envs.craft.bank`: which games, at which step).
    `keep` caps the number of kept wins (the paper's 5; None keeps every win); once `keep`
    wins are kept no further round is played."""
    plan = craft_bank_plan(
        levels=levels, rounds=rounds, map_name=map_name, styles=styles, builds=builds,
        seed=seed, keep=keep, step=step,
    )  # fmt: skip
    bank, played = build_bank(CRAFT_ENV, plan, archive=archive)
    report = BootstrapReport(
        games=played, kept=len(bank.game_info), entries=len(bank), content_hash=bank.content_hash
    )
    return bank, report


__all__ = [
    "CRAFT_BANK_KEEP",
    "CRAFT_BANK_MAP",
    "BootstrapReport",
    "bootstrap_craft_bank",
    "record_game",
    "record_spec",
]
