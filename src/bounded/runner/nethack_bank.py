"""The NetHack episodic bank: the scripted player's best games.

No scripted game wins NetHack, so EpicStar's "winning games" become the games that
progressed furthest: the explore-and-descend player (`NetHackExpert`) plays `games`
seeded games of at most `max_steps` decisions, and the `keep` best by BALROG's
progression (then deepest level, then in-game score) enter the bank.
"""

from __future__ import annotations

from pathlib import Path

from bounded.contracts.episodic.bank import BankEntry, EpisodicBank, GameInfo
from bounded.envs import make
from bounded.envs.nethack.expert import NetHackExpert
from bounded.runner.bank import record_game

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


def build_nethack_bank_command(
    out: str | Path = "runs/banks/nethack.npz",
    *,
    games: int = 8,
    keep: int = 3,
    max_steps: int = 1_000,
    seed: int = 0,
) -> str:
    """`bounded bank nethack`: build the bank, save it, and describe the games played."""
    bank, infos = nethack_bank(games=games, keep=keep, max_steps=max_steps, seed=seed)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    bank.save(out)
    lines = [f"{'seed':>5}  {'progression':>11}  {'depth':>5}  {'xl':>3}  {'score':>6}  ended by"]
    for info in infos:
        o = info.outcome
        lines.append(
            f"{info.seed:>5}  {o.get('progression', 0):>11.4f}  {o.get('max_depth', 1):>5}  "
            f"{o.get('max_experience_level', 1):>3}  {o.get('score', 0):>6}  {o.get('ended_by')}"
        )
    lines.append(
        f"kept the best {min(keep, len(infos))} of {len(infos)} games, {len(bank)} entries "
        f"-> {out} (sha256 {bank.content_hash})"
    )
    return "\n".join(lines)


__all__ = ["NETHACK_ENV", "build_nethack_bank_command", "nethack_bank"]
