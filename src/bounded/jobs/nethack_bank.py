"""The NetHack episodic bank: the scripted player's best games.

No scripted game wins NetHack, so EpicStar's "winning games" become the games that
progressed furthest: the explore-and-descend player (`NetHackExpert`) plays `games`
seeded games of at most `max_steps` decisions, and the `keep` best by BALROG's
progression (then deepest level, then in-game score) enter the bank.
"""

from __future__ import annotations

from bounded.contracts.episodic.bank import BankEntry, EpisodicBank, GameInfo
from bounded.envs import make
from bounded.envs.nethack.expert import NetHackExpert
from bounded.jobs.craft_bank import record_game

NETHACK_ENV = "bounded/NetHack-v0"


def _rank(info: GameInfo) -> tuple[float, float, float]:
    outcome = info.outcome
    return (
        float(outcome.get("progression", 0.0)),
        float(outcome.get("max_depth", 1)),
        float(outcome.get("score", 0)),
    )


def nethack_bank(
    *, games: int = 8, keep: int = 3, max_steps: int = 1_000, seed: int = 0
) -> tuple[EpisodicBank, list[GameInfo]]:
    """The bank of the `keep` best of `games` scripted games (seeds `seed` ..), and every
    game played, best first."""
    played: list[tuple[GameInfo, list[BankEntry]]] = []
    options = {"max_steps": max_steps}
    for number in range(games):
        env = make(NETHACK_ENV, **options)
        try:
            info, entries = record_game(
                env, NetHackExpert(seed + number), seed=seed + number, options=options,
                strategy="explore-descend", max_steps=max_steps,
            )  # fmt: skip
        finally:
            env.close()
        played.append((info.model_copy(update={"game": number, "entries": len(entries)}), entries))
    played.sort(key=lambda game: _rank(game[0]), reverse=True)
    meta = {"env": NETHACK_ENV, "source": "NetHackExpert", "games": games, "keep": keep}
    meta |= {"max_steps": max_steps, "seed": seed, "kept_by": "progression, depth, score"}
    bank = EpisodicBank.from_games(played[:keep], meta=meta)
    return bank, [info for info, _ in played]


__all__ = ["NETHACK_ENV", "nethack_bank"]
