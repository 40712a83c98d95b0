"""The NetHack bank in Python: the NetHack recipe (`bounded.envs.nethack.bank`: the
scripted player's best games) built by the one bank builder (`bounded.jobs.bank`)."""

from __future__ import annotations

from bounded.contracts.episodic.bank import EpisodicBank, GameInfo
from bounded.envs.nethack.bank import NETHACK_ENV, nethack_bank_plan
from bounded.jobs.bank import build_bank


def nethack_bank(
    *, games: int = 8, keep: int = 3, max_steps: int = 1_000, seed: int = 0
) -> tuple[EpisodicBank, list[GameInfo]]:
    """The bank of the `keep` best of `games` scripted games (seeds `seed` ..), and every
    game played, best first."""
    plan = nethack_bank_plan(games=games, keep=keep, max_steps=max_steps, seed=seed)
    return build_bank(NETHACK_ENV, plan)


__all__ = ["NETHACK_ENV", "nethack_bank"]
